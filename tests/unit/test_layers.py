"""The layers of the core package, as the README's layout section draws them:
handler (functions/) -> use case (mzpay.cases, mzpay.collection) -> shared steps (mzpay.steps)
-> domain rules (mzpay.domain) -> stores and connectors (mzpay.store, mzpay.connectors).

Checked on the import statements of every module (lazy imports inside functions included)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "python" / "mzpay"
USE_CASES = (
    "mzpay.cases",
    "mzpay.collection.licence",
    "mzpay.collection.identity_providers",
    "mzpay.collection.devices",
    "mzpay.collection.collection_methods",
    "mzpay.collection.collection_requests",
    "mzpay.collection.payment_links",
    "mzpay.collection.payment_methods",
    "mzpay.collection.transactions",
)
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module `path` imports (`from mzpay import deps` counts as mzpay.deps)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in names if name.startswith("mzpay")}


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def under(name: str, *packages: str) -> bool:
    return any(name == package or name.startswith(package + ".") for package in packages)


def offenders(layer: tuple[str, ...], forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    found = {}
    for name, path in MODULES.items():
        if under(name, *layer):
            bad = sorted(i for i in imports_of(path) if under(i, *forbidden) and not under(i, name))
            if bad:
                found[name] = bad
    return found


def test_the_package_has_the_layers_the_readme_names() -> None:
    for package in ("mzpay.cases", "mzpay.steps", "mzpay.domain", "mzpay.store", "mzpay.connectors", "mzpay.http"):
        assert package in MODULES, package
    assert {"mzpay.cases.charges", "mzpay.cases.checkout", "mzpay.cases.expiry", "mzpay.cases.refunds"} <= set(MODULES)


def test_use_cases_never_import_http() -> None:
    assert offenders((*USE_CASES, "mzpay.steps"), ("mzpay.http",)) == {}


def test_http_never_imports_a_use_case_or_a_step() -> None:
    assert offenders(("mzpay.http",), (*USE_CASES, "mzpay.steps")) == {}


def test_steps_domain_stores_and_connectors_never_import_a_use_case() -> None:
    lower = ("mzpay.steps", "mzpay.domain", "mzpay.store", "mzpay.connectors", "mzpay.webhooks")
    assert offenders(lower, USE_CASES) == {}


def test_the_domain_imports_neither_stores_nor_connectors() -> None:
    assert offenders(("mzpay.domain",), ("mzpay.store", "mzpay.connectors", "mzpay.steps")) == {}


@pytest.mark.parametrize("case", sorted(name for name in MODULES if under(name, "mzpay.cases")))
def test_a_use_case_imports_no_sibling(case: str) -> None:
    siblings = tuple(name for name in MODULES if under(name, "mzpay.cases") and name not in (case, "mzpay.cases"))
    assert sorted(i for i in imports_of(MODULES[case]) if under(i, *siblings)) == []


def test_no_module_of_the_layer_is_over_400_lines() -> None:
    """Every module of the shipped layer (layers/core/python/mzpay), answer models included."""
    long = {name: n for name, path in MODULES.items() if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_every_import_of_the_package_names_a_module_that_exists() -> None:
    """mypy ignores missing imports (third-party stubs); a moved module must not hide behind that."""
    missing = {}
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            wanted = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mzpay"):
                wanted = [node.module]
            elif isinstance(node, ast.Import):
                wanted = [alias.name for alias in node.names if alias.name.startswith("mzpay")]
            absent = [module for module in wanted if module not in MODULES]
            if absent:
                missing.setdefault(name, []).extend(absent)
    assert missing == {}

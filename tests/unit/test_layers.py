"""The layers of the core package (docs/architecture.md, "Layers", draws them): LAYERS states, for
every package of mzpay, which packages it may import; every pair of packages is therefore either
allowed in one direction or in neither, and the table itself has no cycle. The import graph is
built from the source with ast: module-level imports, imports inside functions, `if TYPE_CHECKING:`
imports (an annotation that names an upper layer couples the two as much as a call does) and
`mzpay.lazy.deferred("mzpay.x")`. The test fails on any import the table does not allow, on
any cycle between modules and on any cycle between the capability folders of domain/."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "python" / "mzpay"
MAX_LINES = 400

# Bottom to top. Each package may import the packages listed (and its own modules), nothing else.
BASE = frozenset({"mzpay", "lazy", "memo", "config", "observability"})
LAYERS: dict[str, frozenset[str]] = {
    "lazy": frozenset(),  # modules loaded on first use
    "memo": frozenset(),  # once / remembered / reset: the caches every layer above uses
    "mzpay": frozenset({"lazy"}),  # the package's __init__
    "config": frozenset({"memo"}),  # the settings: the only reader of the environment
    "observability": frozenset({"config"}),  # logs and metrics
    "domain": BASE,  # pure rules
    "ports": BASE | {"domain"},  # what one use-case package reaches of another; what a connector implements
    "connectors": BASE | {"domain", "ports"},  # what we call out to: payment providers, identity providers, HTTP
    "store": BASE | {"domain", "connectors"},  # DynamoDB, SQS, S3, KMS, Secrets Manager
    "deps": BASE | {"domain", "connectors", "store", "ports"},  # builds every store and connector once per environment
    "webhooks": BASE | {"domain", "connectors", "store", "deps"},  # signing, delivering
    "steps": BASE | {"domain", "connectors", "store", "deps", "webhooks"},  # shared steps of use cases
    "fanout": BASE | {"domain", "connectors", "store", "deps", "webhooks", "steps"},  # the event stream's fan-out
    "messages": BASE | {"domain"},  # what people read: the messages' templates and catalogues
    "answers": BASE | {"domain"},  # the answers as typed models: what use cases return, what OpenAPI documents
    "http": BASE
    | {"domain", "connectors", "store", "deps", "answers", "messages"},  # HTTP plumbing: schemas, authorizers, pages
    "openapi": BASE | {"domain", "http", "answers"},  # the route tables and the models not yet in answers
    "version": BASE | {"deps"},  # health and version reports
    "cases": BASE
    | {"domain", "connectors", "store", "deps", "webhooks", "steps", "fanout", "ports", "answers", "openapi"}
    | {"messages"},
    "collection": BASE
    | {"domain", "connectors", "store", "deps", "webhooks", "steps", "fanout", "ports", "answers", "openapi"},
    "operators": BASE
    | {"domain", "connectors", "store", "deps", "webhooks", "steps", "fanout", "ports", "answers", "openapi"},
    "dashboard": BASE  # the merchant dashboard's use cases: the gateway's, with a merchant user as the actor
    | {"domain", "connectors", "store", "deps", "webhooks", "steps", "fanout", "ports", "answers", "cases"}
    | {"operators"},  # webhook deliveries (read, replay): the management API's only, scoped to the user's account
    "entry": BASE
    | {"domain", "connectors", "store", "deps", "webhooks", "steps", "fanout", "ports", "http", "answers", "openapi"}
    | {"messages"}
    | {"cases", "collection", "operators"},  # the composition root: binds the ports, wires the use cases
}


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules_of(root: Path) -> dict[str, Path]:
    return {module_name(path, root): path for path in sorted(root.rglob("*.py"))}


def imported_names(source: str) -> Iterator[str]:
    """Every mzpay name `source` imports, wherever the import stands (functions and
    TYPE_CHECKING blocks included), and every `deferred("mzpay.x")`."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "deferred" and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield first.value


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """module -> the modules of the package it imports (`from mzpay.x import name` is mzpay.x
    unless mzpay.x.name is a module)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in imported_names(path.read_text()):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def violations(graph: Mapping[str, set[str]], layers: Mapping[str, frozenset[str]]) -> dict[str, list[str]]:
    """module -> the imports its package may not make (upward, sideways, or of a package the
    table does not know)."""
    found = {}
    for module, targets in graph.items():
        own = package_of(module)
        allowed = layers.get(own, frozenset())
        bad = sorted(t for t in targets if package_of(t) != own and package_of(t) not in allowed)
        if bad or own not in layers:
            found[module] = bad or ["(package not in LAYERS)"]
    return found


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


MODULES = modules_of(PACKAGE)
GRAPH = import_graph(MODULES)


# ---------------------------------------------------------------- the table
def test_the_table_names_every_package_of_the_layer() -> None:
    assert {package_of(name) for name in MODULES} <= set(LAYERS)


def test_the_table_allows_each_pair_one_way_at_most() -> None:
    """No cycle in the table itself: a package never reaches itself through what it may import."""
    assert all(set(allowed) <= set(LAYERS) for allowed in LAYERS.values())
    table_graph = {name: set(allowed) for name, allowed in LAYERS.items()}
    assert cycles(table_graph) == []
    assert all(name not in allowed for name, allowed in LAYERS.items())


# ---------------------------------------------------------------- the code
def test_no_import_climbs_a_layer_or_crosses_to_a_sibling() -> None:
    assert violations(GRAPH, LAYERS) == {}


def test_the_import_graph_has_no_cycle() -> None:
    assert cycles(GRAPH) == []


def domain_folders(graph: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """The capability folders of mzpay.domain (payments, payouts, common, ...) and the folders
    each one's modules import (its own left out)."""

    def folder(module: str) -> str | None:
        parts = module.split(".")
        return parts[2] if len(parts) > 3 and parts[1] == "domain" else None

    folders: dict[str, set[str]] = {}
    for module, targets in graph.items():
        if (own := folder(module)) is not None:
            found = folders.setdefault(own, set())
            found.update(f for t in targets if (f := folder(t)) is not None and f != own)
    return folders


def test_the_domain_folders_import_each_other_without_cycles() -> None:
    """domain/ is one layer grouped by capability (common, money, payments, payouts, ...): its
    folders may import each other, one way only, so no two capabilities lean on each other."""
    folders = domain_folders(GRAPH)
    assert {"common", "payments", "payouts"} <= set(folders)
    assert cycles(folders) == []
    assert folders["common"] == set()


def test_a_cycle_between_domain_folders_fails() -> None:
    """Two folders whose modules import each other's, with no cycle between the modules."""
    graph = {
        "mzpay.domain.a.x": {"mzpay.domain.b.y"},
        "mzpay.domain.b.z": {"mzpay.domain.a.w"},
        "mzpay.domain.a.w": set(),
        "mzpay.domain.b.y": set(),
    }
    assert cycles(graph) == []
    assert cycles(domain_folders(graph)) == [["a", "b"]]


def test_the_checks_fail_on_a_synthetic_violation(tmp_path: Path) -> None:
    """A domain module importing a store, a store importing deps through TYPE_CHECKING, a step
    loading a use case with deferred(), and two modules importing each other inside functions."""
    root = tmp_path / "mzpay"
    files = {
        "__init__.py": "",
        "domain/__init__.py": "",
        "domain/rules.py": "from mzpay.store.things import Things\n",
        "store/__init__.py": "",
        "store/things.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mzpay.deps import things\n",
        "deps.py": "",
        "steps/__init__.py": "",
        "steps/late.py": "from mzpay.lazy import deferred\ncases = deferred('mzpay.cases.charges')\n",
        "lazy.py": "",
        "cases/__init__.py": "",
        "cases/charges.py": "def f():\n    from mzpay.cases import refunds\n",
        "cases/refunds.py": "def g():\n    from mzpay.cases.charges import f\n",
        "rogue/__init__.py": "",
    }
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(textwrap.dedent(text))
    graph = import_graph(modules_of(root))
    assert violations(graph, LAYERS) == {
        "mzpay.domain.rules": ["mzpay.store.things"],
        "mzpay.store.things": ["mzpay.deps"],
        "mzpay.steps.late": ["mzpay.cases.charges"],
        "mzpay.rogue": ["(package not in LAYERS)"],
    }
    assert cycles(graph) == [["mzpay.cases.charges", "mzpay.cases.refunds"]]


def test_the_package_has_the_layers_the_readme_names() -> None:
    for package in ("mzpay.cases", "mzpay.steps", "mzpay.domain", "mzpay.store", "mzpay.connectors", "mzpay.http"):
        assert package in MODULES, package
    assert {"mzpay.cases.charges", "mzpay.cases.checkout", "mzpay.cases.expiry", "mzpay.cases.refunds"} <= set(MODULES)


USE_CASES = sorted(name for name in MODULES if package_of(name) in ("cases", "operators") and name.count(".") > 1)


@pytest.mark.parametrize("case", USE_CASES)
def test_a_use_case_imports_no_sibling(case: str) -> None:
    """A gateway or operators' use case imports no other use case of its package."""
    package = f"mzpay.{package_of(case)}"
    siblings = {name for name in MODULES if name.startswith(package + ".") and name != case}
    assert sorted(GRAPH[case] & siblings) == []


def test_no_module_of_the_layer_is_over_400_lines() -> None:
    """Every module of the shipped layer (layers/core/python/mzpay), answer models included, but
    mzpay.deps: a flat registry of one seven-line factory per store (devstack.code_reach reads
    its shape), whose length grows with the stores, not with what any one of them does."""
    long = {
        name: n
        for name, path in MODULES.items()
        if name != "mzpay.deps" and (n := len(path.read_text().splitlines())) > MAX_LINES
    }
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

"""mzpay.lazy.reexports_on_use: a package whose __init__ only re-exports its submodules' names
loads a submodule on first use of one of them; Powertools' event handler and event sources are
made so by mzpay's package init, so an API function loads neither asyncio nor every resolver."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mzpay.lazy import reexports_on_use

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def packages(tmp_path: Path) -> Iterator[Path]:
    """A folder on sys.path for made-up packages, forgotten afterwards."""
    sys.path.insert(0, str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in set(sys.modules) - before:
        del sys.modules[name]


def make(root: Path, name: str, init: str, **modules: str) -> None:
    (root / name).mkdir()
    (root / name / "__init__.py").write_text(init, encoding="utf-8")
    for module, source in modules.items():
        (root / name / f"{module}.py").write_text(source, encoding="utf-8")


def test_a_reexporting_package_loads_each_submodule_on_first_use(packages: Path) -> None:
    make(
        packages,
        "shop",
        '"""A shop."""\nfrom shop.heavy import Heavy\nfrom .light import Light, light as brief\n'
        '__all__ = ["Heavy", "Light"]\n',
        heavy="class Heavy: ...\n",
        light="class Light: ...\ndef light() -> str:\n    return 'light'\n",
    )
    assert reexports_on_use("shop") is True
    import shop  # type: ignore[import-not-found]

    assert "shop.heavy" not in sys.modules and "shop.light" not in sys.modules
    from shop import Light  # type: ignore[import-not-found]

    assert Light is sys.modules["shop.light"].Light and shop.brief() == "light"
    assert "shop.heavy" not in sys.modules
    assert shop.Heavy is sys.modules["shop.heavy"].Heavy
    assert {"Heavy", "Light", "brief"} <= set(dir(shop)) and shop.__all__ == ["Heavy", "Light"]
    with pytest.raises(AttributeError, match="module 'shop' has no attribute 'Missing'"):
        _ = shop.Missing
    assert reexports_on_use("shop") is False  # already imported: left as it is


@pytest.mark.parametrize(
    "init",
    [
        "from shop2.a import A\nSETTING = 1\n",  # does more than re-export
        "from shop2.a import A\nprint('side effect')\n",
        "from os import path\n",  # re-exports another package's name
        "from shop2.a import *\n",  # names unknown until run
        "from . import a\n",
    ],
)
def test_any_other_init_runs_as_written(packages: Path, init: str) -> None:
    make(packages, "shop2", init, a="class A: ...\n")
    assert reexports_on_use("shop2") is False and "shop2" not in sys.modules
    assert reexports_on_use("no_such_package_here") is False


_PROBE = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import app
import aws_lambda_powertools.event_handler as handlers, aws_lambda_powertools.utilities.data_classes as sources
loaded = {name: name in sys.modules for name in ("asyncio", "aws_lambda_powertools.event_handler.appsync",
          "aws_lambda_powertools.utilities.data_classes.code_pipeline_job_event")}
same = all(getattr(handlers, name) is not None for name in handlers.__all__)
same = same and all(getattr(sources, name) is not None for name in sources.__all__)
print(json.dumps({"loaded": loaded, "resolved": same, "all": len(handlers.__all__) + len(sources.__all__)}))
"""


def test_an_api_function_loads_only_the_resolver_it_uses() -> None:
    """In a fresh interpreter, as Lambda would: fails when a Powertools upgrade changes its inits."""
    env = {"SERVICE_REGION": "mz", "STAGE": "prod", "AWS_DEFAULT_REGION": "af-south-1", "PATH": "/usr/bin:/bin"}
    code = ROOT / "functions" / "gateway_payments"
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, str(code), str(ROOT / "layers" / "core" / "python")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert found["loaded"] == {
        "asyncio": False,
        "aws_lambda_powertools.event_handler.appsync": False,
        "aws_lambda_powertools.utilities.data_classes.code_pipeline_job_event": False,
    }
    assert found["resolved"] is True and found["all"] > 40


API_FUNCTIONS = sorted(
    path.parent
    for path in (ROOT / "functions").glob("*/app.py")
    if path.parent.name.startswith(("gateway_", "collection_", "management_"))
    and not path.parent.name.endswith("_authorizer")
)


@pytest.mark.parametrize("function", API_FUNCTIONS, ids=[f.name for f in API_FUNCTIONS])
def test_every_api_function_imports_mzpay_before_powertools(function: Path) -> None:
    """Else Powertools' real package inits run first and the cold start pays for every resolver."""
    import ast

    imported = [
        node.module or ""
        for node in ast.parse((function / "app.py").read_text(encoding="utf-8")).body
        if isinstance(node, ast.ImportFrom)
    ]
    first_mzpay = next(i for i, name in enumerate(imported) if name.startswith("mzpay"))
    assert [name for name in imported[:first_mzpay] if name.startswith("aws_lambda_powertools")] == []


def test_modules_imported_inside_deferred_imports_run_on_first_use(packages: Path) -> None:
    """A handler's preamble (mzpay.lazy.deferred_imports): the package is imported, each module
    named is bound at once and runs when first used; the block leaves no finder behind."""
    from mzpay.lazy import deferred_imports

    ran = "import cases\ncases.RAN.append(__name__)\nNAME = __name__\n"
    make(packages, "cases", "RAN = []\n", charges=ran, refunds=ran)
    finders = list(sys.meta_path)
    with deferred_imports():
        from cases import charges, refunds  # type: ignore[import-not-found]

    assert sys.meta_path == finders
    ran_so_far = sys.modules["cases"].RAN
    assert sys.modules["cases.charges"] is charges and ran_so_far == []  # bound, not run
    assert charges.NAME == "cases.charges" and ran_so_far == ["cases.charges"]  # run by its first use
    import cases.refunds  # type: ignore[import-not-found]  # an ordinary import later: the same module

    assert cases.refunds is refunds and refunds.NAME == "cases.refunds"
    assert ran_so_far == ["cases.charges", "cases.refunds"]

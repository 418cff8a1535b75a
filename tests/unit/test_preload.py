"""What the local Lambda service's fork server imports ahead (devstack.preload): only modules
whose import reads nothing of the environment, so that a function's environment, set after the
fork, is the one everything it builds sees; and a function with another copy of the layer runs
its own copy, not the fork server's."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from devstack.preload import LIBRARIES, READS_ENVIRONMENT_AT_IMPORT, layer_modules
from devstack.worker import _forget_other_copies

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "layers" / "core" / "python"
# pydantic's own switch, read when the first model is built: no function sets it, so reading it
# once in the fork server reads what each environment would.
PROCESS_WIDE = {"PYDANTIC_DISABLE_PLUGINS"}

# Imports LIBRARIES, then the chosen layer modules with os.environ replaced by a mapping that
# records every read; prints the reads the layer's imports made.
WATCH = textwrap.dedent(
    """
    import importlib, json, os, sys, traceback
    libraries, modules, layer = json.loads(sys.argv[1])
    for name in libraries:
        importlib.import_module(name)
    sys.path.insert(0, layer)
    reads = []

    class Watched(dict):
        def _read(self, what):
            frames = [f for f in traceback.extract_stack() if f.filename.startswith(layer)]
            where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "a library"
            reads.append(f"{what} at {where}")

        def __getitem__(self, key):
            self._read(key)
            return super().__getitem__(key)

        def get(self, key, default=None):
            self._read(key)
            return super().get(key, default)

        def __contains__(self, key):
            self._read(key)
            return super().__contains__(key)

        def __iter__(self):
            self._read("the whole environment")
            return super().__iter__()

        def items(self):
            self._read("the whole environment")
            return super().items()

        def copy(self):
            self._read("the whole environment")
            return super().copy()

    os.environ = Watched(os.environ)
    for name in modules:
        importlib.import_module(name)
    print(json.dumps(reads))
    """
)


def test_the_layer_modules_imported_ahead_read_nothing_of_the_environment() -> None:
    modules = layer_modules([LAYER])
    arguments = json.dumps([LIBRARIES, modules, str(LAYER)])
    done = subprocess.run(
        [sys.executable, "-c", WATCH, arguments], capture_output=True, text=True, check=True, cwd=ROOT
    )
    reads = json.loads(done.stdout.strip().splitlines()[-1])
    assert [read for read in reads if read.split(" at ")[0] not in PROCESS_WIDE] == [], (
        "a module imported ahead by the local Lambda fork server reads the environment while imported: "
        "name it in devstack.preload.READS_ENVIRONMENT_AT_IMPORT"
    )


def test_a_module_that_reads_the_environment_and_whatever_imports_it_are_left_to_each_environment() -> None:
    modules = set(layer_modules([LAYER]))
    assert not modules & READS_ENVIRONMENT_AT_IMPORT
    assert "mzpay.entry" not in modules  # it imports mzpay.observability, whose Logger reads the environment
    assert {"mzpay.answers.payments", "mzpay.domain.payments.charges", "mzpay.config"} <= modules


def test_the_choice_follows_relative_and_package_imports(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "env.py").write_text("import os\nNAME = os.environ['X']\n")
    (package / "plain.py").write_text("VALUE = 1\n")
    (package / "uses_env.py").write_text("from . import env\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "deep.py").write_text("def later():\n    from .. import env\n")  # not at import
    (package / "sub" / "indirect.py").write_text("from ..uses_env import *\n")
    deferred = "import contextlib\nwith contextlib.suppress():\n    import pkg.env\n"  # counted as imported
    (package / "sub" / "under_with.py").write_text(deferred)
    import devstack.preload as preload

    original = preload.READS_ENVIRONMENT_AT_IMPORT
    preload.READS_ENVIRONMENT_AT_IMPORT = frozenset({"pkg.env"})
    try:
        chosen = layer_modules([tmp_path])
    finally:
        preload.READS_ENVIRONMENT_AT_IMPORT = original
    assert chosen == ["pkg", "pkg.plain", "pkg.sub", "pkg.sub.deep"]


def test_a_function_with_another_copy_of_the_layer_drops_the_fork_servers_copy(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for root in (ours, theirs):
        (root / "layerpkg_for_test").mkdir(parents=True)
        (root / "layerpkg_for_test" / "__init__.py").write_text(f"WHERE = {str(root)!r}\n")
    sys.path.insert(0, str(theirs))
    try:
        import layerpkg_for_test  # noqa: F401 - what the fork server imported ahead

        _forget_other_copies([str(theirs)])
        assert "layerpkg_for_test" in sys.modules  # its own copy: kept
        _forget_other_copies([str(ours)])
        assert "layerpkg_for_test" not in sys.modules  # another copy: dropped, to be imported again
    finally:
        sys.path.remove(str(theirs))
        sys.modules.pop("layerpkg_for_test", None)

"""Import a function's handler file by path: every function's file is app.py, so each gets a
module name of its own (for tests, benchmarks and the OpenAPI generator)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_module(path: Path, name: str) -> ModuleType:
    """The module in `path`, imported as `name` (registered in sys.modules while it runs, so
    pydantic and dataclasses can resolve its annotations; removed again if it fails)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module

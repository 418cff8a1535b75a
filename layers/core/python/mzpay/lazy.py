"""Use-case modules loaded on first use: a function's handler names every use case its routes
call, but a cold start pays only for the ones the request it serves touches (the body models
and plumbing that route registration needs are imported as usual)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def deferred(name: str) -> ModuleType:
    """The module `name`, executed on first attribute access (importlib.util.LazyLoader); the
    module already loaded when something imported it first."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module

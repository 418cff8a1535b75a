"""Modules loaded on first use: a function's handler names every use case its routes call, but a
cold start pays only for the ones the request it serves touches (the body models and plumbing
that route registration needs are imported as usual); and packages whose `__init__` only
re-exports their submodules' names load a submodule when one of its names is first used."""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any


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


class _Deferring(importlib.abc.MetaPathFinder):
    """Finds a module as the other finders do and has it executed on first attribute access;
    a package (and so the parent of the modules named) is imported as usual."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec: importlib.machinery.ModuleSpec | None = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and spec.submodule_search_locations is None:
                    spec.loader = importlib.util.LazyLoader(spec.loader)
                return spec
        return None


@contextmanager
def deferred_imports() -> Iterator[None]:
    """The modules first imported inside the block are `deferred`: a handler imports the use cases
    its routes call as usual (`with deferred_imports(): from mzpay.cases import charges`), typed
    and read like any import, and a cold start loads only those the request touches."""
    finder = _Deferring()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def reexports_on_use(package: str) -> bool:
    """Stand in for `package`'s `__init__` when all it does is re-export names of its submodules
    (`from .x import A`, `__all__`): each name is imported from its submodule on first use, so
    importing one submodule no longer loads every sibling. Powertools' `event_handler` re-exports
    every resolver (AppSync's loads asyncio) and `data_classes` every event source, about 25 ms of
    a function's cold start that no API function uses. Anything else in the `__init__`, or the
    package already imported: the real `__init__` stays (False)."""
    if package in sys.modules:
        return False
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None or spec.submodule_search_locations is None:
        return False
    names = _reexported(package, Path(spec.origin).read_text(encoding="utf-8"))
    if names is None:
        return False
    module = importlib.util.module_from_spec(spec)
    exported, public = names

    def __getattr__(name: str) -> Any:
        if name not in exported:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        origin, original = exported[name]
        value = getattr(importlib.import_module(origin), original)
        setattr(module, name, value)
        return value

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    module.__dir__ = lambda: sorted({*exported, *vars(module)})  # type: ignore[method-assign]
    module.__all__ = public  # type: ignore[attr-defined]
    sys.modules[package] = module
    parent, _, child = package.rpartition(".")
    if parent:
        setattr(importlib.import_module(parent), child, module)
    return True


def _reexported(package: str, source: str) -> tuple[dict[str, tuple[str, str]], list[str]] | None:
    """{name: (submodule, its name there)} and __all__ of an `__init__` that only re-exports;
    None otherwise."""
    exported: dict[str, tuple[str, str]] = {}
    public: list[str] = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level in (0, 1):
            origin = node.module if node.level == 0 else f"{package}.{node.module}"
            if not origin.startswith(f"{package}.") or any(alias.name == "*" for alias in node.names):
                return None
            exported.update({alias.asname or alias.name: (origin, alias.name) for alias in node.names})
        elif isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
            public = list(ast.literal_eval(node.value))
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):  # the docstring
            return None
    return exported, public

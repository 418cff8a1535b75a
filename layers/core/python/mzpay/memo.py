"""The caches of mzpay.deps (its factories are built once and forgotten by `reset()`) and the
substitution of a dependency by an in-memory fake; mzpay.deps re-exports every name here."""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

DEPS = "mzpay.deps"
SUBSTITUTABLE = (DEPS, "mzpay.config")  # the factories mzpay.deps builds or re-exports (settings)
Built = TypeVar("Built")
_forget: list[Callable[[], None]] = []
_substitutes: dict[str, Any] = {}


def once(factory: Callable[..., Built]) -> Callable[..., Built]:
    """`factory`'s result, built on first use and kept (per arguments) until `reset()`."""
    cached = functools.cache(factory)
    _forget.append(cached.cache_clear)
    if factory.__module__ not in SUBSTITUTABLE:
        return cached
    name = factory.__name__

    @functools.wraps(factory)
    def provided(*args: Any) -> Built:
        if _substitutes and name in _substitutes:
            return _substitutes[name]  # type: ignore[no-any-return]
        return cached(*args)

    return provided


@contextlib.contextmanager
def substitute(**fakes: Any) -> Iterator[None]:
    """Within the block, `deps.<name>()` answers `fakes[name]` (e.g. an in-memory store)."""
    unknown = [name for name in fakes if not callable(getattr(sys.modules[DEPS], name, None))]
    if unknown:
        raise KeyError(f"no dependency named {', '.join(unknown)}")
    saved = dict(_substitutes)
    _substitutes.update(fakes)
    try:
        yield
    finally:
        _substitutes.clear()
        _substitutes.update(saved)


def remembered(maxsize: int) -> Callable[[Callable[..., Built]], Callable[..., Built]]:
    """A bounded memo (lru_cache) that `reset()` also forgets."""

    def decorate(function: Callable[..., Built]) -> Callable[..., Built]:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        _forget.append(cached.cache_clear)
        return cached

    return decorate


def on_reset(forget: Callable[[], None]) -> None:
    """Have `reset()` also call `forget` (a module's own memo, e.g. cached overrides)."""
    _forget.append(forget)


def reset() -> None:
    """Forget every built dependency and registered cache (and Powertools' parameter cache)."""
    for forget in _forget:
        forget()
    parameters = sys.modules.get("aws_lambda_powertools.utilities.parameters")
    if parameters is not None:
        parameters.clear_caches()

"""What the two families of the connector test kit share: the charging connectors
(test_connector_kit.py) and the bill suppliers (test_bill_supplier_kit.py). Each family binds
its connector or supplier to its sandbox in a `Harness` (one fixture style: a context manager
per connector yielding one), and the clauses both families run are checked here once."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Generic, TypeVar

import pytest

SLOW, PATIENCE = 1.0, 0.3  # the sandboxes' slow answers, and how long the connectors wait
IDS = iter(f"01JD3M6Y8Q7T3Y5F0ZC9W3B{n:03d}" for n in range(1000))

C = TypeVar("C")


@dataclass
class Harness(Generic[C]):
    """A connector (or bill supplier) bound to its sandbox for one test."""

    connector: C
    secrets: tuple[str, ...] = ()
    wire: Callable[[str], dict[str, Any]] = lambda reference: {}  # a request as the provider got it
    callbacks: Any = None  # a CallbackReceiver, for the connectors that take callbacks
    sandbox: Any = None


def skip_without_callbacks(name: str, harness: Harness[Any]) -> None:
    if harness.callbacks is None:
        pytest.skip(f"{name} answers synchronously: it takes no callbacks")


def assert_on_the_wire(sent: dict[str, Any], expected: dict[str, Any]) -> None:
    assert {key: sent.get(key) for key in expected} == expected


@dataclass
class Logged:
    """What was logged meanwhile: the structured `logger` lines of the modules, and caplog's."""

    caplog: pytest.LogCaptureFixture
    lines: list[str]

    def text(self) -> str:
        return " ".join(self.lines) + " ".join(f"{r.getMessage()} {r.__dict__}" for r in self.caplog.records)


@contextmanager
def logged(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, modules: tuple[ModuleType, ...]
) -> Iterator[Logged]:
    """Records every line logged in the block: standard logging, and the structured `logger` of `modules`."""
    lines: list[str] = []

    class Recorder:
        def info(self, message: str, extra: dict[str, Any]) -> None:
            lines.append(f"{message} {extra!r}")

        warning = info

    for module in modules:
        monkeypatch.setattr(module, "logger", Recorder())
    with caplog.at_level(logging.DEBUG):
        yield Logged(caplog, lines)


def assert_no_secret(logged: str, harness: Harness[Any]) -> None:
    for secret in harness.secrets:
        assert secret not in logged
        assert secret not in repr(harness.connector)

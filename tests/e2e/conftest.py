"""End-to-end tests: the local stack in a subprocess, spoken to over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from devstack.launcher import ROOT, RunningStack, start
from tests.e2e.test_webhooks import Receiver
from tests.receivers import serving

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    """The product stack (template.yaml, both regions), shared by the session."""
    running = start(tmp_path_factory.mktemp("stack"))
    yield running
    running.interrupt()


@pytest.fixture(scope="session")
def fixture_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    """The local stack running tests/fixtures/devstack/template.yaml (event sources, edge cases)."""
    folder = ROOT / "tests" / "fixtures" / "devstack"
    running = start(
        tmp_path_factory.mktemp("fixture"),
        envs="mz",
        template=folder / "template.yaml",
        samconfig=folder / "samconfig.toml",
    )
    yield running
    running.interrupt()


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    """A webhook receiver on loopback (tests/e2e/test_webhooks.Receiver), for the module."""
    with serving(Receiver()) as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium driven by Playwright (tests/e2e/browsers.py), for the module."""
    from tests.e2e.browsers import chromium

    with chromium() as launched:
        yield launched

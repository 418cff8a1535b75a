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


# The product stack stops a function after three times its timeout: test workers, each with a
# stack, share two cores, and a function's wall clock counts its wait for a CPU (a burst of twenty
# requests starts dozens of environments at once), which Lambda, a CPU per environment, does not.
# Stopping a function at its own timeout is tested on the fixture stack (devstack emulation).
TIMEOUT_PATIENCE = 3.0


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    """The product stack (template.yaml, both regions), shared by the session."""
    running = start(tmp_path_factory.mktemp("stack"), timeout_patience=TIMEOUT_PATIENCE)
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

"""End-to-end tests: the local stack in a subprocess, spoken to over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devstack.launcher import ROOT, RunningStack, start


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

"""Shared by every test.

Settings: each test starts with nothing of mzpay's cached (settings included), in
an environment that names a service region as every deployed function's does.

Order: `make test` runs pytest-xdist with `--dist loadfile --no-loadscope-reorder`: each file goes, whole,
to the next free worker, in the order collected here. The slowest files go first (longest first:
the workers then finish together instead of one idling while the other runs a long file it got
last), and the e2e files before the rest, so that each worker's local stack is young when the
heavy files run (a stack keeps every item written to it; moto's scans grow with it). A run in one
process (`-n 0`) takes the same order. Within a file the tests keep their order.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from typing import Any

import pytest

from mzpay.entry import bind_gateway


class _SearchPaths(list[str]):
    """A shared loader's search paths: boto3 adds its data folder once per Session."""

    def append(self, path: str) -> None:
        if path not in self:
            super().append(path)


def _share_botocore_loaders() -> None:
    """One botocore data loader per data path for the whole test process: every test makes
    fresh sessions (mzpay.deps.reset), and each one's loader read the service models' JSON
    again (about 0.1 CPU-second per test for a handful of clients). A loader already caches
    its models for all of one session's clients; now for every session of the process. The
    local stack's processes, like Lambda's, keep one session each and are not touched."""
    import botocore.session

    make = botocore.session.create_loader

    @functools.cache
    def shared(search_path_string: str | None = None) -> Any:
        loader = make(search_path_string)
        loader._search_paths = _SearchPaths(loader.search_paths)
        return loader

    botocore.session.create_loader = shared


_share_botocore_loaders()


@pytest.fixture(autouse=True)
def fresh_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """mzpay.config reads the environment once per execution environment; a test is a new one,
    so the variables it sets (monkeypatch) before its first read are the ones it gets. A test
    that changes them after a read calls `mzpay.deps.reset()` (or `mzpay.config.reload()`).
    SERVICE_REGION defaults to mz (template.yaml sets it for every function; the settings refuse
    to be read without it, tests/unit/test_config.py)."""
    from mzpay import config

    if not os.environ.get("SERVICE_REGION"):
        monkeypatch.setenv("SERVICE_REGION", "mz")
    config.reload()
    bind_gateway()  # as functions/collection_transactions does
    yield
    config.reload()


# The slowest files, slowest first (seconds of one process on a busy 2-core machine, from the
# --durations of a whole run; docs/testing.md). Files not named here follow in collection order:
# the other e2e files, then tests/integration, then tests/unit.
SLOWEST_FIRST = (
    "tests/e2e/test_tenancy_matrix.py",
    "tests/e2e/test_fuzz.py",
    "tests/e2e/test_webhooks.py",
    "tests/e2e/test_admin_cli.py",
    "tests/e2e/test_faults.py",
    "tests/e2e/test_card_data.py",
    "tests/e2e/test_console_browser.py",
    "tests/e2e/test_checkout_browser.py",
    "tests/e2e/test_dashboard_developers_browser.py",
    "tests/e2e/test_dashboard_team_browser.py",
    "tests/e2e/test_dashboard_finance_browser.py",
    "tests/e2e/test_dashboard_home_browser.py",
    "tests/e2e/test_dashboard_payments_browser.py",
    "tests/e2e/test_dashboard_tenancy.py",
    "tests/e2e/test_collection_suspended.py",
    "tests/e2e/test_local_stack.py",
    "tests/e2e/test_access.py",
    "tests/e2e/test_charges.py",
    "tests/e2e/test_doc_examples.py",
    "tests/e2e/test_webhook_fairness.py",
)
RANK = {path: rank for rank, path in enumerate(SLOWEST_FIRST)}
LATER = {"e2e": len(RANK), "integration": len(RANK) + 1, "unit": len(RANK) + 2}


def rank_of(item: pytest.Item) -> int:
    path = item.nodeid.split("::", 1)[0]
    return RANK.get(path, LATER.get(path.split("/")[1] if path.count("/") > 1 else "", len(RANK) + 3))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=rank_of)  # stable: each file's tests keep their order

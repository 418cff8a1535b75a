"""Shared by every test: each one starts with nothing of mzpay's cached (settings included), in
an environment that names a service region as every deployed function's does."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from mzpay.entry import bind_gateway


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

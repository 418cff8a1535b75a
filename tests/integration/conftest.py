"""Integration tests run against in-process moto: fake credentials, no endpoint, fresh caches."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.support import REGION, reset_mzpay_caches


@pytest.fixture(autouse=True)
def fake_aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    reset_mzpay_caches()
    yield
    reset_mzpay_caches()

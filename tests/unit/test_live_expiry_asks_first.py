"""A live payment waiting on a provider's page (an aggregator's checkout) is asked about before it
expires: a payer who paid at the last moment is applied, not lost; anything else expires."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from mzpay.connectors.base import ProviderCall, ProviderResult
from mzpay.domain.common.errors import ServiceError
from mzpay.steps import payments as steps

SOURCE = {"type": "mobile_wallet", "mobile_wallet": {"network": "emola", "phone_number": "+258861234567"}}


class Asked:
    def __init__(self, answer: ProviderResult) -> None:
        self.answer, self.asked = answer, 0

    def status(self, call: ProviderCall) -> ProviderResult:
        self.asked += 1
        return self.answer


@pytest.fixture
def done(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    happened: list[tuple[str, Any]] = []
    monkeypatch.setattr(steps, "provider_call", lambda payment: None)
    monkeypatch.setattr(steps, "apply_outcome", lambda payment, result, now: happened.append(("applied", result)))
    monkeypatch.setattr(steps, "close", lambda payment, action, status, kind: happened.append(("closed", status)))
    return happened


def payment(mode: str = "live", status: str = "requires_action") -> Any:
    return SimpleNamespace(mode=mode, status=status, source=SOURCE)


def test_paid_at_the_last_moment_is_applied(monkeypatch: pytest.MonkeyPatch, done: list[tuple[str, Any]]) -> None:
    connector = Asked(ProviderResult("succeeded", captured=True))
    monkeypatch.setattr(steps, "connector_of", lambda p: connector)
    steps._expire(payment())
    assert (connector.asked, done) == (1, [("applied", ProviderResult("succeeded", captured=True))])


@pytest.mark.parametrize("answer", [ProviderResult("pending"), ProviderResult("failed", None, "x", "y")])
def test_anything_else_expires(
    monkeypatch: pytest.MonkeyPatch, done: list[tuple[str, Any]], answer: ProviderResult
) -> None:
    monkeypatch.setattr(steps, "connector_of", lambda p: Asked(answer))
    steps._expire(payment())
    assert done == [("closed", "expired")]


def test_test_payments_and_unbound_ones_expire_without_asking(
    monkeypatch: pytest.MonkeyPatch, done: list[tuple[str, Any]]
) -> None:
    connector = Asked(ProviderResult("succeeded", captured=True))
    monkeypatch.setattr(steps, "connector_of", lambda p: connector)
    steps._expire(payment(mode="test"))

    def unbound(p: Any) -> Any:
        raise ServiceError(409, "no_connector_binding", "unbound")

    monkeypatch.setattr(steps, "connector_of", unbound)
    steps._expire(payment())
    assert (connector.asked, done) == (0, [("closed", "expired"), ("closed", "expired")])

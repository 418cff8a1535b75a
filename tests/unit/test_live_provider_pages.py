"""Live payments that wait on a provider's own page (an aggregator's checkout): the hosted page sends
the payer on to it, and the payment asks its provider before it expires (a payer who paid at the
last moment is applied, not lost; anything else expires)."""

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


def test_the_hosted_page_sends_the_payer_on_to_the_providers_page() -> None:
    from mzpay.http.checkout_page import provider_page

    action = {"type": "redirect_to_url", "redirect_url": "https://paysuite.tech/checkout/x", "return_url": None}
    live = SimpleNamespace(mode="live", status="requires_action", next_action=action)
    assert provider_page(live) == "https://paysuite.tech/checkout/x"  # type: ignore[arg-type]
    for other in (
        SimpleNamespace(mode="test", status="requires_action", next_action=action),  # the simulator's stays ours
        SimpleNamespace(mode="live", status="succeeded", next_action=None),
        SimpleNamespace(mode="live", status="requires_action", next_action={"type": "poll"}),
        SimpleNamespace(mode="live", status="requires_action", next_action={**action, "redirect_url": "javascript:x"}),
    ):
        assert provider_page(other) is None  # type: ignore[arg-type]

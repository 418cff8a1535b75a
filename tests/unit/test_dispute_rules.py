"""Disputes' pure rules: the lifecycle table, the amount a dispute may take, the ledger movements
it makes, the bodies' bounds, and the view the answer model documents."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from mzpay.answers.disputes import Dispute as DisputeAnswer
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.evidence import MAX_FILES, MAX_TEXT_LENGTH, EvidenceRequest
from mzpay.domain.money import ledger
from mzpay.domain.payments.charges import Money
from mzpay.domain.payments.disputes import (
    DecideDisputeRequest,
    Dispute,
    OpenDisputeRequest,
    Status,
    disputed_amount,
    next_status,
    view,
)
from tests.unit.builders import moves, refused

ID = "01JDB2M4N6P8R0T2V4W6X8Y0Z2"
AT = "2026-11-26T09:00:00Z"


MOVES = {
    Status.NEEDS_RESPONSE: {
        "submit_evidence": Status.UNDER_REVIEW,
        "accept": Status.LOST,
        "won": Status.WON,
        "lost": Status.LOST,
    },
    Status.UNDER_REVIEW: {"won": Status.WON, "lost": Status.LOST},
}
REFUSED_MOVES = {
    Status.UNDER_REVIEW: {
        "submit_evidence": "Cannot submit evidence for a dispute that is under review.",
        "accept": "Cannot accept a dispute that is under review.",
    },
    Status.WON: {"lost": "Cannot decide a dispute that is won.", "accept": "Cannot accept a dispute that is won."},
    Status.LOST: {
        "won": "Cannot decide a dispute that is lost.",
        "submit_evidence": "Cannot submit evidence for a dispute that is lost.",
    },
}


@pytest.mark.parametrize(("current", "action", "after"), moves(MOVES))
def test_the_moves_the_lifecycle_allows(current: str, action: str, after: str) -> None:
    assert next_status(current, action) == after


@pytest.mark.parametrize(("current", "action", "message"), moves(REFUSED_MOVES))
def test_every_other_move_is_invalid_state(current: str, action: str, message: str) -> None:
    error = refused(lambda: next_status(current, action))
    assert (error.status, error.code, error.message) == (409, "invalid_state", message)


def test_a_dispute_takes_the_remainder_by_default_and_never_more() -> None:
    assert disputed_amount(None, "MZN", Decimal("120.50")) == Decimal("120.50")
    assert disputed_amount(Money(amount="20.00", currency="MZN"), "MZN", Decimal("120.50")) == Decimal("20.00")
    for asked, code in [
        (Money(amount="120.51", currency="MZN"), "invalid_amount"),
        (Money(amount="0.00", currency="MZN"), "invalid_amount"),
        (Money(amount="10.00", currency="USD"), "invalid_currency"),
    ]:
        with pytest.raises(ServiceError) as refused:
            disputed_amount(asked, "MZN", Decimal("120.50"))
        assert (refused.value.status, refused.value.code) == (400, code)
    with pytest.raises(ServiceError) as nothing_left:
        disputed_amount(None, "MZN", Decimal(0))
    assert nothing_left.value.message == "A dispute of this payment takes more than 0 and at most 0.00 MZN."


def test_its_ledger_movements_balance_and_opening_needs_no_available_money() -> None:
    amount = Decimal("70.00")
    opened = ledger.taken_back("dispute.created", amount)
    assert opened.legs() == {"available": -amount, "held": amount, "clearing": Decimal(0)}
    assert opened.needs_available is None  # the provider has the money already
    won, lost = ledger.released("dispute.won", amount), ledger.paid_out("dispute.lost", amount)
    assert won.legs() == {"available": amount, "held": -amount, "clearing": Decimal(0)}
    assert lost.legs() == {"available": Decimal(0), "held": -amount, "clearing": amount}
    assert all(sum(m.legs().values()) == 0 for m in (opened, won, lost))


def field_of(error: ValidationError) -> str:
    return ".".join(str(part) for part in error.errors()[0]["loc"])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"text": ""}, "text"),
        ({"text": "x" * (MAX_TEXT_LENGTH + 1)}, "text"),
        ({"text": "x", "files": [{"file_type": "pdf", "content_base64": "JVBERg=="}] * (MAX_FILES + 1)}, "files"),
        ({"text": "x", "files": [{"file_type": "gif", "content_base64": "R0lG"}]}, "files.0.file_type"),
        ({"text": "x", "extra": 1}, "extra"),
    ],
)
def test_evidence_bodies_are_bounded(body: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as refused:
        EvidenceRequest.model_validate(body)
    assert field_of(refused.value) == field


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"reason": "changed_my_mind"}, "reason"),
        ({"provider_reference": "R" * 65}, "provider_reference"),
        ({"account_id": ""}, "account_id"),
    ],
)
def test_opening_bodies_are_bounded(body: dict[str, Any], field: str) -> None:
    good = {"account_id": ID, "provider_payment_id": ID, "reason": "fraudulent"}
    with pytest.raises(ValidationError) as refused:
        OpenDisputeRequest.model_validate(good | body)
    assert field_of(refused.value) == field


def test_a_decision_note_is_printable_and_bounded() -> None:
    assert DecideDisputeRequest.model_validate({"outcome": "won", "note": " ruling "}).note == "ruling"
    for note in ["", "x" * 501, "line\nbreak"]:
        with pytest.raises(ValidationError):
            DecideDisputeRequest.model_validate({"outcome": "won", "note": note})
    with pytest.raises(ValidationError):
        DecideDisputeRequest.model_validate({"outcome": "draw", "note": "x"})


def test_the_view_is_what_the_answer_model_documents() -> None:
    dispute = Dispute(
        dispute_id=ID,
        account_id="01JD9W7X5Y3Z1A2B3C4D5E6F7G",
        mode="test",
        provider_payment_id="01JDA6Q7K2M4N6P8R0T2V4W6X8",
        status=Status.WON,
        version=3,
        amount="150",
        currency="MZN",
        reason="duplicate",
        evidence_due_by="2026-12-02T09:00:00Z",
        evidence={
            "text": "t",
            "files": [{"file_type": "pdf", "size": 9, "sha256": "ab", "key": "k"}],
            "at": "2026-11-26T08:00:00Z",
        },
        decision={
            "outcome": "won",
            "note": "n",
            "by": "operator",
            "source_ip": "10.0.0.1",
            "at": "2026-11-26T09:00:00Z",
        },
        created_at="2026-11-25T09:00:00Z",
        updated_at="2026-11-26T09:00:00Z",
    )
    shown = view(dispute)
    assert shown["money"] == {"amount": "150.00", "currency": "MZN"}
    assert "account_id" not in shown and "callback_url" not in shown
    answer = DisputeAnswer.model_validate(json.loads(json.dumps(shown)))
    assert answer.model_dump(exclude_unset=True)["status"] == "won"

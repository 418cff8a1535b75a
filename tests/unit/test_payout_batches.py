"""Payout batches' rules (mzpay.domain.payouts.batches, mzpay.http.batch_lines): the transition
table, the upload's bounds, each line judged with POST /payouts' codes, the report, the view, and
the debit_daily ceiling in the payout limits."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payouts.batches import (
    MAX_LINES,
    TRANSITIONS,
    BatchLine,
    PayoutBatchRequest,
    Status,
    batch_view,
    debit_refusal,
    debit_window,
    ensure_transition,
    judge_line,
    refusal_of,
)
from mzpay.domain.payouts.limits import PayoutLimits
from mzpay.domain.payouts.rules import PayoutRequest
from mzpay.http.batch_lines import parse_lines
from tests.unit.builders import payout_batch

WALLET = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}}
PAYOUT_ID = "01JDA6Q7K2M4N6P8R0T2V4W6X8"


def line(amount: str = "100.00", currency: str = "MZN", payout_id: str = PAYOUT_ID, **extra: Any) -> dict[str, Any]:
    return {"payout_id": payout_id, "money": {"amount": amount, "currency": currency}, "destination": WALLET, **extra}


def judged(raw: dict[str, Any], limits: PayoutLimits | None = None, seen: set[str] | None = None) -> ServiceError:
    (parsed,) = parse_lines([raw])
    if isinstance(parsed, ServiceError):
        return parsed
    with pytest.raises(ServiceError) as refused:
        judge_line(1, parsed, "MZN", limits or PayoutLimits(), seen if seen is not None else set())
    return refused.value


# ---------------------------------------------------------------- states
@pytest.mark.parametrize(
    ("status", "action", "allowed"),
    [
        (Status.OPEN, "close", {Status.CLOSED}),
        (Status.CLOSED, "release", {Status.RELEASED, Status.AWAITING_APPROVAL}),
        (Status.AWAITING_APPROVAL, "approve", {Status.RELEASED}),
        (Status.AWAITING_APPROVAL, "reject", {Status.REJECTED}),
        (Status.RELEASED, "send", {Status.SENT}),
    ],
)
def test_the_moves_a_batch_may_make(status: str, action: str, allowed: set[str]) -> None:
    assert ensure_transition(status, action) == allowed


@pytest.mark.parametrize(
    "status", [Status.OPEN, Status.AWAITING_APPROVAL, Status.RELEASED, Status.SENT, Status.REJECTED]
)
def test_releasing_a_batch_not_closed_is_invalid_state(status: str) -> None:
    with pytest.raises(ServiceError) as refused:
        ensure_transition(status, "release")
    shown = status.replace("_", " ")
    assert (refused.value.status, refused.value.code, refused.value.message) == (
        409,
        "invalid_state",
        f"Cannot release a payout batch that is {shown}.",
    )


def test_no_move_leaves_a_terminal_status() -> None:
    assert not [key for key in TRANSITIONS if key[0] in (Status.SENT, Status.REJECTED)]


# ---------------------------------------------------------------- the upload
def test_an_upload_has_one_to_max_lines_and_a_currency_of_three_letters() -> None:
    assert PayoutBatchRequest.model_validate({"currency": "MZN", "lines": [line()]}).currency == "MZN"
    for body, kind in [
        ({"currency": "MZN", "lines": []}, "too_short"),
        ({"currency": "MZN", "lines": [{}] * (MAX_LINES + 1)}, "too_long"),
        ({"currency": "mzn", "lines": [line()]}, "invalid_currency"),
        ({"currency": "MZN", "lines": [line()], "reference": "x" * 65}, "string_too_long"),
        ({"currency": "MZN", "lines": [line()], "callback_url": "ftp://x"}, "invalid_callback_url"),
        ({"currency": "MZN", "lines": [line()], "other": 1}, "extra_forbidden"),
    ]:
        with pytest.raises(ValidationError) as refused:
            PayoutBatchRequest.model_validate(body)
        assert refused.value.errors()[0]["type"] == kind


def test_a_line_is_refused_with_the_code_post_payouts_answers() -> None:
    bad_phone = judged(
        line(destination={"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+25884"}})
    )
    assert (bad_phone.status, bad_phone.code, [e.field for e in bad_phone.errors]) == (
        400,
        "invalid_phone",
        ["destination.mobile_wallet.phone_number"],
    )
    too_low = judged(line("0.50"))
    assert (too_low.code, too_low.message) == (
        "amount_too_low",
        "money.amount: the minimum for mobile_wallet payouts in MZN is 1.00.",
    )
    bad_id = judged(line(payout_id="not-an-id"))
    assert (bad_id.code, [(e.field, e.code) for e in bad_id.errors]) == (
        "invalid_request",
        [("payout_id", "invalid_value")],
    )
    assert judged(line("10.00", "USD")).code == "invalid_currency"
    ceiling = judged(line("500.00"), PayoutLimits(per_transaction={"MZN": Decimal("100.00")}))
    assert (ceiling.status, ceiling.code, ceiling.extensions) == (422, "limit_exceeded", {"rule": "per_transaction"})
    twice = judged(line(), seen={PAYOUT_ID})
    assert (twice.status, twice.code) == (409, "payout_id_reused")


def test_a_line_that_is_not_an_object_is_refused_not_the_upload() -> None:
    (parsed,) = parse_lines(["not an object"])
    assert isinstance(parsed, ServiceError) and parsed.code == "invalid_request"


def test_a_good_line_passes_and_its_id_is_remembered() -> None:
    seen: set[str] = set()
    judge_line(1, PayoutRequest.model_validate(line()), "MZN", PayoutLimits(), seen)
    assert seen == {PAYOUT_ID}


def test_the_report_entry_of_a_refused_line() -> None:
    error = judged(line("0.50"))
    assert refusal_of(4, PAYOUT_ID, error).public() == {
        "line": 4,
        "payout_id": PAYOUT_ID,
        "code": "amount_too_low",
        "message": "money.amount: the minimum for mobile_wallet payouts in MZN is 1.00.",
        "rule": None,
        "errors": [
            {
                "field": "money.amount",
                "code": "amount_too_low",
                "message": "the minimum for mobile_wallet payouts in MZN is 1.00",
            }
        ],
    }
    assert refusal_of(1, 42, error).payout_id is None  # only a string id is kept
    assert refusal_of(1, "x" * 65, error).payout_id is None


# ---------------------------------------------------------------- the view and the ceiling
def test_the_view_shows_the_payouts_only_once_sent() -> None:
    refusal = {"line": 2, "payout_id": None, "code": "invalid_request", "message": "m", "rule": None, "errors": []}
    lines = [
        BatchLine(line=1, payout_id=PAYOUT_ID, request=line(), provider_payout_id="01JD9B7F1R2S3T4V5W6X7Y8Z9B"),
        BatchLine(line=2, refusal=refusal),
    ]
    opened = batch_view(payout_batch(), lines)
    assert (opened["report"], opened["payouts"], opened["total"]) == (
        [refusal],
        None,
        {"amount": "100.00", "currency": "MZN"},
    )
    done = batch_view(payout_batch(status=Status.SENT, sent_count=1, failed_count=0), lines)
    assert done["payouts"] == [
        {"line": 1, "payout_id": PAYOUT_ID, "provider_payout_id": "01JD9B7F1R2S3T4V5W6X7Y8Z9B", "refusal": None}
    ]
    assert "report" not in batch_view(payout_batch())  # events carry the batch without its lines


def test_debit_daily_is_a_payout_limit_per_currency_and_day() -> None:
    limits = PayoutLimits.from_public({"debit_daily": {"MZN": "5000.00"}})
    assert limits.debit_daily == {"MZN": Decimal("5000.00")}
    assert limits.public()["debit_daily"] == {"MZN": "5000.00"}
    late = datetime(2026, 11, 25, 22, 30, tzinfo=UTC)  # already the 26th in Maputo (UTC+2)
    assert debit_window("ACC", "test", "MZN", late) == "PODEBIT#ACC#test#MZN#2026-11-26"
    refused = debit_refusal(Decimal("5000.00"), "MZN", "REJ")
    assert (refused.status, refused.code, refused.extensions) == (
        422,
        "limit_exceeded",
        {"rule": "debit_daily", "rejection_id": "REJ"},
    )
    assert refused.message == "The daily batch ceiling of the debit account (5000.00 MZN) would be exceeded."

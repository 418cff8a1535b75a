"""When waiting payments expire (pure rules) and how the local stack plays schedules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from devstack.esm import rate_seconds
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.expiry import (
    checkout_deadline,
    is_due,
    next_question,
    payer_due,
    plays_payer,
    reconcile_at,
    shard,
    waiting,
)
from mzpay.domain.payments.rules import Payment

NOW = datetime(2026, 11, 21, 10, 0, 0, tzinfo=UTC)


def payment(status: str, mode: str = "test", **extra: object) -> Payment:
    return Payment.model_validate(
        {
            "provider_payment_id": "01JD0000000000000000000000",
            "payment_id": "order-1",
            "account_id": "01JD0000000000000000000001",
            "status": status,
            "version": 1,
            "mode": mode,
            "amount": "150.00",
            "currency": "MZN",
            "country": "MZ",
            "authorized_amount": "0.00",
            "captured_amount": "0.00",
            "fingerprint": "f",
            "created_at": "2026-11-21T10:00:00Z",
            "updated_at": "2026-11-21T10:00:00Z",
            **extra,
        }
    )


SHARD = shard("01JD0000000000000000000000")


def test_a_test_payment_left_pending_expires_after_thirty_minutes() -> None:
    assert waiting(payment("pending"), NOW) == {
        "expires_at": "2026-11-21T10:30:00Z",
        "due_at": "2026-11-21T10:30:00Z",
        "expiry_shard": SHARD,
    }


def test_a_live_payment_left_pending_never_expires_but_is_asked_about_after_two_minutes() -> None:
    pending = waiting(payment("pending", "live"), NOW)
    assert pending == {"expires_at": None, "due_at": "2026-11-21T10:02:00Z", "expiry_shard": SHARD}
    assert not is_due(payment("pending", "live").with_changes(pending), NOW + timedelta(hours=1))


def test_reconciliation_waits_double_up_to_an_hour_and_stop_after_three_days() -> None:
    started = "2026-11-21T10:00:00Z"
    assert reconcile_at(started, NOW + timedelta(minutes=2)) == "2026-11-21T10:04:00Z"
    assert reconcile_at(started, NOW + timedelta(minutes=8)) == "2026-11-21T10:16:00Z"
    assert reconcile_at(started, NOW + timedelta(hours=5)) == "2026-11-21T16:00:00Z"
    assert reconcile_at(started, NOW + timedelta(hours=72)) is None


def test_a_next_action_with_its_own_deadline_keeps_it() -> None:
    action = {"type": "display_reference", "expires_at": "2026-11-24T10:00:00+00:00"}
    assert waiting(payment("requires_action", next_action=action), NOW)["expires_at"] == "2026-11-24T10:00:00Z"
    assert (
        waiting(payment("requires_action", next_action={"type": "poll"}), NOW)["expires_at"] == "2026-11-21T10:30:00Z"
    )


@pytest.mark.parametrize("status", ["succeeded", "failed", "canceled", "expired", "authorized"])
def test_a_payment_that_stops_waiting_leaves_the_index(status: str) -> None:
    assert waiting(payment(status, expires_at="2026-11-21T10:30:00Z"), NOW) == {
        "expires_at": None,
        "due_at": None,
        "expiry_shard": None,
    }


def test_checkout_deadlines_and_their_bounds() -> None:
    assert checkout_deadline("test", None, NOW) == datetime(2026, 11, 22, 10, 0, tzinfo=UTC)
    assert checkout_deadline("test", 1, NOW) == datetime(2026, 11, 21, 10, 0, 1, tzinfo=UTC)
    assert checkout_deadline("live", 1800, NOW) == datetime(2026, 11, 21, 10, 30, tzinfo=UTC)
    for mode, seconds in (("live", 1799), ("test", 0), ("test", 604801)):
        with pytest.raises(ServiceError) as refused:
            checkout_deadline(mode, seconds, NOW)
        assert (refused.value.status, refused.value.code, refused.value.errors[0].field) == (
            400,
            "invalid_request",
            "expires_in",
        )


def test_due_only_with_an_index_entry_and_a_passed_deadline() -> None:
    assert is_due(payment("pending", expiry_shard="EXP#1", expires_at="2026-11-21T10:00:00Z"), NOW)
    assert not is_due(payment("pending", expiry_shard="EXP#1", expires_at="2026-11-21T10:00:01Z"), NOW)
    assert not is_due(payment("pending", expires_at="2026-11-21T09:00:00Z"), NOW)


def test_shards_spread_payments_over_four_keys() -> None:
    assert {shard(f"01JD{n:022d}") for n in range(200)} == {"EXP#0", "EXP#1", "EXP#2", "EXP#3"}


def test_local_schedules_read_rate_expressions() -> None:
    assert (rate_seconds("rate(1 minute)"), rate_seconds("rate(5 minutes)"), rate_seconds("rate(2 hours)")) == (
        60,
        300,
        7200,
    )
    with pytest.raises(NotImplementedError):
        rate_seconds("cron(0 12 * * ? *)")


WALLET = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"}}
POLL = {"type": "poll", "poll_interval_secs": 5}


def test_the_simulated_payer_answers_a_test_wallet_prompt_three_seconds_after_it_appeared() -> None:
    prompted = payment("requires_action", source=WALLET, next_action=POLL)
    assert plays_payer(prompted)
    # the sweep comes back when the payer answers; the prompt still expires at its deadline
    assert waiting(prompted, NOW) == {
        "expires_at": "2026-11-21T10:30:00Z",
        "due_at": "2026-11-21T10:00:03Z",
        "expiry_shard": SHARD,
    }
    assert not payer_due(prompted, NOW + timedelta(seconds=2))
    assert payer_due(prompted, NOW + timedelta(seconds=3))
    expired = prompted.with_changes({"expires_at": "2026-11-21T10:00:02Z", "expiry_shard": SHARD})
    assert not payer_due(expired, NOW + timedelta(seconds=3))  # too late: it expires instead


@pytest.mark.parametrize(
    "other",
    [
        payment("requires_action", mode="live", source=WALLET, next_action=POLL),  # a real payer answers
        payment("requires_action", source={"type": "card", "card": {"token": "tok_test_3ds"}}, next_action=POLL),
        payment("requires_action", source=WALLET, next_action={"type": "display_otp_form"}),
        payment("pending", source=WALLET),
    ],
)
def test_no_other_payment_is_answered_by_the_simulated_payer(other: Payment) -> None:
    assert not plays_payer(other) and not payer_due(other, NOW + timedelta(hours=1))


def test_the_next_question_about_a_live_payment_refund_or_payout_and_when_to_give_up() -> None:
    started, touched = "2026-11-21T10:00:00Z", "2026-11-21T10:00:05Z"
    assert next_question(started, touched, NOW + timedelta(minutes=8), timedelta(minutes=2)) == {
        "due_at": "2026-11-21T10:16:00Z",
        "updated_at": touched,  # what the merchant sees did not change
    }
    assert next_question(started, touched, NOW + timedelta(hours=72), timedelta(minutes=2)) == {
        "due_at": "2026-11-24T10:00:00Z",  # when it gave up: the operators' queue is oldest first
        "updated_at": touched,
        "expiry_shard": "ATTENTION",  # out of the sweep's shards, into the operators' partition
        "reconciliation": "gave_up",
    }

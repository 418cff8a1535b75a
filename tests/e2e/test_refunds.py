"""Refunds and balances over HTTP: full and partial refunds up to what was captured, the race
between concurrent partials, replays, provider declines, and a ledger that always balances."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from tests.e2e.test_charges import Merchant, card, events_of, wallet
from tests.e2e.test_connectors import bind
from tests.expected import problem_for
from tests.providers.mpesa_sandbox import MpesaSandbox

pytestmark = pytest.mark.e2e


def paid(shop: Merchant, amount: str = "150.00") -> str:
    answer = shop.charge(wallet("+258840000000"), amount=amount).json()
    assert answer["status"] == "succeeded"
    return str(answer["provider_payment_id"])


def refund(
    shop: Merchant, pid: str, amount: str | None = None, refund_id: str | None = None, **extra: Any
) -> requests.Response:
    body: dict[str, Any] = {"refund_id": refund_id or str(ULID()), "provider_payment_id": pid, **extra}
    if amount is not None:
        body["amount"] = {"amount": amount, "currency": "MZN"}
    return shop.call("POST", "/refunds", body)


def balance(shop: Merchant) -> dict[str, Any]:
    answer = shop.call("GET", "/v1/balance")
    assert answer.status_code == 200
    return answer.json()  # type: ignore[no-any-return]


def test_a_full_refund_gives_everything_back(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = paid(shop)
    assert balance(shop) == {
        "mode": "test",
        "balances": [{"currency": "MZN", "available": "150.00", "held": "0.00", "fees": "0.00"}],
    }
    refund_id = str(ULID())
    answer = refund(shop, pid, refund_id=refund_id, reason="requested_by_customer")
    assert answer.status_code == 200
    body = answer.json()
    assert body == {
        "refund_id": refund_id,
        "provider_refund_id": body["provider_refund_id"],
        "provider_payment_id": pid,
        "status": "succeeded",
        "money": {"amount": "150.00", "currency": "MZN"},
        "reason": "requested_by_customer",
        "failure_code": None,
        "failure_message": None,
        "processed_at": body["processed_at"],
    }
    snapshot = shop.call("GET", f"/v1/payments/{pid}").json()
    assert (snapshot["status"], snapshot["captured_amount"], snapshot["refunded_amount"]) == (
        "succeeded",
        "150.00",
        "150.00",
    )
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "0.00", "held": "0.00", "fees": "0.00"}]
    assert events_of(stack, body["provider_refund_id"]) == ["refund.created", "refund.succeeded"]
    assert shop.call("GET", f"/v1/refunds/{body['provider_refund_id']}").json() == body


def test_partial_refunds_sum_exactly_to_the_amount(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = paid(shop)
    for amount in ("50.00", "60.00", "40.00"):
        assert refund(shop, pid, amount).json()["status"] == "succeeded"
    assert shop.call("GET", f"/v1/payments/{pid}").json()["refunded_amount"] == "150.00"
    assert refund(shop, pid, "0.01").json() == problem_for(
        422, "amount_exceeds_remaining", "Only 0.00 MZN of this payment is left to refund.", remaining="0.00"
    )
    assert refund(shop, pid).json()["code"] == "amount_exceeds_remaining"  # nothing left for a full one


def test_the_v1_route_refunds_the_rest(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = paid(shop)
    assert refund(shop, pid, "100.00").json()["status"] == "succeeded"
    rest = shop.call("POST", f"/v1/payments/{pid}/refund", {})
    assert (rest.status_code, rest.json()["money"], rest.json()["status"]) == (
        200,
        {"amount": "50.00", "currency": "MZN"},
        "succeeded",
    )


def test_only_a_succeeded_payment_is_refunded(stack: RunningStack) -> None:
    shop = Merchant(stack)
    failed = shop.charge(wallet("+258840000001")).json()["provider_payment_id"]
    assert refund(shop, failed).json() == problem_for(409, "invalid_state", "Cannot refund a payment that is failed.")
    held = shop.charge(card("tok_test_authorize")).json()["provider_payment_id"]
    assert refund(shop, held).json() == problem_for(409, "invalid_state", "Cannot refund a payment that is authorized.")
    other = Merchant(stack)
    assert refund(other, paid(shop)).json() == problem_for(404, "not_found", "No such payment.")


def test_a_refund_id_replays_and_cannot_be_reused(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = paid(shop)
    refund_id = str(ULID())
    first = refund(shop, pid, "10.00", refund_id=refund_id)
    again = refund(shop, pid, "10.00", refund_id=refund_id)
    assert (again.status_code, again.json()) == (200, first.json())
    assert refund(shop, pid, "11.00", refund_id=refund_id).json() == problem_for(
        409, "refund_id_reused", "This refund_id belongs to another refund (different payment, amount or reason)."
    )
    assert shop.call("GET", f"/v1/payments/{pid}").json()["refunded_amount"] == "10.00"


def test_a_declined_refund_gives_the_remainder_and_the_money_back(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = paid(shop)
    declined = refund(shop, pid, "10.13").json()
    assert (declined["status"], declined["failure_code"], declined["failure_message"]) == (
        "failed",
        "refund_declined",
        "The provider declined the refund.",
    )
    assert events_of(stack, declined["provider_refund_id"]) == ["refund.created", "refund.failed"]
    assert shop.call("GET", f"/v1/payments/{pid}").json()["refunded_amount"] == "0.00"
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "150.00", "held": "0.00", "fees": "0.00"}]
    waiting = refund(shop, pid, "10.14").json()  # the provider timed out: held until it answers
    assert waiting["status"] == "pending"
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "139.86", "held": "10.14", "fees": "0.00"}]


def test_refunds_are_validated(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = paid(shop)
    usd = shop.call(
        "POST",
        "/refunds",
        {"refund_id": str(ULID()), "provider_payment_id": pid, "amount": {"amount": "1.00", "currency": "USD"}},
    )
    assert usd.json() == problem_for(
        400,
        "invalid_currency",
        "amount.currency: refund in the payment's currency (MZN).",
        errors=[{"field": "amount.currency", "code": "invalid_currency", "message": "use MZN"}],
    )
    zero = refund(shop, pid, "0.00")
    assert zero.json() == problem_for(
        400,
        "invalid_amount",
        "amount.amount: a refund is more than zero.",
        errors=[{"field": "amount.amount", "code": "invalid_amount", "message": "more than zero"}],
    )
    assert shop.call("POST", "/refunds", {"provider_payment_id": pid}).json()["errors"][0]["field"] == "refund_id"
    assert shop.call("GET", f"/v1/payments/{pid}").json()["refunded_amount"] == "0.00"


def test_concurrent_partial_refunds_never_pass_the_remainder(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = paid(shop, "100.00")
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda _: refund(shop, pid, "60.00"), range(10)))
    assert sorted(a.status_code for a in answers) == [200] + [422] * 9
    assert {a.json()["code"] for a in answers if a.status_code == 422} == {"amount_exceeds_remaining"}
    assert shop.call("GET", f"/v1/payments/{pid}").json()["refunded_amount"] == "60.00"
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "40.00", "held": "0.00", "fees": "0.00"}]


def test_a_live_mpesa_payment_is_refunded_by_reversal(stack: RunningStack) -> None:
    """POST /refunds on a live M-Pesa payment (more, and the refusals: tests/e2e/test_live_mpesa.py)."""
    with MpesaSandbox() as sandbox:
        shop = Merchant(stack)
        assert bind(stack, shop, {"psp_id": "vodacom-mpesa", "credentials": sandbox.credentials()}).status_code == 200
        live = shop.charge(wallet("+258849990000"), key=shop.live_key).json()
        assert live["status"] == "succeeded"
        body = {"refund_id": str(ULID()), "provider_payment_id": live["provider_payment_id"]}
        answer = shop.call("POST", "/refunds", body, key=shop.live_key)
    assert (answer.status_code, answer.json()["status"], answer.json()["money"]) == (
        200,
        "succeeded",
        {"amount": "150.00", "currency": "MZN"},
    )
    assert [r.path for r in sandbox.requests] == ["/ipg/v1x/c2bPayment/singleStage/", "/ipg/v1x/reversal/"]


# ---------------------------------------------------------------- the ledger
def ledger_entries(stack: RunningStack, shop: Merchant, mode: str = "test") -> list[dict[str, Any]]:
    items = stack.aws("dynamodb").query(
        TableName=stack.state["resources"]["mz"]["PaymentsTable"],
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"LEDGER#{shop.account['id']}#{mode}#MZN"}},
        ConsistentRead=True,
    )["Items"]
    return [{k: Decimal(v["N"]) for k, v in item["legs"]["M"].items()} | {"kind": item["kind"]["S"]} for item in items]


def assert_ledger_balances(stack: RunningStack, shop: Merchant) -> None:
    """Every entry sums to zero, and the balance is the sum of the entries' legs."""
    entries = ledger_entries(stack, shop)
    for entry in entries:
        assert sum(v for k, v in entry.items() if k != "kind") == 0, entry
    available = sum((e.get("available", Decimal(0)) for e in entries), Decimal(0))
    held = sum((e.get("held", Decimal(0)) for e in entries), Decimal(0))
    fees = sum((e.get("fees", Decimal(0)) for e in entries), Decimal(0))
    assert balance(shop)["balances"] == [
        {"currency": "MZN", "available": f"{available:.2f}", "held": f"{held:.2f}", "fees": f"{fees:.2f}"}
    ]


def test_the_ledger_balances_after_a_mixed_run_and_matches_the_events(stack: RunningStack) -> None:
    shop = Merchant(stack)
    a, b = paid(shop, "200.00"), paid(shop, "80.00")
    shop.charge(wallet("+258840000001"), amount="500.00")  # failed: no money
    held = shop.charge(card("tok_test_authorize"), amount="90.00").json()["provider_payment_id"]
    shop.call("POST", f"/charges/{held}/capture", {"amount": {"amount": "70.00"}})
    refund(shop, a, "25.00")
    refund(shop, b, "10.13")  # declined
    refund(shop, b, "5.14")  # pending
    refund(shop, held)  # the rest of the 70 captured
    assert_ledger_balances(stack, shop)
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "249.86", "held": "5.14", "fees": "0.00"}]
    # The same balance from the events alone: captured payments in, succeeded refunds out, pending held.
    events = shop.call("GET", "/v1/events?limit=100").json()["data"]
    captured = sum(Decimal(e["data"]["object"]["captured_amount"]) for e in events if e["type"] == "payment.succeeded")
    refunded = sum(Decimal(e["data"]["object"]["money"]["amount"]) for e in events if e["type"] == "refund.succeeded")
    assert f"{captured - refunded - Decimal('5.14'):.2f}" == "249.86"


def test_a_fee_the_provider_reports_is_kept_out_of_available_and_not_given_back(stack: RunningStack) -> None:
    """tok_test_fee's acquirer keeps 2.5% of what it captured: the ledger posts it to fees, the
    merchant's available money is the rest, and a refund (the payer gets everything back) must be
    covered by available money, so the fee stays spent."""
    shop = Merchant(stack)
    charged = shop.charge(card("tok_test_fee"), amount="200.00").json()
    assert (charged["status"], charged["captured_amount"]) == ("succeeded", "200.00")
    pid = str(charged["provider_payment_id"])
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "195.00", "held": "0.00", "fees": "5.00"}]
    assert ledger_entries(stack, shop) == [
        {"available": Decimal("195"), "fees": Decimal("5"), "clearing": Decimal("-200"), "kind": "payment.captured"}
    ]
    # the whole payment back needs 200.00 of available money; only 195.00 is there
    whole = refund(shop, pid)
    assert (whole.status_code, whole.json()["code"]) == (422, "insufficient_balance")
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "195.00", "held": "0.00", "fees": "5.00"}]
    # a second payment without a fee covers it; the fee is not returned by the refund
    paid(shop, "10.00")
    answer = refund(shop, pid)
    assert (answer.status_code, answer.json()["status"], answer.json()["money"]) == (
        200,
        "succeeded",
        {"amount": "200.00", "currency": "MZN"},
    )
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "5.00", "held": "0.00", "fees": "5.00"}]
    assert_ledger_balances(stack, shop)


def test_a_test_card_number_stands_for_the_fee_token(stack: RunningStack) -> None:
    shop = Merchant(stack)
    answer = shop.charge({"type": "card", "card": {"number": "4000 0000 0000 0259"}}, amount="10.10").json()
    assert (answer["status"], answer["captured_amount"]) == ("succeeded", "10.10")
    # 2.5% of 10.10 is 0.2525: rounded half-even to the cent, 0.25
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "9.85", "held": "0.00", "fees": "0.25"}]

"""Payouts over HTTP through the local stack: validation, the balance they need, limits,
settlement through the queue to paid or failed with its signed webhook, approval, cancel,
name lookups, and a ledger that balances after a mixed run."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay.webhooks import verify
from tests.e2e.test_charges import Merchant, events_of, wallet
from tests.e2e.test_refunds import assert_ledger_balances, balance
from tests.e2e.test_webhooks import Receiver
from tests.expected import problem_for
from tests.polling import eventually

pytestmark = pytest.mark.e2e

NIB = "0003 0108 0016 3671 0237 1"  # valid (MOD 97-10), with separators
NIB_DIGITS = "000301080016367102371"
NIB_MESSAGE = "account must be a NIB: 21 digits with valid ISO 7064 MOD 97-10 check digits"


def funded(stack: RunningStack, amount: str = "1000.00") -> Merchant:
    """A fresh merchant whose available balance is `amount` (one captured charge)."""
    shop = Merchant(stack)
    assert shop.charge(wallet("+258840000000"), amount=amount).json()["status"] == "succeeded"
    return shop


def payout(shop: Merchant, destination: dict[str, Any], amount: str = "100.00", **extra: Any) -> requests.Response:
    body = {
        "payout_id": str(ULID()),
        "money": {"amount": amount, "currency": "MZN"},
        "destination": destination,
        **extra,
    }
    return shop.call("POST", "/payouts", body)


def bank(name: str | None = "Ana Machava", account: str | None = NIB) -> dict[str, Any]:
    details = {k: v for k, v in {"name": name, "account": account}.items() if v is not None}
    return {"type": "bank_transfer", "bank_transfer": details}


def settled(shop: Merchant, provider_payout_id: str, timeout: float = 20) -> dict[str, Any]:
    """The payout once it has left pending and in_transit (settlement runs from the queue)."""
    return eventually(  # type: ignore[no-any-return]
        lambda: shop.call("GET", f"/v1/payouts/{provider_payout_id}").json(),
        lambda body: body["status"] not in ("pending", "in_transit"),
        timeout,
    )


def operator(stack: RunningStack) -> dict[str, str]:
    return {"Authorization": f"Bearer {stack.state['operator_token']}"}


def management(stack: RunningStack) -> str:
    return str(stack.state["regions"]["mz"]["management"])


def manage(stack: RunningStack, method: str, path: str, body: dict[str, Any] | None = None) -> requests.Response:
    """A call to the mz management API, as the operator."""
    return requests.request(method, management(stack) + path, json=body, headers=operator(stack), timeout=30)


def test_a_wallet_payout_settles_to_paid_with_its_signed_webhook(stack: RunningStack, receiver: Receiver) -> None:
    shop = funded(stack)
    secret = stack_secret(stack, shop)
    url = receiver.endpoint(200)
    payout_id = str(ULID())
    created = shop.call(
        "POST",
        "/payouts",
        {
            "payout_id": payout_id,
            "money": {"amount": "250.00", "currency": "MZN"},
            "destination": wallet("+258840000000"),
            "callback_url": url,
        },
    )
    body = created.json()
    assert created.status_code == 200
    assert body == {
        "payout_id": payout_id,
        "provider_payout_id": body["provider_payout_id"],
        "status": "pending",
        "money": {"amount": "250.00", "currency": "MZN"},
        "destination": wallet("+258840000000"),
        "failure_code": None,
        "failure_message": None,
        "created_at": body["created_at"],
        "processed_at": body["processed_at"],
    }
    pid = body["provider_payout_id"]
    seen = balance(shop)["balances"]
    later = shop.call("GET", f"/v1/payouts/{pid}").json()["status"]
    held = [{"currency": "MZN", "available": "750.00", "held": "250.00", "fees": "0.00"}]
    if later in ("pending", "in_transit"):  # still on its way after the balance was read: it was held then
        assert seen == held
    else:  # settlement (from the queue) may win the race with the read: held, or already paid out
        assert seen in (held, [{"currency": "MZN", "available": "750.00", "held": "0.00", "fees": "0.00"}])
    assert settled(shop, pid)["status"] == "paid"
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "750.00", "held": "0.00", "fees": "0.00"}]
    assert events_of(stack, pid) == ["payout.created", "payout.in_transit", "payout.submitted", "payout.paid"]
    (arrival,) = receiver.wait_for(url, 1)
    verify(arrival.body, arrival.headers["Service-Signature"], [secret])
    event = json.loads(arrival.body)
    assert (event["type"], event["data"]["object"]["status"], event["resource_id"]) == ("payout.paid", "paid", pid)


def stack_secret(stack: RunningStack, shop: Merchant) -> str:
    """The account's current test webhook secret (rolled here, so the test knows its value)."""
    rolled = manage(stack, "POST", f"/v1/accounts/{shop.account['id']}/webhook-secrets/roll", {"mode": "test"})
    assert rolled.status_code == 200, rolled.text
    return str(rolled.json()["secret"])


def test_a_payout_to_no_such_wallet_fails_and_gives_the_money_back(stack: RunningStack, receiver: Receiver) -> None:
    shop = funded(stack)
    secret = stack_secret(stack, shop)
    url = receiver.endpoint(200)
    pid = payout(shop, wallet("+258840000001"), callback_url=url).json()["provider_payout_id"]
    final = settled(shop, pid)
    assert (final["status"], final["failure_code"], final["failure_message"]) == (
        "failed",
        "invalid_recipient",
        "The recipient's wallet does not exist.",
    )
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "1000.00", "held": "0.00", "fees": "0.00"}]
    (arrival,) = receiver.wait_for(url, 1)
    verify(arrival.body, arrival.headers["Service-Signature"], [secret])
    assert json.loads(arrival.body)["type"] == "payout.failed"
    assert json.loads(arrival.body)["data"]["object"]["failure_code"] == "invalid_recipient"


def test_insufficient_balance_never_leaves_a_half_made_payout(stack: RunningStack) -> None:
    shop = funded(stack, "50.00")
    payout_id = str(ULID())
    body = {
        "payout_id": payout_id,
        "money": {"amount": "50.01", "currency": "MZN"},
        "destination": wallet("+258840000000"),
    }
    refused = shop.call("POST", "/payouts", body)
    assert refused.json() == problem_for(422, "insufficient_balance", "The available balance does not cover 50.01 MZN.")
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "50.00", "held": "0.00", "fees": "0.00"}]
    assert [e["type"] for e in shop.call("GET", "/v1/events").json()["data"]] == [
        "payment.succeeded",
        "payment.created",
    ]
    body["money"]["amount"] = "50.00"
    assert shop.call("POST", "/payouts", body).json()["status"] == "pending"  # the payout_id was never used


def test_concurrent_payouts_never_overdraw(stack: RunningStack) -> None:
    shop = funded(stack, "300.00")
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda _: payout(shop, wallet("+258840000000")), range(10)))
    assert sorted(a.status_code for a in answers) == [200] * 3 + [422] * 7
    assert {a.json()["code"] for a in answers if a.status_code == 422} == {"insufficient_balance"}
    for answer in (a for a in answers if a.status_code == 200):
        assert settled(shop, answer.json()["provider_payout_id"])["status"] == "paid"
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "0.00", "held": "0.00", "fees": "0.00"}]


def bank_payout(shop: Merchant, amount: str, beneficiary: dict[str, str]) -> requests.Response:
    """A bank payout of `amount` MZN through POST /v1/payouts."""
    body = {"payout_id": str(ULID()), "money": {"amount": amount, "currency": "MZN"}, "method": "bank"}
    return shop.call("POST", "/v1/payouts", {**body, "beneficiary": beneficiary})


def test_a_bank_payout_through_v1_payouts(stack: RunningStack) -> None:
    shop = funded(stack)
    created = bank_payout(shop, "120.00", {"name": "Ana Machava", "account": NIB})
    body = created.json()
    assert created.status_code == 200, body
    assert body["destination"] == {
        "type": "bank_transfer",
        "bank_transfer": {"name": "Ana Machava", "account": "*****************2371"},
    }
    assert settled(shop, body["provider_payout_id"])["status"] == "paid"


@pytest.mark.parametrize(
    ("account", "why"),
    [
        ("0003 0108 0016 3671 0237 2", "wrong check digit"),
        ("0003.0108.0016.3671.023", "wrong length"),
        ("0003-0108-0016-3671-0237-1X", "a letter"),
    ],
)
def test_a_bank_account_that_is_not_a_nib_is_invalid_account(stack: RunningStack, account: str, why: str) -> None:
    shop = funded(stack)
    answer = payout(shop, bank(account=account)).json()
    field = "destination.bank_transfer.account"
    assert answer == problem_for(
        400,
        "invalid_account",
        f"The request has invalid fields: {field}.",
        errors=[{"field": field, "code": "invalid_account", "message": NIB_MESSAGE}],
    ), why
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "1000.00", "held": "0.00", "fees": "0.00"}]


def test_the_nib_with_separators_is_kept_normalized(stack: RunningStack) -> None:
    shop = funded(stack)
    pid = payout(shop, bank(account="0003.0108-0016 3671 0237 1")).json()["provider_payout_id"]
    item = stack.aws("dynamodb").get_item(
        TableName=stack.state["resources"]["mz"]["PaymentsTable"], Key={"pk": {"S": f"PO#{pid}"}, "sk": {"S": "PAYOUT"}}
    )["Item"]
    assert item["destination"]["M"]["bank_transfer"]["M"]["account"]["S"] == NIB_DIGITS


def invalid(field: str, code: str, message: str) -> dict[str, Any]:
    return problem_for(
        400,
        code,
        f"The request has invalid fields: {field}.",
        errors=[{"field": field, "code": code, "message": message}],
    )


def test_payout_validation_codes(stack: RunningStack) -> None:
    shop = funded(stack)
    name_message = "a bank payout needs the account holder's name"
    assert payout(shop, bank(name=None)).json() == invalid(
        "destination.bank_transfer.name", "beneficiary_name_required", name_message
    )
    v1 = bank_payout(shop, "1.00", {"account": NIB})
    assert v1.json() == invalid("beneficiary.name", "beneficiary_name_required", name_message)
    assert payout(shop, {"type": "wire", "wire": {}}).json() == invalid(
        "destination.type", "invalid_method", "type must be one of mobile_wallet, bank_transfer, manual, crypto, cheque"
    )
    phone = payout(shop, wallet("+258861234567")).json()
    assert (phone["status"], phone["code"], phone["errors"][0]["field"]) == (
        400,
        "invalid_phone",
        "destination.mobile_wallet.phone_number",
    )
    assert payout(shop, wallet(None), amount="1.00").json()["code"] == "missing_phone"  # type: ignore[arg-type]
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "1000.00", "held": "0.00", "fees": "0.00"}]


def set_payout_limits(stack: RunningStack, shop: Merchant, **limits: Any) -> None:
    answer = manage(stack, "PUT", f"/v1/accounts/{shop.account['id']}/payout-limits", {"mode": "test", **limits})
    assert answer.status_code == 200, answer.text


def limit_refusal(answer: requests.Response, rule: str, detail: str) -> None:
    assert answer.json() == problem_for(
        422, "limit_exceeded", detail, rule=rule, rejection_id=answer.json()["rejection_id"]
    )


def test_payout_limits_per_transaction_daily_and_per_beneficiary(stack: RunningStack) -> None:
    shop = funded(stack, "5000.00")
    set_payout_limits(
        stack, shop, per_transaction={"MZN": "500.00"}, daily={"MZN": "1500.00"}, beneficiary_daily={"MZN": "600.00"}
    )
    limit_refusal(
        payout(shop, wallet("+258840000000"), "500.01"),
        "per_transaction",
        "The payout ceiling of this account is 500.00 MZN.",
    )
    assert payout(shop, bank(), "400.00").json()["status"] == "pending"
    limit_refusal(
        payout(shop, bank(), "200.01"),
        "beneficiary_daily",
        "The daily ceiling for this bank account (600.00 MZN) would be exceeded.",
    )
    other = bank(account="0001 0000 0000 0002 8000 2")
    assert payout(shop, other, "500.00").json()["status"] == "pending"  # another NIB: its own ceiling
    assert payout(shop, wallet("+258840000000"), "500.00").json()["status"] == "pending"  # 1400 today
    refused = payout(shop, wallet("+258840000000"), "100.01")
    limit_refusal(refused, "daily", "The daily payout ceiling of this account (1500.00 MZN) would be exceeded.")
    rejected = [e for e in shop.call("GET", "/v1/events?type=transaction.rejected").json()["data"]]
    assert {e["data"]["object"]["rule"] for e in rejected} == {"per_transaction", "beneficiary_daily", "daily"}


def test_a_payout_above_the_threshold_waits_for_approval(stack: RunningStack) -> None:
    shop = funded(stack, "5000.00")
    set_payout_limits(stack, shop, approval_threshold={"MZN": "1000.00"})
    big = payout(shop, wallet("+258840000000"), "1500.00").json()
    assert big["status"] == "waiting_for_approval"
    time.sleep(1)
    assert shop.call("GET", f"/payouts/{big['provider_payout_id']}").json()["status"] == "waiting_for_approval"
    url = f"{management(stack)}/v1/payouts/{big['provider_payout_id']}"
    approved = requests.post(f"{url}/approve", headers=operator(stack), timeout=30)
    assert (approved.status_code, approved.json()["status"]) == (200, "pending")
    assert requests.post(f"{url}/approve", headers=operator(stack), timeout=30).json()["code"] == "invalid_state"
    assert settled(shop, big["provider_payout_id"])["status"] == "paid"

    other = payout(shop, wallet("+258840000000"), "2000.00").json()
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "1500.00", "held": "2000.00", "fees": "0.00"}]
    url = f"{management(stack)}/v1/payouts/{other['provider_payout_id']}"
    rejected = requests.post(f"{url}/reject", json={"reason": "unknown recipient"}, headers=operator(stack), timeout=30)
    assert (rejected.json()["status"], rejected.json()["failure_message"]) == ("rejected", "unknown recipient")
    assert requests.post(
        f"{url}/reject", json={"reason": "again"}, headers=operator(stack), timeout=30
    ).json() == problem_for(409, "invalid_state", "Cannot reject a payout that is rejected.")
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "3500.00", "held": "0.00", "fees": "0.00"}]


def test_cancel_races_settlement_and_one_outcome_wins(stack: RunningStack) -> None:
    shop = funded(stack)
    outcomes = []
    for _ in range(5):
        pid = payout(shop, wallet("+258840000000"), "10.00").json()["provider_payout_id"]
        canceled = shop.call("POST", f"/v1/payouts/{pid}/cancel")
        final = settled(shop, pid)
        if canceled.status_code == 200:
            assert final["status"] == "canceled"
            assert "payout.submitted" not in events_of(stack, pid)  # the provider was never called
        else:
            assert canceled.json()["code"] == "invalid_state"
            assert final["status"] == "paid"
        outcomes.append(final["status"])
    paid = outcomes.count("paid")
    assert balance(shop)["balances"] == [
        {"currency": "MZN", "available": f"{1000 - 10 * paid:.2f}", "held": "0.00", "fees": "0.00"}
    ]
    done = payout(shop, wallet("+258840000000"), "10.00").json()["provider_payout_id"]
    assert settled(shop, done)["status"] == "paid"
    assert shop.call("POST", f"/v1/payouts/{done}/cancel").json() == problem_for(
        409, "invalid_state", "Cannot cancel a payout that is paid."
    )


def test_name_lookups(stack: RunningStack) -> None:
    shop = Merchant(stack)
    resolved = shop.call(
        "POST", "/v1/name-lookups", {"type": "mobile_wallet", "mobile_wallet": wallet("+258841234567")["mobile_wallet"]}
    ).json()
    assert (resolved["status"], resolved["name"]) == ("resolved", "Ana Machava")
    ambiguous = shop.call(
        "POST",
        "/v1/name-lookups",
        {"type": "bank_transfer", "bank_transfer": {"account": "0001 0000 0000 0002 8000 2"}},
    ).json()
    assert ambiguous["status"] == "ambiguous" and ambiguous["name"] is None
    assert [c["name"] for c in ambiguous["candidates"]] == ["Ana Machava", "Ana Maria Machava", "Anabela Machava"]
    select = f"/v1/name-lookups/{ambiguous['lookup_id']}/select"
    with ThreadPoolExecutor(4) as pool:
        answers = list(
            pool.map(lambda c: shop.call("POST", select, {"candidate_id": c}), ["cand_2", "cand_3", "cand_2", "cand_1"])
        )
    # Each selection is a write conditioned on the version it read: racing ones lose (409
    # invalid_state, read and retry) unless they came one after the other (the pick may change
    # until a cash deposit starts from the lookup: docs/deposits.md).
    winners = [a for a in answers if a.status_code == 200]
    assert winners and all(a.json()["status"] == "selected" for a in winners)
    assert all(a.json()["code"] == "invalid_state" for a in answers if a.status_code != 200)
    final = shop.call("POST", select, {"candidate_id": "cand_3"}).json()
    assert (final["status"], final["name"]) == ("selected", "Anabela Machava")
    down = shop.call(
        "POST", "/v1/name-lookups", {"type": "mobile_wallet", "mobile_wallet": wallet("+258840000009")["mobile_wallet"]}
    )
    assert (down.status_code, down.json()["code"]) == (502, "upstream_error")


def test_the_ledger_balances_after_charges_refunds_and_payouts(stack: RunningStack) -> None:
    shop = funded(stack, "800.00")
    charged = shop.charge(wallet("+258840000000"), amount="200.00").json()["provider_payment_id"]
    shop.call(
        "POST",
        "/refunds",
        {"refund_id": str(ULID()), "provider_payment_id": charged, "amount": {"amount": "50.00", "currency": "MZN"}},
    )
    ids = [
        payout(shop, wallet("+258840000000"), "100.00").json()["provider_payout_id"],
        payout(shop, wallet("+258840000001"), "70.00").json()["provider_payout_id"],  # fails
        payout(shop, bank(), "30.13").json()["provider_payout_id"],  # declined
    ]
    assert [settled(shop, pid)["status"] for pid in ids] == ["paid", "failed", "failed"]
    assert_ledger_balances(stack, shop)
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "850.00", "held": "0.00", "fees": "0.00"}]


def test_the_same_payout_id_sent_ten_times_at_once_makes_one_payout(stack: RunningStack) -> None:
    shop = funded(stack)
    body = {
        "payout_id": str(ULID()),
        "money": {"amount": "100.00", "currency": "MZN"},
        "destination": wallet("+258840000000"),
    }
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda _: shop.call("POST", "/payouts", body), range(10)))
    assert {a.status_code for a in answers} == {200}
    assert len({a.json()["provider_payout_id"] for a in answers}) == 1
    assert settled(shop, answers[0].json()["provider_payout_id"])["status"] == "paid"
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "900.00", "held": "0.00", "fees": "0.00"}]
    other = shop.call("POST", "/payouts", {**body, "money": {"amount": "99.00", "currency": "MZN"}})
    assert other.json() == problem_for(
        409, "payout_id_reused", "This payout_id belongs to another payout (different amount or destination)."
    )


def test_approve_and_reject_race_one_wins(stack: RunningStack) -> None:
    shop = funded(stack, "5000.00")
    set_payout_limits(stack, shop, approval_threshold={"MZN": "10.00"})
    pid = payout(shop, wallet("+258840000000"), "500.00").json()["provider_payout_id"]
    url = f"{management(stack)}/v1/payouts/{pid}"

    def decide(index: int) -> requests.Response:
        if index % 2:
            return requests.post(f"{url}/approve", headers=operator(stack), timeout=30)
        return requests.post(f"{url}/reject", json={"reason": "race"}, headers=operator(stack), timeout=30)

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(decide, range(8)))
    winners = [a.json()["status"] for a in answers if a.status_code == 200]
    assert len(winners) == 1 and winners[0] in ("pending", "rejected")
    assert {a.json()["code"] for a in answers if a.status_code != 200} == {"invalid_state"}
    final = settled(shop, pid)["status"]
    assert final == ("paid" if winners[0] == "pending" else "rejected")
    expected = "4500.00" if final == "paid" else "5000.00"
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": expected, "held": "0.00", "fees": "0.00"}]

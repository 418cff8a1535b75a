"""Live money through a bound M-Pesa connector, against the loopback M-Pesa sandbox: refunds
(reversals, whole and in part), payouts (B2C) that settle with their signed webhook, and name
lookups (the customer's masked name), each as a merchant calls them with a live key."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay.webhooks import verify
from tests.e2e.test_charges import Merchant, events_of, wallet
from tests.e2e.test_connectors import bind, operator
from tests.e2e.test_webhooks import Receiver
from tests.expected import problem
from tests.providers.mpesa_sandbox import B2C_PATH, NAME_PATH, QUERY_PATH, REVERSAL_PATH, MpesaSandbox, transaction_id

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def sandbox() -> Iterator[MpesaSandbox]:
    with MpesaSandbox() as running:
        yield running


def live_shop(stack: RunningStack, sandbox: MpesaSandbox, **credentials: str) -> Merchant:
    """A fresh merchant with M-Pesa bound live to the sandbox."""
    shop = Merchant(stack)
    bound = bind(stack, shop, {"psp_id": "vodacom-mpesa", "credentials": sandbox.credentials(**credentials)})
    assert bound.status_code == 200, bound.text
    return shop


def live_charge(shop: Merchant, amount: str) -> dict[str, Any]:
    paid = shop.charge(wallet("+258840000000"), amount=amount, key=shop.live_key).json()
    assert (paid["status"], paid["captured_amount"]) == ("succeeded", amount), paid
    return paid  # type: ignore[no-any-return]


def live(shop: Merchant, method: str, path: str, body: Any = None) -> requests.Response:
    return shop.call(method, path, body, key=shop.live_key)


def live_balance(shop: Merchant) -> list[dict[str, str]]:
    answer = live(shop, "GET", "/v1/balance")
    assert answer.status_code == 200, answer.text
    return answer.json()["balances"]  # type: ignore[no-any-return]


def reversals(sandbox: MpesaSandbox, transaction: str) -> list[str]:
    """The amounts of the reversals the sandbox got for M-Pesa transaction `transaction`."""
    return [
        str((r.body or {}).get("input_ReversalAmount"))
        for r in sandbox.requests
        if r.path == REVERSAL_PATH and (r.body or {}).get("input_TransactionID") == transaction
    ]


def test_a_live_charge_is_refunded_in_part_then_in_full_by_reversal(stack: RunningStack, sandbox: MpesaSandbox) -> None:
    shop = live_shop(stack, sandbox)
    paid = live_charge(shop, "500.00")
    pid = paid["provider_payment_id"]
    transaction = transaction_id(pid[-20:])  # M-Pesa's id of the C2B payment, kept by the payment
    part = live(shop, "POST", f"/v1/payments/{pid}/refund", {"amount": {"amount": "200.00", "currency": "MZN"}})
    assert part.status_code == 200, part.text
    assert (part.json()["status"], part.json()["money"], part.json()["failure_code"]) == (
        "succeeded",
        {"amount": "200.00", "currency": "MZN"},
        None,
    )
    too_much = live(shop, "POST", f"/v1/payments/{pid}/refund", {"amount": {"amount": "300.01", "currency": "MZN"}})
    assert (too_much.status_code, too_much.json()["code"]) == (422, "amount_exceeds_remaining")
    rest = live(shop, "POST", f"/v1/payments/{pid}/refund")  # no body: what is left
    assert (rest.json()["status"], rest.json()["money"]["amount"]) == ("succeeded", "300.00")
    assert reversals(sandbox, transaction) == ["200.00", "300.00"]
    assert events_of(stack, part.json()["provider_refund_id"]) == ["refund.created", "refund.succeeded"]
    assert sandbox.reversed[transaction] == Decimal("500.00")
    read = live(shop, "GET", f"/v1/payments/{pid}").json()
    assert (read["status"], read["refunded_amount"]) == ("succeeded", "500.00")
    assert live_balance(shop) == [{"currency": "MZN", "available": "0.00", "held": "0.00", "fees": "0.00"}]


def test_a_binding_without_initiator_credentials_refuses_refunds_before_anything_moves(
    stack: RunningStack, sandbox: MpesaSandbox
) -> None:
    shop = live_shop(stack, sandbox, initiator_identifier="", security_credential="")
    pid = live_charge(shop, "50.00")["provider_payment_id"]
    before = len(sandbox.requests)
    refused = live(shop, "POST", f"/v1/payments/{pid}/refund", {"amount": {"amount": "10.00", "currency": "MZN"}})
    assert refused.json() == problem(
        422,
        "Unprocessable Content",
        "not_supported",
        "Refunds reverse the M-Pesa payment, which needs the binding's initiator_identifier and "
        "security_credential; the operator must add them.",
        rule="operation",
    )
    assert len(sandbox.requests) == before
    assert live_balance(shop) == [{"currency": "MZN", "available": "50.00", "held": "0.00", "fees": "0.00"}]


def test_a_live_payout_is_paid_by_b2c_and_its_webhook_is_signed(
    stack: RunningStack, sandbox: MpesaSandbox, receiver: Receiver
) -> None:
    shop = live_shop(stack, sandbox)
    live_charge(shop, "1000.00")
    management = stack.state["regions"]["mz"]["management"]
    rolled = requests.post(
        f"{management}/v1/accounts/{shop.account['id']}/webhook-secrets/roll",
        json={"mode": "live"},
        headers=operator(stack),
        timeout=30,
    )
    secret = rolled.json()["secret"]
    url = receiver.endpoint(200)
    body = {
        "payout_id": str(ULID()),
        "money": {"amount": "250.00", "currency": "MZN"},
        "destination": wallet("+258840000000"),
        "callback_url": url,
    }
    created = live(shop, "POST", "/payouts", body)
    assert (created.status_code, created.json()["status"]) == (200, "pending"), created.text
    pid = created.json()["provider_payout_id"]
    deadline = time.monotonic() + 30
    while (status := live(shop, "GET", f"/v1/payouts/{pid}").json()["status"]) in ("pending", "in_transit"):
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    assert status == "paid"
    assert events_of(stack, pid) == ["payout.created", "payout.in_transit", "payout.submitted", "payout.paid"]
    b2c = [r for r in sandbox.requests if r.path == B2C_PATH][-1]
    assert (b2c.body or {})["input_Amount"] == "250.00" and (b2c.body or {})["input_CustomerMSISDN"] == "258840000000"
    assert live_balance(shop) == [{"currency": "MZN", "available": "750.00", "held": "0.00", "fees": "0.00"}]
    (arrival,) = receiver.wait_for(url, 1)
    verify(arrival.body, arrival.headers["Service-Signature"], [secret])
    event = json.loads(arrival.body)
    assert (event["type"], event["data"]["object"]["status"], event["resource_id"]) == ("payout.paid", "paid", pid)


def test_a_live_payout_the_provider_refuses_fails_and_gives_the_money_back(
    stack: RunningStack, sandbox: MpesaSandbox
) -> None:
    shop = live_shop(stack, sandbox)
    live_charge(shop, "400.00")
    body = {"payout_id": str(ULID()), "money": {"amount": "100.00", "currency": "MZN"}}
    created = live(shop, "POST", "/payouts", {**body, "destination": wallet("+258840000005")}).json()
    deadline = time.monotonic() + 30
    while (read := live(shop, "GET", f"/v1/payouts/{created['provider_payout_id']}").json())["status"] in (
        "pending",
        "in_transit",
    ):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert (read["status"], read["failure_code"], read["failure_message"]) == (
        "failed",
        "invalid_recipient",
        "M-Pesa has no wallet for the recipient's number.",
    )
    assert live_balance(shop) == [{"currency": "MZN", "available": "400.00", "held": "0.00", "fees": "0.00"}]


def lookup(shop: Merchant, phone: str, network: str = "mpesa") -> requests.Response:
    body = {"type": "mobile_wallet", "mobile_wallet": {"network": network, "phone_number": phone}}
    return live(shop, "POST", "/v1/name-lookups", body)


def test_a_live_name_lookup_asks_mpesa_for_the_customers_masked_name(
    stack: RunningStack, sandbox: MpesaSandbox
) -> None:
    shop = live_shop(stack, sandbox)
    sandbox.names["258841234567"] = "Jo*o Mach**a"
    found = lookup(shop, "+258841234567")
    assert found.status_code == 200, found.text
    body = found.json()
    assert body == {
        "lookup_id": body["lookup_id"],
        "type": "mobile_wallet",
        "status": "resolved",
        "name": "Jo*o Mach**a",
        "candidates": [{"candidate_id": "cand_1", "name": "Jo*o Mach**a"}],
        "expires_at": body["expires_at"],
        "created_at": body["created_at"],
        "updated_at": body["created_at"],
    }
    made = datetime.fromisoformat(body["created_at"])
    assert datetime.fromisoformat(body["expires_at"]) - made == timedelta(minutes=15)  # good for a deposit
    asked = [r for r in sandbox.requests if r.path == NAME_PATH][-1]
    assert (asked.query["input_CustomerMSISDN"], asked.query["input_ThirdPartyReference"]) == (
        "258841234567",
        body["lookup_id"][-12:],
    )
    message = "The provider has no wallet for this number."
    assert lookup(shop, "+258840000005").json() == problem(
        400,
        "Bad Request",
        "invalid_phone",
        message,
        errors=[{"field": "mobile_wallet.phone_number", "code": "invalid_phone", "message": message}],
    )
    down = lookup(shop, "+258840000004")
    assert (down.status_code, down.json()["code"], down.headers["Retry-After"]) == (502, "upstream_error", "10")
    assert lookup(shop, "+258861234567", "emola").json()["code"] == "no_connector_binding"
    bank = {"type": "bank_transfer", "bank_transfer": {"account": "000301080016367102371"}}
    assert live(shop, "POST", "/v1/name-lookups", bank).json() == problem(
        422,
        "Unprocessable Content",
        "not_supported",
        "No live provider answers bank account lookups yet.",
        rule="operation",
    )


def test_a_refund_and_payouts_the_provider_left_pending_are_reconciled(stack: RunningStack) -> None:
    """M-Pesa's gateway answers its 503 page (the outcome unknown): the refund stays pending and
    the payouts in transit until the sweep's status query (ReconcileFirstSeconds is 1 s in the
    local stack) finds what became of them."""
    from mzpay.connectors.mpesa import third_party_reference

    with MpesaSandbox() as provider:  # its own: status answers are set per reference
        shop = live_shop(stack, provider)
        pid = live_charge(shop, "500.00")["provider_payment_id"]
        refund = live(shop, "POST", f"/v1/payments/{pid}/refund", {"amount": {"amount": "100.04", "currency": "MZN"}})
        assert refund.json()["status"] == "pending", refund.text
        rid = refund.json()["provider_refund_id"]
        provider.statuses[third_party_reference(rid)] = "Completed"

        paid_later, never_seen = (
            live(
                shop,
                "POST",
                "/payouts",
                {
                    "payout_id": str(ULID()),
                    "money": {"amount": "100.00", "currency": "MZN"},
                    "destination": wallet(phone),
                },
            ).json()["provider_payout_id"]
            for phone in ("+258840010004", "+258840020004")
        )
        provider.statuses[third_party_reference(paid_later)] = "Completed"

        def settled() -> tuple[str, str, str]:
            return (
                live(shop, "GET", f"/v1/refunds/{rid}").json()["status"],
                live(shop, "GET", f"/v1/payouts/{paid_later}").json()["status"],
                live(shop, "GET", f"/v1/payouts/{never_seen}").json()["status"],
            )

        deadline = time.monotonic() + 40
        while (now := settled()) != ("succeeded", "paid", "failed"):
            assert time.monotonic() < deadline, now
            time.sleep(0.5)
    missing = live(shop, "GET", f"/v1/payouts/{never_seen}").json()
    assert (missing["failure_code"], missing["failure_message"]) == (
        "not_received",
        "The provider never received the payment.",
    )
    queried = {r.query["input_QueryReference"] for r in provider.requests if r.path == QUERY_PATH}
    assert queried >= {third_party_reference(rid), third_party_reference(paid_later), third_party_reference(never_seen)}
    assert events_of(stack, rid) == ["refund.created", "refund.succeeded"]
    assert events_of(stack, paid_later)[-1] == "payout.paid" and events_of(stack, never_seen)[-1] == "payout.failed"
    # 500 captured, 100.04 refunded, 100 paid out, 100 back from the payout M-Pesa never got
    assert live_balance(shop) == [{"currency": "MZN", "available": "299.96", "held": "0.00", "fees": "0.00"}]


def test_what_the_provider_never_answers_waits_for_an_operator_who_resolves_it(
    stack: RunningStack, receiver: Receiver
) -> None:
    """A payout and a refund M-Pesa keeps answering "Pending" for: once 72 hours have passed
    (the test moves their created_at back), the sweep hands them to operators; the operator
    lists them and resolves each, once, with an audit record; the merchant sees the outcome."""
    from mzpay.connectors.mpesa import third_party_reference

    management = stack.state["regions"]["mz"]["management"]
    table = stack.state["resources"]["mz"]["PaymentsTable"]
    dynamodb = stack.aws("dynamodb")
    with MpesaSandbox() as provider:
        shop = live_shop(stack, provider)
        pid = live_charge(shop, "500.00")["provider_payment_id"]
        url = receiver.endpoint(200)
        refund = live(shop, "POST", f"/v1/payments/{pid}/refund", {"amount": {"amount": "100.04", "currency": "MZN"}})
        rid = refund.json()["provider_refund_id"]
        payout = live(
            shop,
            "POST",
            "/payouts",
            {
                "payout_id": str(ULID()),
                "money": {"amount": "200.00", "currency": "MZN"},
                "destination": wallet("+258840030004"),
                "callback_url": url,
            },
        ).json()
        poid = payout["provider_payout_id"]
        for reference in (rid, poid):
            provider.statuses[third_party_reference(reference)] = "Pending"  # M-Pesa never decides

        def age(key: dict[str, Any]) -> None:  # as if it had been created three days and a minute ago
            dynamodb.update_item(
                TableName=table,
                Key=key,
                UpdateExpression="SET created_at = :long_ago",
                ExpressionAttributeValues={":long_ago": {"S": "2026-01-01T00:00:00Z"}},
            )

        deadline = time.monotonic() + 30
        while live(shop, "GET", f"/v1/payouts/{poid}").json()["status"] != "in_transit":
            assert time.monotonic() < deadline
            time.sleep(0.2)
        age({"pk": {"S": f"REF#{rid}"}, "sk": {"S": "REFUND"}})
        age({"pk": {"S": f"PO#{poid}"}, "sk": {"S": "PAYOUT"}})

        def cases() -> list[dict[str, Any]]:
            listed = requests.get(f"{management}/v1/reconciliation-cases", headers=operator(stack), timeout=30)
            assert listed.status_code == 200, listed.text
            return [c for c in listed.json()["data"] if c["account_id"] == shop.account["id"]]

        deadline = time.monotonic() + 40
        while len(waiting := cases()) < 2:
            assert time.monotonic() < deadline, waiting
            time.sleep(0.5)
    by_id = {case["id"]: case for case in waiting}
    assert by_id[poid] == {
        "object": "payout",
        "id": poid,
        "account_id": shop.account["id"],
        "mode": "live",
        "status": "in_transit",
        "amount": "200.00",
        "currency": "MZN",
        "created_at": "2026-01-01T00:00:00Z",
        "reconciliation": "gave_up",
        "waiting_since": by_id[poid]["waiting_since"],
        "resolution": None,
    }
    assert (by_id[rid]["object"], by_id[rid]["status"], by_id[rid]["reconciliation"]) == (
        "refund",
        "pending",
        "gave_up",
    )

    def resolve(object_id: str, outcome: str, note: str) -> requests.Response:
        return requests.post(
            f"{management}/v1/reconciliation-cases/{object_id}/resolve",
            json={"outcome": outcome, "note": note},
            headers=operator(stack),
            timeout=30,
        )

    with ThreadPoolExecutor(4) as pool:  # operators racing: exactly one resolution lands
        answers = list(pool.map(lambda _: resolve(poid, "succeeded", "M-Pesa support confirmed it"), range(4)))
    assert sorted(a.status_code for a in answers) == [200, 409, 409, 409]
    resolved = next(a for a in answers if a.status_code == 200).json()
    assert (resolved["status"], resolved["reconciliation"], resolved["waiting_since"]) == ("paid", "resolved", None)
    assert {k: v for k, v in resolved["resolution"].items() if k != "at"} == {
        "outcome": "succeeded",
        "note": "M-Pesa support confirmed it",
        "by": "operator",
        "source_ip": "127.0.0.1",
    }
    assert next(a for a in answers if a.status_code == 409).json()["code"] == "invalid_state"
    failed = resolve(rid, "failed", "M-Pesa has no such reversal").json()
    assert (failed["status"], failed["reconciliation"]) == ("failed", "resolved")
    refund_now = live(shop, "GET", f"/v1/refunds/{rid}").json()
    assert (refund_now["status"], refund_now["failure_code"]) == ("failed", "resolved_failed")
    assert live(shop, "GET", f"/v1/payouts/{poid}").json()["status"] == "paid"
    assert cases() == []
    read = requests.get(f"{management}/v1/reconciliation-cases/{poid}", headers=operator(stack), timeout=30).json()
    assert read == resolved
    (arrival,) = receiver.wait_for(url, 1)
    assert json.loads(arrival.body)["type"] == "payout.paid"
    # 500 captured; the refund failed (its 100.04 back); 200 paid out
    assert live_balance(shop) == [{"currency": "MZN", "available": "300.00", "held": "0.00", "fees": "0.00"}]
    unknown = requests.post(
        f"{management}/v1/reconciliation-cases/{ULID()}/resolve",
        json={"outcome": "failed", "note": "x"},
        headers=operator(stack),
        timeout=30,
    )
    assert (unknown.status_code, unknown.json()["code"]) == (404, "not_found")
    anonymous = requests.get(f"{management}/v1/reconciliation-cases", timeout=30)
    assert anonymous.status_code == 401  # operators only
    bad = requests.post(
        f"{management}/v1/reconciliation-cases/{poid}/resolve",
        json={"outcome": "maybe", "note": "x" * 501},
        headers=operator(stack),
        timeout=30,
    )
    assert (bad.status_code, sorted(e["field"] for e in bad.json()["errors"])) == (400, ["note", "outcome"])

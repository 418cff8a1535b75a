"""Manual payments over HTTP through the local stack: recorded with evidence (files kept in S3
with their checksum), evidence replaced while pending, cancelled by the merchant, confirmed (the
money enters the balance, payment.succeeded signed to the callback) or rejected by an operator;
every other move is 409 invalid_state and changes nothing; tenancy; the races."""

from __future__ import annotations

import base64
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay.webhooks import verify
from tests.e2e.test_charges import Merchant, events_of, wallet
from tests.e2e.test_payouts import management, operator, stack_secret
from tests.e2e.test_refunds import balance, refund
from tests.e2e.test_webhooks import Receiver
from tests.expected import NOTHING_MOVED_YET, problem_for

pytestmark = pytest.mark.e2e
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00deposit slip"
PDF = b"%PDF-1.4\n%%EOF\n"


def evidence(text: str = "BCI deposit slip, Baixa branch.", *files: tuple[str, bytes]) -> dict[str, Any]:
    return {
        "text": text,
        "files": [{"file_type": kind, "content_base64": base64.b64encode(data).decode()} for kind, data in files],
    }


def record(shop: Merchant, amount: str = "1500.00", **extra: Any) -> requests.Response:
    body = {
        "money": {"amount": amount, "currency": "MZN"},
        "kind": "bank_deposit",
        "reference": "BCI-20261125-0042",
        "payer_name": "Ana Machava",
        "evidence": evidence("BCI deposit slip, Baixa branch.", ("jpg", JPEG)),
        **extra,
    }
    return shop.call("POST", "/v1/manual-payments", body)


def decide(
    stack: RunningStack, pid: str, action: str, note: str = "Slip matches the bank statement"
) -> requests.Response:
    return requests.post(
        f"{management(stack)}/v1/payments/{pid}/{action}", json={"note": note}, headers=operator(stack), timeout=30
    )


def test_a_manual_payment_waits_with_its_evidence_and_is_confirmed_into_the_balance(
    stack: RunningStack, receiver: Receiver
) -> None:
    shop = Merchant(stack)
    secret = stack_secret(stack, shop)
    url = receiver.endpoint(200)
    payment_id = str(ULID())
    made = record(shop, payment_id=payment_id, callback_url=url, description="Invoice 2026/118")
    assert made.status_code == 201, made.text
    body = made.json()
    pid = body["provider_payment_id"]
    files = body["evidence"]["files"]
    assert body == {
        "payment_id": payment_id,
        "provider_payment_id": pid,
        "status": "pending",
        "money": {"amount": "1500.00", "currency": "MZN"},
        "source": {
            "type": "manual",
            "manual": {"kind": "bank_deposit", "reference": "BCI-20261125-0042", "payer_name": "Ana Machava"},
        },
        "checkout_url": None,
        "expires_at": None,
        **NOTHING_MOVED_YET,
        "evidence": {"text": "BCI deposit slip, Baixa branch.", "files": files, "at": body["evidence"]["at"]},
        "resolution": None,
        "last_updated_at": body["last_updated_at"],
    }
    assert body["last_updated_at"] <= body["evidence"]["at"] < "2100"  # given when it was recorded
    sha = hashlib.sha256(JPEG).hexdigest()
    assert [(f["file_type"], f["size"], f["sha256"]) for f in files] == [("jpg", len(JPEG), sha)]
    assert files[0]["key"].startswith(f"accounts/{shop.account['id']}/payments/{pid}/")
    kept = stack.aws("s3").get_object(Bucket=stack.state["resources"]["mz"]["UploadsBucket"], Key=files[0]["key"])
    assert kept["Body"].read() == JPEG
    assert balance(shop)["balances"] == []  # no money until an operator confirms
    assert shop.call("GET", f"/v1/payments/{pid}").json() == body

    # the evidence may be replaced while pending
    changed = shop.call("PUT", f"/v1/payments/{pid}/evidence", evidence("Slip and bank statement.", ("pdf", PDF)))
    assert changed.status_code == 200, changed.text
    assert changed.json()["evidence"]["text"] == "Slip and bank statement."
    assert [f["file_type"] for f in changed.json()["evidence"]["files"]] == ["pdf"]

    confirmed = decide(stack, pid, "confirm")
    assert confirmed.status_code == 200, confirmed.text
    done = confirmed.json()
    assert (done["status"], done["captured_amount"]) == ("succeeded", "1500.00")
    assert done["resolution"] == {
        "outcome": "succeeded",
        "note": "Slip matches the bank statement",
        "by": "operator",
        "source_ip": done["resolution"]["source_ip"],
        "at": done["resolution"]["at"],
    }
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "1500.00", "held": "0.00", "fees": "0.00"}]
    (arrival,) = receiver.wait_for(url, 1)
    verify(arrival.body, arrival.headers["Service-Signature"], [secret])
    event = json.loads(arrival.body)
    assert (event["type"], event["resource_id"], event["data"]["object"]["status"]) == (
        "payment.succeeded",
        pid,
        "succeeded",
    )
    assert events_of(stack, pid) == ["payment.created", "payment.updated", "payment.succeeded"]

    # it left pending: its evidence cannot change, nor can it be cancelled or decided again
    for answer, action in [
        (shop.call("PUT", f"/v1/payments/{pid}/evidence", evidence("Later")), "change the evidence of"),
        (shop.call("POST", f"/v1/payments/{pid}/cancel"), "cancel"),
        (decide(stack, pid, "reject"), "reject"),
    ]:
        detail = f"Cannot {action} a payment that is succeeded."
        assert (answer.status_code, answer.json()) == (409, problem_for(409, "invalid_state", detail))
    # no provider holds this money: it is given back outside the gateway
    answer = refund(shop, pid)
    assert (answer.status_code, answer.json()["code"], answer.json()["detail"]) == (
        422,
        "not_supported",
        "A manual payment is given back outside the gateway (cash or a bank transfer).",
    )


def test_a_rejected_or_cancelled_manual_payment_moves_no_money(stack: RunningStack) -> None:
    shop = Merchant(stack)
    rejected_pid = record(shop).json()["provider_payment_id"]
    answer = decide(stack, rejected_pid, "reject", "The slip is for another account")
    assert answer.status_code == 200, answer.text
    assert (answer.json()["status"], answer.json()["failure_code"], answer.json()["resolution"]["outcome"]) == (
        "failed",
        "manual_payment_rejected",
        "failed",
    )
    cancelled_pid = record(shop).json()["provider_payment_id"]
    cancelled = shop.call("POST", f"/v1/payments/{cancelled_pid}/cancel")
    assert (cancelled.status_code, cancelled.json()["status"]) == (200, "canceled")
    late = decide(stack, cancelled_pid, "confirm")
    assert (late.status_code, late.json()["detail"]) == (409, "Cannot confirm a payment that is canceled.")
    assert balance(shop)["balances"] == []
    assert events_of(stack, rejected_pid) == ["payment.created", "payment.failed"]
    assert events_of(stack, cancelled_pid) == ["payment.created", "payment.canceled"]


def test_only_a_manual_payment_takes_evidence_or_an_operators_decision(stack: RunningStack) -> None:
    shop = Merchant(stack)
    charged = shop.charge(wallet("+258840000000")).json()
    pid = charged["provider_payment_id"]
    answer = shop.call("PUT", f"/v1/payments/{pid}/evidence", evidence())
    assert (answer.status_code, answer.json()["detail"]) == (409, "Only a manual payment can be given evidence.")
    answer = decide(stack, pid, "confirm")
    assert (answer.status_code, answer.json()["detail"]) == (409, "Only a manual payment can be confirmed.")
    missing = decide(stack, str(ULID()), "confirm")
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")


def test_bad_bodies_are_refused_and_nothing_is_kept(stack: RunningStack) -> None:
    shop = Merchant(stack)
    cases = [
        ({"kind": "cheque"}, "kind"),
        ({"money": {"amount": "0.00", "currency": "MZN"}}, "money.amount"),
        ({"reference": "R" * 65}, "reference"),
        ({"payer_name": "N" * 141}, "payer_name"),
        ({"evidence": evidence("x", ("pdf", JPEG))}, "evidence.files[0].content_base64"),
        ({"evidence": {"text": ""}}, "evidence.text"),
        ({"callback_url": "ftp://shop.example/hook"}, "callback_url"),
    ]
    for extra, field in cases:
        answer = record(shop, **extra)
        assert answer.status_code == 400, (field, answer.text)
        assert answer.json()["errors"][0]["field"] == field, answer.text
    listed = stack.aws("s3").list_objects_v2(
        Bucket=stack.state["resources"]["mz"]["UploadsBucket"], Prefix=f"accounts/{shop.account['id']}/payments/"
    )
    assert listed.get("KeyCount", 0) == 0
    assert shop.call("GET", "/v1/events?limit=10").json()["data"] == []
    cash = {"money": {"amount": "5.00", "currency": "MZN"}, "kind": "cash", "evidence": {"text": "cash"}}
    no_key = shop.call("POST", "/v1/manual-payments", cash, idempotency_key=None)
    assert (no_key.status_code, no_key.json()["code"]) == (400, "idempotency_key_required")


def test_a_retry_with_the_same_key_or_payment_id_records_one_payment(stack: RunningStack) -> None:
    shop = Merchant(stack)
    key, payment_id = str(ULID()), str(ULID())
    body = {
        "payment_id": payment_id,
        "money": {"amount": "20.00", "currency": "MZN"},
        "kind": "cash",
        "evidence": evidence("Cash at the counter"),
    }
    first = shop.call("POST", "/v1/manual-payments", body, idempotency_key=key)
    again = shop.call("POST", "/v1/manual-payments", body, idempotency_key=key)
    other_key = shop.call("POST", "/v1/manual-payments", body)
    assert (first.status_code, again.status_code, other_key.status_code) == (201, 201, 201)
    assert first.json() == again.json()
    assert other_key.json()["provider_payment_id"] == first.json()["provider_payment_id"]
    reused = shop.call("POST", "/v1/manual-payments", {**body, "money": {"amount": "21.00", "currency": "MZN"}})
    assert (reused.status_code, reused.json()["code"]) == (409, "payment_id_reused")


def test_another_accounts_or_modes_manual_payment_is_not_reached(stack: RunningStack) -> None:
    shop, other = Merchant(stack), Merchant(stack)
    pid = record(shop).json()["provider_payment_id"]
    for method, path, body in [
        ("GET", f"/v1/payments/{pid}", None),
        ("PUT", f"/v1/payments/{pid}/evidence", evidence("mine")),
        ("POST", f"/v1/payments/{pid}/cancel", None),
    ]:
        answer = other.call(method, path, body)
        assert (answer.status_code, answer.json()["code"]) == (404, "not_found"), path
        live = shop.call(method, path, body, key=shop.live_key)
        assert (live.status_code, live.json()["code"]) == (401, "wrong_environment"), path
    assert shop.call("GET", f"/v1/payments/{pid}").json()["status"] == "pending"


def test_racing_decisions_and_cancellation_land_once(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = record(shop, "300.00").json()["provider_payment_id"]

    def attempt(n: int) -> requests.Response:
        if n % 3 == 0:
            return shop.call("POST", f"/v1/payments/{pid}/cancel")
        return decide(stack, pid, "confirm" if n % 3 == 1 else "reject")

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(attempt, range(6)))
    assert sorted(a.status_code for a in answers) == [200, 409, 409, 409, 409, 409]
    final = shop.call("GET", f"/v1/payments/{pid}").json()["status"]
    assert final in ("succeeded", "failed", "canceled")
    expected = (
        [{"currency": "MZN", "available": "300.00", "held": "0.00", "fees": "0.00"}] if final == "succeeded" else []
    )
    assert balance(shop)["balances"] == expected
    assert len(events_of(stack, pid)) == 2

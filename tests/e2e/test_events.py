"""The events API and the webhook signature check over HTTP."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from mzpay.webhooks import sign
from tests.e2e.test_charges import Merchant, card, wallet
from tests.expected import problem

pytestmark = pytest.mark.e2e

ENVELOPE = {"id", "type", "created_at", "account_id", "mode", "api_version", "resource", "resource_id", "data"}


def test_a_payments_events_newest_first_and_each_readable(stack: RunningStack) -> None:
    shop = Merchant(stack)
    paid = shop.charge(wallet("+258840000000")).json()
    pid = paid["provider_payment_id"]
    listed = shop.call("GET", f"/v1/events?resource_id={pid}")
    assert listed.status_code == 200
    body = listed.json()
    assert (body["has_more"], body["next_cursor"]) == (False, None)
    assert "object" not in body  # the gateway's answers carry no `object` discriminator
    assert [e["type"] for e in body["data"]] == ["payment.succeeded", "payment.created"]
    succeeded = body["data"][0]
    assert set(succeeded) == ENVELOPE
    assert {k: succeeded[k] for k in ("account_id", "mode", "api_version", "resource", "resource_id")} == {
        "account_id": shop.account["id"],
        "mode": "test",
        "api_version": "2026-11-01",
        "resource": "payment",
        "resource_id": pid,
    }
    assert succeeded["data"]["object"]["status"] == "succeeded"
    assert succeeded["data"]["object"]["payment_id"] == paid["payment_id"]
    assert shop.call("GET", f"/v1/events/{succeeded['id']}").json() == succeeded


def test_paging_walks_every_event_once_and_filters_by_type(stack: RunningStack) -> None:
    shop = Merchant(stack)
    for phone in ("+258840000000", "+258840000001", "+258840000000"):
        shop.charge(wallet(phone))
    shop.charge(card("tok_test_visa"))  # created, card.tokenized, succeeded
    seen: list[dict[str, Any]] = []
    cursor = ""
    while True:
        page = shop.call("GET", f"/v1/events?limit=3{cursor}").json()
        seen += page["data"]
        assert len(page["data"]) <= 3
        if not page["has_more"]:
            break
        cursor = f"&starting_after={page['next_cursor']}"
    assert len(seen) == 9 and len({e["id"] for e in seen}) == 9
    assert [e["id"] for e in seen] == sorted((e["id"] for e in seen), reverse=True)
    failed = shop.call("GET", "/v1/events?type=payment.failed").json()["data"]
    assert [(e["type"], e["data"]["object"]["failure_code"]) for e in failed] == [
        ("payment.failed", "insufficient_funds")
    ]


def test_events_keep_tenancy_and_mode(stack: RunningStack) -> None:
    shop, other = Merchant(stack), Merchant(stack)
    shop.charge(wallet("+258840000000"))
    event_id = shop.call("GET", "/v1/events?limit=1").json()["data"][0]["id"]
    assert other.call("GET", f"/v1/events/{event_id}").json() == problem(
        404, "Not Found", "not_found", "No such event."
    )
    refused = shop.charge(wallet("+258840000000"), key=shop.live_key, country="ZA")  # a live rejection
    assert refused.status_code == 422
    live_event = shop.call("GET", "/v1/events", key=shop.live_key).json()["data"][0]
    assert (live_event["type"], live_event["mode"]) == ("transaction.rejected", "live")
    assert shop.call("GET", f"/v1/events/{live_event['id']}").json()["code"] == "wrong_environment"
    assert [e["mode"] for e in shop.call("GET", "/v1/events").json()["data"]] == ["test", "test"]
    assert shop.call("GET", "/v1/events/not-an-id").json() == problem(404, "Not Found", "not_found", "No such event.")


@pytest.mark.parametrize(
    ("query", "field"),
    [("limit=0", "limit"), ("limit=101", "limit"), ("limit=ten", "limit"), ("starting_after=%%%", "starting_after")],
)
def test_bad_paging_is_invalid_request(stack: RunningStack, query: str, field: str) -> None:
    response = Merchant(stack).call("GET", f"/v1/events?{query}")
    assert (response.status_code, response.json()["code"], response.json()["errors"][0]["field"]) == (
        400,
        "invalid_request",
        field,
    )


# ---------------------------------------------------------------- signature check
def verify(stack: RunningStack, payload: bytes, header: str | None) -> requests.Response:
    headers = {"Authorization": f"Bearer {stack.state['demo']['mz']['test_key']}", "Content-Type": "application/json"}
    if header is not None:
        headers["Service-Signature"] = header
    gateway = stack.state["regions"]["mz"]["gateway"]
    return requests.post(f"{gateway}/v1/admin/webhooks/verify", data=payload, headers=headers, timeout=30)


PAYLOAD = json.dumps({"id": "01JD5EVENT0000000000000000", "type": "payment.succeeded"}).encode()


def test_a_signature_made_with_the_accounts_secret_verifies(stack: RunningStack) -> None:
    secret = stack.state["demo"]["mz"]["webhook_secret_test"]
    t = int(time.time())
    independent = hmac.new(secret.encode(), f"{t}.".encode() + PAYLOAD, hashlib.sha256).hexdigest()
    header = f"t={t},v1={independent}"
    assert sign(PAYLOAD, [secret], t) == header
    answer = verify(stack, PAYLOAD, header)
    assert (answer.status_code, answer.json()) == (200, {"valid": True, "t": t, "tolerance_seconds": 300})


def test_signature_failures_answer_error_message_and_t(stack: RunningStack) -> None:
    secret = stack.state["demo"]["mz"]["webhook_secret_test"]
    t = int(time.time())
    good = sign(PAYLOAD, [secret], t)
    cases = [
        (PAYLOAD + b" ", good, "signature_invalid", t),  # tampered body
        (PAYLOAD, sign(PAYLOAD, ["whsec_not_ours"], t), "signature_invalid", t),  # wrong secret
        (PAYLOAD, sign(PAYLOAD, [secret], t - 301), "signature_timestamp_outside_tolerance", t - 301),  # old
        (PAYLOAD, f"v1={good.split('v1=')[1]}", "signature_invalid", None),  # no t=
        (PAYLOAD, f"t={t}", "signature_invalid", t),  # no v1=
        (PAYLOAD, None, "signature_invalid", None),  # no header
    ]
    for payload, header, code, expected_t in cases:
        answer = verify(stack, payload, header)
        assert answer.status_code == 401, (header, answer.text)
        body = answer.json()
        assert (set(body), body["error"], body["t"]) == ({"error", "message", "t"}, code, expected_t), header
        assert body["message"]

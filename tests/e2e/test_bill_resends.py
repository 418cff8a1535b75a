"""Resending a bill payment's token or receipt over HTTP through the local stack (issue 17, item
4): at most 3 times (422 resend_limit, raced), by SMS only with the account's SMS channel (503
sms_unavailable); each resend goes through the outbox, NotificationQueue and the notification
sender to the provider, whose local outbox the test reads."""

from __future__ import annotations

import io
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from devstack.launcher import ROOT, RunningStack
from tests.e2e.test_bill_payments import ELECTRICITY, pay, quoted, refused
from tests.e2e.test_charges import Merchant, events_of
from tests.e2e.test_payouts import funded

sys.path.insert(0, str(ROOT / "tools"))

from mzpay_admin.cli import run

pytestmark = pytest.mark.e2e

PAYER = {"email": "ana@example.co.mz", "phone_number": "+258841234567"}


def bought(
    stack: RunningStack, payer: dict[str, str] | None = None, reference: str = "04000000001"
) -> tuple[Merchant, dict[str, Any]]:
    shop = funded(stack, "1000.00")
    answer = pay(shop, quoted(shop, ELECTRICITY, reference, "100.00")["quote_id"], payer=payer or PAYER)
    assert answer.status_code == 201, answer.text
    return shop, answer.json()


def resend(shop: Merchant, payment_id: str, channel: str, attempts: int = 5) -> requests.Response:
    """A resend, retried after a 503 other than sms_unavailable (a busy machine's authorizer)."""
    for _ in range(attempts):
        answer = shop.call("POST", f"/v1/bill-payments/{payment_id}/resend", {"channel": channel}, idempotency_key=None)
        if answer.status_code != 503 or answer.json()["code"] == "sms_unavailable":
            return answer
        time.sleep(float(answer.headers.get("Retry-After", "1")))
    return answer


def sms_channel(stack: RunningStack, shop: Merchant, sender_id: str | None) -> requests.Response:
    url = f"{stack.state['regions']['mz']['management']}/v1/accounts/{shop.account['id']}/sms-channel"
    headers = {"Authorization": f"Bearer {stack.state['operator_token']}"}
    if sender_id is None:
        return requests.delete(url, headers=headers, timeout=30)
    return requests.put(url, json={"sender_id": sender_id}, headers=headers, timeout=30)


def outbox(stack: RunningStack, payment_id: str, count: int, timeout: float = 20) -> list[dict[str, Any]]:
    """The local provider's messages about the payment once there are `count`."""
    deadline = time.monotonic() + timeout
    while True:
        answer = stack.aws("dynamodb").query(
            TableName=stack.state["resources"]["mz"]["PaymentsTable"],
            IndexName="gsi1",
            KeyConditionExpression="gsi1pk = :pk",
            ExpressionAttributeValues={":pk": {"S": f"OUTBOX#{payment_id}"}},
        )
        found = [{k: v["S"] for k, v in item.items() if "S" in v} for item in answer["Items"]]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def test_a_token_is_resent_by_email_three_times_at_most(stack: RunningStack) -> None:
    shop, payment = bought(stack)
    pid = payment["payment_id"]
    resend_ids = []
    for n in (1, 2, 3):
        answer = resend(shop, pid, "email")
        assert answer.status_code == 201, answer.text
        body = answer.json()
        resend_ids.append(body["resend_id"])
        assert body == {
            "resend_id": body["resend_id"],
            "payment_id": pid,
            "channel": "email",
            "to": "ana@example.co.mz",
            "status": "queued",
            "resends": n,
            "requested_at": body["requested_at"],
        }
    refused(resend(shop, pid, "email"), 422, "resend_limit", "The token or receipt was already resent 3 times.")
    assert shop.call("GET", f"/v1/bill-payments/{pid}", idempotency_key=None).json()["resends"] == 3
    sent = outbox(stack, pid, 4)  # the token as the payment first sent it, then its 3 resends
    assert len(sent) == 4
    (first,) = [m for m in sent if m["cause"] == f"bill_payment.succeeded:{pid}"]
    assert {m["cause"] for m in sent} == {first["cause"], *resend_ids}
    # each resend is the first message again, in the business's language (Portuguese)
    assert {(m["channel"], m["to"], m["sender"], m["text"]) for m in sent} == {
        ("email", "ana@example.co.mz", "", first["text"])  # "": the region's From (docs/notifications.md)
    }
    assert f"Token: {payment['token']}" in first["text"] and f"Recibo: {payment['receipt_number']}" in first["text"]
    assert "O seu pagamento de 100,00 MT a EDM Credelec para 04000000001 foi efectuado." in first["text"]
    assert events_of(stack, pid).count("bill_payment.resend_requested") == 3


def test_racing_resends_stop_at_the_limit(stack: RunningStack) -> None:
    shop, payment = bought(stack)
    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(lambda _: resend(shop, payment["payment_id"], "email"), range(6)))
    assert sorted(a.status_code for a in answers) == [201, 201, 201, 422, 422, 422], [a.text for a in answers]
    assert sorted(a.json()["resends"] for a in answers if a.status_code == 201) == [1, 2, 3]
    assert {a.json()["code"] for a in answers if a.status_code == 422} == {"resend_limit"}
    sent = outbox(stack, payment["payment_id"], 4)
    resent = {a.json()["resend_id"] for a in answers if a.status_code == 201}
    assert {m["cause"] for m in sent} == {f"bill_payment.succeeded:{payment['payment_id']}", *resent}  # first + 3


def test_sms_needs_the_accounts_sms_channel(stack: RunningStack) -> None:
    shop, payment = bought(stack)
    pid = payment["payment_id"]
    answer = resend(shop, pid, "sms")
    refused(answer, 503, "sms_unavailable", "No SMS channel is configured for this account; resend by email.")
    set_ = sms_channel(stack, shop, "MERCEARIA")
    assert set_.status_code == 200
    assert set_.json() == {
        "account_id": shop.account["id"],
        "sms_sender_id": "MERCEARIA",
        "updated_at": set_.json()["updated_at"],
    }
    sent = resend(shop, pid, "sms")
    assert sent.status_code == 201 and (sent.json()["to"], sent.json()["resends"]) == ("+258841234567", 1)
    (message,) = [m for m in outbox(stack, pid, 2) if m["channel"] == "sms"]  # the first went by e-mail
    assert (message["channel"], message["to"], message["sender"]) == ("sms", "+258841234567", "MERCEARIA")
    assert message["text"] == (
        f"EDM Credelec: token {payment['token']} para 04000000001, 100,00 MT. Recibo {payment['receipt_number']}"
    )
    assert sms_channel(stack, shop, None).json()["sms_sender_id"] is None
    refused(resend(shop, pid, "sms"), 503, "sms_unavailable")
    bad = sms_channel(stack, shop, "TOO-LONG-SENDER")
    assert bad.status_code == 400 and bad.json()["errors"][0]["field"] == "sender_id"


def test_what_cannot_be_resent(stack: RunningStack) -> None:
    shop, failed = bought(stack, reference="04000000402")
    assert failed["status"] == "failed"
    refused(
        resend(shop, failed["payment_id"], "email"),
        409,
        "invalid_state",
        "A failed bill payment has no token or receipt to resend.",
    )
    _shop, no_email = bought(stack, payer={"phone_number": "+258841234567"})
    refused(
        resend(_shop, no_email["payment_id"], "email"),
        400,
        "invalid_request",
        "channel: the payment's payer has no email.",
    )
    refused(
        shop.call("POST", f"/v1/bill-payments/{failed['payment_id']}/resend", {"channel": "fax"}, idempotency_key=None),
        400,
        "invalid_request",
    )
    missing = resend(shop, "5b7c3f5e-8f4e-5d63-9a0e-3c1b2a4d5e6f", "email")
    refused(missing, 404, "not_found", "No such bill payment.")
    other = Merchant(stack)
    refused(resend(other, no_email["payment_id"], "sms"), 404, "not_found", "No such bill payment.")


def test_mzpay_admin_sets_an_accounts_sms_channel(stack: RunningStack) -> None:
    shop, payment = bought(stack)

    def admin(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        code = run(["--region", "mz", "--stack-file", str(stack.state_file), *argv], out, err, {})
        return code, out.getvalue(), err.getvalue()

    code, out, _ = admin("accounts", "sms-channel", shop.account["id"], "--sender-id", "LOJA1", "--json")
    assert code == 0 and json.loads(out)["sms_sender_id"] == "LOJA1"
    assert resend(shop, payment["payment_id"], "sms").status_code == 201
    code, out, _ = admin("accounts", "sms-channel", shop.account["id"], "--remove")
    assert code == 0 and "sms_sender_id:  -\n" in out
    refused(resend(shop, payment["payment_id"], "sms"), 503, "sms_unavailable")

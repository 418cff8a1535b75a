"""Disputes over HTTP through the local stack: an operator opens one on a succeeded payment (the
money held at once, the payment refused refunds meanwhile), the merchant gives evidence once
(files kept in S3 with their checksum) or accepts it, an operator decides it won or lost (ledger,
events, signed webhooks); every refusal with its code and nothing changed; tenancy; the races of
every conditional write."""

from __future__ import annotations

import base64
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay.webhooks import verify
from tests.e2e.test_charges import Merchant, card, events_of, wallet
from tests.e2e.test_payouts import management, operator, settled, stack_secret
from tests.e2e.test_refunds import balance, ledger_entries, refund
from tests.e2e.test_webhooks import Receiver
from tests.expected import problem

pytestmark = pytest.mark.e2e
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
DISPUTED = "This payment is disputed: it takes no refund until the dispute is decided."


def paid(shop: Merchant, amount: str = "150.00", **extra: Any) -> str:
    answer = shop.charge(wallet("+258840000000"), amount=amount, **extra).json()
    assert answer["status"] == "succeeded", answer
    return str(answer["provider_payment_id"])


def open_dispute(stack: RunningStack, shop: Merchant, pid: str, **extra: Any) -> requests.Response:
    body = {"account_id": shop.account["id"], "provider_payment_id": pid, "reason": "product_not_received", **extra}
    return requests.post(f"{management(stack)}/v1/disputes", json=body, headers=operator(stack), timeout=30)


def decide(stack: RunningStack, dispute_id: str, outcome: str, note: str = "Issuer's ruling") -> requests.Response:
    return requests.post(
        f"{management(stack)}/v1/disputes/{dispute_id}/decide",
        json={"outcome": outcome, "note": note},
        headers=operator(stack),
        timeout=30,
    )


def evidence(text: str = "Delivered on 2026-11-20, signed note attached.", *files: tuple[str, bytes]) -> dict[str, Any]:
    return {
        "text": text,
        "files": [{"file_type": kind, "content_base64": base64.b64encode(data).decode()} for kind, data in files],
    }


def balances(shop: Merchant, available: str, held: str) -> list[dict[str, str]]:
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": available, "held": held, "fees": "0.00"}]
    return [{"available": available, "held": held}]


def test_a_dispute_holds_the_money_takes_evidence_once_and_is_won(stack: RunningStack, receiver: Receiver) -> None:
    shop = Merchant(stack)
    secret = stack_secret(stack, shop)
    url = receiver.endpoint(200)
    pid = paid(shop, "150.00", callback_url=url)
    receiver.wait_for(url, 1)  # payment.succeeded

    opened = open_dispute(stack, shop, pid, amount={"amount": "100.00", "currency": "MZN"}, provider_reference="CB-1")
    assert opened.status_code == 201, opened.text
    body = opened.json()
    dispute_id = body["dispute_id"]
    assert body == {
        "dispute_id": dispute_id,
        "provider_payment_id": pid,
        "status": "needs_response",
        "mode": "test",
        "money": {"amount": "100.00", "currency": "MZN"},
        "reason": "product_not_received",
        "provider_reference": "CB-1",
        "evidence_due_by": body["evidence_due_by"],
        "evidence": None,
        "decision": None,
        "created_at": body["created_at"],
        "updated_at": body["created_at"],
    }
    assert ULID.from_str(dispute_id)
    balances(shop, "50.00", "100.00")
    # no refund while it is open, not even of what the dispute does not hold
    answer = refund(shop, pid, "10.00")
    assert (answer.status_code, answer.json()) == (409, problem(409, "Conflict", "invalid_state", DISPUTED))
    arrivals = receiver.wait_for(url, 2)
    verify(arrivals[1].body, arrivals[1].headers["Service-Signature"], [secret])
    created = json.loads(arrivals[1].body)
    assert (created["type"], created["resource"], created["resource_id"]) == ("dispute.created", "dispute", dispute_id)
    assert created["data"]["object"] == body

    assert shop.call("GET", f"/v1/disputes/{dispute_id}").json() == body
    listed = shop.call("GET", "/v1/disputes").json()
    assert listed == {"data": [body], "has_more": False, "next_page_token": None}

    given = shop.call("POST", f"/v1/disputes/{dispute_id}/evidence", evidence("Delivered.", ("pdf", PDF)))
    assert given.status_code == 200, given.text
    reviewed = given.json()
    key = reviewed["evidence"]["files"][0]["key"]
    folder, submission, name = key.rsplit("/", 2)
    assert (folder, ULID.from_str(submission) is not None, name) == (
        f"accounts/{shop.account['id']}/disputes/{dispute_id}",
        True,
        "evidence-0.pdf",
    )
    sha = hashlib.sha256(PDF).hexdigest()
    assert reviewed["status"] == "under_review"
    assert reviewed["evidence"] == {
        "text": "Delivered.",
        "files": [{"file_type": "pdf", "size": len(PDF), "sha256": sha, "key": key}],
        "at": reviewed["updated_at"],
    }
    kept = stack.aws("s3").get_object(Bucket=stack.state["resources"]["mz"]["UploadsBucket"], Key=key)
    assert (kept["Body"].read(), kept["Metadata"]["sha256"]) == (PDF, sha)
    # the evidence cannot change, nor can the merchant accept it now
    again = shop.call("POST", f"/v1/disputes/{dispute_id}/evidence", evidence("Something else."))
    assert (again.status_code, again.json()) == (
        409,
        problem(409, "Conflict", "invalid_state", "Cannot submit evidence for a dispute that is under review."),
    )
    late = shop.call("POST", f"/v1/disputes/{dispute_id}/accept")
    assert (late.status_code, late.json()["code"]) == (409, "invalid_state")
    assert shop.call("GET", f"/v1/disputes/{dispute_id}").json() == reviewed

    won = decide(stack, dispute_id, "won", "Issuer accepted the delivery note")
    assert won.status_code == 200, won.text
    decided = won.json()
    assert decided["status"] == "won"
    assert decided["decision"] == {
        "outcome": "won",
        "note": "Issuer accepted the delivery note",
        "by": "operator",
        "source_ip": decided["decision"]["source_ip"],
        "at": decided["updated_at"],
    }
    assert decided["decision"]["source_ip"]
    balances(shop, "150.00", "0.00")
    arrivals = receiver.wait_for(url, 3)
    assert json.loads(arrivals[2].body)["type"] == "dispute.won"
    again = decide(stack, dispute_id, "lost")
    assert (again.status_code, again.json()) == (
        409,
        problem(409, "Conflict", "invalid_state", "Cannot decide a dispute that is won."),
    )
    assert events_of(stack, dispute_id) == ["dispute.created", "dispute.evidence_submitted", "dispute.won"]
    # decided: the payment takes refunds again, of all of it
    answer = refund(shop, pid)
    assert (answer.status_code, answer.json()["status"]) == (200, "succeeded")
    balances(shop, "0.00", "0.00")


def test_an_accepted_dispute_is_lost_and_counts_against_what_may_be_refunded(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = paid(shop, "200.00")
    first = refund(shop, pid, "50.00")
    assert first.json()["status"] == "succeeded"
    opened = open_dispute(stack, shop, pid).json()  # by default: all that was not refunded
    assert (opened["money"], opened["status"]) == ({"amount": "150.00", "currency": "MZN"}, "needs_response")
    balances(shop, "0.00", "150.00")
    accepted = shop.call("POST", f"/v1/disputes/{opened['dispute_id']}/accept")
    assert accepted.status_code == 200, accepted.text
    assert (accepted.json()["status"], accepted.json()["decision"]) == (
        "lost",
        {"outcome": "lost", "by": "merchant", "at": accepted.json()["updated_at"]},
    )
    balances(shop, "0.00", "0.00")
    # the payer has had everything back: 50.00 refunded, 150.00 charged back
    answer = refund(shop, pid, "0.01")
    assert (answer.status_code, answer.json()["code"]) == (422, "amount_exceeds_remaining")
    kinds = [e["kind"] for e in ledger_entries(stack, shop)]
    assert sorted(kinds) == sorted(
        ["payment.captured", "refund.created", "refund.succeeded", "dispute.created", "dispute.lost"]
    )
    for entry in ledger_entries(stack, shop):
        assert sum(v for k, v in entry.items() if k != "kind") == 0, entry


def test_a_dispute_takes_the_money_even_from_a_spent_balance(stack: RunningStack) -> None:
    """The provider has taken the money back already: available goes below zero, and what needs
    available money (refunds, payouts) waits until payments cover it again."""
    shop = Merchant(stack)
    pid = paid(shop, "100.00")
    sent = shop.call(
        "POST",
        "/payouts",
        {
            "payout_id": str(ULID()),
            "money": {"amount": "80.00", "currency": "MZN"},
            "destination": wallet("+258840000000"),
        },
    ).json()
    assert settled(shop, sent["provider_payout_id"])["status"] == "paid"
    balances(shop, "20.00", "0.00")
    opened = open_dispute(stack, shop, pid).json()
    assert opened["money"] == {"amount": "100.00", "currency": "MZN"}
    balances(shop, "-80.00", "100.00")
    other = paid(shop, "30.00")
    answer = refund(shop, other, "5.00")
    assert (answer.status_code, answer.json()["code"]) == (422, "insufficient_balance")
    balances(shop, "-50.00", "100.00")
    won = decide(stack, opened["dispute_id"], "won")
    assert won.json()["status"] == "won"
    balances(shop, "50.00", "0.00")


def test_opening_refusals_change_nothing(stack: RunningStack) -> None:
    shop, other = Merchant(stack), Merchant(stack)
    pid = paid(shop, "80.00")
    failed = shop.charge(wallet("+258840000001"), amount="80.00").json()["provider_payment_id"]
    theirs = paid(other, "80.00")
    before = balance(shop)

    def refused(response: requests.Response, status: int, code: str, detail: str) -> None:
        assert response.status_code == status, response.text
        assert (response.json()["code"], response.json()["detail"]) == (code, detail)

    refused(open_dispute(stack, shop, str(ULID())), 404, "not_found", "The account has no such payment.")
    refused(open_dispute(stack, shop, theirs), 404, "not_found", "The account has no such payment.")
    refused(open_dispute(stack, shop, failed), 409, "invalid_state", "Cannot dispute a payment that is failed.")
    refused(
        open_dispute(stack, shop, pid, amount={"amount": "80.01", "currency": "MZN"}),
        400,
        "invalid_amount",
        "A dispute of this payment takes more than 0 and at most 80.00 MZN.",
    )
    refused(
        open_dispute(stack, shop, pid, amount={"amount": "10.00", "currency": "USD"}),
        400,
        "invalid_currency",
        "amount.currency: a dispute is in the payment's currency (MZN).",
    )
    bad = open_dispute(stack, shop, pid, reason="changed_my_mind")
    assert (bad.status_code, bad.json()["code"], bad.json()["errors"][0]["field"]) == (
        400,
        "invalid_request",
        "reason",
    )
    long_ref = open_dispute(stack, shop, pid, provider_reference="R" * 65)
    assert (long_ref.status_code, long_ref.json()["errors"][0]["field"]) == (400, "provider_reference")
    assert balance(shop) == before
    assert shop.call("GET", "/v1/disputes").json()["data"] == []
    # and once one is open, a second one waits for its decision
    assert open_dispute(stack, shop, pid).status_code == 201
    refused(
        open_dispute(stack, shop, pid),
        409,
        "invalid_state",
        "This payment is disputed already; the dispute is not decided.",
    )


def test_evidence_refusals_change_nothing(stack: RunningStack) -> None:
    shop = Merchant(stack)
    dispute_id = open_dispute(stack, shop, paid(shop)).json()["dispute_id"]
    path = f"/v1/disputes/{dispute_id}/evidence"
    cases = [
        ({"text": "x", "files": [{"file_type": "pdf", "content_base64": "not base64!"}]}, "files[0].content_base64"),
        (evidence("x", ("pdf", b"\x89PNG\r\n\x1a\nnot a pdf")), "files[0].content_base64"),
        (evidence("x", ("png", PDF)), "files[0].content_base64"),
        ({"text": "", "files": []}, "text"),
        ({"text": "x" * 20_001}, "text"),
        (evidence("x", *[("pdf", PDF)] * 4), "files"),
        ({"text": "x", "files": [{"file_type": "exe", "content_base64": "TVo="}]}, "files.0.file_type"),
    ]
    for body, field in cases:
        answer = shop.call("POST", path, body)
        assert answer.status_code == 400, (field, answer.text)
        assert answer.json()["errors"][0]["field"] == field, answer.text
    assert shop.call("GET", f"/v1/disputes/{dispute_id}").json()["status"] == "needs_response"
    listed = stack.aws("s3").list_objects_v2(
        Bucket=stack.state["resources"]["mz"]["UploadsBucket"], Prefix=f"accounts/{shop.account['id']}/disputes/"
    )
    assert listed.get("KeyCount", 0) == 0


def test_another_accounts_or_modes_dispute_is_not_reached(stack: RunningStack) -> None:
    shop, other = Merchant(stack), Merchant(stack)
    opened = open_dispute(stack, shop, paid(shop)).json()
    dispute_id = opened["dispute_id"]
    not_found = problem(404, "Not Found", "not_found", "No such dispute.")
    for method, path, body in [
        ("GET", f"/v1/disputes/{dispute_id}", None),
        ("POST", f"/v1/disputes/{dispute_id}/evidence", evidence("mine now")),
        ("POST", f"/v1/disputes/{dispute_id}/accept", None),
        ("GET", f"/v1/disputes/{ULID()}", None),
        ("GET", "/v1/disputes/not-an-id", None),
    ]:
        answer = other.call(method, path, body)
        assert (answer.status_code, answer.json()) == (404, not_found), path
    assert other.call("GET", "/v1/disputes").json()["data"] == []
    live = shop.call("GET", f"/v1/disputes/{dispute_id}", key=shop.live_key)
    assert (live.status_code, live.json()["code"]) == (401, "wrong_environment")
    assert shop.call("GET", "/v1/disputes", key=shop.live_key).json()["data"] == []
    reader = shop.call("POST", f"/v1/disputes/{dispute_id}/accept", key=shop.reader)
    assert (reader.status_code, reader.json()["code"]) == (403, "insufficient_scope")
    assert shop.call("GET", f"/v1/disputes/{dispute_id}").json() == opened


def test_the_list_is_paged_newest_first(stack: RunningStack) -> None:
    shop = Merchant(stack)
    ids = [open_dispute(stack, shop, paid(shop, "10.00")).json()["dispute_id"] for _ in range(3)]
    first = shop.call("GET", "/v1/disputes?limit=2").json()
    assert [d["dispute_id"] for d in first["data"]] == ids[::-1][:2] and first["has_more"]
    rest = shop.call("GET", f"/v1/disputes?limit=2&page_token={first['next_page_token']}").json()
    assert [d["dispute_id"] for d in rest["data"]] == ids[:1] and not rest["has_more"]
    for query, field in [("limit=0", "limit"), ("limit=x", "limit"), ("page_token=forged", "page_token")]:
        answer = shop.call("GET", f"/v1/disputes?{query}")
        assert (answer.status_code, answer.json()["code"], answer.json()["errors"][0]["field"]) == (
            400,
            "invalid_request",
            field,
        )


# ---------------------------------------------------------------- races
def test_racing_openings_of_one_payment_open_one_dispute(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = paid(shop, "60.00")
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: open_dispute(stack, shop, pid), range(6)))
    assert sorted(a.status_code for a in answers) == [201, 409, 409, 409, 409, 409]
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"invalid_state"}
    balances(shop, "0.00", "60.00")
    assert len(shop.call("GET", "/v1/disputes").json()["data"]) == 1


def test_a_refund_and_a_dispute_racing_for_the_same_money_never_both_take_it(stack: RunningStack) -> None:
    for _round in range(3):
        shop = Merchant(stack)
        pid = paid(shop, "90.00")
        paid(shop, "500.00")  # enough available money that only the payment's remainder decides
        with ThreadPoolExecutor(2) as pool:
            refunding = pool.submit(refund, shop, pid)
            disputing = pool.submit(open_dispute, stack, shop, pid)
            refunded, disputed = refunding.result(), disputing.result()
        outcomes = (refunded.status_code, disputed.status_code)
        assert outcomes in ((200, 400), (409, 201)), (refunded.text, disputed.text)
        if outcomes == (200, 400):  # the refund took it all: nothing left to dispute
            assert disputed.json()["code"] == "invalid_amount"
            balances(shop, "500.00", "0.00")
        else:
            assert refunded.json()["detail"] == DISPUTED
            balances(shop, "500.00", "90.00")


def test_racing_decisions_land_once(stack: RunningStack) -> None:
    shop = Merchant(stack)
    dispute_id = open_dispute(stack, shop, paid(shop, "70.00")).json()["dispute_id"]
    outcomes = ["won", "lost"] * 3
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda o: decide(stack, dispute_id, o), outcomes))
    assert sorted(a.status_code for a in answers) == [200, 409, 409, 409, 409, 409]
    final = shop.call("GET", f"/v1/disputes/{dispute_id}").json()
    assert final["status"] in ("won", "lost")
    expected = ("70.00", "0.00") if final["status"] == "won" else ("0.00", "0.00")
    balances(shop, *expected)
    assert events_of(stack, dispute_id) == ["dispute.created", f"dispute.{final['status']}"]
    assert Decimal(final["money"]["amount"]) == Decimal("70.00")


def test_a_card_payment_is_disputed_like_any_other(stack: RunningStack) -> None:
    shop = Merchant(stack)
    pid = shop.charge(card("tok_test_visa"), amount="25.00").json()["provider_payment_id"]
    assert open_dispute(stack, shop, pid, reason="fraudulent").json()["reason"] == "fraudulent"


def test_the_list_filters_by_status_payment_and_amount(stack: RunningStack) -> None:
    shop = Merchant(stack)
    first, second = paid(shop, "20.00"), paid(shop, "80.00")
    kept = open_dispute(stack, shop, first).json()["dispute_id"]
    answered = open_dispute(stack, shop, second).json()["dispute_id"]
    assert shop.call("POST", f"/v1/disputes/{answered}/evidence", evidence()).status_code == 200

    def listed(query: str) -> list[str]:
        answer = shop.call("GET", f"/v1/disputes?{query}")
        assert answer.status_code == 200, answer.text
        return [d["dispute_id"] for d in answer.json()["data"]]

    assert listed("status=under_review") == [answered]
    assert listed("status=needs_response") == [kept]
    assert listed(f"payment={first}") == [kept]
    assert listed("amount_gte=50.00") == [answered]
    assert listed("currency=MZN&limit=1") == [answered]
    assert listed("status=won") == []
    for query, field in (
        ("status=open", "status"),
        ("payment_id=x", "payment_id"),
        ("created_gte=yesterday", "created_gte"),
    ):
        answer = shop.call("GET", f"/v1/disputes?{query}")
        assert (answer.status_code, answer.json()["code"], answer.json()["errors"][0]["field"]) == (
            400,
            "invalid_request",
            field,
        )

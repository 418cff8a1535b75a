"""The dashboard's money pages over HTTP on the local stack (docs/dashboard.md, "Money"): balance
transactions, reports, payouts and disputes show what the gateway's routes answer, and their forms
act through the same use cases: by role, in the session's mode, for the user's own account only,
each field bounded, no card number taken, every post on the audit trail with the user named."""

from __future__ import annotations

import csv
import io
import re
import uuid

import pytest
import requests

from devstack.launcher import RunningStack
from mzpay.domain.money.reports import TRANSACTION_COLUMNS
from tests.e2e.dashboard_client import DashboardUser, audit_records, csrf, new_user, page_marks, who_did_what
from tests.e2e.test_charges import Merchant, wallet
from tests.e2e.test_disputes import PDF, open_dispute, paid
from tests.e2e.test_payouts import funded, set_payout_limits
from tests.e2e.test_reports import DEADLINE_SECONDS
from tests.polling import eventually

pytestmark = pytest.mark.e2e
CARD = "4242 4242 4242 4242"


def signed_in(stack: RunningStack, shop: Merchant, role: str, lang: str | None = None) -> tuple[DashboardUser, str]:
    """A user of `shop`'s account in `role`, signed in; and its e-mail."""
    member = new_user(stack, shop.account["id"], f"{role}-{uuid.uuid4().hex[:8]}@example.co.mz", role)
    user = DashboardUser(stack, lang=lang)
    assert user.sign_in(member).status_code == 303
    return user, member["email"]


def to_live(user: DashboardUser) -> None:
    assert user.post("/mode", {"mode": "live"}, "/").status_code == 303


def marks(page: requests.Response) -> tuple[int, str, str | None]:
    shown = page_marks(page)
    return page.status_code, shown["page"], shown.get("code")


def rows(page: requests.Response, kind: str) -> list[str]:
    return re.findall(rf'<tr data-{kind}="([^"]+)"', page.text)


def form_token(page: requests.Response) -> str:
    return re.findall(r'name="payout_id" value="([^"]+)"', page.text)[0]


def test_balance_transactions_show_the_ledger_the_api_lists(stack: RunningStack) -> None:
    shop = funded(stack, "700.00")
    assert shop.charge(wallet("+258840000000"), amount="50.00").json()["status"] == "succeeded"
    api = shop.call("GET", "/v1/balance/transactions", idempotency_key=None).json()["data"]
    for role in ("support", "developer", "finance"):  # every role reads the balance
        user, _ = signed_in(stack, shop, role)
        page = user.call("GET", "/balance-transactions")
        assert marks(page) == (200, "finance-transactions", None)
        assert rows(page, "transaction") == [t["id"] for t in api]
    assert re.findall(r'data-type="([a-z_]+)" data-net="([^"]+)"', page.text) == [(t["type"], t["net"]) for t in api]
    assert re.findall(r'data-available-after="([^"]+)"', page.text) == [t["balance_after"]["available"] for t in api]
    assert "750,00" in page.text and page.headers["Content-Language"] == "pt"  # Maputo's words, Portuguese
    first = api[-1]["id"]
    one = user.call("GET", "/balance-transactions?page_size=1&type=charge")
    assert rows(one, "transaction") == [api[0]["id"]] and "page_token=" in one.text  # filtered and paged
    bad = user.call("GET", "/balance-transactions?type=gift")
    assert marks(bad) == (400, "refused", "invalid_request") and "type" in bad.text
    assert marks(user.call("GET", "/balance-transactions?source=" + "x" * 201))[2] == "invalid_request"
    card = user.call("GET", "/balance-transactions?source=" + CARD.replace(" ", ""))
    assert marks(card) == (400, "refused", "gateway.raw_card_data_not_accepted")
    to_live(user)
    live = user.call("GET", "/balance-transactions")
    assert marks(live) == (200, "finance-transactions", None) and first not in live.text  # the other mode's: none


def test_finance_requests_a_report_and_downloads_it_others_may_not(stack: RunningStack) -> None:
    shop, other = funded(stack, "300.00"), Merchant(stack)
    user, email = signed_in(stack, shop, "finance", lang="en")
    page = user.call("GET", "/reports")
    assert marks(page) == (200, "finance-reports", None) and 'data-empty="reports"' in page.text
    form = {"type": "balance_transactions", "interval_start": "2026-01-01", "interval_end": "2026-12-31"}
    asked = user.post("/reports", form, "/reports")
    assert (asked.status_code, asked.headers["Location"]) == (303, "/reports")
    [report] = shop.call("GET", "/v1/reports", idempotency_key=None).json()["data"]
    assert (report["type"], report["interval_start"], report["timezone"]) == (
        "balance_transactions",
        "2025-12-31T22:00:00Z",  # midnight in Maputo
        "Africa/Maputo",
    )
    [record] = audit_records(stack, target_type="report", target_id=report["report_id"])
    assert who_did_what(record) == (
        "merchant_user",
        email,
        "dashboard",
        "request_report",
        303,
    )
    written = eventually(
        lambda: user.call("GET", "/reports"),
        lambda shown: 'data-status="pending"' not in shown.text,
        timeout=DEADLINE_SECONDS,
        interval=0.5,
    )
    assert f'<tr data-report="{report["report_id"]}" data-status="succeeded"' in written.text
    download = user.call("GET", f"/reports/{report['report_id']}/download")
    assert download.status_code == 303 and "X-Amz-Signature=" in download.headers["Location"]
    assert (download.headers["Cache-Control"], download.headers["Referrer-Policy"]) == ("no-store", "no-referrer")
    table = list(csv.DictReader(io.StringIO(requests.get(download.headers["Location"], timeout=30).text)))
    assert len(table) == 1 and list(table[0]) == list(TRANSACTION_COLUMNS)  # the one charge

    theirs = other.call(
        "POST", "/v1/reports", {"type": "payments", "interval_start": "2026-01-01", "interval_end": "2026-02-01"}
    )
    assert theirs.status_code == 201
    stranger = user.call("GET", f"/reports/{theirs.json()['report_id']}/download")  # another account's
    assert marks(stranger) == (404, "refused", "not_found")

    refused = {  # every field has a maximum; a card number is never taken; the form again, nothing asked
        "timezone": "Mars/Olympus",
        "interval_start": "2026-01-01" + "0" * 40,
    }
    for name, value in refused.items():
        again = user.post("/reports", {**form, name: value}, "/reports")
        assert marks(again) == (400, "finance-reports", "invalid_request"), name
        assert name in again.text and csrf(again) and "Check these fields" in again.text
    card = user.post("/reports", {**form, "timezone": CARD}, "/reports")
    assert marks(card) == (400, "finance-reports", "gateway.raw_card_data_not_accepted") and csrf(card)
    assert "A card number may not be typed here: nothing was stored." in card.text and CARD not in card.text
    assert len(shop.call("GET", "/v1/reports", idempotency_key=None).json()["data"]) == 1

    to_live(user)
    unconfirmed = user.post("/reports", form, "/reports")
    assert marks(unconfirmed) == (400, "finance-reports", "live_unconfirmed")
    assert 'name="confirm_live"' in unconfirmed.text
    assert marks(user.call("GET", f"/reports/{report['report_id']}/download")) == (404, "refused", "not_found")
    assert user.post("/reports", {**form, "confirm_live": "yes"}, "/reports").status_code == 303
    live = shop.call("GET", "/v1/reports", key=shop.live_key, idempotency_key=None).json()["data"]
    assert len(live) == 1

    for role in ("support", "developer"):
        outsider, _ = signed_in(stack, shop, role)
        assert marks(outsider.call("GET", "/reports")) == (403, "refused", "forbidden")
        posted = outsider.post("/reports", form, "/")
        assert marks(posted) == (403, "refused", "forbidden")
        assert marks(outsider.call("GET", f"/reports/{report['report_id']}/download"))[0] == 403
        assert 'href="/reports"' not in outsider.call("GET", "/").text  # not in its navigation
    assert len(shop.call("GET", "/v1/reports", idempotency_key=None).json()["data"]) == 1


def test_a_payout_is_sent_once_from_its_form_and_waits_above_the_threshold(stack: RunningStack) -> None:
    shop, other = funded(stack, "5000.00"), funded(stack, "500.00")
    set_payout_limits(stack, shop, approval_threshold={"MZN": "1000.00"})
    user, email = signed_in(stack, shop, "administrator")
    page = user.call("GET", "/payouts")
    assert marks(page) == (200, "finance-payouts", None) and 'data-empty="payouts"' in page.text
    form = {
        "csrf_token": csrf(page),
        "payout_id": form_token(page),
        "amount": "120.00",
        "currency": "MZN",
        "destination_type": "mobile_wallet",
        "network": "mpesa",
        "phone_number": "+258840000000",
        "description": "Semana 48",
    }
    first = user.call("POST", "/payouts", form)
    again = user.call("POST", "/payouts", form)  # a double submit: the same payout
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    [made] = shop.call("GET", "/v1/payouts", idempotency_key=None).json()["data"]
    assert first.headers["Location"] == f"/payouts/{made['provider_payout_id']}"
    assert (made["payout_id"], made["money"], made["destination"]["mobile_wallet"]["phone_number"]) == (
        form["payout_id"],
        {"amount": "120.00", "currency": "MZN"},
        "+258840000000",
    )
    shown = user.call("GET", first.headers["Location"])
    assert marks(shown) == (200, "finance-payout", None)
    assert f'data-payout="{made["provider_payout_id"]}"' in shown.text and 'data-amount="120.00"' in shown.text
    records = audit_records(stack, target_type="payout", target_id=made["provider_payout_id"])
    assert {who_did_what(r) for r in records} == {("merchant_user", email, "dashboard", "create_payout", 303)}

    big = user.call("GET", "/payouts")
    waiting = user.call(
        "POST",
        "/payouts",
        {
            **form,
            "csrf_token": csrf(big),
            "payout_id": form_token(big),
            "amount": "1500.00",
            "destination_type": "bank_transfer",
            "beneficiary_name": "Ana Machava",
            "beneficiary_account": "0003 0108 0016 3671 0237 1",
        },
    )
    assert waiting.status_code == 303
    held = user.call("GET", waiting.headers["Location"])
    assert 'data-status="waiting_for_approval"' in held.text
    listed = user.call("GET", "/payouts")
    assert rows(listed, "payout") == [waiting.headers["Location"].rsplit("/", 1)[1], made["provider_payout_id"]]
    assert 'data-empty="payout-batches"' in listed.text

    for name, value in (("description", "x" * 141), ("phone_number", "+25884000000012345678"), ("amount", "-5")):
        fresh = user.call("GET", "/payouts")
        refused = user.call(
            "POST", "/payouts", {**form, "csrf_token": csrf(fresh), "payout_id": form_token(fresh), name: value}
        )
        assert marks(refused)[:2] == (400, "finance-payouts"), (name, refused.text)
        assert csrf(refused) and form_token(refused) != form_token(fresh)  # a fresh form
    fresh = user.call("GET", "/payouts")
    card = user.call(
        "POST", "/payouts", {**form, "csrf_token": csrf(fresh), "payout_id": form_token(fresh), "description": CARD}
    )
    assert marks(card) == (400, "finance-payouts", "gateway.raw_card_data_not_accepted")  # the form again
    assert len(shop.call("GET", "/v1/payouts", idempotency_key=None).json()["data"]) == 2  # nothing more

    destination = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}}
    theirs = other.call(
        "POST",
        "/payouts",
        {"payout_id": str(uuid.uuid4()), "money": {"amount": "10.00", "currency": "MZN"}, "destination": destination},
    )
    assert theirs.status_code == 200, theirs.text
    assert marks(user.call("GET", f"/payouts/{theirs.json()['provider_payout_id']}")) == (404, "refused", "not_found")

    finance, _ = signed_in(stack, shop, "finance")
    listed = finance.call("GET", "/payouts")
    assert marks(listed) == (200, "finance-payouts", None) and 'name="payout_id"' not in listed.text  # no form
    refused = finance.call("POST", "/payouts", {**form, "csrf_token": csrf(listed), "payout_id": str(uuid.uuid4())})
    assert marks(refused) == (403, "finance-payouts", "forbidden")
    to_live(user)
    assert marks(user.call("GET", f"/payouts/{made['provider_payout_id']}")) == (404, "refused", "not_found")
    live = user.call("GET", "/payouts")
    unconfirmed = user.call("POST", "/payouts", {**form, "csrf_token": csrf(live), "payout_id": form_token(live)})
    assert marks(unconfirmed) == (400, "finance-payouts", "live_unconfirmed")
    assert len(shop.call("GET", "/v1/payouts", idempotency_key=None).json()["data"]) == 2
    assert shop.call("GET", "/v1/payouts", key=shop.live_key, idempotency_key=None).json()["data"] == []


def test_a_dispute_takes_evidence_or_is_accepted_by_its_owner_only(stack: RunningStack) -> None:
    shop, other = Merchant(stack), Merchant(stack)
    first = open_dispute(stack, shop, paid(shop, "150.00")).json()
    second = open_dispute(stack, shop, paid(shop, "90.00")).json()
    theirs = open_dispute(stack, other, paid(other, "80.00")).json()
    owner, email = signed_in(stack, shop, "owner")
    listed = owner.call("GET", "/disputes")
    assert marks(listed) == (200, "finance-disputes", None)
    assert rows(listed, "dispute") == [second["dispute_id"], first["dispute_id"]]
    page = owner.call("GET", f"/disputes/{first['dispute_id']}")
    assert marks(page) == (200, "finance-dispute", None) and 'data-status="needs_response"' in page.text
    assert 'data-amount="150.00"' in page.text

    support, supporter = signed_in(stack, shop, "support")
    seen = support.call("GET", f"/disputes/{first['dispute_id']}")
    assert marks(seen) == (200, "finance-dispute", None) and "/accept" not in seen.text  # reads, no forms
    refused = support.call("POST", f"/disputes/{first['dispute_id']}/accept", {"csrf_token": csrf(seen)})
    assert marks(refused) == (403, "finance-dispute", "forbidden")
    assert (
        shop.call("GET", f"/v1/disputes/{first['dispute_id']}", idempotency_key=None).json()["status"]
        == "needs_response"
    )

    path = f"/disputes/{first['dispute_id']}"
    for form, files in (
        ({"text": "x" * 20_001}, {"file": ("note.pdf", PDF)}),  # longer than the API takes
        ({"text": "Entregue."}, {"file": ("note.txt", b"plain text")}),  # not a PDF, PNG or JPEG
        ({"text": "Entregue."}, {"file": ("note.pdf", b"not a pdf at all")}),  # not what it says it is
    ):
        again = owner.upload(f"{path}/evidence", form, files, path)
        assert marks(again)[:2] == (400, "finance-dispute"), again.text
        assert csrf(again)
    card = owner.upload(f"{path}/evidence", {"text": f"Paid with {CARD}"}, {"file": ("note.pdf", PDF)}, path)
    assert marks(card) == (400, "finance-dispute", "gateway.raw_card_data_not_accepted")  # the form again
    assert shop.call("GET", f"/v1/disputes/{first['dispute_id']}", idempotency_key=None).json()["evidence"] is None

    given = owner.upload(
        f"{path}/evidence", {"text": "Entregue a 20/11, nota assinada."}, {"file": ("nota.pdf", PDF)}, path
    )
    assert (given.status_code, given.headers["Location"]) == (303, path)
    answered = shop.call("GET", f"/v1/disputes/{first['dispute_id']}", idempotency_key=None).json()
    assert answered["status"] == "under_review" and answered["evidence"]["text"] == "Entregue a 20/11, nota assinada."
    assert [f["file_type"] for f in answered["evidence"]["files"]] == ["pdf"]
    records = audit_records(stack, target_type="dispute", target_id=first["dispute_id"])
    refused_evidence = [("merchant_user", email, "dashboard", "submit_dispute_evidence", 400)] * 4
    assert sorted(who_did_what(r) for r in records if r["surface"] == "dashboard") == sorted(
        [
            ("merchant_user", supporter, "dashboard", "accept_dispute", 403),  # refused: its role
            *refused_evidence,  # refused: too long, not a PDF, not what it says it is, a card number (once)
            ("merchant_user", email, "dashboard", "submit_dispute_evidence", 303),
        ]
    )
    shown = owner.call("GET", path)
    assert 'data-status="under_review"' in shown.text and 'data-evidence-files="1"' in shown.text
    assert "/accept" not in shown.text

    accepted = owner.post(f"/disputes/{second['dispute_id']}/accept", {}, f"/disputes/{second['dispute_id']}")
    assert accepted.status_code == 303
    assert shop.call("GET", f"/v1/disputes/{second['dispute_id']}", idempotency_key=None).json()["status"] == "lost"
    records = audit_records(stack, target_type="dispute", target_id=second["dispute_id"])
    assert [who_did_what(r) for r in records if r["surface"] == "dashboard"] == [
        ("merchant_user", email, "dashboard", "accept_dispute", 303)
    ]
    late = owner.post(f"/disputes/{second['dispute_id']}/accept", {}, f"/disputes/{first['dispute_id']}")
    assert marks(late) == (409, "finance-dispute", "invalid_state")

    assert marks(owner.call("GET", f"/disputes/{theirs['dispute_id']}")) == (404, "refused", "not_found")
    stranger = owner.post(f"/disputes/{theirs['dispute_id']}/accept", {}, path)
    assert marks(stranger) == (404, "refused", "not_found")
    assert (
        other.call("GET", f"/v1/disputes/{theirs['dispute_id']}", idempotency_key=None).json()["status"]
        == "needs_response"
    )
    to_live(owner)
    assert marks(owner.call("GET", path)) == (404, "refused", "not_found")  # the other mode's
    assert 'data-empty="disputes"' in owner.call("GET", "/disputes").text


def test_a_too_long_filter_and_a_post_without_a_session_change_nothing(stack: RunningStack) -> None:
    shop = Merchant(stack)
    user, _ = signed_in(stack, shop, "owner")
    assert marks(user.call("GET", "/disputes?status=" + "x" * 201)) == (400, "refused", "invalid_request")
    page = user.call("GET", "/reports")
    token = csrf(page)
    assert user.post("/sign-out", {}, "/").status_code == 303
    late = user.call(
        "POST",
        "/reports",
        {"csrf_token": token, "type": "payments", "interval_start": "2026-01-01", "interval_end": "2026-01-02"},
    )
    assert (late.status_code, page_marks(late).get("code")) == (401, "unauthorized")
    assert shop.call("GET", "/v1/reports", idempotency_key=None).json()["data"] == []

"""The dashboard's payments and refunds pages over HTTP on the local stack (docs/dashboard.md,
"Payments and refunds"): the lists and a payment's page show what the API answers (the receipt's
bytes too), another account's and the other mode's objects are 404 pages, finance may not refund,
support refunds up to the account's limit (which an owner changes, audited), a form posted twice
refunds once, live mode asks for its confirmation, and bad input (too long, a card number) is
refused with the form re-rendered and nothing done."""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from mzpay.domain.webhooks.rules import delivery_id_for
from mzpay.http import page_locale
from tests.e2e.dashboard_client import DashboardUser, audit_records, csrf, new_user
from tests.e2e.test_charges import Merchant, wallet
from tests.e2e.test_webhooks import Receiver

pytestmark = pytest.mark.e2e
CARD = "4111 1111 1111 1111"


def signed_in(stack: RunningStack, shop: Merchant, role: str, lang: str | None = None) -> DashboardUser:
    member = new_user(stack, shop.account["id"], f"{role}-{uuid.uuid4().hex[:8]}@example.co.mz", role)
    user = DashboardUser(stack, lang=lang)
    assert user.sign_in(member).status_code == 303
    user.email = member["email"]  # type: ignore[attr-defined]
    return user


def paid(shop: Merchant, amount: str = "150.00") -> dict[str, Any]:
    answer = shop.charge(wallet("+258840000000"), amount=amount)
    assert answer.json()["status"] == "succeeded", answer.text
    return answer.json()  # type: ignore[no-any-return]


def api(shop: Merchant, path: str, **params: str) -> dict[str, Any]:
    answer = requests.get(
        shop.gateway + path, params=params, headers={"Authorization": f"Bearer {shop.test_key}"}, timeout=30
    )
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def refund_form(user: DashboardUser, payment_id: str) -> dict[str, str]:
    """The payment page's refund form's hidden fields (the session's CSRF and the form's token)."""
    page = user.call("GET", f"/payments/{payment_id}")
    assert page.status_code == 200 and "data-refund-form" in page.text, page.text
    token = re.findall(r'name="form_token" value="([^"]+)"', page.text)[0]
    return {"csrf_token": csrf(page), "form_token": token}


def rows(page: requests.Response, kind: str) -> list[tuple[str, str, str, str]]:
    """A list page's rows: the gateway id, status, amount and currency."""
    found = re.findall(
        rf'<tr data-{kind}="([^"]+)" data-status="([^"]+)">.*?data-amount="([^"]+)" data-currency="([^"]+)"',
        page.text,
        re.S,
    )
    return [tuple(row) for row in found]  # type: ignore[misc]


def refused(answer: requests.Response, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.headers["X-Error-Code"] == code and f'data-code="{code}"' in answer.text


trail = audit_records  # the audit trail's records by filters (tests/e2e/dashboard_client.py)


def without_creation_date(pdf: bytes) -> bytes:
    """A PDF less its creation time and the file id fpdf derives from it (what two makings differ by)."""
    return re.sub(rb"/ID \[<[0-9A-F]+><[0-9A-F]+>\]", b"", re.sub(rb"/CreationDate \(D:[^)]*\)", b"", pdf))


def test_the_lists_and_a_payments_page_show_what_the_api_answers(stack: RunningStack) -> None:
    shop = Merchant(stack)
    first, second = paid(shop, "150.00"), paid(shop, "75.50")
    user = signed_in(stack, shop, "finance")
    page = user.call("GET", "/payments")
    assert page.status_code == 200 and 'data-page="payments"' in page.text and 'data-mode="test"' in page.text
    listed = api(shop, "/v1/payments", page_size="25")["data"]
    assert rows(page, "payment") == [
        (p["provider_payment_id"], p["status"], p["money"]["amount"], p["money"]["currency"]) for p in listed
    ]
    assert [r[0] for r in rows(page, "payment")] == [second["provider_payment_id"], first["provider_payment_id"]]
    stamp = listed[0]["last_updated_at"]
    assert f'<time datetime="{stamp}">{page_locale.when(stamp, "pt")}</time>' in page.text  # Maputo's clock
    one = user.call("GET", f"/payments?payment_id={first['payment_id']}")
    assert [r[0] for r in rows(one, "payment")] == [first["provider_payment_id"]]
    paged = user.call("GET", "/payments?page_size=1")
    assert [r[0] for r in rows(paged, "payment")] == [second["provider_payment_id"]]
    token = api(shop, "/v1/payments", page_size="1")["next_page_token"]
    link = re.findall(r'href="(/payments\?[^"]+)" data-next-page', paged.text)[0].replace("&amp;", "&")
    assert "page_token=" in link and token
    assert [r[0] for r in rows(user.call("GET", link), "payment")] == [first["provider_payment_id"]]

    shown = user.call("GET", f"/payments/{first['provider_payment_id']}")
    assert shown.status_code == 200 and 'data-page="payment"' in shown.text
    snapshot = api(shop, f"/v1/payments/{first['provider_payment_id']}")
    assert f'data-payment="{snapshot["provider_payment_id"]}" data-status="{snapshot["status"]}"' in shown.text
    assert 'data-amount="150.00" data-currency="MZN"' in shown.text
    events = api(shop, "/v1/events", resource_id=first["provider_payment_id"], limit="100")["data"]
    assert re.findall(r'data-event="[^"]+" data-event-id="([^"]+)"', shown.text) == [e["id"] for e in events][::-1]
    assert events and "data-no-refunds" in shown.text
    assert "data-refund-form" not in shown.text  # finance does not refund
    receipt = user.call("GET", f"/payments/{first['provider_payment_id']}/receipt?lang=en")
    from_api = requests.get(
        f"{shop.gateway}/v1/payments/{first['provider_payment_id']}/receipt",
        headers={"Authorization": f"Bearer {shop.test_key}", "Accept": "application/pdf", "Accept-Language": "en"},
        timeout=30,
    )
    assert receipt.status_code == from_api.status_code == 200
    assert receipt.headers["Content-Type"] == from_api.headers["Content-Type"] == "application/pdf"
    assert receipt.headers["Content-Disposition"] == from_api.headers["Content-Disposition"]
    assert without_creation_date(receipt.content) == without_creation_date(from_api.content)


def test_a_payments_timeline_shows_the_webhook_deliveries_of_its_events(
    stack: RunningStack, receiver: Receiver
) -> None:
    shop = Merchant(stack)
    url = receiver.endpoint(200)
    payment = shop.charge(wallet("+258840000000"), callback_url=url).json()
    assert payment["status"] == "succeeded", payment
    receiver.wait_for(url, 1)
    events = api(shop, "/v1/events", resource_id=payment["provider_payment_id"], type="payment.succeeded")["data"]
    delivery_id = delivery_id_for(events[0]["id"], url)
    user = signed_in(stack, shop, "developer")
    shown = f'data-delivery="{delivery_id}" data-delivery-status="delivered"'
    deadline = time.monotonic() + 60  # the sender records the delivery right after the receiver's answer
    while shown not in (page := user.call("GET", f"/payments/{payment['provider_payment_id']}")).text:
        assert time.monotonic() < deadline, page.text
        time.sleep(0.5)
    delivery = requests.get(
        f"{stack.state['regions']['mz']['management']}/v1/webhook-deliveries/{delivery_id}",
        headers={"Authorization": f"Bearer {stack.state['operator_token']}"},
        timeout=30,
    ).json()
    assert (delivery["status"], delivery["event_type"], delivery["attempt_count"]) == (
        "delivered",
        "payment.succeeded",
        1,
    )
    assert re.findall(r'data-delivery="([^"]+)"', page.text) == [delivery_id]


def test_another_accounts_and_the_other_modes_objects_are_404_pages(stack: RunningStack) -> None:
    shop, other = Merchant(stack), Merchant(stack)
    theirs = paid(other)
    mine = paid(shop)
    owner = signed_in(stack, shop, "owner")
    made = owner.call(
        "POST", f"/payments/{mine['provider_payment_id']}/refund", {**refund_form(owner, mine["provider_payment_id"])}
    )
    assert made.status_code == 303
    refund_id = made.headers["Location"].rsplit("/", 1)[1]
    for path in (f"/payments/{theirs['provider_payment_id']}", f"/payments/{theirs['provider_payment_id']}/receipt"):
        refused(owner.call("GET", path), 404, "not_found")
    form = refund_form(owner, mine["provider_payment_id"])
    refused(owner.call("POST", f"/payments/{theirs['provider_payment_id']}/refund", form), 404, "not_found")
    assert api(other, "/v1/refunds")["data"] == []
    their_refund = other.call("POST", f"/v1/payments/{theirs['provider_payment_id']}/refund", {}).json()
    refused(owner.call("GET", f"/refunds/{their_refund['provider_refund_id']}"), 404, "not_found")
    assert owner.post("/mode", {"mode": "live"}, "/").status_code == 303
    for path in (f"/payments/{mine['provider_payment_id']}", f"/refunds/{refund_id}"):
        refused(owner.call("GET", path), 404, "not_found")
    live = owner.call("GET", "/payments")
    assert 'data-mode="live"' in live.text and rows(live, "payment") == [] and "data-empty" in live.text


def test_finance_may_not_refund(stack: RunningStack) -> None:
    shop = Merchant(stack)
    payment = paid(shop)
    owner, finance = signed_in(stack, shop, "owner"), signed_in(stack, shop, "finance")
    form = refund_form(owner, payment["provider_payment_id"])  # a form finance's page does not show
    answer = finance.call(
        "POST",
        f"/payments/{payment['provider_payment_id']}/refund",
        {**form, "csrf_token": csrf(finance.call("GET", "/"))},
    )
    refused(answer, 403, "forbidden")
    assert "A sua função não permite fazer isto." in answer.text
    assert api(shop, "/v1/refunds")["data"] == []
    record = trail(stack, account_id=shop.account["id"], action="refund_payment", limit="1")[0]
    assert record["actor"]["kind"] == "merchant_user" and record["actor"]["id"] == finance.email  # type: ignore[attr-defined]
    assert record["surface"] == "dashboard" and record["outcome"]["status"] == 403


def test_support_refunds_up_to_the_limit_and_a_form_posted_twice_refunds_once(stack: RunningStack) -> None:
    shop = Merchant(stack)
    small, big = paid(shop, "300.00"), paid(shop, "6000.00")
    support = signed_in(stack, shop, "support", lang="en")
    page = support.call("GET", f"/payments/{small['provider_payment_id']}")
    assert 'data-limit="5000.00"' in page.text
    form = {**refund_form(support, small["provider_payment_id"]), "amount": "100.00", "reason": "Devolvido"}
    first = support.call("POST", f"/payments/{small['provider_payment_id']}/refund", form)
    again = support.call("POST", f"/payments/{small['provider_payment_id']}/refund", form)
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    refunds = api(shop, "/v1/refunds")["data"]
    assert len(refunds) == 1 and refunds[0]["money"] == {"amount": "100.00", "currency": "MZN"}
    assert refunds[0]["reason"] == "Devolvido"
    refund_id = refunds[0]["provider_refund_id"]
    assert first.headers["Location"] == f"/refunds/{refund_id}"
    shown = support.call("GET", f"/refunds/{refund_id}")
    assert shown.status_code == 200 and f'data-refund="{refund_id}" data-status="{refunds[0]["status"]}"' in shown.text
    assert 'data-amount="100.00" data-currency="MZN"' in shown.text and "Devolvido" in shown.text
    listed = support.call("GET", "/refunds")
    assert rows(listed, "refund") == [(refund_id, refunds[0]["status"], "100.00", "MZN")]
    assert 'data-support-limit="5000.00"' in listed.text and "data-limit-form" not in listed.text
    record = trail(stack, target_type="refund", target_id=refund_id)[0]
    assert (record["actor"]["kind"], record["actor"]["id"]) == ("merchant_user", support.email)  # type: ignore[attr-defined]
    assert record["surface"] == "dashboard" and record["account_id"] == shop.account["id"]

    for amount in ("5000.01", ""):  # blank: all of the 6000.00 left
        form = {**refund_form(support, big["provider_payment_id"]), "amount": amount}
        over = support.call("POST", f"/payments/{big['provider_payment_id']}/refund", form)
        refused(over, 403, "over_refund_limit")
        assert "5000.00 MZN" in over.text and 'data-page="payment"' in over.text
    assert len(api(shop, "/v1/refunds")["data"]) == 1
    form = {**refund_form(support, big["provider_payment_id"]), "amount": "5000.00"}
    assert support.call("POST", f"/payments/{big['provider_payment_id']}/refund", form).status_code == 303
    assert len(api(shop, "/v1/refunds")["data"]) == 2


def test_an_owner_changes_the_limit_audited_and_live_mode_asks_for_confirmation(stack: RunningStack) -> None:
    shop = Merchant(stack)
    payment = paid(shop, "500.00")
    owner, support = signed_in(stack, shop, "owner"), signed_in(stack, shop, "support")
    refused(support.post("/refunds/limit", {"limit": "9000.00"}, "/refunds"), 403, "forbidden")
    page = owner.call("GET", "/refunds")
    assert "data-limit-form" in page.text and 'name="confirm_live"' not in page.text  # test mode: no box
    assert owner.post("/refunds/limit", {"limit": "200,00"}, "/refunds").status_code == 303
    assert 'data-support-limit="200.00"' in owner.call("GET", "/refunds").text
    record = trail(stack, target_type="dashboard_settings", target_id=shop.account["id"])[0]
    assert record["actor"] == {**record["actor"], "kind": "merchant_user", "id": owner.email}  # type: ignore[attr-defined]
    assert record["before"] == {"support_refund_limit": {"amount": "5000.00", "currency": "MZN"}}
    assert record["after"] == {"support_refund_limit": {"amount": "200.00", "currency": "MZN"}}
    form = {**refund_form(support, payment["provider_payment_id"]), "amount": "250.00"}
    over = support.call("POST", f"/payments/{payment['provider_payment_id']}/refund", form)
    refused(over, 403, "over_refund_limit")
    assert "200.00 MZN" in over.text and api(shop, "/v1/refunds")["data"] == []

    assert owner.post("/mode", {"mode": "live"}, "/").status_code == 303  # the switch needs no box
    page = owner.call("GET", "/refunds")
    assert 'name="confirm_live"' in page.text and 'data-mode="live"' in page.text
    unconfirmed = owner.call("POST", "/refunds/limit", {"limit": "300.00", "csrf_token": csrf(page)})
    refused(unconfirmed, 400, "live_unconfirmed")
    assert 'data-page="refunds"' in unconfirmed.text and csrf(unconfirmed) == csrf(page)
    assert 'data-support-limit="200.00"' in unconfirmed.text
    confirmed = owner.call(
        "POST", "/refunds/limit", {"limit": "300.00", "confirm_live": "yes", "csrf_token": csrf(page)}
    )
    assert confirmed.status_code == 303 and 'data-support-limit="300.00"' in owner.call("GET", "/refunds").text
    assert owner.post("/sign-out", {}, "/").status_code == 303  # sign-out needs no box either


def test_bad_input_is_refused_with_the_form_again_and_nothing_done(stack: RunningStack) -> None:
    shop = Merchant(stack)
    payment = paid(shop)
    path = f"/payments/{payment['provider_payment_id']}/refund"
    for lang, user in (("pt", signed_in(stack, shop, "owner")), ("en", signed_in(stack, shop, "owner", lang="en"))):
        for field, value, code in (
            ("reason", "x" * 501, "field_too_long"),
            ("amount", "1" * 21, "invalid_amount"),
            ("amount", "abc", "invalid_amount"),
            ("reason", f"cartão {CARD}", "gateway.raw_card_data_not_accepted"),
        ):
            form = refund_form(user, payment["provider_payment_id"])
            answer = user.call("POST", path, {**form, field: value})
            refused(answer, 400, code)
            assert answer.headers["Content-Language"] == lang and 'data-page="payment"' in answer.text
            assert "data-refund-form" in answer.text and csrf(answer) == form["csrf_token"]
            assert CARD not in answer.text and value not in answer.text
            fresh = re.findall(r'name="form_token" value="([^"]+)"', answer.text)[0]
            assert fresh != form["form_token"]
        too_long = user.post("/refunds/limit", {"limit": "9" * 21}, "/refunds")
        refused(too_long, 400, "invalid_amount")
        assert 'data-page="refunds"' in too_long.text
    assert api(shop, "/v1/refunds")["data"] == []
    assert 'data-support-limit="5000.00"' in signed_in(stack, shop, "support").call("GET", "/refunds").text

"""Collection requests through the local stack, as a business, a payer and the payer's app meet
them: an active business issues a request, the payer opens its payment link, pays on the hosted
checkout in test mode, the request is paid and matched, and the request's callback_url receives
signed notifications (verified here at a real receiver). Validation and tenancy refusals in the
collection surface's whole error shape; the unsecured kulpay reads; collection methods."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
import requests
import simplejson
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay.webhooks import verify
from tests.e2e.collection_client import Collection, assert_error, assert_ok, validation
from tests.e2e.test_webhooks import Receiver
from tests.polling import eventually
from tests.unit.builders import collection_payer

pytestmark = pytest.mark.e2e
CR = re.compile(r"^cr_[0-9A-HJKMNP-TV-Z]{26}$")
INVOICE = re.compile(r"^INV-\d{4}-[0-9A-HJKMNP-TV-Z]{10}$")
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return Collection(stack, "mz")


def unique_phone() -> str:
    """An M-Pesa number no other test uses (the payer's list by phone is global), never ending in
    99: moto's SNS says every such number opted out of SMS (docs/notifications.md)."""
    number = "+25884" + str(int(ULID()) % 10_000_000).zfill(7)
    return number if not number.endswith("99") else number[:-2] + "98"


def payer(phone: str | None = None, **changes: Any) -> dict[str, Any]:
    return collection_payer(phone or unique_phone(), **changes)


def request_body(mz: Collection, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "description": "Factura de Novembro",
        "collection_method_ids": mz.demo["collection_method_ids"][:2],  # test M-Pesa and e-Mola
        "amount": {"currency": "MZN", "value": 1500.5},
        "payer": payer(),
        "third_party_reference": "ERP-7781",
        "metadata": {"order": "A-17"},
    }
    body.update(changes)
    return body


def create(mz: Collection, token: str = "demo", **changes: Any) -> dict[str, Any]:
    return assert_ok(mz.call("POST", "/v1/collection-requests", request_body(mz, **changes), token=token))


def full(mz: Collection, request_id: str, token: str = "demo") -> dict[str, Any]:
    answer = assert_ok(mz.call("GET", f"/v1/collection-requests/{request_id}", token=token))
    assert answer["object"] == "collection_request"
    return answer["collection_request"]  # type: ignore[no-any-return]


def wait_for(mz: Collection, request_id: str, done: Any, timeout: float = 30) -> dict[str, Any]:
    current = eventually(lambda: full(mz, request_id), done, timeout)
    assert done(current), current
    return current


class Payer(requests.Session):
    """The payer's browser: follows the payment link to the checkout and plays the test toolbar."""

    def open(self, link: str) -> requests.Response:
        return self.get(link, allow_redirects=False, timeout=30)

    def pay(self, checkout_url: str, outcome: str) -> str:
        page = self.get(checkout_url, timeout=30)
        assert page.status_code == 200, page.text
        token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert token is not None, page.text
        answer = self.post(f"{checkout_url}/test/{outcome}", data={"csrf_token": token.group(1)}, timeout=30)
        assert answer.status_code == 200, answer.text
        return answer.text


def methods_of(mz: Collection) -> list[dict[str, str]]:
    return [
        {"collection_method_id": mid, "name": name, "type": kind, "status": "active"}
        for mid, (name, kind) in zip(
            mz.demo["collection_method_ids"][:2], (("M-Pesa", "mpesa"), ("e-Mola", "emola")), strict=True
        )
    ]


# ---------------------------------------------------------------- the whole life
def test_a_request_is_paid_through_its_link_and_notified_signed(mz: Collection, receiver: Receiver) -> None:
    callback = receiver.endpoint(200)
    phone = unique_phone()
    created = create(
        mz,
        payer=payer(phone),
        integration_routing={"source_system": "erp-1", "callback_url": callback},
        invoice_metadata={"due_date": "2026-12-31", "invoice_type": "standard", "reference_number": "PO-99"},
    )
    request_id, number = created["id"], created["invoice_metadata"]["invoice_number"]
    assert CR.match(request_id) and INVOICE.match(number) and STAMP.match(created["created_at"])
    link = f"{mz.url}/pay/{request_id}"
    assert created == {
        "object": "collection_request",
        "id": request_id,
        "collection_method_ids": mz.demo["collection_method_ids"][:2],
        "description": "Factura de Novembro",
        "bill_info": {
            "bill_id": f"bill_{request_id[3:]}",
            "bill_number": number,
            "status": "open",
            "due_date": "2026-12-31",
        },
        "amount": {"currency": "MZN", "value": 1500.5},
        "collection_method_details": methods_of(mz),
        "payer": payer(phone),
        "third_party_reference": "ERP-7781",
        "status": "pending",
        "metadata": {"order": "A-17"},
        "invoice_metadata": {
            "invoice_number": number,
            "issue_date": created["created_at"][:10],
            "due_date": "2026-12-31",
            "invoice_type": "standard",
            "source_channel": "api",
            "reference_number": "PO-99",
            "payment_link": link,
        },
        "mode": "test",
        "listed": True,
        "created_at": created["created_at"],
    }
    secret = mz.demo["webhook_secret_test"]
    (arrival,) = receiver.wait_for(callback, 1)
    verify(arrival.body, arrival.headers["Service-Signature"], [secret])
    envelope = simplejson.loads(arrival.body, use_decimal=True)
    assert (envelope["type"], envelope["resource"], envelope["resource_id"]) == (
        "collection_request.created",
        "collection_request",
        request_id,
    )
    assert envelope["data"]["object"]["amount"] == {"currency": "MZN", "value": Decimal("1500.50")}

    browser = Payer()
    opened = browser.open(link)
    assert opened.status_code == 303
    checkout_url = opened.headers["Location"]
    assert checkout_url.startswith(mz.stack.state["regions"]["mz"]["gateway"] + "/checkout/")
    assert browser.open(link).headers["Location"] == checkout_url  # one checkout while it is open
    page = browser.get(checkout_url, timeout=30).text
    assert '<p class="amount">1\xa0500,50\xa0MTn</p>' in page and "Pagamento a Demo Comercial Lda" in page
    assert f"{number}</span>" in page
    assert re.findall(r'name="(network|method)" value="(\w+)"', page) == [
        ("network", "mpesa"),
        ("network", "emola"),
    ]  # the request's wallets only
    assert full(mz, request_id)["payment_reconciliation"]["payment_status"] == "in_process"

    assert "Pago. Obrigado!" in browser.pay(checkout_url, "succeed")
    paid = wait_for(mz, request_id, lambda r: r["status"] == "paid")
    payment_id = checkout_url.rsplit("/", 1)[1]
    reconciliation = paid["payment_reconciliation"]
    assert reconciliation == {
        "payment_status": "paid",
        "payment_type": "mobile_wallet:mpesa",
        "gateway_transaction_id": payment_id,
        "reconciliation_status": "matched",
        "date_payment": reconciliation["date_payment"],
        "date_reconciliation": reconciliation["date_reconciliation"],
    }
    assert STAMP.match(reconciliation["date_payment"]) and STAMP.match(reconciliation["date_reconciliation"])
    assert paid["compliance_audit"]["paid_at"] == reconciliation["date_payment"]
    assert paid["bill_info"]["status"] == "paid"

    arrivals = receiver.wait_for(callback, 2)
    verify(arrivals[1].body, arrivals[1].headers["Service-Signature"], [secret])
    notified = simplejson.loads(arrivals[1].body, use_decimal=True)
    assert notified["type"] == "collection_request.paid"
    assert notified["data"]["object"]["status"] == "paid"
    assert notified["data"]["object"]["payment_reconciliation"]["gateway_transaction_id"] == payment_id

    again = browser.open(link)  # a second payment is refused: no checkout for a paid request
    assert (again.status_code, "Location" in again.headers) == (200, False)
    assert "Esta factura está paga. Obrigado." in again.text
    refused = mz.call("DELETE", f"/v1/collection-requests/{request_id}")
    assert_error(
        refused,
        400,
        "invalid_request",
        "Cannot delete a collection request that is paid.",
        {"request_status": "paid"},
    )
    gateway = mz.stack.state["regions"]["mz"]["gateway"]
    headers = {"Authorization": f"Bearer {mz.demo['test_key']}"}
    snapshot = requests.get(f"{gateway}/payments/{payment_id}", headers=headers, timeout=30).json()
    assert (snapshot["status"], snapshot["collection_request_id"], snapshot["money"]) == (
        "succeeded",
        request_id,
        {"amount": "1500.50", "currency": "MZN"},
    )


def test_a_failed_payment_leaves_the_request_payable_again(mz: Collection, receiver: Receiver) -> None:
    callback = receiver.endpoint(200)
    created = create(mz, integration_routing={"callback_url": callback})
    link = created["invoice_metadata"]["payment_link"]
    browser = Payer()
    first = browser.open(link).headers["Location"]
    assert "O pagamento não foi concluído." in browser.pay(first, "fail")
    failed = wait_for(mz, created["id"], lambda r: r["payment_reconciliation"]["payment_status"] == "failed")
    assert failed["status"] == "pending"
    arrivals = receiver.wait_for(callback, 2)
    assert [simplejson.loads(a.body)["type"] for a in arrivals] == [
        "collection_request.created",
        "collection_request.payment_failed",
    ]
    second = browser.open(link).headers["Location"]
    assert second != first  # a new checkout: the failed one is not paid again
    browser.pay(second, "succeed")
    paid = wait_for(mz, created["id"], lambda r: r["status"] == "paid")
    assert paid["payment_reconciliation"]["gateway_transaction_id"] == second.rsplit("/", 1)[1]


# ---------------------------------------------------------------- reads, lists, changes
def test_the_account_lists_its_requests_in_pages(mz: Collection) -> None:
    ids = [create(mz)["id"] for _ in range(3)]
    first = assert_ok(mz.call("GET", "/v1/collection-requests", params={"page_size": 2}))
    assert [item["id"] for item in first["items"]] == ids[::-1][:2]  # newest first
    assert first["has_more"] is True and first["error"] is None and first["object"] == "list"
    item = first["items"][0]
    assert item == {
        "id": ids[2],
        "account_id": mz.demo["account_id"],
        "description": "Factura de Novembro",
        "amount": {"currency": "MZN", "value": 1500.5},
        "payer": {
            "first_name": "João",
            "last_name": "Sitoe",
            "legal_name": "João Sitoe",
            "type": "individual",
            "delivery_method": "sms",
        },
        "status": "pending",
        "created_at": item["created_at"],
        "updated_at": item["updated_at"],
    }
    second = assert_ok(
        mz.call("GET", "/v1/collection-requests", params={"page_size": 2, "page_token": first["next_page_token"]})
    )
    assert second["items"][0]["id"] == ids[0]
    for params, field in (({"page_size": 101}, "page_size"), ({"page_size": 0}, "page_size")):
        answer = mz.call("GET", "/v1/collection-requests", params=params)
        assert answer.status_code == 400 and answer.json()["code"] == "validation_error", answer.text
        assert [e["field"] for e in answer.json()["metadata"]["errors"]] == [field]
    assert_error(
        mz.call("GET", "/v1/collection-requests", params={"page_token": "bm90LWEta2V5"}),
        400,
        "validation_error",
        "The request has problems: page_token.",
        {"errors": [{"field": "page_token", "code": "INVALID_FORMAT", "message": "a page_token this list gave"}]},
    )


def test_a_change_touches_only_the_given_fields_and_a_deleted_request_is_gone(mz: Collection) -> None:
    created = create(mz)
    request_id = created["id"]
    before = full(mz, request_id)
    changed = assert_ok(
        mz.call(
            "PUT",
            f"/v1/collection-requests/{request_id}",
            {"description": "Nova", "amount": {"currency": "MZN", "value": 99}},
        )
    )
    after = changed["collection_request"]
    assert changed["object"] == "collection_request" and changed["error"] is None
    assert after["description"] == "Nova" and after["amount"] == {"currency": "MZN", "value": 99}
    assert after["financial_details"]["total_amount"] == {"currency": "MZN", "value": 99}
    assert after["compliance_audit"]["user_modifier"] == "mzpay-demo-mz"
    unchanged = ("payer", "collection_method_ids", "metadata", "invoice_metadata", "biller", "third_party_reference")
    assert {k: after[k] for k in unchanged} == {k: before[k] for k in unchanged}
    assert after["updated_at"] >= before["updated_at"]

    # the payer opened the link: a change closes that unpaid checkout (canceled), so it cannot be paid stale
    browser = Payer()
    checkout_url = browser.open(after["invoice_metadata"]["payment_link"]).headers["Location"]
    assert_ok(mz.call("PUT", f"/v1/collection-requests/{request_id}", {"description": "Outra"}))
    assert "O comerciante cancelou este pagamento." in browser.get(checkout_url, timeout=30).text

    gone = assert_ok(mz.call("DELETE", f"/v1/collection-requests/{request_id}"))
    assert gone == {"object": "collection_request", "id": request_id, "deleted": True, "error": None}
    for method, path in (("GET", ""), ("PUT", ""), ("DELETE", "")):
        body = {"description": "x"} if method == "PUT" else None
        assert_error(
            mz.call(method, f"/v1/collection-requests/{request_id}{path}", body),
            404,
            "not_found",
            "No such collection request.",
        )
    assert_error(
        mz.call("GET", f"/v1/kulpay/collection-requests/get-request/{request_id}", token=None),
        404,
        "not_found",
        "No such collection request.",
    )
    assert "Esta factura não existe." in Payer().open(f"{mz.url}/pay/{request_id}").text


# ---------------------------------------------------------------- refusals
BAD_BODIES = [
    (
        {"amount": {"currency": "MZN", "value": 0}},
        "validation_error",
        validation(("amount.value", "INVALID_FORMAT", "a number more than zero")),
    ),
    (
        {"amount": {"currency": "MZN", "value": 10.001}},
        "validation_error",
        validation(("amount.value", "INVALID_FORMAT", "at most two decimal places")),
    ),
    (
        {"amount": {"currency": "EUR", "value": 10}},
        "validation_error",
        validation(("amount.currency", "INVALID_FORMAT", "one of MZN")),
    ),
    (
        {"payer": payer(type="company", delivery_method="fax", vat_number="400339911")},
        "validation_error",
        validation(
            ("payer.type", "INVALID_FORMAT", "business or individual"),
            ("payer.delivery_method", "INVALID_FORMAT", "email, sms or erp"),
            ("payer.vat_number", "VERIFICATION_FAILED", "the NUIT's check digit does not hold"),
        ),
    ),
    (
        {"payer": payer(contact={"phone_number": "841234567"}, address={"country": "XX"})},
        "validation_error",
        validation(
            (
                "payer.contact.phone_number",
                "INVALID_FORMAT",
                "an E.164 number: + and the country code, e.g. +258841234567",
            ),
            ("payer.address.country", "NOT_FOUND", "an ISO 3166-1 alpha-2 code, e.g. MZ"),
        ),
    ),
    (  # an address no message could reach is refused at creation (docs/notifications.md)
        {"payer": payer(delivery_method="email", contact={"email": "joao@@example.co.mz"})},
        "validation_error",
        validation(("payer.contact.email", "INVALID_FORMAT", "an e-mail address")),
    ),
    (
        {"payer": payer(delivery_method="email", contact={"email": "<b>joao</b>@example.co.mz\r\nBcc: x@y.mz"})},
        "validation_error",
        validation(("payer.contact.email", "INVALID_FORMAT", "an e-mail address")),
    ),
    (
        {"payer": payer(contact={"phone_number": "+258991234567", "email": "joao@example"})},
        "validation_error",
        validation(
            ("payer.contact.phone_number", "INVALID_FORMAT", "not a valid phone number"),
            ("payer.contact.email", "INVALID_FORMAT", "an e-mail address"),
        ),
    ),
    (
        {"payer": payer(contact={"phone_number": "+25821123456"})},
        "validation_error",
        validation(
            (
                "payer.contact.phone_number",
                "INVALID_FORMAT",
                "a mobile number: an invoice sent by sms cannot reach a fixed line",
            )
        ),
    ),
    (
        {"payer": payer(contact={})},
        "missing_field",
        validation(("payer.contact.phone_number", "REQUIRED", "an invoice sent by sms needs it")),
    ),
    (
        {"payer": {k: v for k, v in payer(type="business").items() if k not in ("legal_name", "vat_number")}},
        "missing_field",
        validation(
            ("payer.legal_name", "REQUIRED", "required for a business"),
            ("payer.vat_number", "REQUIRED", "required for a business"),
        ),
    ),
    (
        {"collection_method_ids": []},
        "missing_field",
        validation(("collection_method_ids", "REQUIRED", "at least one collection method")),
    ),
    (
        {"collection_method_ids": ["cm_01ARZ3NDEKTSV4RRFFQ69G5FAV"]},
        "validation_error",
        validation(("collection_method_ids.0", "NOT_FOUND", "not a collection method of this account")),
    ),
    (
        {"integration_routing": {"callback_url": "ftp://example.com/x"}},
        "validation_error",
        validation(("integration_routing.callback_url", "INVALID_FORMAT", "an absolute http:// or https:// URL")),
    ),
]


@pytest.mark.parametrize(("changes", "code", "metadata"), BAD_BODIES)
def test_bad_requests_are_refused_and_store_nothing(
    mz: Collection, changes: dict[str, Any], code: str, metadata: dict[str, Any]
) -> None:
    newest = assert_ok(mz.call("GET", "/v1/collection-requests", params={"page_size": 1}))["items"]
    answer = mz.call("POST", "/v1/collection-requests", request_body(mz, **changes))
    names = ", ".join(error["field"] for error in metadata["errors"])
    assert_error(answer, 400, code, f"The request has problems: {names}.", metadata)
    assert assert_ok(mz.call("GET", "/v1/collection-requests", params={"page_size": 1}))["items"] == newest


def test_an_individual_payer_needs_no_legal_name_nor_nuit(mz: Collection) -> None:
    """A school billing a parent: names and a phone number are enough."""
    phone = unique_phone()
    parent = {"first_name": "Ana", "last_name": "Machava", "type": "individual", "delivery_method": "sms"}
    made = create(mz, payer={**parent, "contact": {"phone_number": phone}})
    assert made["payer"] == {**parent, "legal_name": None, "vat_number": None, "contact": {"phone_number": phone}}
    read = full(mz, made["id"])
    assert (read["payer"], read["compliance_audit"]["payer_nuit"]) == (made["payer"], None)
    listed = assert_ok(mz.call("GET", "/v1/collection-requests", params={"page_size": 1}))["items"][0]
    assert (listed["id"], listed["payer"]["legal_name"]) == (made["id"], None)


def test_shapes_and_sizes_are_refused_by_the_model(mz: Collection) -> None:
    for changes, field in (
        ({"description": "x" * 501}, "description"),
        ({"amount": {"currency": "MZN", "value": "10"}}, "amount.value"),
        ({"metadata": {f"k{i}": "v" for i in range(21)}}, "metadata"),
        ({"surprise": True}, "surprise"),
    ):
        answer = mz.call("POST", "/v1/collection-requests", request_body(mz, **changes))
        assert answer.status_code == 400 and answer.json()["code"] == "validation_error", answer.text
        assert field in [e["field"] for e in answer.json()["metadata"]["errors"]], answer.text


def test_only_an_active_business_issues_requests(mz: Collection) -> None:
    pending = mz.demo["onboarding_tokens"][0]
    assert_error(
        mz.call("POST", "/v1/collection-requests", request_body(mz), token=pending),
        403,
        "forbidden",
        "The business account is pending: only an active account may do this.",
        {"account_status": "pending"},
    )
    no_permission = mz.mint(scope="collection_request:read")
    assert_error(
        mz.call("POST", "/v1/collection-requests", request_body(mz), token=no_permission),
        403,
        "forbidden",
        "The access token lacks the permission collection_request:write.",
        {"permission": "collection_request:write"},
    )


# ---------------------------------------------------------------- tenancy
def active_business(mz: Collection) -> tuple[str, str]:
    """A second business: a gateway account, onboarded and approved, with a test M-Pesa method.
    (its token, its method id)."""
    token = mz.active_business()[1]
    method = assert_ok(mz.call("POST", "/v1/collection-methods", {"type": "mpesa", "mode": "test"}, token=token))
    return token, method["id"]


def test_another_accounts_requests_and_methods_are_404_on_every_route(mz: Collection) -> None:
    mine = create(mz)
    other, other_method = active_business(mz)
    for method, path, body in (
        ("GET", f"/v1/collection-requests/{mine['id']}", None),
        ("PUT", f"/v1/collection-requests/{mine['id']}", {"description": "taken"}),
        ("DELETE", f"/v1/collection-requests/{mine['id']}", None),
        ("POST", f"/v1/collection-requests/{mine['id']}/cancel", {"reason": "taken"}),
    ):
        assert_error(mz.call(method, path, body, token=other), 404, "not_found", "No such collection request.")
    for method, path, body in (
        ("GET", f"/v1/collection-methods/{mz.demo['collection_method_ids'][0]}", None),
        ("POST", f"/v1/collection-methods/{mz.demo['collection_method_ids'][0]}/status", {"status": "inactive"}),
    ):
        assert_error(mz.call(method, path, body, token=other), 404, "not_found", "No such collection method.")
    listed = assert_ok(mz.call("GET", "/v1/collection-requests", token=other))
    assert mine["id"] not in [item["id"] for item in listed["items"]]
    # naming the other's method, or moving a request to an account one does not manage
    assert_error(
        mz.call("POST", "/v1/collection-requests", request_body(mz, collection_method_ids=[other_method])),
        400,
        "validation_error",
        "The request has problems: collection_method_ids.0.",
        validation(("collection_method_ids.0", "NOT_FOUND", "not a collection method of this account")),
    )
    other_account = assert_ok(mz.call("GET", "/v1/account", token=other))["id"]
    assert_error(
        mz.call(
            "PUT",
            f"/v1/collection-requests/{mine['id']}",
            {"account_id": other_account, "collection_method_ids": [other_method]},
        ),
        404,
        "not_found",
        "No such account.",
        {"field": "account_id"},
    )
    assert full(mz, mine["id"])["account_id"] == mz.demo["account_id"]  # nothing moved
    assert full(mz, mine["id"])["description"] == "Factura de Novembro"

    # once the demo account manages the other (a platform connection), the request may move there
    management = mz.stack.state["regions"]["mz"]["management"]
    operator = {"Authorization": f"Bearer {mz.stack.state['operator_token']}"}
    connected = requests.post(
        f"{management}/v1/accounts/{mz.demo['account_id']}/connected-accounts",
        json={"account_id": other_account},
        headers=operator,
        timeout=30,
    )
    assert connected.status_code == 201, connected.text
    moved = assert_ok(
        mz.call(
            "PUT",
            f"/v1/collection-requests/{mine['id']}",
            {"account_id": other_account, "collection_method_ids": [other_method]},
        )
    )["collection_request"]
    assert (moved["account_id"], moved["collection_method_ids"], moved["biller"]["account_id"]) == (
        other_account,
        [other_method],
        other_account,
    )
    assert full(mz, mine["id"], token=other)["account_id"] == other_account
    assert_error(
        mz.call("GET", f"/v1/collection-requests/{mine['id']}"), 404, "not_found", "No such collection request."
    )


# ---------------------------------------------------------------- the payer's app, no token
KULPAY_LIST = "/v1/kulpay/collection-requests/list-by-phone-number/"
EMPTY = {"object": "list", "items": [], "has_more": False, "next_page_token": None, "error": None}


def by_phone(mz: Collection, phone: str, **params: Any) -> requests.Response:
    return mz.call("GET", KULPAY_LIST + phone, token=None, params=params)


def public_item(created: dict[str, Any]) -> dict[str, Any]:
    return {name: created[name] for name in ("id", "description", "amount", "status", "created_at")}


def test_the_payers_app_lists_a_number_only_for_who_holds_a_request_sent_to_it(mz: Collection) -> None:
    phone = unique_phone()
    shown = [create(mz, payer=payer(phone)) for _ in range(2)]
    hidden = create(mz, payer=payer(phone), listed=False)  # the business keeps it out of the list
    assert (hidden["listed"], shown[0]["listed"]) == (False, True)
    expected = {**EMPTY, "items": [public_item(created) for created in shown[::-1]]}
    assert assert_ok(by_phone(mz, phone, request_id=shown[0]["id"])) == expected
    assert assert_ok(by_phone(mz, phone, request_id=hidden["id"])) == expected  # it proves the number, unlisted
    encoded = phone.replace("+", "%2B")
    assert assert_ok(by_phone(mz, encoded, request_id=shown[1]["id"])) == expected
    page = assert_ok(by_phone(mz, phone, request_id=shown[0]["id"], page_size=1))
    assert page["items"] == expected["items"][:1] and page["has_more"] is True
    # without a request sent to this number: the answer of a number with no requests at all
    elsewhere = create(mz)  # another number's request
    deleted = create(mz, payer=payer(phone))
    assert_ok(mz.call("DELETE", f"/v1/collection-requests/{deleted['id']}"))
    for proof in (elsewhere["id"], deleted["id"], "cr_01ARZ3NDEKTSV4RRFFQ69G5FAV", "not-a-request"):
        assert assert_ok(by_phone(mz, phone, request_id=proof)) == EMPTY
        assert assert_ok(by_phone(mz, "+258849999123", request_id=proof)) == EMPTY
    for number in (phone, "+258849999123"):  # no proof at all: the same refusal for every number
        assert_error(
            by_phone(mz, number),
            400,
            "missing_field",
            "The request has problems: request_id.",
            validation(("request_id", "REQUIRED", "the id of a collection request sent to this number")),
        )
    assert_error(
        by_phone(mz, "12345", request_id=shown[0]["id"]),
        400,
        "validation_error",
        "The request has problems: phone_number.",
        validation(("phone_number", "INVALID_FORMAT", "an E.164 number: + and the country code, e.g. +258841234567")),
    )
    # the business changes its mind: listed again, or taken out
    assert_ok(mz.call("PUT", f"/v1/collection-requests/{hidden['id']}", {"listed": True}))
    assert_ok(mz.call("PUT", f"/v1/collection-requests/{shown[0]['id']}", {"listed": False}))
    assert full(mz, shown[0]["id"])["listed"] is False
    assert [item["id"] for item in assert_ok(by_phone(mz, phone, request_id=shown[0]["id"]))["items"]] == [
        hidden["id"],
        shown[1]["id"],
    ]
    not_a_boolean = mz.call("PUT", f"/v1/collection-requests/{hidden['id']}", {"listed": "no"})
    assert not_a_boolean.status_code == 400, not_a_boolean.text
    refusal = not_a_boolean.json()
    assert (refusal["code"], refusal["metadata"]) == (
        "validation_error",
        validation(("listed", "invalid_type", "listed must be true or false")),
    )
    assert refusal["message"].startswith("The request has invalid fields: listed.")
    assert full(mz, hidden["id"])["listed"] is True  # nothing changed

    # modes never meet: a live request to the same number is listed only to a live request's holder
    live_method = assert_ok(mz.call("POST", "/v1/collection-methods", {"type": "mpesa", "mode": "live"}))["id"]
    live = create(mz, payer=payer(phone), collection_method_ids=[live_method])
    assert [item["id"] for item in assert_ok(by_phone(mz, phone, request_id=shown[1]["id"]))["items"]] == [
        hidden["id"],
        shown[1]["id"],
    ]
    assert assert_ok(by_phone(mz, phone, request_id=live["id"])) == {**EMPTY, "items": [public_item(live)]}


def test_the_payers_public_read_shows_no_personal_data_of_the_payer(mz: Collection) -> None:
    phone = unique_phone()
    request_id = create(mz, payer=payer(phone))["id"]
    answer = mz.call("GET", f"/v1/kulpay/collection-requests/get-request/{request_id}", token=None)
    public = assert_ok(answer)
    view = public["collection_request"]
    mine = full(mz, request_id)
    assert public == {
        "object": "collection_request",
        "collection_request": {
            "id": request_id,
            "description": "Factura de Novembro",
            "amount": {"currency": "MZN", "value": 1500.5},
            "collection_method_details": mine["collection_method_details"],
            "invoice_metadata": mine["invoice_metadata"],
            "bill_info": mine["bill_info"],
            "biller": {
                "business_name": "Demo Comercial Lda",
                "logo": None,
                "contact": {"phone_number": "+258841234567", "email": "financas@demo.co.mz"},
            },
            "status": "pending",
            "created_at": view["created_at"],
            "updated_at": view["updated_at"],
            "payer": {"type": "individual"},
            "payment_reconciliation": {"payment_status": "pending", "date_payment": None},
        },
    }
    for personal in ("João", "Sitoe", phone, "joao@example.co.mz", "400339910", "Maputo"):
        assert personal not in answer.text


# ---------------------------------------------------------------- collection methods
def test_collection_methods_switch_on_and_off(mz: Collection) -> None:
    added = assert_ok(
        mz.call("POST", "/v1/collection-methods", {"type": "mkesh", "name": "mKesh loja", "mode": "test"})
    )
    assert added == {
        "object": "collection_method",
        "id": added["id"],
        "account_id": mz.demo["account_id"],
        "name": "mKesh loja",
        "type": "mkesh",
        "mode": "test",
        "status": "active",
        "created_at": added["created_at"],
        "updated_at": added["updated_at"],
    }
    path = f"/v1/collection-methods/{added['id']}/status"
    off = assert_ok(mz.call("POST", path, {"status": "inactive"}))
    assert off["status"] == "inactive"
    assert_error(
        mz.call("POST", "/v1/collection-requests", request_body(mz, collection_method_ids=[added["id"]])),
        400,
        "validation_error",
        "The request has problems: collection_method_ids.0.",
        validation(("collection_method_ids.0", "INVALID_FORMAT", "the method is inactive")),
    )
    assert assert_ok(mz.call("POST", path, {"status": "active"}))["status"] == "active"
    assert create(mz, collection_method_ids=[added["id"]])["collection_method_details"][0]["type"] == "mkesh"
    listed = assert_ok(mz.call("GET", "/v1/collection-methods"))
    assert added["id"] in [m["id"] for m in listed["data"]] and listed["object"] == "list"
    for body, error in (
        (
            {"type": "paypal", "mode": "test"},
            (
                "type",
                "INVALID_FORMAT",
                "one of mpesa, emola, mkesh, bank_transfer, payment_reference, card, simo_erv, interbank",
            ),
        ),
        ({"type": "mpesa", "mode": "sandbox"}, ("mode", "INVALID_FORMAT", "test or live")),
    ):
        assert_error(
            mz.call("POST", "/v1/collection-methods", body),
            400,
            "validation_error",
            f"The request has problems: {error[0]}.",
            validation(error),
        )
    mixed = [
        mz.demo["collection_method_ids"][0],
        assert_ok(mz.call("POST", "/v1/collection-methods", {"type": "mpesa", "mode": "live"}))["id"],
    ]
    assert_error(
        mz.call("POST", "/v1/collection-requests", request_body(mz, collection_method_ids=mixed)),
        400,
        "validation_error",
        "The request has problems: collection_method_ids.",
        validation(("collection_method_ids", "INVALID_FORMAT", "test and live methods cannot be mixed in one request")),
    )


def test_the_link_offers_only_the_methods_active_now_and_due_dates_stay_in_step(mz: Collection) -> None:
    emola = assert_ok(mz.call("POST", "/v1/collection-methods", {"type": "emola", "mode": "test"}))["id"]
    mkesh = assert_ok(mz.call("POST", "/v1/collection-methods", {"type": "mkesh", "mode": "test"}))["id"]
    bank = mz.demo["collection_method_ids"][3]  # the demo's test bank transfer
    created = create(mz, collection_method_ids=[emola, mkesh, bank])
    link = created["invoice_metadata"]["payment_link"]
    assert_ok(mz.call("POST", f"/v1/collection-methods/{emola}/status", {"status": "inactive"}))
    browser = Payer()
    page = browser.get(browser.open(link).headers["Location"], timeout=30).text
    assert re.findall(r'name="(?:network|method)" value="(\w+)"', page) == ["mkesh"]
    changed = assert_ok(
        mz.call("PUT", f"/v1/collection-requests/{created['id']}", {"invoice_metadata": {"due_date": "2027-01-15"}})
    )["collection_request"]
    assert changed["invoice_metadata"]["due_date"] == changed["bill_info"]["due_date"] == "2027-01-15"
    assert changed["compliance_audit"]["invoice_validity"] == "2027-01-15"
    assert changed["invoice_metadata"]["payment_link"] == link  # the change closed the open checkout
    assert_ok(mz.call("POST", f"/v1/collection-methods/{mkesh}/status", {"status": "inactive"}))
    closed = browser.open(link)
    assert closed.status_code == 409 and "não pode ser paga online" in closed.text


def from_address(url: str, source: str) -> tuple[int, dict[str, str], str]:
    """GET `url` from the loopback address `source` (Linux answers on all of 127/8): the payer's
    own address, as WAF counts them."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30, source_address=(source, 0))
    try:
        connection.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""))
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read().decode()
    finally:
        connection.close()


def test_hammering_the_payer_endpoints_from_one_address_is_throttled(mz: Collection) -> None:
    limit = 100  # the template's KulpayRateLimit per KulpayRateWindowSeconds (60)
    proof = "request_id=cr_01ARZ3NDEKTSV4RRFFQ69G5FAV"  # a request of no one: an empty list
    listing = f"{mz.url}/v1/kulpay/collection-requests/list-by-phone-number/+258849990001?{proof}"
    statuses = [from_address(listing, "127.0.0.9")[0] for _ in range(limit)]
    assert statuses == [200] * limit
    status, headers, body = from_address(listing, "127.0.0.9")
    assert (status, headers["Retry-After"], headers["Content-Type"]) == (429, "60", "application/json")
    assert simplejson.loads(body) == {
        "code": "rate_limited",
        "message": "Too many requests from this address; retry after the Retry-After seconds.",
        "request_id": None,
        "metadata": {},
    }
    assert from_address(f"{mz.url}/pay/cr_01ARZ3NDEKTSV4RRFFQ69G5FAV", "127.0.0.9")[0] == 429  # the link as well
    assert from_address(listing, "127.0.0.10")[0] == 200  # another address is not held back
    assert mz.call("GET", "/v1/collection-requests").status_code == 200  # nor the business's routes


# ---------------------------------------------------------------- bank methods and references
ENTITY = "54321"
NIB = "000301080016367102371"


def bank_methods(mz: Collection, token: str = "demo", **details: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A simo_erv and an interbank method (test mode) of the business: their answers."""
    simo = {"type": "simo_erv", "mode": "test", "details": {"entity_number": ENTITY, **details}}
    interbank = {
        "type": "interbank",
        "name": "Transferência",
        "mode": "test",
        "details": {"nib": "0003 0108 0016 3671 0237 1", **details},
    }
    return (
        assert_ok(mz.call("POST", "/v1/collection-methods", simo, token=token)),
        assert_ok(mz.call("POST", "/v1/collection-methods", interbank, token=token)),
    )


def test_bank_methods_give_a_request_one_reference_and_its_link_shows_it(mz: Collection) -> None:
    simo, interbank = bank_methods(mz)
    assert simo == {
        "object": "collection_method",
        "id": simo["id"],
        "account_id": mz.demo["account_id"],
        "name": "SIMO reference",
        "type": "simo_erv",
        "mode": "test",
        "status": "active",
        "details": {"entity_number": ENTITY, "allow_installments": False, "allow_reuses": False},
        "created_at": simo["created_at"],
        "updated_at": simo["updated_at"],
    }
    assert interbank["details"] == {"nib": NIB, "allow_installments": False, "allow_reuses": False}
    assert assert_ok(mz.call("GET", f"/v1/collection-methods/{simo['id']}")) == simo
    wallet = mz.demo["collection_method_ids"][0]
    created = create(mz, collection_method_ids=[simo["id"], interbank["id"], wallet])
    number = created["collection_method_details"][0]["reference_number"]
    assert re.fullmatch(r"\d{11}", number)
    assert created["collection_method_details"] == [
        {
            "collection_method_id": simo["id"],
            "name": "SIMO reference",
            "type": "simo_erv",
            "status": "active",
            "entity_number": ENTITY,
            "reference_number": number,
        },
        {
            "collection_method_id": interbank["id"],
            "name": "Transferência",
            "type": "interbank",
            "status": "active",
            "nib": NIB,
            "reference_number": number,
            "transfer_description": f"MZP{number}",
        },
        methods_of(mz)[0],
    ]
    assert full(mz, created["id"])["collection_method_details"] == created["collection_method_details"]

    link = created["invoice_metadata"]["payment_link"]
    browser = Payer()
    for lang, title, copy in (
        ("pt", "Pague esta factura no seu banco", "Copiar a referência"),
        ("en", "Pay this invoice at your bank", "Copy the reference"),
    ):
        page = browser.get(f"{link}?lang={lang}", allow_redirects=False, timeout=30)
        assert (page.status_code, page.headers["Content-Language"]) == (200, lang)
        assert "script-src 'self'" in page.headers["Content-Security-Policy"]
        for shown in (title, copy, f'class="entity">{ENTITY}<', f'class="reference">{number}<', f'class="nib">{NIB}<'):
            assert shown in page.text, shown
        assert f'class="description">MZP{number}<' in page.text and "<script>" not in page.text
        assert f"{link}?via=wallet&amp;lang={lang}" in page.text
    script = browser.get(link.rsplit("/", 1)[0] + "/assets/copy.js", timeout=30)
    assert (script.status_code, script.headers["Content-Type"]) == (200, "text/javascript; charset=utf-8")
    assert "navigator.clipboard.writeText" in script.text
    checkout = browser.open(f"{link}?via=wallet")  # the wallet button: the request's checkout
    assert checkout.status_code == 303 and "/checkout/" in checkout.headers["Location"]

    bank_only = create(mz, collection_method_ids=[interbank["id"]])
    page = browser.open(bank_only["invoice_metadata"]["payment_link"])
    assert page.status_code == 200 and "Por transferência bancária" in page.text and "via=wallet" not in page.text
    other_number = bank_only["collection_method_details"][0]["reference_number"]
    assert other_number != number


def test_bad_bank_details_are_refused_naming_the_field_and_another_business_s_method_is_not_found(
    mz: Collection,
) -> None:
    for body, error, code in (
        (
            {"type": "simo_erv", "mode": "test", "details": {"entity_number": "5432"}},
            ("details.entity_number", "INVALID_FORMAT", "a SIMO entity: 5 digits"),
            "validation_error",
        ),
        (
            {"type": "interbank", "mode": "test", "details": {"nib": "000301080016367102372"}},
            ("details.nib", "INVALID_FORMAT", "a NIB: 21 digits with valid check digits"),
            "validation_error",
        ),
        (
            {"type": "interbank", "mode": "test"},
            ("details.nib", "REQUIRED", "required for interbank methods"),
            "missing_field",
        ),
        (
            {"type": "mpesa", "mode": "test", "details": {"allow_reuses": True}},
            ("details.allow_reuses", "INVALID_FORMAT", "only for simo_erv and interbank methods"),
            "validation_error",
        ),
    ):
        assert_error(
            mz.call("POST", "/v1/collection-methods", body),
            400,
            code,
            f"The request has problems: {error[0]}.",
            validation(error),
        )
    other, _ = active_business(mz)
    theirs, _ = bank_methods(mz, token=other)
    assert_error(
        mz.call("POST", "/v1/collection-requests", request_body(mz, collection_method_ids=[theirs["id"]])),
        400,
        "validation_error",
        "The request has problems: collection_method_ids.0.",
        validation(("collection_method_ids.0", "NOT_FOUND", "not a collection method of this account")),
    )
    assert_error(
        mz.call("GET", f"/v1/collection-methods/{theirs['id']}"), 404, "not_found", "No such collection method."
    )


def test_a_standing_reference_comes_back_for_the_same_payer_and_amount(mz: Collection) -> None:
    simo, _ = bank_methods(mz, allow_reuses=True)
    phone = unique_phone()

    def reference(value: float, number: str = phone) -> str:
        made = create(
            mz, collection_method_ids=[simo["id"]], amount={"currency": "MZN", "value": value}, payer=payer(number)
        )
        return str(made["collection_method_details"][0]["reference_number"])

    first = reference(900)
    assert reference(900) == first
    assert reference(950) != first
    assert reference(900, unique_phone()) != first

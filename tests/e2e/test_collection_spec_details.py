"""The spec's collection details, each written from the spec's own text, so that a client written
from the spec works (issue 34, item 5): the payer's app list by phone, KYC reviews, payment-method
transactions, a payer's VAT number, payment methods' card and bank-account fields, the PUT of a
collection request."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.collection_client import Collection, assert_error, assert_ok, licensed, validation
from tests.e2e.test_collection_kyc import log_of, registered
from tests.e2e.test_collection_requests import create, payer, request_body, unique_phone
from tests.e2e.test_collection_transactions import history, wallet
from tests.polling import eventually

pytestmark = pytest.mark.e2e
KULPAY_LIST = "/v1/kulpay/collection-requests/list-by-phone-number/"
E164 = "an E.164 number: + and the country code, e.g. +258841234567"


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return licensed(stack)


def test_a_phone_not_in_e164_is_400_naming_the_field_not_an_empty_list(mz: Collection) -> None:
    """Spec, collection requests: "GET | /v1/kulpay-free list by phone:
    /v1/kulpay/collection-requests/list-by-phone-number/{phone_number} | phone in E.164"; errors:
    "validation_error 400". A number spelt otherwise is bad input, whatever the request."""
    phone = unique_phone()
    proof = create(mz, payer=payer(phone))
    listed = assert_ok(mz.call("GET", KULPAY_LIST + phone, token=None, params={"request_id": proof["id"]}))
    assert [item["id"] for item in listed["items"]] == [proof["id"]]
    spaced = f"{phone[:4]} {phone[4:6]} {phone[6:9]} {phone[9:]}"  # +258 84 123 4567
    dashed = f"{phone[:4]}-{phone[4:6]}-{phone[6:]}"
    for number in (spaced, dashed, phone[1:], "00" + phone[1:], f"+({phone[1:4]}){phone[4:]}", "+0841234567"):
        assert_error(
            mz.call("GET", KULPAY_LIST + number, token=None, params={"request_id": proof["id"]}),
            400,
            "validation_error",
            "The request has problems: phone_number.",
            validation(("phone_number", "INVALID_FORMAT", E164)),
        )
    assert_error(  # a well-formed number that no plan knows
        mz.call("GET", KULPAY_LIST + "+2580000000", token=None, params={"request_id": proof["id"]}),
        400,
        "validation_error",
        "The request has problems: phone_number.",
        validation(("phone_number", "INVALID_FORMAT", "not a valid phone number")),
    )


def _review(mz: Collection, ids: tuple[str, str], body: dict[str, Any], token: str = "demo") -> requests.Response:
    return mz.call("PUT", f"/v1/customers/{ids[0]}/kyc/{ids[1]}/reviews", body, token=token)


def test_every_kyc_review_carries_additional_request_whose_items_may_be_empty_unless_pending(mz: Collection) -> None:
    """Spec, KYC: "PUT | /v1/customers/{id}/kyc/{kyc_id}/reviews | `{status (verified, pending,
    rejected; required), reviewer_id (required), rejection_reason (required when rejected),
    additional_request (required) {comment, checklist_items[]}}`"; states: "same, status pending |
    additional_request gives comment and checklist_items | pending"."""
    nothing = {"comment": "", "checklist_items": []}
    for status, extra in (("verified", {}), ("rejected", {"rejection_reason": "The BI expired."})):
        ids = registered(mz)
        assert_error(  # left out: refused, naming it, and nothing changes
            _review(mz, ids, {"status": status, "reviewer_id": "rev-1", **extra}),
            400,
            "missing_field",
            "The request has problems: additional_request.",
            validation(
                (
                    "additional_request",
                    "REQUIRED",
                    "what the customer must add: comment, checklist_items (empty unless pending)",
                )
            ),
        )
        assert len(log_of(mz, ids[1])) == 1
        decided = assert_ok(
            _review(mz, ids, {"status": status, "reviewer_id": "rev-1", **extra, "additional_request": nothing})
        )
        assert (decided["kyc"]["status"], decided["kyc"]["additional_request"]) == (status, None)
    ids = registered(mz)
    assert_error(  # pending: the empty list is refused, it must name what the customer adds
        _review(
            mz,
            ids,
            {
                "status": "pending",
                "reviewer_id": "rev-1",
                "additional_request": {"comment": "Add it", "checklist_items": []},
            },
        ),
        400,
        "missing_field",
        "The request has problems: additional_request.checklist_items.",
        validation(("additional_request.checklist_items", "REQUIRED", "the checklist items the customer must add")),
    )
    assert_error(
        _review(
            mz,
            ids,
            {
                "status": "pending",
                "reviewer_id": "rev-1",
                "additional_request": {"checklist_items": ["item_nuit_certificate"]},
            },
        ),
        400,
        "missing_field",
        "The request has problems: additional_request.comment.",
        validation(("additional_request.comment", "REQUIRED", "what the customer must do")),
    )
    assert len(log_of(mz, ids[1])) == 1
    asked = {"comment": "Add the NUIT certificate.", "checklist_items": ["item_nuit_certificate"]}
    pending = assert_ok(_review(mz, ids, {"status": "pending", "reviewer_id": "rev-1", "additional_request": asked}))
    assert (pending["kyc"]["status"], pending["kyc"]["additional_request"]) == ("pending", asked)
    noted = {"comment": "All in order.", "checklist_items": []}  # a verification's comment is kept
    verified = assert_ok(_review(mz, ids, {"status": "verified", "reviewer_id": "rev-1", "additional_request": noted}))
    assert (verified["kyc"]["status"], verified["kyc"]["additional_request"]) == ("verified", noted)
    other = mz.active_business()[1]  # another business: 404 whatever the body, even an incomplete one
    for body in ({"status": "verified"}, {"status": "verified", "reviewer_id": "r", "additional_request": nothing}):
        assert_error(_review(mz, registered(mz), body, token=other), 404, "customer_not_found", "No such customer.")


def test_a_transaction_needs_no_idempotency_key_and_honours_one_when_sent(mz: Collection) -> None:
    """Spec, payment methods: "POST | /v1/customers/{id}/payment_methods/{payment_method_id}/transactions
    | see below | Transaction result"; "Process-transaction body: transaction_type (required: ...),
    amount (number; required for payment transactions), ...": no Idempotency-Key is named on the
    collection surface, so none is needed; one sent is honoured (a retry answers the same)."""
    customer = assert_ok(mz.call("POST", "/v1/customers", {"name": "Pedro Cossa", "document_type": "bi"}))["id"]
    pm_id = wallet(mz, customer, unique_phone())
    path = f"/v1/customers/{customer}/payment_methods/{pm_id}/transactions"
    balance = assert_ok(mz.call("POST", path, {"transaction_type": "check_balance"}))
    assert (balance["transaction_type"], balance["status"]) == ("check_balance", "succeeded")
    assert balance["balance"] is not None
    body = {"transaction_type": "pay_in", "amount": 25, "description": "no key"}
    first, second = (assert_ok(mz.call("POST", path, body)) for _ in range(2))  # each a transaction of its own
    assert first["transaction_id"] != second["transaction_id"]
    key = str(uuid.uuid4())
    keyed = mz.call("POST", path, {**body, "description": "keyed"}, headers={"Idempotency-Key": key})
    paid = assert_ok(keyed)
    again = mz.call("POST", path, {**body, "description": "keyed"}, headers={"Idempotency-Key": key})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == paid
    listed = history(mz, customer, payment_method_id=pm_id)["data"]
    ids = {first["transaction_id"], second["transaction_id"], paid["transaction_id"], balance["transaction_id"]}
    assert {item["instruction_id"] for item in listed} == ids  # the replay made none


def test_a_vat_number_is_checked_as_a_nuit_only_for_a_mozambican_payer(mz: Collection) -> None:
    """Spec, collection resources: "**Payer**: first_name, last_name, legal_name, vat_number (all
    required strings; vat_number is VAT/NUIT), address (optional: country ISO alpha-2, ...)": a
    NUIT is Mozambique's; a payer of another country gives its own VAT number."""
    foreign = payer(type="business", vat_number="GB 123 4567 89", address={"country": "GB", "city": "London"})
    made = create(mz, payer=foreign)
    assert made["payer"]["vat_number"] == "GB 123 4567 89"
    read = assert_ok(mz.call("GET", f"/v1/collection-requests/{made['id']}"))["collection_request"]
    assert (read["payer"]["vat_number"], read["payer"]["address"]["country"]) == ("GB 123 4567 89", "GB")
    assert read["compliance_audit"]["payer_nuit"] == "GB 123 4567 89"
    not_a_nuit = ("payer.vat_number", "VERIFICATION_FAILED", "the NUIT's check digit does not hold")
    for address in ({"country": "MZ", "city": "Maputo"}, None):  # Mozambican, or no country: a NUIT
        body = payer(type="business", vat_number="400339911", address=address)
        if address is None:
            del body["address"]
        assert_error(
            mz.call("POST", "/v1/collection-requests", request_body(mz, payer=body)),
            400,
            "validation_error",
            "The request has problems: payer.vat_number.",
            validation(not_a_nuit),
        )
    too_long = payer(type="business", vat_number="9" * 65, address={"country": "GB"})  # bounded all the same
    refused = mz.call("POST", "/v1/collection-requests", request_body(mz, payer=too_long))
    assert refused.status_code == 400, refused.text
    assert [error["field"] for error in refused.json()["metadata"]["errors"]] == ["payer.vat_number"]


PAN = "4111111111111111"
RAW_CARD = "a card number or security code is never accepted: send the acquirer's card token"


def test_a_payment_methods_card_and_bank_account_fields_as_the_spec_names_them(mz: Collection) -> None:
    """Spec, collection resources: "**PaymentMethod**: ... Details by type: card: card_number,
    expiration_date, cvv, holder_name; mobile_wallet: phone_number; bank_account: account_number,
    nib, holder_name, bank_name." A card number is answered with the PCI refusal, never stored or
    echoed, and the card's token is taken; a bank account's fields are taken and checked."""
    customer = assert_ok(mz.call("POST", "/v1/customers", {"name": "Rosa Nhantumbo", "document_type": "bi"}))["id"]
    methods = f"/v1/customers/{customer}/payment_methods"
    spec_card = {"card_number": PAN, "expiration_date": "12/30", "cvv": "123", "holder_name": "Rosa Nhantumbo"}
    refused = mz.call("POST", methods, {"partner_id": "ptn_card_schemes", "type": "card", "details": spec_card})
    assert_error(
        refused,
        400,
        "validation_error",
        "The request has problems: details.card_number, details.cvv.",
        validation(("details.card_number", "INVALID_FORMAT", RAW_CARD), ("details.cvv", "INVALID_FORMAT", RAW_CARD)),
    )
    assert PAN not in refused.text and "123" not in refused.text
    token = {"card_token": "tok_test_visa", "last4": "1111", "exp_month": "12", "exp_year": "2030", "brand": "visa"}
    card = assert_ok(mz.call("POST", methods, {"partner_id": "ptn_card_schemes", "type": "card", "details": token}))
    assert card["payment_method"]["details"]["card_token"] == "tok_****visa"
    bank = {
        "account_number": "00163671023",
        "nib": "000301080016367102371",
        "holder_name": "Rosa Nhantumbo",
        "bank_name": "BCI",
    }
    added = assert_ok(mz.call("POST", methods, {"partner_id": "ptn_bci", "type": "bank_account", "details": bank}))
    assert (added["payment_method"]["type"], added["payment_method"]["details"]) == ("bank_account", bank)
    for changes, problem in (
        (
            {"nib": "000301080016367102372"},
            ("details.nib", "VERIFICATION_FAILED", "a NIB's MOD 97-10 check digits must hold"),
        ),
        (
            {"account_number": "99999999999"},
            ("details.account_number", "VERIFICATION_FAILED", "not the account the NIB carries (its digits 9 to 19)"),
        ),
        ({"bank_name": "B" * 101}, ("details.bank_name", "INVALID_FORMAT", "1 to 100 characters")),
    ):
        assert_error(
            mz.call("POST", methods, {"partner_id": "ptn_bci", "type": "bank_account", "details": {**bank, **changes}}),
            400,
            "validation_error",
            f"The request has problems: {problem[0]}.",
            validation(problem),
        )
    nameless = {k: v for k, v in bank.items() if k != "holder_name"}
    assert_error(
        mz.call("POST", methods, {"partner_id": "ptn_bci", "type": "bank_account", "details": nameless}),
        400,
        "missing_field",
        "The request has problems: details.holder_name.",
        validation(("details.holder_name", "REQUIRED", "the account holder's name is required")),
    )
    kept = assert_ok(mz.call("GET", methods))["data"]
    assert [method["id"] for method in kept] == [card["payment_method"]["id"], added["payment_method"]["id"]]
    table = mz.stack.state["resources"]["mz"]["CollectionTable"]
    assert PAN not in json.dumps(mz.stack.aws("dynamodb").scan(TableName=table, ConsistentRead=True)["Items"])


def test_a_change_takes_the_specs_fields_and_an_unknown_request_is_404_whatever_the_body(mz: Collection) -> None:
    """Spec, collection requests: "PUT | /v1/collection-requests/{id} | optional: name, type,
    account_id (reassign), details (collection method detail); only provided fields change |
    `{object: collection_request, collection_request: {id, name, type, account_id, status,
    created_at, updated_at}, error}`"."""
    unknown = "/v1/collection-requests/cr_01ARZ3NDEKTSV4RRFFQ69G5FAV"
    for body in ({"amount": "lots"}, {"colour": "red"}, {"name": "x" * 10_000}, {"name": "Renda"}):
        assert_error(mz.call("PUT", unknown, body), 404, "not_found", "No such collection request.")
    mpesa, emola = mz.demo["collection_method_ids"][:2]  # the demo's test M-Pesa and e-Mola
    made = create(mz, collection_method_ids=[mpesa, emola])
    path = f"/v1/collection-requests/{made['id']}"
    other = mz.active_business()[1]  # another business's token: 404 whatever the body
    for body in ({"amount": "lots"}, {"name": "Renda"}):
        assert_error(mz.call("PUT", path, body, token=other), 404, "not_found", "No such collection request.")
    changed = assert_ok(mz.call("PUT", path, {"name": "Renda de Dezembro", "type": "emola"}))
    request = changed["collection_request"]
    assert (changed["object"], changed["error"]) == ("collection_request", None)
    assert {name: request[name] for name in ("id", "name", "type", "account_id", "status")} == {
        "id": made["id"],
        "name": "Renda de Dezembro",
        "type": "emola",
        "account_id": mz.demo["account_id"],
        "status": "pending",
    }
    assert request["created_at"] == made["created_at"] and request["updated_at"] >= made["created_at"]
    assert (request["description"], request["collection_method_ids"]) == ("Renda de Dezembro", [emola])
    by_details = assert_ok(mz.call("PUT", path, {"details": [{"collection_method_id": mpesa, "type": "mpesa"}]}))
    assert (by_details["collection_request"]["collection_method_ids"], by_details["collection_request"]["type"]) == (
        [mpesa],
        "mpesa",
    )
    for body, problem in (
        (
            {"details": [{"collection_method_id": emola, "type": "mpesa"}]},
            ("details.0.type", "INVALID_FORMAT", "the method's type is emola"),
        ),
        (
            {"type": "card"},
            ("type", "NOT_FOUND", "the account has no active test collection method of this type"),
        ),
        (
            {"name": "Renda", "description": "Outra"},
            ("name", "INVALID_FORMAT", "the request's description: name and description differ"),
        ),
    ):
        assert_error(
            mz.call("PUT", path, body),
            400,
            "validation_error",
            f"The request has problems: {problem[0]}.",
            validation(problem),
        )
    kept = assert_ok(mz.call("GET", path))["collection_request"]
    assert (kept["description"], kept["collection_method_ids"]) == ("Renda de Dezembro", [mpesa])  # refusals: no change


def test_a_bank_account_method_is_paid_out_through_the_payout_connectors(mz: Collection) -> None:
    """Spec, payment methods: "POST | /v1/customers/{id}/payment_methods | `{partner_id, type (card,
    mobile_wallet, bank_account), details}`"; "Process-transaction body: transaction_type
    (required: `check_balance`, `transfer`, `deposit`, `pay_in`, `pay_out`, ...)": a bank account's
    pay_out moves money, as a bank transfer to its NIB."""
    customer = assert_ok(mz.call("POST", "/v1/customers", {"name": "Carlos Mabunda", "document_type": "bi"}))["id"]
    funds = wallet(mz, customer, "+258841160000")  # the business's test balance, paid in first
    funded = f"/v1/customers/{customer}/payment_methods/{funds}/transactions"
    assert assert_ok(mz.call("POST", funded, {"transaction_type": "pay_in", "amount": 500}))["status"] == "succeeded"
    details = {"nib": "000301080016367102371", "holder_name": "Carlos Mabunda", "bank_name": "BCI"}
    body = {"partner_id": "ptn_bci", "type": "bank_account", "details": details, "mode": "test"}
    pm_id = assert_ok(mz.call("POST", f"/v1/customers/{customer}/payment_methods", body))["payment_method"]["id"]
    path = f"/v1/customers/{customer}/payment_methods/{pm_id}/transactions"
    sent = assert_ok(mz.call("POST", path, {"transaction_type": "pay_out", "amount": 100, "description": "Reembolso"}))
    assert (sent["transaction_type"], sent["status"]) == ("pay_out", "pending")  # a payout settles through the queue
    read = f"/v1/customers/{customer}/transactions/{sent['transaction_id']}"
    moved = eventually(lambda: assert_ok(mz.call("GET", read))["transaction"], lambda t: t["status"] != "pending", 60)
    assert (moved["status"], moved["transaction_type"], moved["amount"]) == ("succeeded", "PAY_OUT", 100.0)
    gateway = mz.stack.state["regions"]["mz"]["gateway"]
    headers = {"Authorization": f"Bearer {mz.demo['test_key']}"}
    payout = requests.get(f"{gateway}/payouts/{moved['reference']}", headers=headers, timeout=30).json()
    assert (payout["status"], payout["destination"]["type"]) == ("paid", "bank_transfer")
    assert payout["destination"]["bank_transfer"]["account"].endswith("2371")


def test_a_pay_bill_pays_the_bill_named_by_its_destination_from_the_customers_method(mz: Collection) -> None:
    """Spec, payment methods: "Process-transaction body: transaction_type (required: `check_balance`,
    `transfer`, `deposit`, `pay_in`, `pay_out`, `pay_bill`, ...), amount (number; required for
    payment transactions), currency (ISO code, optional), description (optional), destination
    (phone number or account, optional)": a pay_bill is a payment transaction (its amount
    required) whose destination is the account paid (a meter); what it pays, which the spec does
    not name, is the gateway's bill product (`product_id`, docs/partners.md)."""
    customer = assert_ok(mz.call("POST", "/v1/customers", {"name": "Ana Machava", "document_type": "bi"}))["id"]
    pm_id = wallet(mz, customer, unique_phone()[:-4] + "0000")  # charged at once (docs/test-mode.md)
    path = f"/v1/customers/{customer}/payment_methods/{pm_id}/transactions"
    product = "01M8A0MH8BAHW8JZV956J9ME20"  # the simulated Credelec prepaid electricity
    assert_error(
        mz.call("POST", path, {"transaction_type": "pay_bill", "product_id": product, "destination": "04000000002"}),
        400,
        "missing_field",
        "The request has problems: amount.",
        validation(("amount", "REQUIRED", "a pay_bill moves money: how much")),
    )
    body = {
        "transaction_type": "pay_bill",
        "amount": 250,
        "currency": "MZN",
        "description": "Credelec",
        "destination": "04000000002",
        "product_id": product,
    }
    paid = assert_ok(mz.call("POST", path, body))  # no Idempotency-Key: the spec names none
    assert (paid["transaction_type"], paid["status"], paid["bill"]["status"]) == ("pay_bill", "succeeded", "succeeded")
    assert (paid["bill"]["reference"], paid["bill"]["customer_name"], paid["bill"]["total"]) == (
        "04000000002",
        "Carlos Nhantumbo",
        255.0,
    )
    assert len(paid["bill"]["token"]) == 20
    (item,) = history(mz, customer, payment_method_id=pm_id)["data"]
    assert (item["transaction_type"], item["destination"], item["amount"], item["status"]) == (
        "PAY_BILL",
        "04000000002",
        250.0,
        "succeeded",
    )

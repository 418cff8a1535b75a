"""The pure rules of collection requests and customers' payment methods."""

from __future__ import annotations

from decimal import Decimal

import pytest

from mzpay.domain.collection import payers
from mzpay.domain.collection import requests as rules
from mzpay.domain.collection.requests import CollectionMethod
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.partners.payment_methods import RAW_CARD_MESSAGE, checked_details, masked
from tests.unit.builders import collection_payer

REQUEST_ID = "cr_01ARZ3NDEKTSV4RRFFQ69G5FAV"


def refusal(call: object, *args: object) -> tuple[int, str, list[tuple[str, str]]]:
    with pytest.raises(ServiceError) as caught:
        call(*args)  # type: ignore[operator]
    return caught.value.status, caught.value.code, [(e.field, e.code) for e in caught.value.errors]


def method(method_id: str, mode: str = "test", status: str = "active") -> CollectionMethod:
    return CollectionMethod(
        method_id=method_id,
        account_id="acct",
        type="mpesa",
        name="M-Pesa",
        mode=mode,
        status=status,
        version=1,
        created_at="2026-11-24T00:00:00Z",
        updated_at="2026-11-24T00:00:00Z",
    )


def test_an_amount_is_over_zero_with_two_decimals_at_most_in_mzn() -> None:
    assert rules.check_amount("MZN", Decimal("1500.5")) == {"currency": "MZN", "value": Decimal("1500.50")}
    assert refusal(rules.check_amount, "MZN", Decimal("0")) == (
        400,
        "validation_error",
        [("amount.value", "INVALID_FORMAT")],
    )
    assert refusal(rules.check_amount, "MZN", Decimal("1.001"))[2] == [("amount.value", "INVALID_FORMAT")]
    assert refusal(rules.check_amount, "MZN", Decimal("10000000.01"))[2] == [("amount.value", "INVALID_FORMAT")]
    assert refusal(rules.check_amount, "USD", Decimal("1"))[2] == [("amount.currency", "INVALID_FORMAT")]
    assert refusal(rules.check_amount, "MZN", Decimal("NaN"))[2] == [("amount.value", "INVALID_FORMAT")]


def test_methods_must_be_the_accounts_active_ones_of_one_mode() -> None:
    found = {"cm_a": method("cm_a"), "cm_b": method("cm_b"), "cm_live": method("cm_live", "live")}
    assert rules.usable_methods(["cm_a", "cm_b"], found) == "test"
    assert refusal(rules.usable_methods, [], found) == (400, "missing_field", [("collection_method_ids", "REQUIRED")])
    assert refusal(rules.usable_methods, ["cm_a", "cm_x"], found)[2] == [("collection_method_ids.1", "NOT_FOUND")]
    assert refusal(rules.usable_methods, ["cm_a", "cm_a"], found)[2] == [("collection_method_ids", "INVALID_FORMAT")]
    assert refusal(rules.usable_methods, ["cm_a", "cm_live"], found)[2] == [("collection_method_ids", "INVALID_FORMAT")]
    off = {"cm_off": method("cm_off", status="inactive")}
    assert refusal(rules.usable_methods, ["cm_off"], off)[2] == [("collection_method_ids.0", "INVALID_FORMAT")]


def test_a_payers_rules() -> None:
    good = collection_payer("+258841234567", type="business", delivery_method="email", address={"country": "MZ"})
    assert payers.payer_problems(good) == []
    bad = {**good, "vat_number": "40033991", "delivery_method": "email", "contact": {"phone_number": "+2588"}}
    assert [(p.field, p.code) for p in payers.payer_problems(bad)] == [
        ("payer.vat_number", "INVALID_FORMAT"),
        ("payer.contact.phone_number", "INVALID_FORMAT"),
        ("payer.contact.email", "REQUIRED"),
    ]


def test_an_individual_needs_only_names_and_a_contact_and_a_business_its_legal_name_and_nuit() -> None:
    parent = {"first_name": "Ana", "last_name": "Machava", "type": "individual", "delivery_method": "erp"}
    assert payers.payer_problems({**parent, "contact": {"phone_number": "+258841234567"}}) == []
    assert payers.payer_problems({**parent, "delivery_method": "email", "contact": {"email": "ana@example.mz"}}) == []
    assert payers.payer_problems(parent) == []  # delivered to the ERP: no contact needed
    with_nuit = {**parent, "contact": {"email": "ana@example.mz"}, "vat_number": "40033991"}
    assert [(p.field, p.code) for p in payers.payer_problems(with_nuit)] == [("payer.vat_number", "INVALID_FORMAT")]
    assert payers.payer_problems({**with_nuit, "vat_number": "400339910"}) == []
    company = {**parent, "type": "business", "contact": {"email": "ana@example.mz"}}
    assert [(p.field, p.code, p.message) for p in payers.payer_problems(company)] == [
        ("payer.legal_name", "REQUIRED", "required for a business"),
        ("payer.vat_number", "REQUIRED", "required for a business"),
    ]


@pytest.mark.parametrize(
    "email",
    ["ana@@example.co.mz", "<b>ana</b>@example.co.mz", "ana@example.co.mz\r\nBcc: x@y.mz", "a..b@x.mz", "ana@x", ""],
)
def test_an_email_no_message_could_reach_is_refused_naming_the_field(email: str) -> None:
    parent = {"first_name": "Ana", "last_name": "Machava", "type": "individual", "delivery_method": "email"}
    found = [(p.field, p.code) for p in payers.payer_problems({**parent, "contact": {"email": email}})]
    assert found == [("payer.contact.email", "REQUIRED" if not email else "INVALID_FORMAT")]


def test_an_invoice_by_sms_needs_a_mobile_number() -> None:
    parent = {"first_name": "Ana", "last_name": "Machava", "type": "individual", "delivery_method": "sms"}
    landline = {**parent, "contact": {"phone_number": "+25821123456"}}  # Maputo, a fixed line
    assert [(p.field, p.code) for p in payers.payer_problems(landline)] == [
        ("payer.contact.phone_number", "INVALID_FORMAT")
    ]
    assert payers.payer_problems({**landline, "delivery_method": "erp"}) == []  # no SMS: a landline is a contact
    assert payers.payer_problems({**parent, "contact": {"phone_number": "+258861234567"}}) == []


def test_an_attempts_payment_id_is_the_same_for_the_same_attempt_and_a_ulid() -> None:
    first = rules.checkout_payment_id(REQUEST_ID, 1)
    assert first == rules.checkout_payment_id(REQUEST_ID, 1) != rules.checkout_payment_id(REQUEST_ID, 2)
    assert len(first) == 26 and first[:10] == REQUEST_ID[3:13]  # the request's time, then the hash
    assert rules.invoice_number(REQUEST_ID, "2026-11-24T00:00:00Z") == "INV-2026-FFQ69G5FAV"


def test_a_wallets_details_fill_the_partners_form() -> None:
    assert checked_details("ptn_mpesa", "mobile_wallet", {"phone_number": " +258841234567 "}) == {
        "phone_number": "+258841234567"
    }
    assert refusal(checked_details, "ptn_mpesa", "mobile_wallet", {"phone_number": "+258821234567"})[2] == [
        ("details.phone_number", "INVALID_FORMAT")
    ]
    assert refusal(checked_details, "ptn_mpesa", "bank_account", {}) == (
        400,
        "validation_error",
        [("partner_id", "NOT_FOUND")],
    )


def test_a_card_number_anywhere_is_refused_without_being_repeated() -> None:
    card = {"card_token": "tok_test_visa", "last4": "4242", "exp_month": "01", "exp_year": "2031", "brand": "visa"}
    assert checked_details("ptn_card_schemes", "card", card) == card
    with pytest.raises(ServiceError) as caught:
        checked_details("ptn_card_schemes", "card", {**card, "holder": "4242 4242 4242 4242", "cvv": "123"})
    assert [(e.field, e.code, e.message) for e in caught.value.errors] == [
        ("details.holder", "INVALID_FORMAT", RAW_CARD_MESSAGE),
        ("details.cvv", "INVALID_FORMAT", RAW_CARD_MESSAGE),
    ]
    assert "4242 4242" not in str(caught.value.message)
    assert masked("card", card)["card_token"] == "tok_****visa"
    assert masked("mobile_wallet", {"phone_number": "+258841234567"}) == {"phone_number": "+258841234567"}

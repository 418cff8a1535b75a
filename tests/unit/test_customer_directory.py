"""The payer directory's rules (mzpay.domain.collection.directory): names are searched folded
(accents, case and spacing ignored), phones and NUITs by their normalised exact keys, one search
at a time; a removed customer reads as removed and its requests' payer keeps no personal data;
a request's payer is taken from the directory's customer; the bodies bound every string."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from mzpay.domain.collection import directory
from mzpay.domain.collection.kyc import Customer
from mzpay.domain.collection.payers import payer_problems
from mzpay.domain.common.errors import ServiceError
from mzpay.http.kyc_schemas import CustomerChange, CustomerIn
from mzpay.store.kyc import customer_index_keys, list_index, name_list_key, nuit_list_key, phone_list_key

NUIT = "400123454"  # a valid NUIT (its check digit holds)


def customer(**changes: Any) -> Customer:
    fields: dict[str, Any] = {
        "customer_id": "usr_01JD9K1M2N3P4Q5R6S7T8V9W0X",
        "account_id": "acc",
        "name": "Ána  Machava",
        "kyc_id": "kyc_01JD9K1M3A4B5C6D7E8F9G0H1J",
        "status": "active",
        "version": 1,
        "created_at": "2026-11-02T10:00:00Z",
        "updated_at": "2026-11-02T10:00:00Z",
    }
    return Customer(**(fields | changes))


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Ána Machava", "ana machava"),
        ("  JOÃO   Cossa ", "joao cossa"),
        ("Çé", "ce"),
        ("ﬁlipe", "filipe"),  # a ligature folds to its letters (NFKD)
    ],
)
def test_names_fold_to_their_search_key(text: str, key: str) -> None:
    assert directory.folded(text) == key


def test_a_search_is_one_key_normalised() -> None:
    assert directory.search_of(None, None, None) is None
    assert directory.search_of(None, None, "  ÁNA mach") == ("name", "ana mach")
    assert directory.search_of("+258 84 123 4567", None, None) == ("phone_number", "+258841234567")
    assert directory.search_of(None, " 400 123 454", None) == ("nuit", NUIT)


@pytest.mark.parametrize(
    ("phone", "nuit", "name", "fields"),
    [
        ("+258841234567", None, "Ana", ["phone_number", "name"]),
        ("841234567", None, None, ["phone_number"]),  # not E.164
        (None, "400123453", None, ["nuit"]),  # the check digit does not hold
        (None, "12", None, ["nuit"]),
        (None, None, "   ", ["name"]),
    ],
)
def test_a_bad_search_is_refused_naming_its_fields(
    phone: str | None, nuit: str | None, name: str | None, fields: list[str]
) -> None:
    with pytest.raises(ServiceError) as refused:
        directory.search_of(phone, nuit, name)
    assert (refused.value.status, refused.value.code) == (400, "validation_error")
    assert [error.field for error in refused.value.errors] == fields


def test_the_index_keys_are_the_accounts_and_a_removed_customer_has_none() -> None:
    found = customer(phone_number="+258 84 123 4567", nuit="400 123 454")
    keys = customer_index_keys(found)
    assert keys == {
        "gsi1pk": name_list_key("acc"),
        "gsi1sk": f"ana machava#{found.customer_id}",
        "gsi2pk": phone_list_key("acc", "+258841234567"),
        "gsi2sk": found.customer_id,
        "gsi3pk": nuit_list_key("acc", NUIT),
        "gsi3sk": found.customer_id,
    }
    assert customer_index_keys(customer()) == {"gsi1pk": "CUSTACC#acc", "gsi1sk": f"ana machava#{found.customer_id}"}
    assert customer_index_keys(customer(status="removed", name="")) == {}
    assert [list_index(keys[f"gsi{i}pk"]) for i in (1, 2, 3)] == ["gsi1", "gsi2", "gsi3"]


def test_a_removed_customer_reads_as_removed_and_its_payer_keeps_nothing_personal() -> None:
    removed = customer(status="removed", name="")
    assert directory.view(removed, None) == {
        "object": "customer",
        "id": removed.customer_id,
        "status": "removed",
        "removed": True,
        "created_at": removed.created_at,
        "updated_at": removed.updated_at,
    }
    payer = {
        "type": "business",
        "first_name": "Ana",
        "last_name": "Machava",
        "legal_name": "Machava Lda",
        "vat_number": NUIT,
        "delivery_method": "email",
        "contact": {"email": "ana@example.co.mz"},
        "address": {"city": "Maputo"},
    }
    assert directory.removed_payer(payer) == {
        "type": "business",
        "delivery_method": "email",
        "first_name": "(removed)",
        "last_name": "(removed)",
        "removed": True,
    }


def test_a_requests_payer_is_taken_from_the_directory() -> None:
    full = customer(
        name="Ana Maria Machava", email="ana@example.co.mz", phone_number="+258841234567", nuit=NUIT, language="en"
    )
    payer = directory.payer_of(full)
    assert payer == {
        "type": "individual",
        "first_name": "Ana",
        "last_name": "Maria Machava",
        "delivery_method": "email",
        "vat_number": NUIT,
        "contact": {"email": "ana@example.co.mz", "phone_number": "+258841234567"},
        "language": "en",
    }
    assert payer_problems(payer) == []
    assert directory.payer_of(customer(name="Ana", phone_number="+258841234567"))["delivery_method"] == "sms"
    bare = directory.payer_of(customer(name="Ana"))
    assert (bare["first_name"], bare["last_name"], bare["delivery_method"]) == ("Ana", "Ana", "erp")
    assert payer_problems(bare) == []


def test_contact_rules_name_each_field() -> None:
    problems = directory.contact_problems(
        {"email": "ana@@x", "phone_number": "+25884", "nuit": "400123453", "address": {"country": "XX"}}
    )
    assert [(p.field, p.code) for p in problems] == [
        ("email", "INVALID_FORMAT"),
        ("phone_number", "INVALID_FORMAT"),
        ("nuit", "VERIFICATION_FAILED"),
        ("address.country", "NOT_FOUND"),
    ]
    assert directory.contact_problems({"email": None, "nuit": NUIT, "address": {"country": "MZ"}}) == []


def test_a_change_sends_only_its_fields_and_nulls_remove() -> None:
    change = CustomerChange.model_validate({"email": None, "language": "en", "address": {"city": "Beira"}})
    assert change.changes() == {"email": None, "language": "en", "address": {"city": "Beira"}}
    assert CustomerChange.model_validate({}).changes() == {}


@pytest.mark.parametrize(
    "body",
    [
        {"name": "x" * 201},
        {"email": "a" * 250 + "@x.mz"},
        {"phone_number": "+258841234567890123456789012345678"},
        {"nuit": "4" * 100},
        {"address": {"city": "x" * 500}},
        {"language": "fr"},
        {"unknown": "field"},
    ],
)
def test_every_string_of_a_change_is_bounded(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        CustomerChange.model_validate(body)


def test_registration_takes_a_nuit_and_an_address_bounded() -> None:
    body = CustomerIn.model_validate(
        {"name": "Ana", "document_type": "bi", "nuit": NUIT, "address": {"country": "MZ", "city": "Maputo"}}
    )
    assert (body.nuit, body.address and body.address.city) == (NUIT, "Maputo")
    with pytest.raises(ValidationError):
        CustomerIn.model_validate({"name": "Ana", "document_type": "bi", "address": {"street": "x" * 500}})


def test_a_request_without_payer_nor_customer_is_refused_as_before() -> None:
    """The answer of the model where payer was required, word for word."""
    from pydantic import BaseModel

    from mzpay.http.collection_request_schemas import CollectionRequestIn, PayerIn
    from mzpay.http.errors import Surface
    from mzpay.http.resolver import validation_error

    class Before(BaseModel):
        payer: PayerIn

    body = {"collection_method_ids": ["cm_1"], "amount": {"currency": "MZN", "value": 10}}
    with pytest.raises(ValidationError) as before:
        Before.model_validate({})
    errors = [{**dict(e), "loc": ("body", *e["loc"])} for e in before.value.errors()]
    expected = validation_error(errors, Surface.COLLECTION, CollectionRequestIn)
    with pytest.raises(ServiceError) as refused:
        CollectionRequestIn.model_validate(body).ensure_payer()
    assert (refused.value.status, refused.value.code, refused.value.message, refused.value.errors) == (
        expected.status,
        expected.code,
        expected.message,
        expected.errors,
    )
    assert expected.code == "validation_error" and [e.field for e in expected.errors] == ["payer"]
    CollectionRequestIn.model_validate({**body, "customer_id": "usr_1"}).ensure_payer()  # a customer names it

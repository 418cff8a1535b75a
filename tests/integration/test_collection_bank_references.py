"""Bank references of collection requests against the provisioned stack in in-process moto: the
claim of a reference body (one owner per account and mode, raced) and the lookup of the requests
carrying a reference (what statement matching reads)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest

from devstack.moto_server import atomic_dynamodb
from mzpay import deps
from mzpay.collection import collection_methods, collection_requests, payment_links
from mzpay.domain.collection import bank_references
from mzpay.domain.collection.bank_references import reference_fits, reference_number
from mzpay.domain.collection.requests import CollectionRequest, RequestStatus
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import new_prefixed_id
from tests.integration.races import race
from tests.integration.test_collection_request_races import GATEWAY, active_business, issued
from tests.integration.test_collection_request_races import business as business
from tests.integration.test_collection_request_races import stack as stack

ENTITY = "54321"


def stored(business: tuple[str, str]) -> CollectionRequest:
    """A pending request of the business, as stored (a template for the ones below)."""
    request = deps.collection_requests().get(issued(*business))
    assert request is not None
    return request


def carrying(template: CollectionRequest, reference: str, created_at: str, **changes: object) -> CollectionRequest:
    """A new stored request like `template` that carries `reference`."""
    request = template.model_copy(
        update={
            "request_id": new_prefixed_id("cr"),
            "reference_number": reference,
            "reference_entity": ENTITY,
            "reference_amount": Decimal("250"),
            "created_at": created_at,
            **changes,
        }
    )
    deps.collection_requests().create(request, [])
    return request


def test_a_claim_holds_a_body_for_its_owner_only(business: tuple[str, str]) -> None:
    account_id, _ = business
    store = deps.collection_requests()
    assert store.claim_reference(account_id, "test", "123456789", "cr_a")
    assert store.claim_reference(account_id, "test", "123456789", "cr_a")  # its owner again: still its
    assert not store.claim_reference(account_id, "test", "123456789", "cr_b")
    assert store.claim_reference(account_id, "live", "123456789", "cr_b")  # another mode: another claim
    other, _ = active_business("Outra")
    assert store.claim_reference(other, "test", "123456789", "cr_c")  # another account: another claim


def test_of_two_racing_claims_of_one_body_exactly_one_wins(business: tuple[str, str]) -> None:
    account_id, _ = business
    store = deps.collection_requests()
    with atomic_dynamodb():
        outcomes = race(2, lambda index: store.claim_reference(account_id, "test", "555555555", f"cr_{index}"))
    assert sorted(outcomes) == [("ok", False), ("ok", True)]


def test_the_requests_carrying_a_reference_come_oldest_first(business: tuple[str, str]) -> None:
    account_id, _ = business
    store = deps.collection_requests()
    template = stored(business)
    reference = reference_number(ENTITY, 424242424, Decimal("250"))
    newer = carrying(template, reference, "2026-11-02T10:00:00Z")
    older = carrying(template, reference, "2026-11-01T10:00:00Z", status=RequestStatus.PAID)
    same_body = reference_number(ENTITY, 424242424, Decimal("300"))
    carrying(template, same_body, "2026-11-03T10:00:00Z")  # the same body with other check digits
    found = store.requests_by_reference(account_id, "test", reference)
    assert [request.request_id for request in found] == [older.request_id, newer.request_id]
    assert [request.status for request in found] == [RequestStatus.PAID, RequestStatus.PENDING]
    assert store.requests_by_reference(account_id, "live", reference) == []
    other, _ = active_business("Outra")
    assert store.requests_by_reference(other, "test", reference) == []
    assert store.requests_by_reference(account_id, "test", reference_number(ENTITY, 1, Decimal("250"))) == []
    assert store.requests_by_reference(account_id, "test", "not a ref") == []


def test_a_deleted_request_no_longer_carries_its_reference(business: tuple[str, str]) -> None:
    reference = reference_number(ENTITY, 313131313, Decimal("250"))
    request = carrying(stored(business), reference, "2026-11-01T10:00:00Z")
    deps.collection_requests().transition(request, {"status": RequestStatus.DELETED}, [])
    assert deps.collection_requests().requests_by_reference(request.account_id, "test", reference) == []


# ---------------------------------------------------------------- methods and requests
NIB = "000301080016367102371"


def bank_methods(account_id: str, reuses: bool = False, installments: bool = False) -> tuple[str, str]:
    """A simo_erv and an interbank method of the business (test mode): their ids."""
    simo = collection_methods.add(
        account_id, "simo_erv", None, "test", details={"entity_number": ENTITY, "allow_reuses": reuses}
    )
    interbank = collection_methods.add(
        account_id,
        "interbank",
        "Transferência",
        "test",
        details={"nib": "0003 0108 0016 3671 0237 1", "allow_installments": installments, "allow_reuses": reuses},
    )
    return simo.id, interbank.id


def refusal(call: Callable[[], object]) -> ServiceError:
    with pytest.raises(ServiceError) as refused:
        call()
    return refused.value


def test_bank_methods_keep_their_details(business: tuple[str, str]) -> None:
    account_id, _ = business
    simo_id, interbank_id = bank_methods(account_id, reuses=True)
    simo = collection_methods.read(account_id, simo_id).model_dump(exclude_none=True)
    assert simo["type"] == "simo_erv" and simo["name"] == "SIMO reference"
    assert simo["details"] == {"entity_number": ENTITY, "allow_installments": False, "allow_reuses": True}
    assert "allow_installments" not in simo  # shown at the top only when set, as before
    interbank = collection_methods.read(account_id, interbank_id).model_dump(exclude_none=True)
    assert interbank["details"] == {"nib": NIB, "allow_installments": False, "allow_reuses": True}
    wallet = collection_methods.read(account_id, business[1]).model_dump(exclude_none=True)
    assert "details" not in wallet


@pytest.mark.parametrize(
    ("method_type", "details", "code", "field"),
    [
        ("simo_erv", {}, "missing_field", "details.entity_number"),
        ("simo_erv", {"entity_number": "1234"}, "validation_error", "details.entity_number"),
        ("simo_erv", {"entity_number": "54321", "nib": NIB}, "validation_error", "details.nib"),
        ("interbank", {"nib": "000301080016367102372"}, "validation_error", "details.nib"),
        ("interbank", {}, "missing_field", "details.nib"),
        ("mpesa", {"allow_reuses": True}, "validation_error", "details.allow_reuses"),
        ("mpesa", {"entity_number": "54321"}, "validation_error", "details.entity_number"),
    ],
)
def test_bad_details_are_refused_naming_the_field(
    business: tuple[str, str], method_type: str, details: dict[str, object], code: str, field: str
) -> None:
    refused = refusal(lambda: collection_methods.add(business[0], method_type, None, "test", details=details))
    assert (refused.status, refused.code) == (400, code)
    assert [error.field for error in refused.errors] == [field]


def test_the_two_installment_settings_must_agree(business: tuple[str, str]) -> None:
    details = {"entity_number": ENTITY, "allow_installments": False}
    refused = refusal(lambda: collection_methods.add(business[0], "simo_erv", None, "test", True, None, details))
    assert [error.field for error in refused.errors] == ["details.allow_installments"]
    agreed = collection_methods.add(
        business[0], "simo_erv", None, "test", True, Decimal("100"), {**details, "allow_installments": True}
    )
    assert agreed.model_dump(exclude_none=True)["allow_installments"] is True


def test_a_request_with_bank_methods_gets_one_reference_for_its_entity_and_amount(business: tuple[str, str]) -> None:
    account_id, wallet_id = business
    simo_id, interbank_id = bank_methods(account_id)
    request_id = issued(account_id, wallet_id, collection_method_ids=[wallet_id, simo_id, interbank_id])
    request = deps.collection_requests().get(request_id)
    assert request is not None and request.reference_number is not None
    number = request.reference_number
    assert reference_fits(ENTITY, number, Decimal("250")) and not reference_fits(ENTITY, number, Decimal("250.01"))
    details = request.collection_method_details
    assert [detail["type"] for detail in details] == ["mpesa", "simo_erv", "interbank"]
    assert "reference_number" not in details[0]
    assert (details[1]["entity_number"], details[1]["reference_number"]) == (ENTITY, number)
    assert details[2]["nib"] == NIB and details[2]["reference_number"] == number
    assert details[2]["transfer_description"] == "MZP" + number
    found = deps.collection_requests().requests_by_reference(account_id, "test", number)
    assert [found_request.request_id for found_request in found] == [request_id]
    read = collection_requests.read(account_id, request_id).model_dump(exclude_none=True)
    assert read["collection_request"]["collection_method_details"][1]["reference_number"] == number


def test_an_interbank_only_request_in_instalments_has_a_reference_bound_to_no_amount(
    business: tuple[str, str],
) -> None:
    account_id, _ = business
    _, interbank_id = bank_methods(account_id, installments=True)
    request = deps.collection_requests().get(issued(account_id, interbank_id))
    assert request is not None and request.allow_installments and request.reference_number
    assert reference_fits(None, request.reference_number, None)
    assert not reference_fits(None, request.reference_number, Decimal("250"))


def test_two_simo_entities_in_one_request_are_refused(business: tuple[str, str]) -> None:
    account_id, _ = business
    simo_id, _ = bank_methods(account_id)
    other = collection_methods.add(account_id, "simo_erv", None, "test", details={"entity_number": "11111"}).id
    refused = refusal(lambda: issued(account_id, simo_id, collection_method_ids=[simo_id, other]))
    assert (refused.code, [error.field for error in refused.errors]) == ("validation_error", ["collection_method_ids"])


def test_another_business_s_bank_method_is_not_found(business: tuple[str, str]) -> None:
    other, _ = active_business("Outra")
    simo_id, _ = bank_methods(other)
    refused = refusal(lambda: issued(business[0], simo_id))
    assert [(error.field, error.code) for error in refused.errors] == [("collection_method_ids.0", "NOT_FOUND")]
    assert refusal(lambda: collection_methods.read(business[0], simo_id)).status == 404


def test_a_standing_reference_is_the_same_for_the_same_payer_and_amount(business: tuple[str, str]) -> None:
    account_id, _ = business
    simo_id, _ = bank_methods(account_id, reuses=True)  # the payer's key: the phone (no customer, no NUIT)

    def reference(amount: str = "250", phone: str = "+258841234567") -> tuple[str, str]:
        body = {"amount": {"currency": "MZN", "value": Decimal(amount)}}
        request_id = issued(account_id, simo_id, **body, payer=standing_payer(phone))
        request = deps.collection_requests().get(request_id)
        assert request is not None and request.reference_number
        return request_id, request.reference_number

    first_id, first = reference()
    second_id, second = reference()
    assert first == second and first_id != second_id
    assert reference(amount="300")[1] != first
    assert reference(phone="+258849999999")[1] != first
    found = deps.collection_requests().requests_by_reference(account_id, "test", first)
    assert [request.request_id for request in found] == [first_id, second_id]


def standing_payer(phone: str) -> dict[str, object]:
    return {
        "first_name": "Rita",
        "last_name": "Sitoe",
        "type": "individual",
        "delivery_method": "erp",
        "contact": {"phone_number": phone},
    }


def test_two_requests_racing_for_one_body_get_two_references(
    business: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    account_id, _ = business
    simo_id, _ = bank_methods(account_id)
    monkeypatch.setattr(bank_references, "derived_body", lambda material, attempt: 777000000 + attempt)
    with atomic_dynamodb():
        outcomes = race(2, lambda _index: issued(account_id, simo_id))
    assert [kind for kind, _ in outcomes] == ["ok", "ok"]
    requests = [deps.collection_requests().get(request_id) for _, request_id in outcomes]
    numbers = sorted(request.reference_number or "" for request in requests if request is not None)
    assert [number[:9] for number in numbers] == ["777000000", "777000001"]


def test_a_request_with_a_reference_keeps_its_amount_and_methods(business: tuple[str, str]) -> None:
    account_id, wallet_id = business
    simo_id, _ = bank_methods(account_id)
    request_id = issued(account_id, simo_id)
    change = {"amount": {"currency": "MZN", "value": Decimal("300")}}
    refused = refusal(lambda: collection_requests.update(account_id, "tester", request_id, change))
    assert (refused.status, refused.code) == (400, "invalid_request")
    wallet_request = issued(account_id, wallet_id)
    adding = {"collection_method_ids": [wallet_id, simo_id]}
    refused = refusal(lambda: collection_requests.update(account_id, "tester", wallet_request, adding))
    assert (refused.status, refused.code) == (400, "invalid_request")
    kept = collection_requests.update(account_id, "tester", request_id, {"description": "Outubro"})
    assert kept.model_dump()["collection_request"]["description"] == "Outubro"


def test_the_link_of_a_bank_request_shows_its_details_and_offers_its_wallets(business: tuple[str, str]) -> None:
    account_id, wallet_id = business
    simo_id, _ = bank_methods(account_id)
    bank_only = payment_links.open_link(issued(account_id, simo_id), GATEWAY)
    assert (bank_only.state, bank_only.checkout_url, bank_only.wallets) == ("bank", None, False)
    both = issued(account_id, wallet_id, collection_method_ids=[simo_id, wallet_id])
    shown = payment_links.open_link(both, GATEWAY)
    assert (shown.state, shown.checkout_url, shown.wallets) == ("bank", None, True)
    checkout = payment_links.open_link(both, GATEWAY, wallet=True)
    assert checkout.state == "checkout" and checkout.checkout_url

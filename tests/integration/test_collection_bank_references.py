"""Bank references of collection requests against the provisioned stack in in-process moto: the
claim of a reference body (one owner per account and mode, raced) and the lookup of the requests
carrying a reference (what statement matching reads)."""

from __future__ import annotations

from decimal import Decimal

from devstack.moto_server import atomic_dynamodb
from mzpay import deps
from mzpay.domain.collection.bank_references import reference_number
from mzpay.domain.collection.requests import CollectionRequest, RequestStatus
from mzpay.domain.common.ids import new_prefixed_id
from tests.integration.races import race
from tests.integration.test_collection_request_races import active_business, issued
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

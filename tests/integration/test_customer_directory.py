"""The payer directory against the provisioned stack in in-process moto: every search is a Query
of the account's index entries (name prefix folded, phone and NUIT exact), pages follow their
tokens, a change moves the entries, a removal takes them away and erases the payer of the
customer's requests (their amounts kept); a removal racing a change never leaves personal data,
and a request racing a removal never copies it again."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from ulid import ULID

from devstack.moto_server import atomic_dynamodb
from mzpay import deps
from mzpay.collection import collection_requests, customers, kyc
from mzpay.domain.common.errors import ServiceError
from mzpay.store.kyc import customer_key
from tests.integration.races import race
from tests.integration.test_collection_request_races import active_business, stack  # noqa: F401 (fixture)

pytestmark = pytest.mark.usefixtures("stack")  # the provisioned stack, as the collection requests' races use
NUIT = "400123454"


def register(account: str, name: str, **contact: Any) -> str:
    return kyc.register(account, name, "bi", contact).id


def names(answer: Any) -> list[str]:
    return [item.name for item in answer.items]


def test_searches_are_queries_of_the_accounts_entries() -> None:
    account, other = str(ULID()), str(ULID())
    ana = register(account, "Ána Machava", phone_number="+258841234567", nuit=NUIT)
    register(account, "Anabela Cossa", phone_number="+258841234568")
    register(account, "Rita Sitoe")
    register(other, "Ana Machava", phone_number="+258841234567", nuit=NUIT)  # another business's twin

    assert names(customers.listed(account, None, None, None, 50, None)) == [
        "Ána Machava",
        "Anabela Cossa",
        "Rita Sitoe",
    ]
    assert names(customers.listed(account, None, None, "ANA", 50, None)) == ["Ána Machava", "Anabela Cossa"]
    assert names(customers.listed(account, None, None, "ana m", 50, None)) == ["Ána Machava"]
    assert [c.id for c in customers.listed(account, "+258841234567", None, None, 50, None).items] == [ana]
    assert [c.id for c in customers.listed(account, None, "400 123 454", None, 50, None).items] == [ana]
    assert customers.listed(account, "+258841234569", None, None, 50, None).items == []

    first = customers.listed(account, None, None, None, 2, None)
    assert first.has_more and first.next_page_token
    second = customers.listed(account, None, None, None, 2, first.next_page_token)
    assert names(second) == ["Rita Sitoe"] and not second.has_more
    with pytest.raises(ServiceError) as refused:  # another account's list: the token is not this list's
        customers.listed(other, None, None, None, 2, first.next_page_token)
    assert (refused.value.code, refused.value.errors[0].field) == ("validation_error", "page_token")
    with pytest.raises(ServiceError):  # a name search's token is not the whole list's
        customers.listed(account, None, None, "rita", 1, first.next_page_token)


def test_a_change_moves_the_entries_and_a_removal_takes_them_away() -> None:
    account = str(ULID())
    ana = register(account, "Ana Machava", phone_number="+258841234567")
    changed = customers.update(account, ana, {"name": "Ana Sitoe", "phone_number": "+258841234599", "nuit": NUIT})
    assert (changed.name, changed.phone_number, changed.nuit) == ("Ana Sitoe", "+258841234599", NUIT)
    assert customers.listed(account, "+258841234567", None, None, 50, None).items == []
    assert [c.id for c in customers.listed(account, "+258841234599", None, None, 50, None).items] == [ana]
    assert names(customers.listed(account, None, None, "ana s", 50, None)) == ["Ana Sitoe"]
    customers.update(account, ana, {"phone_number": None})
    assert customers.listed(account, "+258841234599", None, None, 50, None).items == []

    removed = customers.remove(account, ana)
    assert (removed.status, removed.removed) == ("removed", True)
    assert customers.remove(account, ana) == removed  # idempotent
    assert customers.listed(account, None, None, None, 50, None).items == []
    assert customers.listed(account, None, NUIT, None, 50, None).items == []
    stored = deps.kyc().table.get_item(Key=customer_key(ana), ConsistentRead=True)["Item"]
    assert not {"gsi1pk", "gsi2pk", "gsi3pk", "email", "phone_number", "nuit", "address"} & set(stored)
    assert stored["name"] == ""
    with pytest.raises(ServiceError) as refused:
        customers.update(account, ana, {"email": "ana@example.co.mz"})
    assert (refused.value.status, refused.value.code) == (404, "customer_not_found")


def test_a_removal_erases_the_payer_of_its_requests_and_keeps_the_amounts() -> None:
    account, method = active_business()
    ana = register(account, "Ana Machava", email="ana@example.co.mz", nuit=NUIT)
    body = {"collection_method_ids": [method], "amount": {"currency": "MZN", "value": Decimal("250")}}
    created = collection_requests.create(account, "owner", {**body, "customer_id": ana}, "https://pay.example")
    assert created.payer.first_name == "Ana" and created.payer.vat_number == NUIT
    listed = customers.requests_of(account, ana, 50, None)
    assert [r.id for r in listed.items] == [created.id]

    customers.remove(account, ana)
    request = deps.collection_requests().get(created.id)
    assert request is not None and request.value == Decimal("250") and request.customer_id == ana
    assert request.payer == {
        "type": "individual",
        "delivery_method": "email",
        "first_name": "(removed)",
        "last_name": "(removed)",
        "removed": True,
    }
    assert request.compliance_audit.get("payer_nuit") is None
    assert [r.id for r in customers.requests_of(account, ana, 50, None).items] == [created.id]
    with pytest.raises(ServiceError) as refused:  # a removed customer names no new request
        collection_requests.create(account, "owner", {**body, "customer_id": ana}, "https://pay.example")
    assert (refused.value.status, refused.value.code) == (404, "customer_not_found")


def test_a_removal_racing_a_change_leaves_no_personal_data() -> None:
    for _round in range(3):
        account = str(ULID())
        ana = register(account, "Ana Machava", phone_number="+258841234567")

        def act(index: int, account: str = account, ana: str = ana) -> object:
            if index == 0:
                return customers.remove(account, ana)
            return customers.update(account, ana, {"email": "ana@example.co.mz", "nuit": NUIT})

        with atomic_dynamodb():
            outcomes = race(2, act)
        assert outcomes[0][0] == "ok", outcomes
        if outcomes[1][0] == "error":  # the change came after the removal
            assert (outcomes[1][1].status, outcomes[1][1].code) == (404, "customer_not_found")  # type: ignore[attr-defined]
        stored = deps.kyc().customer(ana)
        assert stored is not None and stored.status == "removed"
        assert (stored.name, stored.email, stored.phone_number, stored.nuit) == ("", None, None, None)
        assert customers.listed(account, None, NUIT, None, 50, None).items == []


def test_a_request_racing_a_removal_never_copies_the_removed_data() -> None:
    account, method = active_business()
    body = {"collection_method_ids": [method], "amount": {"currency": "MZN", "value": Decimal("100")}}
    for _round in range(3):
        ana = register(account, "Ana Machava", phone_number="+258841234567")

        def act(index: int, ana: str = ana) -> object:
            if index == 0:
                return customers.remove(account, ana)
            return collection_requests.create(account, "owner", {**body, "customer_id": ana}, "https://pay.example")

        with atomic_dynamodb():
            race(2, act)
        for request_id in deps.kyc().all_request_links(ana):
            request = deps.collection_requests().get(request_id)
            assert request is not None and request.payer.get("removed") is True, request

"""Collection requests against the provisioned stack in in-process moto, where threads race for
the same items: openings of a payment link, a payer paying while the business deletes, a
reconciliation played twice, two status changes of a method."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest

from devstack.collection_demo import DEMO_DETAILS
from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import access, checkout
from mzpay.collection import (
    collection_methods,
    collection_requests,
    kyc,
    onboarding,
    payment_links,
    payment_methods,
    transactions,
)
from mzpay.domain.collection.access import Identity
from mzpay.domain.common.errors import ServiceError
from mzpay.steps.collection_payments import reconcile_collection
from tests.integration.races import race
from tests.integration.support import provisioned_stack

REVIEWER = Identity("reviewer-1", "https://issuer.example", None, frozenset({"account:review"}), "configured")
FUNCTIONS = ("CollectionRequestsFunction", "GatewayCheckoutFunction", "WebhookDispatcherFunction")
GATEWAY = "https://gateway.example"


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with provisioned_stack() as provisioned:
        for function in FUNCTIONS:
            for name, value in provisioned.functions[function].environment.items():
                monkeypatch.setenv(name, value)
        deps.reset()
        yield provisioned
        deps.reset()


def active_business(name: str = "Loja") -> tuple[str, str]:
    """An active business with a gateway account and a test M-Pesa method: (account, method)."""
    account_id = access.create_account(name, "mz").id
    onboarding.initialize(account_id)
    onboarding.put_details(account_id, DEMO_DETAILS)
    onboarding.finish(account_id)
    onboarding.decide(REVIEWER, "203.0.113.9", account_id, "approve")
    method = collection_methods.add(account_id, "mpesa", None, "test")
    return account_id, method.id


@pytest.fixture
def business(stack: ProvisionedStack) -> tuple[str, str]:
    return active_business()


def issued(account_id: str, method_id: str, **extra: Any) -> str:
    """A pending request of 250 MZN (with `extra` parts of the body)."""
    body: dict[str, Any] = {
        "collection_method_ids": [method_id],
        "amount": {"currency": "MZN", "value": Decimal("250")},
        "payer": {
            "first_name": "Rita",
            "last_name": "Sitoe",
            "legal_name": "Rita Sitoe",
            "vat_number": "400339910",
            "type": "individual",
            "delivery_method": "erp",
        },
        **extra,
    }
    return str(collection_requests.create(account_id, "tester", body, "https://collection.example").id)


def payment_events(account_id: str, provider_payment_id: str) -> list[dict[str, Any]]:
    """The payment's stored events as the stream would carry them (oldest first)."""
    events, _ = deps.events().page(account_id, "test", 50, None, resource_id=provider_payment_id)
    return [event.item() for event in reversed(events)]


def opened_checkout(request_id: str) -> str:
    """The provider payment id of the checkout that opening the request's payment link starts."""
    destination = payment_links.open_link(request_id, GATEWAY)
    assert destination.checkout_url is not None
    return destination.checkout_url.rsplit("/", 1)[1]


def succeeded_event(account_id: str, provider_payment_id: str) -> dict[str, Any]:
    """The payment's payment.succeeded as the stream would carry it."""
    (succeeded,) = [e for e in payment_events(account_id, provider_payment_id) if e["type"] == "payment.succeeded"]
    return succeeded


def payer_racing(business: tuple[str, str], act: Callable[[str], Any]) -> tuple[str, str, list[Any]]:
    """A new request's payer paying through its checkout while the business does `act` to it:
    (request id, provider payment id, [the payer's outcome, the business's])."""
    request_id = issued(*business)
    provider_payment_id = opened_checkout(request_id)

    def either(index: int) -> Any:
        return checkout.test_action(provider_payment_id, "succeed").status if index == 0 else act(request_id)

    with atomic_dynamodb():
        results = race(2, either)
    return request_id, provider_payment_id, results


def test_racing_openings_of_the_link_start_one_checkout(business: tuple[str, str]) -> None:
    request_id = issued(*business)
    with atomic_dynamodb():
        results = race(4, lambda _: payment_links.open_link(request_id, GATEWAY))
    assert all(kind == "ok" for kind, _ in results), results
    urls = {destination.checkout_url for _, destination in results}
    assert len(urls) == 1
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.attempt, request.payment_reconciliation["payment_status"]) == (
        1,
        "in_process",
    )
    (url,) = urls
    assert url == f"{GATEWAY}/checkout/{request.checkout_payment_id}"


def test_a_payer_paying_while_the_business_deletes_one_of_them_wins(business: tuple[str, str]) -> None:
    account_id, _ = business
    for _round in range(3):
        request_id, provider_payment_id, results = payer_racing(
            business, lambda request: collection_requests.delete(account_id, "tester", request).deleted
        )
        payment = deps.payments().get(provider_payment_id)
        request = deps.collection_requests().get(request_id)
        assert payment is not None and request is not None
        (paid_kind, paid), (deleted_kind, deleted) = results
        if deleted_kind == "ok":  # the business won: the checkout was canceled before the payer paid
            assert deleted is True and request.status == "deleted" and payment.status == "canceled"
            assert paid_kind == "error" and (paid.status, paid.code) == (409, "invalid_state")
        else:  # the payer won: the payment stands and the request stays
            assert paid_kind == "ok" and paid == "succeeded" and payment.status == "succeeded"
            assert isinstance(deleted, ServiceError) and (deleted.status, deleted.code) == (400, "invalid_request")
            assert request.status == "pending"


def test_a_reconciliation_played_twice_pays_the_request_once(business: tuple[str, str]) -> None:
    account_id, _ = business
    request_id = issued(*business)
    provider_payment_id = opened_checkout(request_id)
    checkout.test_action(provider_payment_id, "succeed")
    succeeded = succeeded_event(account_id, provider_payment_id)
    with atomic_dynamodb():
        results = race(3, lambda _: reconcile_collection(succeeded))
    assert sorted(str(value) for _, value in results) == ["None", "None", "collection_request.paid"]
    request = deps.collection_requests().get(request_id)
    assert (
        request is not None and request.status == "paid" and request.version == 3
    )  # created (1), opened (2), paid (3)
    recorded, _ = deps.events().page(account_id, "test", 50, None, resource_id=request_id)
    assert sorted(event.type for event in recorded) == ["collection_request.created", "collection_request.paid"]
    assert reconcile_collection(succeeded) is None  # and again later: nothing


def test_two_racing_status_changes_of_a_method_both_end_inactive_once(business: tuple[str, str]) -> None:
    account_id, method_id = business
    with atomic_dynamodb():
        results = race(2, lambda _: collection_methods.set_status(account_id, method_id, "inactive"))
    assert [value.status for _, value in results] == ["inactive", "inactive"]
    method = deps.collection_requests().method(method_id)
    assert method is not None and (method.status, method.version) == ("inactive", 2)


def test_two_racing_status_changes_of_a_customers_payment_method_land_once(business: tuple[str, str]) -> None:
    account_id, _ = business
    customer_id = kyc.register(account_id, "Rita Sitoe", "bi").id
    details = {"phone_number": "+258841234567"}
    pm_id = payment_methods.add(account_id, customer_id, "ptn_mpesa", "mobile_wallet", details).payment_method.id
    with atomic_dynamodb():
        results = race(2, lambda _: payment_methods.set_status(account_id, customer_id, pm_id, "inactive"))
    assert [value.payment_method.status for _, value in results] == ["inactive", "inactive"]
    stored = deps.payment_methods().get(pm_id)
    assert stored is not None and (stored.status, stored.version) == ("inactive", 2)


class FailingOnce:
    """The real store, whose first `method` call (a transition) dies as a DynamoDB timeout would."""

    def __init__(self, real: Any, method: str = "transition") -> None:
        self.real = real
        self.method = method
        self.failed = False

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.real, name)
        if name != self.method or self.failed:
            return attribute

        def fail(*_args: Any, **_kwargs: Any) -> Any:
            self.failed = True
            from botocore.exceptions import ReadTimeoutError

            raise ReadTimeoutError(endpoint_url="https://dynamodb.af-south-1.amazonaws.com")

        return fail


def test_an_opening_cut_by_a_fault_is_finished_by_the_next_one(business: tuple[str, str]) -> None:
    """The checkout was opened but the request never recorded it: the next opening finds the same
    checkout (its payment_id is the attempt's) and records it; no second payment exists."""
    request_id = issued(*business)
    flaky = FailingOnce(deps.collection_requests())
    with deps.substitute(collection_requests=flaky), pytest.raises(Exception, match="Read timeout"):
        payment_links.open_link(request_id, GATEWAY)
    half = deps.collection_requests().get(request_id)
    assert half is not None and (half.attempt, half.checkout_payment_id) == (0, None)
    destination = payment_links.open_link(request_id, GATEWAY)
    request = deps.collection_requests().get(request_id)
    assert request is not None and request.attempt == 1
    assert destination.checkout_url == f"{GATEWAY}/checkout/{request.checkout_payment_id}"
    account_id, _ = business
    payments, _ = deps.events().page(account_id, "test", 50, None, event_type="payment.created")
    opened = [e for e in payments if e.data["object"].get("collection_request_id") == request_id]
    assert len(opened) == 1


def test_a_pay_in_cut_by_a_fault_after_the_charge_is_finished_by_its_retry(business: tuple[str, str]) -> None:
    """The charge went through but the history was not written: the retry of the same request
    (same Idempotency-Key, so the same movement id) finds that charge and records it; the money
    moved once."""
    account_id, _ = business
    customer_id = kyc.register(account_id, "Rita Sitoe", "bi").id
    details = {"phone_number": "+258841120000"}  # the simulator approves it at once
    pm_id = payment_methods.add(
        account_id, customer_id, "ptn_mpesa", "mobile_wallet", details, "test"
    ).payment_method.id
    body = {"transaction_type": "pay_in", "amount": Decimal("75"), "currency": "MZN", "metadata": {}}
    movement_id = "0b5c4a9e-4f0e-5a58-9d7e-2f3c1b6a7d10"
    flaky = FailingOnce(deps.payment_methods(), "record")
    with deps.substitute(payment_methods=flaky), pytest.raises(Exception, match="Read timeout"):
        transactions.process(account_id, customer_id, pm_id, body, movement_id)
    charged = deps.payments().by_payment_id(account_id, "test", movement_id)
    assert charged is not None and charged.entity.status == "succeeded"
    assert transactions.listed(account_id, customer_id, {}, 1, 20).data == []
    result = transactions.process(account_id, customer_id, pm_id, body, movement_id)
    assert (result.status, result.transaction_type) == ("succeeded", "pay_in")
    (item,) = transactions.listed(account_id, customer_id, {}, 1, 20).data
    assert (item.reference, item.status) == (charged.entity.provider_payment_id, "succeeded")
    recorded, _ = deps.events().page(account_id, "test", 50, None)
    assert {e.resource_id for e in recorded if e.resource == "payment"} == {charged.entity.provider_payment_id}

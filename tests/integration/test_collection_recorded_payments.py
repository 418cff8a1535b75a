"""Payments a business records against its collection requests (POST /v1/payments of the
collection API, docs/collection-payments.md) against the provisioned stack in in-process moto:
the rules (whole amount, instalments, over-payment, a paid request, currency, paid_at, another
business's request), the request's change and the payment written in one transaction with their
events, two records racing to over-pay one request, and through the function's handler: the
Idempotency-Key, the audit record, and a DynamoDB fault answered 503 + Retry-After whose retry
with the same key completes."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from botocore.exceptions import ReadTimeoutError

from devstack.moto_server import atomic_dynamodb
from mzpay import deps
from mzpay.cases import checkout
from mzpay.collection import collection_requests, payment_links, payments
from mzpay.domain.collection.access import Identity
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.operators.audit import AuditFilter
from mzpay.steps.collection_payments import reconcile_collection
from tests.events import rest_event
from tests.integration.races import race
from tests.integration.support import function_app
from tests.integration.test_collection_request_races import (
    active_business,
    business,
    issued,
    payment_events,
    stack,
)

PAID_AT = "2026-11-03T08:40:00Z"
__all__ = ["business", "stack"]  # the fixtures of the collection requests' races, used here too


def body(request_id: str, value: str = "250", **extra: Any) -> dict[str, Any]:
    return {
        "collection_request_id": request_id,
        "amount": {"currency": "MZN", "value": value},  # as the route's model gives it (mode json)
        "channel": "bank_transfer",
        "reference": "BCI-TRF-0042",
        "paid_at": PAID_AT,
        **extra,
    }


def record(account_id: str, given: dict[str, Any], payment_id: str | None = None) -> Any:
    return payments.record(account_id, given, payment_id or str(uuid.uuid4())).payment


def refused(work: Callable[[], Any]) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        work()
    return caught.value


def stored_events(account_id: str, resource_id: str) -> list[str]:
    events, _ = deps.events().page(account_id, "test", 50, None, resource_id=resource_id)
    return sorted(event.type for event in events)


def test_a_payment_of_the_whole_amount_pays_the_request_as_a_checkout_does(business: tuple[str, str]) -> None:
    account_id, _ = business
    request_id = issued(*business)
    given = body(request_id, "250.00", description="Transferência do BCI", metadata={"erp": "RC-1"})
    payment = record(account_id, given)
    assert (payment.status, payment.channel, payment.amount, payment.currency, payment.mode) == (
        "succeeded",
        "bank_transfer",
        "250.00",
        "MZN",
        "test",
    )
    assert (payment.reference, payment.paid_at, payment.provider_id, payment.collection_request_id) == (
        "BCI-TRF-0042",
        PAID_AT,
        None,
        request_id,
    )
    assert (payment.description, payment.metadata) == ("Transferência do BCI", {"erp": "RC-1"})
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.status, request.amount_paid, request.version) == ("paid", 250, 2)
    reconciliation = request.payment_reconciliation
    assert (reconciliation["payment_status"], reconciliation["reconciliation_status"]) == ("paid", "matched")
    assert (reconciliation["gateway_transaction_id"], reconciliation["date_payment"]) == (payment.id, PAID_AT)
    assert (request.bill_info["status"], request.compliance_audit["paid_at"]) == ("paid", PAID_AT)
    assert stored_events(account_id, request_id) == ["collection_request.created", "collection_request.paid"]
    assert stored_events(account_id, payment.id) == ["payment.succeeded"]
    # listed and read like any payment of the business, by its channel
    listed = payments.listed(account_id, {"collection_request_id": request_id, "channel": "bank_transfer"})
    assert [item.id for item in listed.data] == [payment.id]
    assert payments.read(account_id, payment.id).payment == payment
    # the service never held the money: nothing captured, so nothing to refund, no ledger entry
    stored = deps.payments().get(payment.id)
    assert stored is not None and (stored.captured_amount, stored.refundable) == ("0.00", 0)
    assert (stored.source or {})["manual"] == {"kind": "bank_transfer", "reference": "BCI-TRF-0042"}
    # paid now: nothing more is taken
    closed = refused(lambda: record(account_id, body(request_id, "1")))
    assert (closed.status, closed.code, closed.extensions) == (409, "invoice_closed", {"request_status": "paid"})


def test_a_request_that_takes_one_payment_refuses_a_part_and_every_one_refuses_more(
    business: tuple[str, str],
) -> None:
    account_id, _ = business
    request_id = issued(*business)
    due = {"currency": "MZN", "value": Decimal("250.00")}
    part = refused(lambda: record(account_id, body(request_id, "100")))
    assert (part.status, part.code, part.extensions) == (
        422,
        "amount_out_of_range",
        {"amount_due": due, "allow_installments": False},
    )
    more = refused(lambda: record(account_id, body(request_id, "250.01")))
    assert (more.status, more.code, more.extensions) == (422, "amount_out_of_range", {"amount_due": due})
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.status, request.amount_paid, request.version) == ("pending", 0, 1)
    assert payments.listed(account_id, {"collection_request_id": request_id}).data == []


def test_instalments_pay_the_request_part_by_part(business: tuple[str, str]) -> None:
    account_id, _ = business
    request_id = issued(*business, allow_installments=True)
    first = record(account_id, body(request_id, "100", channel="cash", reference="REC-0001"))
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.status, request.amount_paid) == ("partially_paid", 100)
    view = collection_requests.read(account_id, request_id).collection_request.wire()
    assert (view["allow_installments"], view["amount_paid"]["value"], view["amount_due"]["value"]) == (
        True,
        Decimal("100.00"),
        Decimal("150.00"),
    )
    assert stored_events(account_id, request_id) == [  # not paid yet: partly (issue 34)
        "collection_request.created",
        "collection_request.partially_paid",
    ]
    over = refused(lambda: record(account_id, body(request_id, "150.01")))
    assert (over.code, over.extensions["amount_due"]["value"]) == ("amount_out_of_range", Decimal("150.00"))
    # a request partly paid no longer changes nor goes away
    change = refused(lambda: collection_requests.update(account_id, "tester", request_id, {"description": "x"}))
    assert (change.status, change.code) == (400, "invalid_request")
    second = record(account_id, body(request_id, "150", channel="simo_reference", reference="ERV-77"))
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.status, request.amount_paid) == ("paid", 250)
    assert request.payment_reconciliation["gateway_transaction_id"] == second.id
    listed = payments.listed(account_id, {"collection_request_id": request_id})
    assert [(item.id, item.channel) for item in listed.data] == [
        (second.id, "simo_reference"),
        (first.id, "cash"),
    ]
    assert [item.id for item in payments.listed(account_id, {"channel": "cash"}).data] == [first.id]


def test_the_rules_of_the_body_name_the_field(business: tuple[str, str]) -> None:
    account_id, _ = business
    request_id = issued(*business)
    cases = [
        (body(request_id) | {"amount": {"currency": "USD", "value": "250"}}, "amount.currency"),
        (body(request_id, "0"), "amount.value"),
        (body(request_id, "1.001"), "amount.value"),
        (body(request_id, channel="pigeon"), "channel"),
        (body(request_id, paid_at="2999-01-01T00:00:00Z"), "paid_at"),
        (body(request_id, paid_at="yesterday"), "paid_at"),
        (body(request_id, paid_at="2026-11-03T08:40:00"), "paid_at"),
    ]
    for given, field in cases:
        problem = refused(lambda given=given: record(account_id, given))  # type: ignore[misc]
        assert (problem.status, problem.code) == (400, "validation_error"), given
        assert [error.field for error in problem.errors] == [field], given
    request = deps.collection_requests().get(request_id)
    assert request is not None and request.version == 1 and request.amount_paid == 0


def test_another_businesss_request_is_not_found_and_untouched(business: tuple[str, str]) -> None:
    request_id = issued(*business)
    other_account, _ = active_business("Outra Loja")
    for target in (request_id, "cr_01JD9H1J2K3M4N5P6Q7R8S9T0V", "not-a-request"):
        missing = refused(lambda target=target: record(other_account, body(target)))  # type: ignore[misc]
        assert (missing.status, missing.code, missing.message) == (404, "not_found", "No such collection request.")
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.version, request.amount_paid) == (1, 0)


def test_the_same_payment_id_again_answers_the_same_record_and_changes_nothing(business: tuple[str, str]) -> None:
    account_id, _ = business
    request_id = issued(*business, allow_installments=True)
    payment_id = str(uuid.uuid4())
    first = record(account_id, body(request_id, "100"), payment_id)
    again = record(account_id, body(request_id, "100"), payment_id)
    assert again == first
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.amount_paid, request.version) == (100, 2)
    assert len(payments.listed(account_id, {"collection_request_id": request_id}).data) == 1


def test_two_records_that_together_over_pay_a_request_one_wins(business: tuple[str, str]) -> None:
    account_id, _ = business
    for _round in range(3):
        request_id = issued(*business, allow_installments=True)
        with atomic_dynamodb():
            results = race(2, lambda index, r=request_id: record(account_id, body(r, "150", reference=f"R-{index}")))
        won = [value for kind, value in results if kind == "ok"]
        lost = [value for kind, value in results if kind == "error"]
        assert len(won) == 1 and len(lost) == 1, results
        assert (lost[0].status, lost[0].code) == (422, "amount_out_of_range")
        assert lost[0].extensions["amount_due"]["value"] == Decimal("100.00")
        request = deps.collection_requests().get(request_id)
        assert request is not None and (request.status, request.amount_paid, request.version) == (
            "partially_paid",
            150,
            2,
        )
        listed = payments.listed(account_id, {"collection_request_id": request_id})
        assert [item.id for item in listed.data] == [won[0].id]


def test_recording_closes_a_checkout_the_payer_opened_and_did_not_pay_with(business: tuple[str, str]) -> None:
    account_id, _ = business
    request_id = issued(*business)
    destination = payment_links.open_link(request_id, "https://gateway.example")
    assert destination.checkout_url is not None
    checkout_id = destination.checkout_url.rsplit("/", 1)[1]
    record(account_id, body(request_id))
    checkout = deps.payments().get(checkout_id)
    assert checkout is not None and checkout.status == "canceled"
    request = deps.collection_requests().get(request_id)
    assert request is not None and request.status == "paid"
    assert payment_links.open_link(request_id, "https://gateway.example").state == "paid"


def test_the_payment_link_of_a_request_paid_in_part_asks_for_what_is_due(business: tuple[str, str]) -> None:
    account_id, _ = business
    request_id = issued(*business, allow_installments=True)
    record(account_id, body(request_id, "100"))
    destination = payment_links.open_link(request_id, "https://gateway.example")
    assert destination.checkout_url is not None
    checkout_id = destination.checkout_url.rsplit("/", 1)[1]
    opened = deps.payments().get(checkout_id)
    assert opened is not None and opened.amount == "150.00"
    checkout.test_action(checkout_id, "succeed")
    (succeeded,) = [e for e in payment_events(account_id, checkout_id) if e["type"] == "payment.succeeded"]
    assert reconcile_collection(succeeded) == "collection_request.paid"
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.status, request.amount_paid, request.outstanding) == ("paid", 250, 0)
    assert request.payment_reconciliation["reconciliation_status"] == "matched"


# ---------------------------------------------------------------- through the function's handler
class Licence:
    def allows(self, _capability: str) -> bool:
        return True


@pytest.fixture
def handler(business: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., dict[str, Any]]:
    """POST /v1/payments as the business's token would call it (the licence and the token's
    signature taken as checked: their own tests cover them)."""
    from mzpay.collection import licence
    from mzpay.http import collection_auth

    account_id, _ = business
    identity = Identity(
        "ana@loja", "https://issuer.example", account_id, frozenset({"collection_request:write"}), "configured"
    )
    monkeypatch.setattr(licence, "require_active", Licence)
    monkeypatch.setattr(collection_auth, "bearer_token", lambda _e: "token")
    monkeypatch.setattr(collection_auth, "verify_access_token", lambda *_a, **_k: identity)
    module = function_app("collection_requests", "recorded_payments_app")

    def call(given: dict[str, Any], key: str | None) -> dict[str, Any]:
        headers = {"Content-Type": "application/json", "Authorization": "Bearer token"}
        if key is not None:
            headers["Idempotency-Key"] = key
        sent = {**given, "amount": {**given["amount"], "value": float(given["amount"]["value"])}}  # a JSON number
        event = rest_event("POST", "/v1/payments", headers=headers, body=json.dumps(sent))
        event["requestContext"]["requestId"] = str(uuid.uuid4())
        answer: dict[str, Any] = module.lambda_handler(event, Context())
        return answer

    return call


class Context:
    """A Lambda context whose function has a few seconds left: a record the fault left locked
    frees itself that soon."""

    function_name = "CollectionRequestsFunction"
    aws_request_id = "c-1"
    invoked_function_arn = "arn:aws:lambda:af-south-1:123456789012:function:CollectionRequestsFunction"
    memory_limit_in_mb = 256

    def get_remaining_time_in_millis(self) -> int:
        return 1000


def header(answer: dict[str, Any], name: str) -> str | None:
    for key, values in (answer.get("multiValueHeaders") or {}).items():
        if key.lower() == name.lower():
            return str(values[-1])
    return next((str(v) for k, v in (answer.get("headers") or {}).items() if k.lower() == name.lower()), None)


def test_one_record_per_idempotency_key_and_an_audit_record_naming_the_request(
    handler: Callable[..., dict[str, Any]], business: tuple[str, str]
) -> None:
    account_id, _ = business
    request_id = issued(*business, allow_installments=True)
    missing = handler(body(request_id, "100"), None)
    assert (missing["statusCode"], json.loads(missing["body"])["code"]) == (400, "idempotency_key_required")
    first = handler(body(request_id, "100"), "rec-1")
    assert first["statusCode"] == 200, first["body"]
    again = handler(body(request_id, "100"), "rec-1")
    assert (again["statusCode"], again["body"], header(again, "Idempotent-Replayed")) == (200, first["body"], "true")
    other = handler(body(request_id, "120"), "rec-1")
    assert (other["statusCode"], json.loads(other["body"])["code"]) == (409, "idempotency_key_reused")
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.amount_paid, request.version) == (100, 2)
    payment_id = json.loads(first["body"])["payment"]["id"]
    records, _ = deps.audit_trail().page(AuditFilter(target_type="collection_request", target_id=request_id), 10, None)
    (kept,) = [r for r in records if r.status == 200]
    assert (kept.action, kept.actor_id, kept.account_id) == ("record_payment", "ana@loja", account_id)
    assert kept.after is not None and kept.after["payment_id"] == payment_id
    assert ((kept.before or {})["amount_paid"], kept.after["amount_paid"]) == ("0.00", "100.00")


def test_a_dynamodb_fault_answers_503_and_the_retry_with_the_same_key_completes(
    handler: Callable[..., dict[str, Any]], business: tuple[str, str]
) -> None:
    account_id, _ = business
    request_id = issued(*business)
    real = deps.collection_requests()

    class Faulty:
        def __getattr__(self, name: str) -> Any:
            if name != "settle_with":
                return getattr(real, name)

            def fail(*_args: Any, **_kwargs: Any) -> Any:
                raise ReadTimeoutError(endpoint_url="https://dynamodb.af-south-1.amazonaws.com")

            return fail

    with deps.substitute(collection_requests=Faulty()):
        faulted = handler(body(request_id), "rec-fault")
    assert faulted["statusCode"] == 503, faulted["body"]
    assert header(faulted, "Retry-After") is not None
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.status, request.version) == ("pending", 1)
    deadline = time.monotonic() + 30
    while True:  # as the docs advise: the same key again, after Retry-After, while the answer says retry
        answer = handler(body(request_id), "rec-fault")
        code = json.loads(answer["body"]).get("code")
        if answer["statusCode"] != 503 and code != "request_in_progress":
            break
        assert time.monotonic() < deadline, answer
        time.sleep(float(header(answer, "Retry-After") or 1))
    assert answer["statusCode"] == 200, answer["body"]
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.status, request.version) == ("paid", 2)
    assert len(payments.listed(account_id, {"collection_request_id": request_id}).data) == 1

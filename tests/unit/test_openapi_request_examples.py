"""Every operation with a request body, in each OpenAPI document, shows an example body (the
`examples` of the request model, mzpay.domain.common.model.examples) that the route's own model
takes as sent on the wire; on the collection surface each example also passes the domain rules
the use case applies after the model (NUIT check digit, E.164 phones, ISO codes, partner forms,
checklist items, URLs), so an example a client copies is answered 2xx, not 400. A new route whose
body model has no example fails here."""

from __future__ import annotations

import functools
import json
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
from pydantic import BaseModel

from mzpay.domain.collection import business, devices, identity_providers, kyc, payers, recorded
from mzpay.domain.collection import requests as request_rules
from mzpay.domain.common.ids import has_prefix
from mzpay.domain.partners import catalogue, payment_methods, transactions
from tests.unit import openapi_checks

SURFACES = ("collection", "gateway", "management")


@functools.cache
def _document(surface: str) -> dict[str, Any]:
    document, _ = openapi_checks.document_operations(openapi_checks.shipped_document(surface))
    return document


@functools.cache
def _models(surface: str) -> dict[tuple[str, str], type[BaseModel]]:
    return openapi_checks.request_body_models(surface)


def _with_bodies(surface: str) -> list[tuple[str, str, str]]:
    return [
        (surface, method.upper(), path)
        for path, item in _document(surface)["paths"].items()
        for method, operation in item.items()
        if method in openapi_checks.VERBS and "requestBody" in operation
    ]


OPERATIONS = [operation for surface in SURFACES for operation in _with_bodies(surface)]


def _schema_name(operation: dict[str, Any]) -> str:
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    ref = schema.get("$ref") or next(part["$ref"] for part in schema["anyOf"] if "$ref" in part)
    return str(ref.rpartition("/")[2])


def _examples(model: type[BaseModel]) -> list[Any]:
    return list(model.model_json_schema().get("examples") or [])


@pytest.mark.parametrize(("surface", "method", "path"), OPERATIONS, ids=[" ".join(o) for o in OPERATIONS])
def test_every_body_has_an_example_the_routes_model_takes(surface: str, method: str, path: str) -> None:
    model = _models(surface).get((method, path))
    assert model is not None, f"{method} {path}: no Body() model found on its route"
    bodies = _examples(model)
    assert bodies, f"{method} {path}: {model.__name__} has no example: add model_config = examples(...)"
    for body in bodies:
        model.model_validate_json(json.dumps(body))  # as the client sends it
    operation = _document(surface)["paths"][path][method.lower()]
    documented = _document(surface)["components"]["schemas"][_schema_name(operation)]
    assert documented.get("examples") == json.loads(json.dumps(bodies)), "stale document: make openapi"


def test_every_operation_with_a_body_is_counted() -> None:
    """The operations above are all those whose route takes a body model (none left out)."""
    for surface in SURFACES:
        assert {(m, p) for _, m, p in _with_bodies(surface)} == set(_models(surface))


# ---------------------------------------------------------------- the collection surface's rules


def _collection_request(body: dict[str, Any]) -> None:
    from mzpay.collection.collection_requests import _checked

    assert all(has_prefix(method_id, "cm") for method_id in body.get("collection_method_ids", []))
    if "amount" in body:
        request_rules.check_amount(body["amount"]["currency"], Decimal(str(body["amount"]["value"])))
    if "payer" in body:
        assert payers.payer_problems(body["payer"]) == []
    assert _checked(body) == []


def _onboarding_details(body: dict[str, Any]) -> None:
    assert body["object"] == "account"
    sections = {k: v for k, v in body.items() if k not in ("object", "logo")}
    business.check_details(sections, business.REQUIRED_SECTIONS)


def _review(body: dict[str, Any]) -> None:
    kyc.check_review(
        body["status"], body.get("reviewer_id"), body.get("rejection_reason"), body.get("additional_request")
    )


def _identity_provider(body: dict[str, Any]) -> None:
    assert identity_providers.field_errors(body) == []
    assert "id" not in body or identity_providers.is_idp_id(body["id"])


RULES = {  # request model -> the domain rules its use case applies after the model
    "CollectionRequestIn": _collection_request,
    "CollectionRequestChange": _collection_request,
    "CollectionMethodIn": lambda b: (request_rules.check_method_type(b["type"]), request_rules.check_mode(b["mode"])),
    "StatusIn": lambda b: request_rules.check_method_status(b["status"]),
    "RecordedPaymentIn": lambda b: (
        (
            recorded.channel_problem(b["channel"]) is None
            and recorded.paid_at_problem(b["paid_at"], datetime.now(UTC)) is None
        )
        or pytest.fail("a recorded payment's channel and paid_at")
    ),
    "OnboardingDetailsIn": _onboarding_details,
    "RejectAccount": lambda b: (
        all(
            e["code"] in (business.INVALID_FORMAT, business.NOT_FOUND, business.VERIFICATION_FAILED)
            for e in b["errors"]
        )
        or pytest.fail("a review error's code")
    ),
    "CustomerIn": lambda b: b["document_type"] in kyc.DOCUMENT_TYPES or pytest.fail("a document type"),
    "KycReview": _review,
    "KycSaveDate": lambda b: date.fromisoformat(b["expiry_date"]),
    "PaymentMethodIn": lambda b: payment_methods.checked_details(b["partner_id"], b["type"], b["details"]),
    "PaymentMethodStatus": lambda b: payment_methods.check_status(b["status"]),
    "CardBin": lambda b: catalogue.card_logo(b["card_number"]),
    "TransactionIn": lambda b: transactions.checked(b["transaction_type"], Decimal(str(b["amount"])), b["currency"]),
    "IdentityProviderIn": _identity_provider,
    "IdentityProviderUpdate": _identity_provider,
    "DeviceIn": lambda b: devices.is_device_id(b["device_id"]) or pytest.fail("a SHA-256 device id"),
}


def test_the_collection_examples_pass_the_domain_rules() -> None:
    checked = set()
    for _, method, path in _with_bodies("collection"):
        model = _models("collection")[(method, path)]
        check = RULES.get(model.__name__)
        for body in _examples(model) if check else []:
            check(body)  # raises ServiceError (a 400) when the example breaks a rule
            checked.add(model.__name__)
    assert checked == set(RULES)  # every rule above checked an example of a route


def test_a_phone_and_a_nuit_of_the_examples_hold() -> None:
    """The realistic data the collection examples share: an M-Pesa number and a NUIT whose check
    digit holds, an ISO country."""
    body = _examples(_models("collection")[("POST", "/v1/collection-requests")])[0]
    assert business.phone_problem(body["payer"]["contact"]["phone_number"]) is None
    assert business.nuit_problem(body["payer"]["vat_number"]) is None
    assert business.is_country(body["payer"]["address"]["country"])

"""The bank reference of a new collection request (docs/collection-requests.md, "References"): a
request naming simo_erv or interbank methods gets ONE reference number, claimed in its account
and mode (a conditional write; a body another owner holds moves to the next one). Where every
bank method it names allows reuses and the payer is known (customer, else phone, else NUIT), the
reference is a standing one: derived from (methods, payer, amount), so the same payer's next
request of that amount through them carries the same reference."""

from __future__ import annotations

import hashlib
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.domain.collection import bank_references as refs
from mzpay.domain.collection.business import INVALID_FORMAT
from mzpay.domain.collection.methods import BANK_TYPES, CollectionMethod
from mzpay.domain.collection.requests import CollectionRequest
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.errors import field_refusal as invalid

CLAIM_ATTEMPTS = 8  # bodies tried before giving up (a collision is about one in a hundred million)


def payer_key(payer: dict[str, Any], customer_id: str | None) -> str | None:
    """Who pays, for a standing reference: the directory's customer, else the phone, else the NUIT."""
    phone = (payer.get("contact") or {}).get("phone_number")
    for kind, value in (("customer", customer_id), ("phone", phone), ("nuit", payer.get("vat_number"))):
        if value:
            return f"{kind}:{value}"
    return None


def _entity(methods: list[CollectionMethod]) -> str | None:
    """The SIMO entity of the check digits (None: interbank only); two entities in one request: 400."""
    entities = {method.entity_number for method in methods if method.type == "simo_erv"}
    if len(entities) > 1:
        problem = FieldError("collection_method_ids", INVALID_FORMAT, "one SIMO entity per request")
        raise invalid([problem])
    return entities.pop() if entities else None


def issued(
    request_id: str,
    account_id: str,
    mode: str,
    methods: list[CollectionMethod],
    payer: dict[str, Any],
    customer_id: str | None,
    amount: Decimal,
    installments: bool,
) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """The new request's collection_method_details and its reference fields (none without bank
    methods). A request that takes instalments has a reference bound to no amount."""
    bank = [method for method in methods if method.type in BANK_TYPES]
    if not bank:
        return [method.detail() for method in methods], {}
    entity = _entity(bank)
    payer_is = payer_key(payer, customer_id)
    if payer_is and all(method.allow_reuses for method in bank):
        series = "|".join([*sorted(method.method_id for method in bank), payer_is, str(amount.normalize())])
        owner = "standing:" + hashlib.sha256(series.encode()).hexdigest()
    else:
        owner = request_id
    bound = None if installments else amount
    number = _claimed(account_id, mode, owner, entity, bound)
    details = [_detail(method, number) for method in methods]
    return details, {"reference_number": number, "reference_entity": entity, "reference_amount": bound}


def _claimed(account_id: str, mode: str, owner: str, entity: str | None, amount: Decimal | None) -> str:
    store = deps.collection_requests()
    for attempt in range(CLAIM_ATTEMPTS):
        body = refs.derived_body(owner, attempt)
        if store.claim_reference(account_id, mode, str(body).zfill(refs.BODY_DIGITS), owner):
            return refs.reference_number(entity, body, amount)
    raise ServiceError(503, "service_unavailable", "No reference number was free; retry.", headers={"Retry-After": "1"})


def _detail(method: CollectionMethod, number: str) -> dict[str, str]:
    """What the payer needs of a method: for simo_erv the entity and the reference, for interbank
    the NIB, the reference and what to write in the transfer's description."""
    detail = method.detail()
    if method.type == "simo_erv" and method.entity_number:
        detail |= {"entity_number": method.entity_number, "reference_number": number}
    elif method.type == "interbank" and method.nib:
        detail |= {"nib": method.nib, "reference_number": number, "transfer_description": refs.written(number)}
    return detail


def ensure_kept(request: CollectionRequest, changes: dict[str, Any], methods: list[CollectionMethod] | None) -> None:
    """A request's reference is made once: a request carrying one keeps its methods (and, when the
    reference is bound to it, its amount), and a change names no bank method; 400 invalid_request."""
    bound_amount = request.reference_amount is not None and "amount" in changes
    if (request.reference_number and (methods is not None or bound_amount)) or any(
        method.type in BANK_TYPES for method in methods or []
    ):
        raise ServiceError(
            400,
            "invalid_request",
            "A request paid by bank reference keeps its reference, methods and amount: cancel it and issue another.",
            reference_number=request.reference_number,
        )

"""Collection methods (docs/collection-requests.md): what an active business can be paid through
(M-Pesa, e-Mola, mKesh, bank transfer, payment reference, card, a SIMO entity, its NIB), each in one mode. The business
adds them and switches them on and off; its collection requests name them. Another account's
method is 404."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.answers import collection_methods as answers
from mzpay.domain.collection.business import INVALID_FORMAT
from mzpay.domain.collection.methods import check_details
from mzpay.domain.collection.requests import (
    MAX_METHODS_PER_ACCOUNT,
    METHOD_TYPES,
    CollectionMethod,
    MethodStatus,
    check_installments,
    check_method_status,
    check_method_type,
    check_mode,
)
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ServiceError, ensure_room, found_of
from mzpay.domain.common.errors import field_refusal as invalid
from mzpay.domain.common.ids import new_prefixed_id
from mzpay.steps.business import require_active
from mzpay.store.collection_requests import Changed
from mzpay.store.transitions import rejudged

MAX_ID = 64


def _method(account_id: str, method_id: str) -> CollectionMethod:
    method = deps.collection_requests().method(method_id) if len(method_id) <= MAX_ID else None
    return found_of(account_id, method, "collection method")


def add(
    account_id: str,
    method_type: str,
    name: str | None,
    mode: str,
    allow_installments: bool | None = None,
    min_installment: Decimal | None = None,
    details: dict[str, Any] | None = None,
) -> answers.CollectionMethod:
    """A new active method of an active business whose gateway account exists (payments of
    the method's requests run through it): 403 forbidden otherwise. With allow_installments, the
    requests naming it may be paid in parts, each at least min_installment (when given).
    `details` (Kulpay's): entity_number (simo_erv), nib (interbank), allow_installments (the same
    setting, given twice: the same value) and allow_reuses (bank types: standing references)."""
    check_method_type(method_type)
    check_mode(mode)
    details = details or {}
    given = {choice for choice in (allow_installments, details.get("allow_installments")) if choice is not None}
    if len(given) > 1:
        raise invalid([FieldError("details.allow_installments", INVALID_FORMAT, "the body's allow_installments")])
    allow_installments = given == {True}
    allow_reuses = bool(details.get("allow_reuses"))
    where = check_details(method_type, details.get("entity_number"), details.get("nib"), allow_reuses)
    check_installments(allow_installments, min_installment)
    business = require_active(account_id)
    if deps.directory().get_account(business.gateway_account_id or account_id) is None:
        raise ServiceError(
            403,
            "forbidden",
            "The business has no gateway account to collect through yet: an operator creates it.",
            reason="no_gateway_account",
        )
    held = len(deps.collection_requests().methods_of(account_id, MAX_METHODS_PER_ACCOUNT))
    ensure_room(held, MAX_METHODS_PER_ACCOUNT, "An account", "collection methods")
    now = now_iso()
    method = CollectionMethod(
        method_id=new_prefixed_id("cm"),
        account_id=account_id,
        type=method_type,
        name=name or METHOD_TYPES[method_type],
        mode=mode,
        allow_installments=allow_installments,
        min_installment=min_installment,
        allow_reuses=allow_reuses,
        **where,
        status=MethodStatus.ACTIVE,
        version=1,
        created_at=now,
        updated_at=now,
    )
    deps.collection_requests().add_method(method)
    return answers.CollectionMethod.of(method.view())


def listed(account_id: str) -> answers.CollectionMethodList:
    methods = deps.collection_requests().methods_of(account_id, MAX_METHODS_PER_ACCOUNT)
    return answers.CollectionMethodList.of({"object": "list", "data": [m.view() for m in methods], "has_more": False})


def read(account_id: str, method_id: str) -> answers.CollectionMethod:
    return answers.CollectionMethod.of(_method(account_id, method_id).view())


def set_status(account_id: str, method_id: str, status: str) -> answers.CollectionMethod:
    """active <-> inactive; the same status again changes nothing. Of two racing changes each
    is judged on the method as the other left it."""
    check_method_status(status)

    def change(method: CollectionMethod) -> CollectionMethod:
        if method.status == status:
            return method
        return deps.collection_requests().change_method(method, {"status": status, "updated_at": now_iso()})

    changed = rejudged(lambda: _method(account_id, method_id), change, Changed, "collection method")
    return answers.CollectionMethod.of(changed.view())

"""The spec's fields of `PUT /v1/collection-requests/{id}` (docs/collection-requests.md,
"Change"): `name` (the request's description), `type` (a collection method type: the account's
active methods of that type in the request's mode), `details` (collection method details: the
methods named) and `account_id`, read as the request's own fields before the change runs; and
the spec's `name` and `type` in the answer."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.answers import collection_requests as answers
from mzpay.collection.collection_requests import own, update
from mzpay.domain.collection.requests import MAX_METHODS_PER_ACCOUNT, CollectionMethod
from mzpay.domain.common.errors import FieldError, field_refusal

INVALID_FORMAT, NOT_FOUND = "INVALID_FORMAT", "NOT_FOUND"


def change(
    account_id: str, actor: str, request_id: str, sent: dict[str, Any], fields: dict[str, Any]
) -> answers.CollectionRequestChanged:
    """PUT /v1/collection-requests/{id} with the spec's fields read as the request's own."""
    return update(account_id, actor, request_id, _own_fields(account_id, request_id, sent, fields))


def _own_fields(account_id: str, request_id: str, sent: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """The change as the request's own fields (the caller's request, else 404 first): `sent` the
    body as given, `fields` the request's own fields it names (the spec's name and details
    translated by the request model); each spec field agrees with the request's own fields sent
    beside it (400 naming it) and `type` becomes the methods of that type."""
    request = own(account_id, request_id)
    fields = dict(fields)
    problems: list[FieldError] = []
    name, description, details = sent.get("name"), sent.get("description"), sent.get("details")
    if name is not None and description is not None and name != description:
        problems.append(FieldError("name", INVALID_FORMAT, "the request's description: name and description differ"))
    ids = [detail["collection_method_id"] for detail in details or []]
    if details is not None and sent.get("collection_method_ids") not in (None, ids):
        why = "the request's methods: details and collection_method_ids differ"
        problems.append(FieldError("details", INVALID_FORMAT, why))
    methods = _methods_of(sent.get("account_id") or account_id)
    for index, detail in enumerate(details or []):
        method = methods.get(detail["collection_method_id"])  # an unknown one: the change's own refusal
        for part in ("name", "type", "status"):
            said, kept = detail.get(part), getattr(method, part, None)
            if method is not None and said is not None and said != kept:
                problems.append(FieldError(f"details.{index}.{part}", INVALID_FORMAT, f"the method's {part} is {kept}"))
    method_type = sent.get("type")
    if method_type is not None:
        named = fields.get("collection_method_ids")
        if named is not None:  # the methods named must be of this type
            if any(method_id in methods and methods[method_id].type != method_type for method_id in named):
                problems.append(FieldError("type", INVALID_FORMAT, "not the type of the methods named"))
        else:
            of_type = [
                method.method_id
                for method in methods.values()
                if (method.type, method.status, method.mode) == (method_type, "active", request.mode)
            ]
            if not of_type:
                why = f"the account has no active {request.mode} collection method of this type"
                problems.append(FieldError("type", NOT_FOUND, why))
            fields["collection_method_ids"] = of_type[:10]
    if problems:
        raise field_refusal(problems)
    return fields


def _methods_of(account_id: str) -> dict[str, CollectionMethod]:
    return {m.method_id: m for m in deps.collection_requests().methods_of(account_id, MAX_METHODS_PER_ACCOUNT)}

"""What answers should look like, written once for every kind of test."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any


def problem(status: int, title: str, code: str, detail: str, **extensions: Any) -> dict[str, Any]:
    """The full problem document the gateway and management APIs answer with."""
    return {
        "type": "about:blank",
        "title": title,
        "status": status,
        "code": code,
        "detail": detail,
        **extensions,
        "error": {"code": code, "message": detail},
    }


def field_errors(*errors: tuple[str, str, str]) -> list[dict[str, str]]:
    """A refusal's `errors`: each refused field as (field, code, message)."""
    return [{"field": field, "code": code, "message": message} for field, code, message in errors]


RAW_CARD_DATA = "gateway.raw_card_data_not_accepted"
RAW_CARD_DATA_WORDS = "a card number or security code is never accepted: send the acquirer's card token"


def card_data_message(fields: list[str]) -> str:
    """What a refusal of card data in `fields` says (every API)."""
    return (
        "Card data is never accepted here: remove the card number or security code from "
        f"{', '.join(fields)} (send a card only as the acquirer's token, where a route takes one)."
    )


def card_data_problem(fields: list[str]) -> dict[str, Any]:
    """The problem document of the gateway and management APIs for card data in `fields`."""
    errors = [{"field": field, "code": RAW_CARD_DATA, "message": RAW_CARD_DATA_WORDS} for field in fields]
    return problem(400, "Bad Request", RAW_CARD_DATA, card_data_message(fields), errors=errors)


# A payment's members while no money has moved yet (nothing authorized, captured or refunded;
# no next action, no failure): spread into the whole answer a test expects.
NOTHING_MOVED_YET: dict[str, Any] = {
    "next_action": None,
    "authorized_amount": "0.00",
    "captured_amount": "0.00",
    "refunded_amount": "0.00",
    "failure_code": None,
    "failure_message": None,
}

# RFC 9110's name for 422 (Python 3.11's HTTPStatus still says Unprocessable Entity).
TITLES = {422: "Unprocessable Content"}


def problem_for(status: int, code: str, detail: str, **extensions: Any) -> dict[str, Any]:
    """problem() with the status's standard reason phrase as its title (400 Bad Request, 409 Conflict,
    422 Unprocessable Content...)."""
    return problem(status, TITLES.get(status) or HTTPStatus(status).phrase, code, detail, **extensions)


def pilot_settings(
    merchant_ids: list[str], per_transaction: str, daily: str, monthly: str, currencies: tuple[str, ...] = ("MZN",)
) -> dict[str, Any]:
    """A PSP's pilot settings: the merchants it serves and its ceilings, the same in each of `currencies`."""
    return {
        "merchant_ids": merchant_ids,
        "currencies": list(currencies),
        "per_transaction": dict.fromkeys(currencies, per_transaction),
        "daily": dict.fromkeys(currencies, daily),
        "monthly": dict.fromkeys(currencies, monthly),
    }


STAGE_ARN = "arn:aws:execute-api:af-south-1:123456789012:abc123/prod/*"


def policy(effect: str, resource: str = STAGE_ARN) -> dict[str, Any]:
    """The IAM policy a Lambda authorizer answers with: `effect` on every route of the stage."""
    return {
        "Version": "2012-10-17",
        "Statement": [{"Action": "execute-api:Invoke", "Effect": effect, "Resource": resource}],
    }


def payout_approval_record(
    record: dict[str, Any], operator: str, source_ip: str, payout_id: str, **members: Any
) -> dict[str, Any]:
    """The audit record of operator `operator` approving payout `payout_id` from `source_ip` (200
    on the management API): `record`'s own id and time; `members` the rest (account_id, request,
    before, after, request_id)."""
    return {
        "id": record["id"],
        "object": "audit_record",
        "at": record["at"],
        "actor": {"kind": "operator", "id": operator, "source_ip": source_ip, "issuer": None, "account_id": None},
        "surface": "management",
        "action": "approve_payout",
        "method": "POST",
        "path": "/v1/payouts/{payout_id}/approve",
        "target": {"type": "payout", "id": payout_id},
        "outcome": {"status": 200, "code": None},
        **members,
    }

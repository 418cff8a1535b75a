"""The management API's audit trail answers (mzpay.operators.audit: AuditTrailRecord.public of
mzpay.domain.operators.audit)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mzpay.answers.base import ACCOUNT, Answer, Paged, Timestamp, examples

_RECORD = {
    "id": "01JDAUD1T0000000000000000A",
    "object": "audit_record",
    "at": "2026-11-25T09:14:03Z",
    "actor": {
        "kind": "operator",
        "id": "ana.macuacua",
        "source_ip": "198.51.100.7",
        "issuer": None,
        "account_id": None,
    },
    "surface": "management",
    "action": "approve_payout",
    "method": "POST",
    "path": "/v1/payouts/{payout_id}/approve",
    "target": {"type": "payout", "id": "01JD8Z5Q1R2S3T4V5W6X7Y8Z9B"},
    "account_id": ACCOUNT,
    "request": None,
    "outcome": {"status": 200, "code": None},
    "before": {"id": "01JD8Z5Q1R2S3T4V5W6X7Y8Z9B", "status": "requires_approval", "amount": "75000.00"},
    "after": {"id": "01JD8Z5Q1R2S3T4V5W6X7Y8Z9B", "status": "pending", "amount": "75000.00"},
    "request_id": "01JDREQ0000000000000000000",
}


class AuditActor(Answer):
    """Who acted."""

    kind: Literal["operator", "administrator", "business", "anonymous", "reviewer", "merchant_user"] = Field(
        description="operator: the management API or the console; administrator: the collection surface's "
        "installation administrator (a bootstrap-issuer token without account_id); business: a collection "
        "token acting for a business account; reviewer: collection records written before administrators "
        "and businesses were told apart; merchant_user: a merchant's user on the dashboard (its e-mail as "
        "`id`; anonymous: a dashboard post without a session)."
    )
    id: str = Field(
        description="The operator's name (named operator tokens), the collection token's subject or the "
        "dashboard user's e-mail."
    )
    source_ip: str = Field(description="The address the request came from.")
    issuer: str | None = Field(
        description="A collection token's issuer (`iss`): one subject from two issuers is two actors; "
        "null for operators."
    )
    account_id: str | None = Field(
        description="The business account a collection token acts for; null for operators and administrators."
    )


class AuditTarget(Answer):
    """What the action acted on."""

    type: str = Field(description="The kind of object: payout, dispute, account, payment, psp_application, ...")
    id: str | None = Field(description="Its id.")


class AuditOutcome(Answer):
    """How the request was answered."""

    status: int = Field(description="The HTTP status.")
    code: str | None = Field(description="The error code of a refusal; null on success.")


class AuditTrailRecord(Answer):
    """One operator's or reviewer's state-changing request: append-only, never edited."""

    model_config = examples(_RECORD)

    id: str = Field(description="The record's id (a ULID: records sort by time).")
    object: Literal["audit_record"] = Field(description="Always audit_record.")
    at: Timestamp = Field(description="When it was recorded.")
    actor: AuditActor = Field(description="Who acted, from where.")
    surface: Literal["management", "console", "collection", "dashboard"] = Field(
        description="Where the request came in (dashboard: the merchant dashboard, docs/dashboard.md)."
    )
    action: str = Field(description="The operation, e.g. approve_payout, decide_dispute, suspend_account.")
    method: str = Field(description="The HTTP method.")
    path: str = Field(description="The route's path template.")
    target: AuditTarget | None = Field(description="What the action acted on, when it names one.")
    account_id: str | None = Field(description="The merchant account concerned, when there is one.")
    request: Any = Field(description="The request's body, secrets masked ([redacted]); files by media type and size.")
    outcome: AuditOutcome = Field(description="The answer's status and code.")
    before: Any = Field(description="The target's state before (as the API shows it), when the action read it.")
    after: Any = Field(description="The target's state after, when the action changed it.")
    request_id: str = Field(description="The request's X-Request-ID.")


class AuditTrailList(Paged[AuditTrailRecord]):
    """A page of the audit trail, newest first."""

    model_config = examples({"object": "list", "data": [_RECORD], "has_more": False, "next_page_token": None})

    data: list[AuditTrailRecord] = Field(description="The records of this page.")

"""The events API (GET /v1/events, GET /v1/events/{id}) and the webhook signature check
(POST /v1/admin/webhooks/verify): what a merchant reads of the event store."""

from __future__ import annotations

import base64
import binascii
import json
import time
from typing import Any

from mzpay import deps
from mzpay.answers.events import Event as EventAnswer
from mzpay.answers.events import EventList, WebhookVerification
from mzpay.domain.access.principal import Principal, wrong_environment
from mzpay.domain.common.bounds import MAX_CODE, MAX_ID
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.ids import is_ulid

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
OTHER_MODE = {"test": "live", "live": "test"}


def _invalid(field: str, message: str) -> ServiceError:
    return ServiceError(
        400, "invalid_request", f"{field}: {message}", errors=[FieldError(field, "invalid_value", message)]
    )


def _cursor(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        key = json.loads(base64.urlsafe_b64decode(text.encode() + b"=" * (-len(text) % 4)))
    except (binascii.Error, ValueError) as exc:
        raise _invalid("starting_after", "not a cursor this API gave") from exc
    if not isinstance(key, dict) or not all(isinstance(v, str) for v in key.values()):
        raise _invalid("starting_after", "not a cursor this API gave")
    return key


def _token(key: dict[str, Any] | None) -> str | None:
    if not key:
        return None
    return base64.urlsafe_b64encode(json.dumps(key, sort_keys=True).encode()).decode().rstrip("=")


MAX_CURSOR = 1024  # far above any cursor this list gives


def list_events(
    principal: Principal, limit: str | None, cursor: str | None, event_type: str | None, resource_id: str | None
) -> EventList:
    """The caller's events in its mode, newest first, `limit` (1-100, default 20) a page."""
    try:
        size = DEFAULT_LIMIT if limit is None else int(limit)
    except ValueError as exc:
        raise _invalid("limit", f"an integer from 1 to {MAX_LIMIT}") from exc
    if not 1 <= size <= MAX_LIMIT:
        raise _invalid("limit", f"an integer from 1 to {MAX_LIMIT}")
    for name, value, most in (("type", event_type, MAX_CODE), ("resource_id", resource_id, MAX_ID)):
        if value is not None and len(value) > most:
            raise _invalid(name, f"at most {most} characters")
    if cursor is not None and len(cursor) > MAX_CURSOR:
        raise _invalid("starting_after", "a cursor this list gave")
    items, last = deps.events().page(
        principal.acting_account_id, principal.mode, size, _cursor(cursor), event_type or None, resource_id or None
    )
    token = _token(last)
    return EventList(
        data=[EventAnswer.of(event.envelope()) for event in items], has_more=token is not None, next_cursor=token
    )


def read_event(principal: Principal, event_id: str) -> EventAnswer:
    """One event of the caller's account: 404 for another's, 401 wrong_environment for the other mode's."""
    if not is_ulid(event_id):
        raise ServiceError(404, "not_found", "No such event.")
    event = deps.events().get(principal.acting_account_id, principal.mode, event_id)
    if event is not None:
        return EventAnswer.of(event.envelope())
    if deps.events().get(principal.acting_account_id, OTHER_MODE[principal.mode], event_id) is not None:
        raise wrong_environment(principal.mode, OTHER_MODE[principal.mode])
    raise ServiceError(404, "not_found", "No such event.")


class SignatureRefused(Exception):
    """A webhook signature check that failed: answered as {error, message, t} (spec, Errors 2)."""

    def __init__(self, code: str, message: str, t: int | None) -> None:
        super().__init__(message)
        self.code, self.message, self.t = code, message, t

    def body(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, "t": self.t}


def verify_signature(principal: Principal, header: str | None, payload: bytes) -> WebhookVerification:
    """Check a Service-Signature header against the raw body as received, with the account's
    secrets valid now for the key's mode, within the documented tolerance."""
    from mzpay.webhooks import DEFAULT_TOLERANCE, SignatureError, verify
    from mzpay.webhooks.sender import signing_secrets

    secrets = signing_secrets(principal.acting_account_id, principal.mode)
    if not header:
        raise SignatureRefused("signature_invalid", "The Service-Signature header is missing.", None)
    if not secrets:
        raise SignatureRefused("signature_invalid", "This account has no webhook secret for this mode.", None)
    try:
        t = verify(payload, header, secrets, DEFAULT_TOLERANCE, int(time.time()))
    except SignatureError as refused:
        raise SignatureRefused(refused.code, refused.message, refused.t) from refused
    return WebhookVerification(valid=True, t=t, tolerance_seconds=DEFAULT_TOLERANCE)

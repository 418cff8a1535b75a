"""The dashboard's API keys and webhooks forms read as the API's own bodies (docs/dashboard.md,
"API keys and webhooks"): a key's scopes (one checkbox each), expiry (a day: the key works until
its end, UTC), IP allowlist and customers (separated by commas, spaces or lines) validated by the
management API's CreateApiKey, a roll's overlap by the gateway's RollApiKey."""

from __future__ import annotations

import re
from collections.abc import Mapping

from mzpay.domain.access.keys import SCOPES
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.http.account_schemas import CreateApiKey
from mzpay.http.console_pages import validated
from mzpay.http.key_schemas import RollApiKey

SCOPE_FIELD = "scope_"  # a ticked scope's checkbox: scope_payments:read=yes
OFFERED_SCOPES = tuple(scope for scope in SCOPES if scope != "accounts:write")  # an operator's grant only
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_SEPARATORS = re.compile(r"[\s,]+")


def _listed(text: str) -> list[str]:
    return [item for item in _SEPARATORS.split(text) if item]


def _invalid(field: str, code: str, words: str) -> ServiceError:
    return ServiceError(
        400, "invalid_request", f"The request has invalid fields: {field}.", errors=[FieldError(field, code, words)]
    )


def new_key(texts: Mapping[str, str], fields: Mapping[str, str]) -> CreateApiKey:
    """The create form as POST /v1/accounts/{id}/api-keys's body (the mode is the session's)."""
    scopes = [scope for scope in OFFERED_SCOPES if fields.get(SCOPE_FIELD + scope) == "yes"]
    if not scopes:
        raise _invalid("scopes", "required", "tick at least one scope")
    day = texts["expires_on"]
    if day and not _DAY.fullmatch(day):
        raise _invalid("expires_on", "invalid_value", "a day as YYYY-MM-DD")
    return validated(
        CreateApiKey,
        {
            "mode": "test",  # replaced by the session's: the body model needs one
            "scopes": scopes,
            "expires_at": f"{day}T23:59:59Z" if day else None,
            "ip_allowlist": _listed(texts["ip_allowlist"]),
            "allowed_customers": _listed(texts["allowed_customers"]),
        },
    )


def overlap(texts: Mapping[str, str]) -> int:
    """The roll's overlap in seconds (24 h when left blank), as POST /v1/api-keys/{id}/roll takes it."""
    typed = texts["overlap_seconds"]
    if typed and not typed.isdigit():
        raise _invalid("overlap_seconds", "invalid_value", "a whole number of seconds")
    return validated(RollApiKey, {"overlap_seconds": int(typed)} if typed else {}).overlap_seconds


def status_filter(query: Mapping[str, str], maximum: int) -> str | None:
    """The deliveries list's `status` as typed (the use case knows the statuses); none when blank."""
    status = (query.get("status") or "").strip()
    if len(status) > maximum:
        raise _invalid("status", "too_long", f"at most {maximum} characters")
    return status or None

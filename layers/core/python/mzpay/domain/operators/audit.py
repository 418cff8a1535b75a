"""The audit trail: one append-only record per state-changing request of an operator (management
API, console) or a reviewer (the collection surface's review routes): who, from where, when,
which action on what, the request, the outcome, and the target's state before and after.

A record never holds a secret: names that smell of one (token, secret, password, credential,
key material, card data) are masked at any depth, and each part is capped so that no record can
outgrow a DynamoDB item."""

from __future__ import annotations

import contextvars
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ulid import ULID

from mzpay.domain.common.clock import parse_iso
from mzpay.domain.common.errors import invalid_field

REDACTED = "[redacted]"
PART_LIMIT = 16_000  # characters of JSON per part (request, before, after)
# A field is a secret when the last word of its name is one of these (access_token, credentials,
# webhook_secret; not key_id or token_type, which name a secret without being one), when it ends
# in a key that is a secret (api_key, private_key; not per_key or public_key), or is `key`.
_SECRET_WORDS = frozenset(
    {"secret", "secrets", "token", "tokens", "password", "passphrase", "credential", "credentials"}
    | {"pepper", "pan", "cvv", "cvc", "pin", "signature"}
)
_SECRET_KEYS = frozenset({"api", "private", "secret", "signing", "access", "encryption", "license", "licence"})
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# operator: management API and console; administrator and business: the collection surface's
# two principals (mzpay.domain.collection.access); reviewer: records written before they were told
# apart (a collection token's subject only); merchant_user: a merchant's user on the dashboard.
ACTOR_KINDS = ("operator", "administrator", "business", "anonymous", "reviewer", "merchant_user")
SURFACES = ("management", "console", "collection", "dashboard")
MAX_FILTER = 128


def redacted(value: Any) -> Any:
    """`value` with every field whose name smells of a secret masked, at any depth."""
    if isinstance(value, Mapping):
        return {
            str(name): REDACTED if _is_secret(str(name)) and item not in (None, "") else redacted(item)
            for name, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [redacted(item) for item in value]
    return value


def _is_secret(name: str) -> bool:
    words = [word.lower() for word in _WORDS.findall(name)]
    if not words:
        return False
    if words[-1] in ("key", "keys"):
        return len(words) == 1 or words[-2] in _SECRET_KEYS
    return words[-1] in _SECRET_WORDS


def capped(value: Any) -> Any:
    """`value` redacted, or a note of its size when its JSON is longer than PART_LIMIT."""
    if value is None:
        return None
    clean = redacted(value)
    text = json.dumps(clean, default=str, separators=(",", ":"))
    if len(text) > PART_LIMIT:
        return {"truncated": True, "size": len(text)}
    return json.loads(text)  # plain JSON types only (Decimals as strings): what DynamoDB and readers take


@dataclass(frozen=True)
class AuditRecord:
    audit_id: str
    at: str
    actor_kind: str
    actor_id: str
    source_ip: str
    surface: str
    action: str
    method: str
    path: str
    target_type: str | None
    target_id: str | None
    account_id: str | None
    request: Any
    before: Any
    after: Any
    status: int
    code: str | None
    request_id: str
    # A collection actor's token: its issuer and the business account it acts for (None for
    # operators and administrators), so that one subject from two issuers is two actors.
    actor_issuer: str | None = None
    actor_account_id: str | None = None

    def public(self) -> dict[str, Any]:
        return {
            "id": self.audit_id,
            "object": "audit_record",
            "at": self.at,
            "actor": {
                "kind": self.actor_kind,
                "id": self.actor_id,
                "source_ip": self.source_ip,
                "issuer": self.actor_issuer,
                "account_id": self.actor_account_id,
            },
            "surface": self.surface,
            "action": self.action,
            "method": self.method,
            "path": self.path,
            "target": None if self.target_type is None else {"type": self.target_type, "id": self.target_id},
            "account_id": self.account_id,
            "request": self.request,
            "outcome": {"status": self.status, "code": self.code},
            "before": self.before,
            "after": self.after,
            "request_id": self.request_id,
        }


@dataclass(frozen=True)
class AuditFilter:
    """What a reader asks of the trail; `since`/`until` become bounds of the records' ULIDs."""

    account_id: str | None = None
    actor: str | None = None
    action: str | None = None
    target_type: str | None = None
    target_id: str | None = None
    since: str | None = None
    until: str | None = None

    def id_bounds(self) -> tuple[str | None, str | None]:
        """The smallest and largest record id inside [since, until] (ULIDs sort by time)."""
        low = _moment("since", self.since)
        high = _moment("until", self.until)
        if low is not None and high is not None and low > high:
            raise invalid_field("until", "a moment after `since`")
        return (
            None if low is None else str(ULID.from_bytes(_ms(low).to_bytes(6, "big") + bytes(10))),
            None if high is None else str(ULID.from_bytes(_ms(high).to_bytes(6, "big") + b"\xff" * 10)),
        )

    def check(self) -> None:
        if self.target_id is not None and self.target_type is None:
            raise invalid_field("target_type", "needed with target_id")
        self.id_bounds()


def _moment(field: str, text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        moment = parse_iso(text)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise invalid_field(field, "an ISO 8601 date-time with its offset, e.g. 2026-11-25T10:00:00Z")
    return moment


def _ms(moment: datetime) -> int:
    return max(0, int(moment.timestamp() * 1000))


# ---------------------------------------------------------------- the request's scope
# The surface opens a scope per audited request (begin/end); a use case says what it acted on
# (observe), a surface without an authorizer who acts (identify).


@dataclass(frozen=True)
class Actor:
    """Who acts in a request, as a surface names them: the kind of principal, its id (an
    operator's name, a token's subject), its address, and for a collection token its issuer and
    the business account it acts for."""

    kind: str
    id: str
    source_ip: str
    issuer: str | None = None
    account_id: str | None = None


@dataclass
class Observation:
    """What the action touched: the target, its account, and its state before and after."""

    target_type: str | None = None
    target_id: str | None = None
    account_id: str | None = None
    before: Mapping[str, Any] | None = None
    after: Mapping[str, Any] | None = None
    actor_kind: str | None = None
    actor_id: str | None = None
    source_ip: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


_current: contextvars.ContextVar[Observation | None] = contextvars.ContextVar("mzpay_audit", default=None)


def begin() -> Observation:
    """A fresh observation for the request now starting (the surface calls it)."""
    observation = Observation()
    _current.set(observation)
    return observation


def end() -> None:
    _current.set(None)


def identify(actor_kind: str, actor_id: str, source_ip: str) -> None:
    """Say who acts in this request when the surface's authorizer did not (the console's session
    names its operator); outside an audited request it does nothing."""
    observation = _current.get()
    if observation is not None:
        observation.actor_kind, observation.actor_id, observation.source_ip = actor_kind, actor_id, source_ip


def concerns(account_id: str) -> None:
    """Say which merchant account the request concerns before any use case names its target
    (the dashboard's session: a form refused before its route still names its account)."""
    observation = _current.get()
    if observation is not None:
        observation.account_id = account_id


def observe(
    target_type: str,
    target_id: str,
    *,
    account_id: str | None = None,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
) -> None:
    """Say what the action acts on and its state before and after (a use case calls it; outside
    an audited request it does nothing). A later call for the same target keeps the first `before`."""
    observation = _current.get()
    if observation is None:
        return
    if observation.target_id != target_id or observation.target_type != target_type or observation.before is None:
        observation.before = before
    observation.target_type, observation.target_id = target_type, target_id
    if account_id is not None:
        observation.account_id = account_id
    if after is not None:
        observation.after = after


@dataclass(frozen=True)
class Request:
    """What the surface knows of the audited request."""

    surface: str
    action: str
    method: str
    path: str
    path_params: Mapping[str, str]
    body: Any
    request_id: str
    actor_kind: str
    actor_id: str
    source_ip: str
    actor_issuer: str | None = None
    actor_account_id: str | None = None

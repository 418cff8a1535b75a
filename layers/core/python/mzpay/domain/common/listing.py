"""What a merchant's list asks for (GET /v1/payments, /v1/refunds, /v1/payouts and the others):
its filters, checked once, the same way for every list. A list is newest first, `page_size`
items a page (50 by default, 100 at most), and continues with the `page_token` its previous page
gave; the token is bound to the account, the mode and the filters (mzpay.domain.common.page_tokens
seals it), so a token of another list, account or mode, or a tampered one, is refused.

Each filter is a query parameter; an unknown one, a malformed value, `created_gte` not before
`created_lt` or a `page_size` out of range is 400 invalid_request naming the field. `account_id`,
`mode` and `customer_id` are read by the authorizer's principal (mzpay.http.principal) and are
not filters here: `customer_id` narrows the list through the principal (a key restricted to
customers sees only theirs)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation

from mzpay.domain.common.errors import ServiceError, invalid_field
from mzpay.domain.common.page_tokens import MAX_TOKEN

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
MAX_FILTER = 200  # the longest value any filter takes (ids, metadata values, dates)
MAX_METADATA_KEY = 40
MAX_AMOUNT = Decimal("1e15")
WALLET_NETWORKS = frozenset({"mpesa", "emola", "mkesh"})

# Parameters the principal reads before the list (not filters, never refused as unknown).
PRINCIPAL_PARAMETERS = frozenset({"account_id", "mode", "customer_id"})
_METADATA = re.compile(r"^metadata\[([A-Za-z0-9_.\-]{1,40})\]$")
_ID = re.compile(r"^[A-Za-z0-9_.:/\-]{1,200}$")


@dataclass(frozen=True)
class Filters:
    """The filters of one list request (None: not asked)."""

    own_id: str | None = None  # the merchant's own id of the object (payment_id, refund_id, payout_id)
    status: str | None = None
    created_gte: str | None = None  # UTC, to the second (YYYY-MM-DDTHH:MM:SSZ)
    created_lt: str | None = None
    currency: str | None = None
    method: str | None = None
    network: str | None = None
    amount_gte: Decimal | None = None
    amount_lte: Decimal | None = None
    parent: str | None = None  # the payment of a refund, the batch of a payout
    provider: str | None = None  # the PSP that carried it (the collection surface's provider_id)
    metadata: tuple[str, str] | None = None

    def digest(self) -> str:
        """A short digest of the filters: a page token carries it, so it fits only this filter."""
        values = {name: str(value) for name, value in asdict(self).items() if value is not None}
        return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Kind:
    """What one list offers: its object's name, the statuses it may be filtered by, the query
    parameter of the merchant's own id and of its parent (None: none), and whether it has
    methods and networks, and metadata."""

    name: str
    statuses: frozenset[str]
    own_id: str | None = None
    parent: str | None = None
    methods: frozenset[str] = frozenset()
    metadata: bool = False
    provider: str | None = None  # the parameter naming the PSP that carried it, if the list has one
    aliases: tuple[tuple[str, str], ...] = ()  # (the surface's name, the filter's name here): amount_min...
    channels: frozenset[str] = frozenset()  # `channel` (a wallet network, or else a method) takes these
    default_size: int = DEFAULT_PAGE_SIZE  # a page's size when page_size is not given

    def parameters(self) -> frozenset[str]:
        names = {"page_size", "page_token", "status", "created_gte", "created_lt", "currency"}
        names |= {"amount_gte", "amount_lte"}
        names |= {name for name in (self.own_id, self.parent, self.provider) if name}
        if self.methods:
            names |= {"method", "network"}
        if self.channels:
            names.add("channel")
        return frozenset(names)


_HELP = {
    "page_size": ("integer", f"Items per page, 1 to {MAX_PAGE_SIZE} ({DEFAULT_PAGE_SIZE} by default)."),
    "page_token": ("string", "The next_page_token of the previous page; valid only with the same filters."),
    "status": ("string", "Only those in this status."),
    "created_gte": ("string", "Only those created at or after this time (ISO 8601; compared to the second)."),
    "created_lt": ("string", "Only those created before this time (ISO 8601)."),
    "currency": ("string", "Only those in this currency (ISO 4217)."),
    "amount_gte": ("string", "Only those of at least this amount (a decimal string)."),
    "amount_lte": ("string", "Only those of at most this amount (a decimal string)."),
    "method": ("string", "Only those of this method (the source's or destination's type)."),
    "network": ("string", "Only those of this mobile wallet network (mpesa, emola, mkesh)."),
    "channel": ("string", "Only those paid this way: a wallet network (mpesa, emola, mkesh) or a method."),
}


def documented(kind: Kind) -> list[dict[str, object]]:
    """The OpenAPI query parameters of `kind`'s list (devstack.openapi adds them to its route)."""
    help_of = dict(_HELP)
    help_of["page_size"] = ("integer", f"Items per page, 1 to {MAX_PAGE_SIZE} ({kind.default_size} by default).")
    if kind.own_id:
        help_of[kind.own_id] = ("string", "Your own id of the object: finds that one (with no other filter).")
    if kind.parent:
        help_of[kind.parent] = ("string", f"Only those of this {kind.parent.replace('_', ' ')}.")
    if kind.metadata:
        help_of["metadata[key]"] = ("string", "Only those whose metadata has this value at `key` (one key).")
    if kind.provider:
        help_of[kind.provider] = ("string", "Only those the payment service provider of this id carried.")
    back = {canonical: surface for surface, canonical in kind.aliases}
    help_of |= {surface: help_of[canonical] for surface, canonical in kind.aliases}
    shown = {back.get(name, name) for name in kind.parameters()}
    names = sorted(shown | ({"metadata[key]"} if kind.metadata else set()))
    return [
        {
            "name": name,
            "in": "query",
            "required": False,
            "description": help_of[name][1],
            "schema": {"type": help_of[name][0], **({"maxLength": MAX_FILTER} if help_of[name][0] == "string" else {})},
        }
        for name in names
    ]


@dataclass(frozen=True)
class ListRequest:
    """A checked list request: its filters, page size and (still sealed) page token."""

    filters: Filters
    page_size: int
    page_token: str | None


def _instant(field: str, text: str) -> str:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise invalid_field(field, "an ISO 8601 date and time, such as 2026-11-01T00:00:00Z") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _amount(field: str, text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation as exc:
        raise invalid_field(field, "a decimal amount, such as 100.00") from exc
    if not value.is_finite() or value < 0 or value >= MAX_AMOUNT or value.as_tuple().exponent < -2:  # type: ignore[operator]
        raise invalid_field(field, "a decimal amount of at most two decimals, not negative")
    return value


def _page_size(text: str | None, default: int) -> int:
    if text is None:
        return default
    if not text.isdigit() or not 1 <= int(text) <= MAX_PAGE_SIZE:
        raise invalid_field("page_size", f"an integer from 1 to {MAX_PAGE_SIZE}")
    return int(text)


def parse(kind: Kind, query: Mapping[str, str]) -> ListRequest:
    """The list request `query` (the request's query parameters) makes of `kind`'s list; 400
    invalid_request naming the first field that is unknown or malformed (by the surface's name of
    it, where the list's `aliases` rename a filter)."""
    if not kind.aliases:
        return _parse(kind, query)
    rename, back = dict(kind.aliases), {canonical: surface for surface, canonical in kind.aliases}
    for name in sorted(query):
        if name in back:  # only the surface's name is a filter of this list
            raise invalid_field(name, "not a filter of this list", field_code="unknown_field")
    try:
        return _parse(kind, {rename.get(name, name): value for name, value in query.items()})
    except ServiceError as refused:
        error = refused.errors[0]
        message = error.message
        for canonical, surface in back.items():
            message = re.sub(rf"\b{canonical}\b", surface, message)
        raise invalid_field(back.get(error.field, error.field), message, refused.code, error.code) from refused


def _parse(kind: Kind, query: Mapping[str, str]) -> ListRequest:
    allowed = kind.parameters()
    values: dict[str, str] = {}
    metadata: tuple[str, str] | None = None
    for name in sorted(query):
        value = query[name]
        if name in PRINCIPAL_PARAMETERS:
            continue
        found = _METADATA.match(name)
        if found and kind.metadata:
            if metadata is not None:
                raise invalid_field(name, "one metadata[key] filter at a time")
            metadata = (found.group(1), value)
        elif name not in allowed:
            raise invalid_field(name, "not a filter of this list", field_code="unknown_field")
        longest = MAX_TOKEN if name == "page_token" else MAX_FILTER
        if len(value) > longest or not value:
            raise invalid_field(name, f"from 1 to {longest} characters")
        values[name] = value
    status = values.get("status")
    if status is not None and status not in kind.statuses:
        raise invalid_field("status", "one of " + ", ".join(sorted(kind.statuses)))
    if "currency" in values and not re.fullmatch(r"[A-Z]{3}", values["currency"]):
        raise invalid_field("currency", "an ISO 4217 currency code, such as MZN")
    method, network = values.get("method"), values.get("network")
    if method is not None and method not in kind.methods:
        raise invalid_field("method", "one of " + ", ".join(sorted(kind.methods)))
    channel = values.get("channel")
    if channel is not None and channel not in kind.channels:
        raise invalid_field("channel", "one of " + ", ".join(sorted(kind.channels)))
    if channel is not None:
        method, network = (None, channel) if channel in WALLET_NETWORKS else (channel, None)
    for param in (kind.own_id, kind.parent, kind.provider, "network"):
        if param and param in values and not _ID.match(values[param]):
            raise invalid_field(param, "letters, digits and _ . : / - only")
    created_gte = _instant("created_gte", values["created_gte"]) if "created_gte" in values else None
    created_lt = _instant("created_lt", values["created_lt"]) if "created_lt" in values else None
    if created_gte and created_lt and created_gte >= created_lt:
        raise invalid_field("created_gte", "before created_lt")
    amount_gte = _amount("amount_gte", values["amount_gte"]) if "amount_gte" in values else None
    amount_lte = _amount("amount_lte", values["amount_lte"]) if "amount_lte" in values else None
    if amount_gte is not None and amount_lte is not None and amount_gte > amount_lte:
        raise invalid_field("amount_gte", "at most amount_lte")
    filters = Filters(
        own_id=values.get(kind.own_id) if kind.own_id else None,
        status=status,
        created_gte=created_gte,
        created_lt=created_lt,
        currency=values.get("currency"),
        method=method,
        network=network,
        amount_gte=amount_gte,
        amount_lte=amount_lte,
        parent=values.get(kind.parent) if kind.parent else None,
        provider=values.get(kind.provider) if kind.provider else None,
        metadata=metadata,
    )
    return ListRequest(filters, _page_size(values.get("page_size"), kind.default_size), values.get("page_token"))

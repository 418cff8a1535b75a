"""Name lookups: who holds a wallet or a bank account (NIB), asked of the provider before a
payout. Test mode answers from docs/test-mode.md's magic values; a live lookup asks the
connector bound for the wallet's network (M-Pesa: the customer's masked name; bank accounts:
422 not_supported). An ambiguous answer lists
candidates; selecting one is a conditional write (only one selection wins)."""

from __future__ import annotations

from datetime import UTC, datetime

from mzpay import deps
from mzpay.answers.name_lookups import NameLookup as LookupAnswer
from mzpay.domain.access.principal import Principal, own
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError, invalid_field, refused_field
from mzpay.domain.common.ids import is_ulid, new_id
from mzpay.domain.payouts.name_lookups import (
    LOOKUP_TTL,
    LookupStatus,
    NameLookup,
    NameLookupRequest,
    ProviderUnavailable,
    candidates,
    ensure_transition,
    option_locked,
    simulated_lookup,
    upstream_error,
)
from mzpay.steps.connectors import lookup_connector
from mzpay.store.name_lookups import SelectionLost


def create_lookup(principal: Principal, request: NameLookupRequest) -> LookupAnswer:
    lookup_id = new_id()
    try:
        if principal.mode == "test":
            status, names = simulated_lookup(request.type, request.identifier)
        else:
            status, names = _live_lookup(principal, request, lookup_id)
    except ProviderUnavailable:
        raise upstream_error() from None
    moment = datetime.now(UTC)
    now = iso(moment)
    wallet = request.mobile_wallet
    lookup = NameLookup(
        lookup_id=lookup_id,
        account_id=principal.acting_account_id,
        mode=principal.mode,
        type=request.type,
        status=status,
        version=1,
        name=names[0] if status == LookupStatus.RESOLVED else None,
        candidates=candidates(names),
        network=wallet.network if request.type == "mobile_wallet" and wallet is not None else None,
        identifier=request.identifier,
        expires_at=iso(moment + LOOKUP_TTL),
        created_at=now,
        updated_at=now,
    )
    deps.name_lookups().create(lookup)
    return LookupAnswer.of(lookup.view())


def _live_lookup(principal: Principal, request: NameLookupRequest, lookup_id: str) -> tuple[str, list[str]]:
    """Ask the provider bound for the wallet's network (M-Pesa: its customer's masked name).
    Bank accounts have no live provider yet (422 not_supported); a number the provider does
    not know is 400 invalid_phone."""
    wallet = request.mobile_wallet
    if request.type != "mobile_wallet" or wallet is None or wallet.network is None:
        raise ServiceError(422, "not_supported", "No live provider answers bank account lookups yet.", rule="operation")
    answer = lookup_connector(principal.acting_account_id, principal.mode, wallet.network).lookup_name(
        request.identifier, lookup_id
    )
    if not answer.found or answer.name is None:
        message = "The provider has no wallet for this number."
        raise refused_field("invalid_phone", "mobile_wallet.phone_number", message, message)
    return LookupStatus.RESOLVED, [answer.name]


def _visible(principal: Principal, lookup_id: str) -> NameLookup:
    return own(principal, deps.name_lookups().get(lookup_id) if is_ulid(lookup_id) else None, "name lookup")


def select(principal: Principal, lookup_id: str, candidate_id: str) -> LookupAnswer:
    """Choose the holder among an ambiguous lookup's candidates. The pick may change until a
    cash deposit starts from the lookup (then another candidate is 409 option_locked); picking
    the candidate already picked changes nothing."""
    lookup = _visible(principal, lookup_id)
    ensure_transition(lookup.status, "select")
    chosen = next((c for c in lookup.candidates if c["candidate_id"] == candidate_id), None)
    if chosen is None:
        raise invalid_field("candidate_id", "not a candidate of this lookup")
    if lookup.candidate_id == candidate_id:
        return LookupAnswer.of(lookup.view())
    if lookup.deposit is not None:
        raise option_locked()
    now = iso(datetime.now(UTC))
    changes = {"status": LookupStatus.SELECTED, "name": chosen["name"], "candidate_id": candidate_id, "updated_at": now}
    try:
        return LookupAnswer.of(deps.name_lookups().transition(lookup, changes).view())
    except SelectionLost as exc:
        fresh = deps.name_lookups().get(lookup_id)
        if fresh is not None and fresh.deposit is not None:
            raise option_locked() from exc
        raise ServiceError(409, "invalid_state", "The name lookup changed meanwhile; read it and retry.") from exc

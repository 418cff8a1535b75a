"""Cash deposits at partner agents (mzpay.domain.payouts.cash_deposits, docs/deposits.md): open an intent
from a name lookup, confirm the cash (the deposit: a payout of the partner to the payer's
wallet), read a deposit; operators make an account a partner."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from mzpay import deps
from mzpay.answers import partners as answers
from mzpay.answers.limits import PartnerFlag
from mzpay.domain.access.principal import Principal, own
from mzpay.domain.common.clock import iso
from mzpay.domain.common.entity import Reserved
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid, new_id
from mzpay.domain.money.amounts import format_amount
from mzpay.domain.payouts.cash_deposits import (
    DEPOSIT_DESCRIPTION,
    USED,
    CashDepositIntent,
    DepositRequest,
    IntentRequest,
    check_intent,
    deposit_of,
    deposit_refused,
    deposit_view,
    intent_of,
    lookup_used,
)
from mzpay.domain.payouts.name_lookups import NameLookup
from mzpay.domain.payouts.rules import PayoutRequest
from mzpay.steps.accounts import home_account, require_partner
from mzpay.steps.admission import COUNTER_TTL, money_out_pilot, pilot_window_refusal
from mzpay.steps.payout_creation import Payer, payout_for
from mzpay.store.cash_deposits import IntentChanged, LookupChanged
from mzpay.store.payments import CeilingReached


# ---------------------------------------------------------------- intents
def open_intent(principal: Principal, request: IntentRequest) -> tuple[answers.CashDepositIntent, bool]:
    """The intent for `request` and whether it was made now (False: the lookup's intent for the
    same amount and currency, answered again)."""
    require_partner(principal)
    lookup = own(principal, deps.name_lookups().get(request.lookup_id), "name lookup")
    currency, amount = request.money.currency, request.money.value
    if lookup.deposit is not None:
        return _started(lookup, currency, amount), False
    now_moment = datetime.now(UTC)
    now = iso(now_moment)
    check_intent(lookup, currency, amount, now)
    rejection_id = new_id()
    destination = {
        "type": "mobile_wallet",
        "mobile_wallet": {"network": lookup.network, "phone_number": lookup.identifier},
    }
    reservations = money_out_pilot(
        principal.acting_account_id, principal.mode, destination, request.metadata, currency, amount, rejection_id
    )
    reserved = tuple(Reserved(key=r.key, amount=format_amount(r.amount, currency)) for r in reservations)
    intent = intent_of(new_id(), lookup, request, now, reserved)
    try:
        deps.cash_deposit_intents().open(intent, lookup, reservations, int(now_moment.timestamp()) + COUNTER_TTL)
    except CeilingReached as reached:
        refusal = pilot_window_refusal(reached.reservation, currency, rejection_id)
        assert refusal is not None
        raise refusal from None
    except LookupChanged:
        fresh = deps.name_lookups().get(lookup.lookup_id)
        if fresh is None or fresh.deposit is None:
            raise ServiceError(409, "invalid_state", "The name lookup changed meanwhile; read it and retry.") from None
        return _started(fresh, currency, amount), False
    return answers.CashDepositIntent.of(intent.view()), True


def _started(lookup: NameLookup, currency: str, amount: Decimal) -> answers.CashDepositIntent:
    """A lookup that already started a deposit: that intent again for the same amount and
    currency, else 409 lookup_used."""
    deposit = lookup.deposit or {}
    if deposit.get("currency") != currency or Decimal(deposit.get("amount", "-1")) != amount:
        raise lookup_used(lookup)
    intent = deps.cash_deposit_intents().get(deposit["intent_id"])
    assert intent is not None  # written with the lookup's mark, in one transaction
    return answers.CashDepositIntent.of(intent.view())


def read_intent(principal: Principal, intent_id: str) -> answers.CashDepositIntent:
    require_partner(principal)
    return answers.CashDepositIntent.of(_intent(principal, intent_id).view())


def _intent(principal: Principal, intent_id: str) -> CashDepositIntent:
    return own(
        principal, deps.cash_deposit_intents().get(intent_id) if is_ulid(intent_id) else None, "cash-deposit intent"
    )


# ---------------------------------------------------------------- deposits
def confirm(principal: Principal, request: DepositRequest) -> answers.CashDeposit:
    """The cash of an intent was counted: the partner pays the payer's wallet (a payout carrying
    the deposit), once per intent."""
    require_partner(principal)
    intent = _intent(principal, request.intent_id)
    if intent.status == USED:
        raise ServiceError(409, "invalid_state", f"This intent was already deposited ({intent.deposit_id}).")
    if iso(datetime.now(UTC)) >= intent.expires_at:
        raise deposit_refused(f"The intent expired at {intent.expires_at}; look the payer up again.")
    payer = Payer(
        principal.acting_account_id, principal.mode, principal.key_id, cash_deposit=deposit_of(intent, request)
    )
    payout = payout_for(
        payer,
        PayoutRequest.model_validate(
            {
                "payout_id": intent.intent_id,
                "money": {"amount": intent.amount, "currency": intent.currency},
                "destination": {
                    "type": "mobile_wallet",
                    "mobile_wallet": {"network": intent.network, "phone_number": intent.phone_number},
                },
                "metadata": request.metadata,
                "description": DEPOSIT_DESCRIPTION,
            }
        ),
    )
    try:
        deps.cash_deposit_intents().transition(
            intent, {"status": USED, "deposit_id": payout.provider_payout_id, "updated_at": iso(datetime.now(UTC))}
        )
    except IntentChanged:
        fresh = deps.cash_deposit_intents().get(intent.intent_id)
        if fresh is None or fresh.deposit_id != payout.provider_payout_id:
            raise ServiceError(409, "invalid_state", "The intent changed meanwhile; read it and retry.") from None
    return answers.CashDeposit.of(deposit_view(payout))


def read_deposit(principal: Principal, deposit_id: str) -> answers.CashDeposit:
    require_partner(principal)
    payout = deps.payouts().get(deposit_id) if is_ulid(deposit_id) else None
    if payout is not None and payout.cash_deposit is None:
        payout = None  # a payout, not a deposit
    return answers.CashDeposit.of(deposit_view(own(principal, payout, "cash deposit")))


# ---------------------------------------------------------------- operators
def set_partner(account_id: str, partner: bool) -> PartnerFlag:
    """Operators: make an account a partner agent network (it may take cash deposits), or not."""
    account = deps.partners().set_partner(home_account(account_id), partner, datetime.now(UTC))
    return PartnerFlag(account_id=account.account_id, partner=account.partner, updated_at=account.updated_at)

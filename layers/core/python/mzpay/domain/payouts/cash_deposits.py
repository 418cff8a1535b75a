"""Cash deposits at partner agents (docs/deposits.md): a payer hands cash to an agent of a
partner account, and the partner credits the payer's mobile wallet with e-money from its own
balance at the gateway.

1. The agent looks the payer up (`POST /v1/name-lookups`, a mobile wallet) and, when the answer is
   ambiguous, selects the holder.
2. It opens an intent for the amount (`POST /v1/cash-deposits/intents`): 403 not_a_partner for an
   account operators did not make a partner; 409 invalid_state for an ambiguous lookup not yet
   selected; 409 lookup_used when the lookup already started a deposit of another amount or
   currency (the same amount and currency answers that intent again); 422 deposit_refused for an
   expired lookup, a lookup of a bank account, or an amount outside the wallet's limits.
3. Once the cash is counted it confirms (`POST /v1/cash-deposits`, Idempotency-Key required): the
   deposit is a payout of the partner to the payer's wallet (held from the partner's available
   balance, paid through the settlement queue and the connector), announced as
   cash_deposit.created, then cash_deposit.succeeded or cash_deposit.failed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic import Field, field_validator

from mzpay.domain.common.bounds import MAX_ID
from mzpay.domain.common.entity import Entity, Reserved
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.common.model import Strict, examples
from mzpay.domain.money.amounts import format_amount, minor_units
from mzpay.domain.payments.charges import Money
from mzpay.domain.payouts.destinations import CURRENCIES, LIMITS
from mzpay.domain.payouts.name_lookups import LookupStatus, NameLookup
from mzpay.domain.payouts.rules import Status as PayoutStatus
from mzpay.domain.payouts.rules import callback_url_rule, metadata_rule

OPEN, USED = "open", "used"
DEPOSIT_DESCRIPTION = "Cash deposit"
# A deposit is a payout of the partner: its status as the agent reads it.
DEPOSIT_STATUS = {
    PayoutStatus.WAITING_FOR_APPROVAL: "pending",
    PayoutStatus.PENDING: "pending",
    PayoutStatus.IN_TRANSIT: "pending",
    PayoutStatus.PAID: "succeeded",
    PayoutStatus.FAILED: "failed",
    PayoutStatus.CANCELED: "failed",
    PayoutStatus.REJECTED: "failed",
}
EVENT_OF_STATUS = {"succeeded": "cash_deposit.succeeded", "failed": "cash_deposit.failed"}


def _ulid(cls: type, value: Any) -> Any:
    if not isinstance(value, str) or len(value) > MAX_ID or not is_ulid(value):
        from pydantic_core import PydanticCustomError

        raise PydanticCustomError("invalid_value", "must be an id this API gave (a ULID)")
    return value


class IntentRequest(Strict):
    """The body of `POST /v1/cash-deposits/intents`."""

    model_config = examples(
        {"lookup_id": "01JD8Z5K3M2N4P6Q7R8S9T0VWY", "money": {"amount": "2000.00", "currency": "MZN"}}
    )

    lookup_id: str = Field(description="The name lookup of the payer's wallet (POST /v1/name-lookups).")
    money: Money
    metadata: dict[str, str] | None = None  # `merchant_id` names the agent while its PSP is in pilot

    _lookup_id = field_validator("lookup_id", mode="before")(_ulid)
    _metadata = field_validator("metadata", mode="before")(metadata_rule)


class DepositRequest(Strict):
    """The body of `POST /v1/cash-deposits`: the cash of an intent was counted."""

    model_config = examples({"intent_id": "01JD8Z5K3M2N4P6Q7R8S9T0VWZ", "metadata": {"till": "Baixa-2"}})

    intent_id: str = Field(description="The intent the cash is for.")
    callback_url: str | None = None
    metadata: dict[str, str] | None = None

    _intent_id = field_validator("intent_id", mode="before")(_ulid)
    _callback_url = field_validator("callback_url", mode="before")(callback_url_rule)
    _metadata = field_validator("metadata", mode="before")(metadata_rule)


def not_a_partner() -> ServiceError:
    return ServiceError(
        403, "not_a_partner", "This account is not a partner: cash deposits are for partner agent networks."
    )


def deposit_refused(message: str) -> ServiceError:
    return ServiceError(422, "deposit_refused", message)


def lookup_used(lookup: NameLookup) -> ServiceError:
    deposit = lookup.deposit or {}
    return ServiceError(
        409,
        "lookup_used",
        f"This lookup already started a deposit of {deposit.get('amount')} {deposit.get('currency')}; "
        "look the payer up again for another amount.",
    )


def check_intent(lookup: NameLookup, currency: str, amount: Decimal, now: str) -> None:
    """What an intent from `lookup` must pass before anything is written (its reuse is checked
    by the caller): a wallet lookup that names one holder, not expired, and an amount the
    wallet takes."""
    if lookup.type != "mobile_wallet" or lookup.network is None or lookup.identifier is None:
        raise deposit_refused("Cash deposits credit mobile wallets; this lookup is of a bank account.")
    if lookup.status == LookupStatus.AMBIGUOUS:
        raise ServiceError(
            409, "invalid_state", "Cannot start a deposit from a name lookup that is ambiguous; select the holder."
        )
    if lookup.expires_at is None or now >= lookup.expires_at:
        raise deposit_refused(f"The lookup expired at {lookup.expires_at}; look the payer up again.")
    if currency not in CURRENCIES["mobile_wallet"]:
        raise deposit_refused(f"A wallet takes deposits in {', '.join(CURRENCIES['mobile_wallet'])}, not {currency}.")
    digits = minor_units(currency)
    limits = LIMITS["mobile_wallet"][currency]
    if -amount.as_tuple().exponent > digits or not limits.minimum <= amount <= limits.maximum:  # type: ignore[operator]
        raise deposit_refused(
            f"A wallet deposit is from {limits.minimum:f} to {limits.maximum:f} {currency}, "
            f"with at most {digits} fraction digits."
        )


class CashDepositIntent(Entity):
    """An agent's intent to deposit cash into the wallet a lookup found: open until its deposit is
    confirmed (used); good until the lookup expires."""

    intent_id: str
    account_id: str
    mode: str
    lookup_id: str
    amount: str
    currency: str
    network: str
    phone_number: str
    name: str
    expires_at: str
    deposit_id: str | None = None
    metadata: dict[str, str] | None = None
    reservations: tuple[Reserved, ...] | None = None  # the pilot's windows it counts in (live)
    created_at: str
    updated_at: str

    @property
    def value(self) -> Decimal:
        return Decimal(self.amount)

    def view(self) -> dict[str, Any]:
        return {
            "intent_id": self.intent_id,
            "lookup_id": self.lookup_id,
            "status": self.status,
            "money": {"amount": self.amount, "currency": self.currency},
            "wallet": {"network": self.network, "phone_number": self.phone_number},
            "name": self.name,
            "deposit_id": self.deposit_id,
            "metadata": self.metadata or {},
            "expires_at": self.expires_at,
            "created_at": self.created_at,
        }


def intent_of(
    intent_id: str, lookup: NameLookup, request: IntentRequest, now: str, reserved: tuple[Reserved, ...]
) -> CashDepositIntent:
    assert lookup.network and lookup.identifier and lookup.name and lookup.expires_at
    currency, amount = request.money.currency, request.money.value
    return CashDepositIntent(
        intent_id=intent_id,
        account_id=lookup.account_id,
        mode=lookup.mode,
        status=OPEN,
        version=1,
        lookup_id=lookup.lookup_id,
        amount=format_amount(amount, currency),
        currency=currency,
        network=lookup.network,
        phone_number=lookup.identifier,
        name=lookup.name,
        expires_at=lookup.expires_at,
        metadata=request.metadata,
        reservations=reserved or None,
        created_at=now,
        updated_at=now,
    )


def deposit_of(intent: CashDepositIntent, request: DepositRequest) -> dict[str, Any]:
    """What a payout carrying `intent`'s deposit keeps of it (Payout.cash_deposit)."""
    kept = {"intent_id": intent.intent_id, "lookup_id": intent.lookup_id, "name": intent.name}
    if request.callback_url:
        kept["callback_url"] = request.callback_url
    return kept


def deposit_view(payout: Any) -> dict[str, Any]:
    """The deposit as answered, from the payout that carries it (mzpay.domain.payouts.rules.Payout)."""
    deposit = payout.cash_deposit or {}
    wallet = payout.destination.get("mobile_wallet") or {}
    return {
        "deposit_id": payout.provider_payout_id,
        "intent_id": deposit.get("intent_id"),
        "status": DEPOSIT_STATUS[payout.status],
        "money": {"amount": payout.amount, "currency": payout.currency},
        "wallet": {"network": wallet.get("network"), "phone_number": wallet.get("phone_number")},
        "name": deposit.get("name"),
        "failure_code": payout.failure_code,
        "failure_message": payout.failure_message,
        "metadata": payout.metadata or {},
        "created_at": payout.created_at,
        "updated_at": payout.updated_at,
    }

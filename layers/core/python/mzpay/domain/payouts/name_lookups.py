"""Name lookups: who holds a wallet number or a bank account (NIB), asked before paying out to it.

A lookup is `resolved` (one holder's name), `ambiguous` (several candidates: the merchant picks
one) or `selected` (an ambiguous lookup after the pick). The pick may change until a cash deposit
starts from the lookup (docs/deposits.md); then selecting another candidate is 409
option_locked. A lookup is good for a deposit for LOOKUP_TTL after it was made (`expires_at`).
The request follows the payout destination's rules: a wallet `{network, phone_number}`
(missing_phone, invalid_phone) or a bank `{account}` (invalid_account); another `type` is
invalid_method. A provider that cannot answer is
`502 upstream_error`.

Test mode is deterministic (`simulated_lookup`): the last four digits of the phone number or of
the NIB decide.

| phone number or NIB ends in | outcome |
|---|---|
| `0002` | `ambiguous`: `cand_1` Ana Machava, `cand_2` Ana Maria Machava, `cand_3` Anabela Machava |
| `0009` | `502 upstream_error` with `Retry-After: 10`: the provider could not answer |
| anything else | `resolved`: `cand_1` Ana Machava |

Examples: `+258840000002` and NIB `0001 0000 0000 0002 8000 2` are ambiguous; `+258840000009` and
NIB `0001 0000 0000 0003 8000 9` are unavailable; `+258841234567` and NIB
`0003 0108 0016 3671 0237 1` resolve.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, ClassVar

from pydantic import Field, field_validator, model_validator

from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import ServiceError, allowed_move
from mzpay.domain.common.model import WALLET_EXAMPLE
from mzpay.domain.payments.charges import Strict
from mzpay.domain.payouts.destinations import (
    MobileWalletDestination,
    documented_required,
    named_sub_object,
    nib_account,
    one_of_types,
    without_unknown_details,
)


class LookupStatus:
    RESOLVED = "resolved"
    AMBIGUOUS = "ambiguous"
    SELECTED = "selected"


LOOKUP_TYPES = ("mobile_wallet", "bank_transfer")
# (status, action) -> the status it leads to. Anything else is 409 invalid_state.
TRANSITIONS: dict[tuple[str, str], str] = {
    (LookupStatus.AMBIGUOUS, "select"): LookupStatus.SELECTED,
    (LookupStatus.SELECTED, "select"): LookupStatus.SELECTED,  # another pick, until a deposit starts
}
LOOKUP_TTL = timedelta(minutes=15)
UPSTREAM_RETRY_AFTER_SECONDS = 10

# The simulated provider's answers, by the identifier's last four digits.
DEFAULT_NAME = "Ana Machava"
AMBIGUOUS_NAMES = ("Ana Machava", "Ana Maria Machava", "Anabela Machava")
AMBIGUOUS_SUFFIX = "0002"
UNAVAILABLE_SUFFIX = "0009"


class ProviderUnavailable(Exception):
    """The provider could not answer a name lookup (answer: upstream_error)."""


class BankAccountRef(Strict):
    """A bank account to look up: its NIB (spaces, dots and dashes ignored; kept normalized)."""

    model_config = documented_required("account")
    account: str = Field(default=None, validate_default=True)

    _account = field_validator("account", mode="before")(nib_account)


class NameLookupRequest(Strict):
    """`type` plus the sub-object named after it."""

    model_config = documented_required("type", bodies=(WALLET_EXAMPLE,))
    TYPES: ClassVar[tuple[str, ...]] = LOOKUP_TYPES
    NEEDS_DETAILS: ClassVar[frozenset[str]] = frozenset(LOOKUP_TYPES)

    type: str = Field(default=None, validate_default=True)
    mobile_wallet: MobileWalletDestination | None = Field(default=None, validate_default=True)
    bank_transfer: BankAccountRef | None = Field(default=None, validate_default=True)

    _type = field_validator("type", mode="before")(one_of_types)
    _details = field_validator(*LOOKUP_TYPES)(named_sub_object)
    _unknown = model_validator(mode="before")(without_unknown_details)

    @property
    def identifier(self) -> str:
        """The phone number (E.164) or the normalized NIB looked up."""
        if self.type == "mobile_wallet":
            assert self.mobile_wallet is not None and self.mobile_wallet.phone_number is not None
            return self.mobile_wallet.phone_number
        assert self.bank_transfer is not None
        return self.bank_transfer.account


def option_locked() -> ServiceError:
    return ServiceError(
        409, "option_locked", "A cash deposit started from this lookup: its selection can no longer change."
    )


def ensure_transition(current: str, action: str) -> str:
    """The status `action` leads to from `current`, or 409 invalid_state."""
    return allowed_move(TRANSITIONS, current, action, f"Cannot {action} a name lookup that is {current}.")


def simulated_lookup(kind: str, identifier: str) -> tuple[str, list[str]]:
    """The simulated provider's answer for `identifier` (a phone number or a NIB) of `kind`:
    (status, names), decided by its last four digits; ProviderUnavailable for ...0009."""
    if kind not in LOOKUP_TYPES:
        raise ValueError(f"no name lookup for {kind!r}")
    last4 = "".join(ch for ch in identifier if ch.isdigit())[-4:]
    if last4 == UNAVAILABLE_SUFFIX:
        raise ProviderUnavailable(f"the simulated {kind} provider is unavailable")
    if last4 == AMBIGUOUS_SUFFIX:
        return LookupStatus.AMBIGUOUS, list(AMBIGUOUS_NAMES)
    return LookupStatus.RESOLVED, [DEFAULT_NAME]


def candidates(names: list[str]) -> list[dict[str, Any]]:
    """The names as candidates, with deterministic ids in their order: cand_1, cand_2, ..."""
    return [{"candidate_id": f"cand_{index}", "name": name} for index, name in enumerate(names, start=1)]


class NameLookup(Entity):
    """Who holds a wallet or bank account, as the provider answered: resolved (name), ambiguous
    (candidates, one to select), selected or not_found."""

    lookup_id: str
    account_id: str
    mode: str
    type: str
    name: str | None = None
    candidates: list[dict[str, Any]] = Field(default_factory=list)
    candidate_id: str | None = None  # the candidate selected
    network: str | None = None  # a wallet's network
    identifier: str | None = None  # the phone number (E.164) or the normalized NIB looked up
    expires_at: str | None = None
    deposit: dict[str, str] | None = None  # the cash deposit started from it: intent_id, amount, currency
    created_at: str
    updated_at: str

    def view(self) -> dict[str, Any]:
        return {
            "lookup_id": self.lookup_id,
            "type": self.type,
            "status": self.status,
            "name": self.name,
            "candidates": self.candidates,
            "expires_at": self.expires_at,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


def upstream_error() -> ServiceError:
    """502 upstream_error: the provider could not answer; retry later."""
    return ServiceError(
        502,
        "upstream_error",
        "The provider could not answer the name lookup; retry later.",
        headers={"Retry-After": str(UPSTREAM_RETRY_AFTER_SECONDS)},
    )

"""Operators' PSP operations: the capability matrix with availability and pilots, putting a PSP in
pilot or graduating it, its availability, and an account's charge ceilings."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.answers import psps as answers
from mzpay.answers.limits import AccountLimits as AccountLimitsShown
from mzpay.domain.accounts.limits import AccountLimits
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ServiceError, found
from mzpay.domain.payments.routing import CAPABILITY_MATRIX, PSP_IDS, PSPS
from mzpay.domain.psp.pilot import PilotSettings, PilotState, pilot_state
from mzpay.steps.accounts import home_account
from mzpay.steps.limit_edits import edit_limits, read_limits


def psps() -> answers.PspList:
    """The capability matrix with each PSP's availability and pilot (for operators)."""
    statuses, pilots = deps.payments().routing_state([psp.psp_id for psp in CAPABILITY_MATRIX])
    return answers.PspList(
        psps=[
            answers.Psp.of(
                {
                    **psp.public(),
                    **_availability(statuses[psp.psp_id]),
                    "pilot": pilot_state(psp, pilots.get(psp.psp_id)).public(),
                }
            )
            for psp in CAPABILITY_MATRIX
        ]
    )


def set_psp_pilot(psp_id: str, in_pilot: bool, settings: PilotSettings | None) -> answers.PilotState:
    """Operators: put a PSP in pilot (with the settings its live traffic must keep) or graduate it."""
    psp = found(PSPS.get(psp_id), "PSP")
    if psp.simulated:
        raise ServiceError(
            400,
            "invalid_request",
            "The simulator carries test traffic only; pilots apply to live PSPs.",
            errors=[FieldError("psp_id", "invalid_value", "a live PSP")],
        )
    state = PilotState(psp_id, in_pilot, settings, now_iso())
    deps.payments().set_pilot(psp_id, state.public())
    return answers.PilotState.of(state.public())


def _availability(status: dict[str, Any]) -> dict[str, Any]:
    return {"available": status["available"], "reason": status["reason"], "updated_at": status["updated_at"]}


def set_account_limits(account_id: str, mode: str, limits_in: AccountLimits) -> AccountLimitsShown:
    """Operators: the ceilings of an account in a mode (replacing the previous ones)."""
    account = home_account(account_id)
    deps.limits().write(account.account_id, mode, limits_in)
    return AccountLimitsShown.of({"account_id": account.account_id, "mode": mode, **limits_in.public()})


def account_limits(account_id: str, mode: str) -> AccountLimitsShown:
    """Operators: the ceilings of an account in a mode, as set (none set: no ceiling)."""
    return AccountLimitsShown.of(read_limits(deps.limits(), account_id, mode))


def edit_account_limits(
    account_id: str, mode: str, currency: str, changes: Mapping[str, Decimal | None]
) -> AccountLimitsShown:
    """Operators (the console): one currency's ceilings of an account in a mode edited, the others
    kept (domain.accounts.limits.edited); audited with the ceilings before and after."""
    return AccountLimitsShown.of(edit_limits(deps.limits(), account_id, mode, currency, changes))


def set_psp_availability(psp_id: str, available: bool, reason: str) -> answers.PspStatus:
    if psp_id not in PSP_IDS:
        raise ServiceError(404, "not_found", "No such PSP.")
    return answers.PspStatus.of(deps.payments().set_psp_availability(psp_id, available, reason, now_iso()))

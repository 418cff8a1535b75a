"""Request bodies of PSP onboarding (docs/psp-onboarding.md): an application's fields (every one
optional on a draft, checked for presence at submission), a logo review and a decision."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from mzpay.answers.psp_onboarding import APPLICATION_EXAMPLE
from mzpay.domain.collection.business import looks_like_email, nuit_problem
from mzpay.domain.common import nib
from mzpay.domain.common.model import StrictText, examples
from mzpay.domain.money.amounts import is_currency_code
from mzpay.domain.payments.routing import BINDING_METHODS, PSPS
from mzpay.http.operations_schemas import PilotSettingsIn

LIVE_PSPS = tuple(sorted(psp_id for psp_id, psp in PSPS.items() if not psp.simulated))
MAX_LEGAL_NAME = 200
MAX_LICENCE_NUMBER = 50
MAX_EMAIL = 254
MAX_REASON = 500


class PspApplicationIn(StrictText):
    """A PSP's application (POST creates a draft, PATCH changes the fields given; null clears one)."""

    model_config = examples(APPLICATION_EXAMPLE)

    legal_name: str | None = Field(default=None, min_length=1, max_length=MAX_LEGAL_NAME, description="Legal name.")
    nuit: str | None = Field(default=None, max_length=9, description="Tax number (NUIT): 9 digits, check digit valid.")
    licence_number: str | None = Field(
        default=None, min_length=1, max_length=MAX_LICENCE_NUMBER, description="Banco de Moçambique licence number."
    )
    contact_email: str | None = Field(default=None, max_length=MAX_EMAIL, description="Who answers for it.")
    psp_id: Literal[LIVE_PSPS] | None = Field(  # type: ignore[valid-type]
        default=None, description="The PSP (and its connector) it applies for, from the capability matrix."
    )
    methods: list[Literal[tuple(BINDING_METHODS)]] | None = Field(  # type: ignore[valid-type]
        default=None, min_length=1, max_length=len(BINDING_METHODS), description="Methods (a wallet: its network)."
    )
    currencies: list[str] | None = Field(default=None, min_length=1, max_length=5, description="ISO 4217 codes.")
    settlement_account: str | None = Field(
        default=None, max_length=30, description="NIB of the settlement bank account (21 digits, MOD 97-10)."
    )
    pilot: PilotSettingsIn | None = Field(default=None, description="The pilot its live traffic keeps once approved.")

    @field_validator("nuit")
    @classmethod
    def _nuit(cls, value: str | None) -> str | None:
        problem = nuit_problem(value) if value is not None else None
        if problem is not None:
            raise PydanticCustomError("invalid_value", problem[1])
        return value

    @field_validator("contact_email")
    @classmethod
    def _email(cls, value: str | None) -> str | None:
        if value is not None and not looks_like_email(value):
            raise PydanticCustomError("invalid_value", "an e-mail address, e.g. onboarding@example.co.mz")
        return value

    @field_validator("currencies")
    @classmethod
    def _currencies(cls, values: list[str] | None) -> list[str] | None:
        if values is not None and not all(is_currency_code(v) for v in values):
            raise PydanticCustomError("invalid_currency", "currencies are 3 upper-case letters (ISO 4217)")
        return sorted(set(values)) if values is not None else None

    @field_validator("methods")
    @classmethod
    def _methods(cls, values: list[str] | None) -> list[str] | None:
        return sorted(set(values)) if values is not None else None

    @field_validator("settlement_account")
    @classmethod
    def _nib(cls, value: str | None) -> str | None:
        if value is not None and not nib.is_valid(value):
            raise PydanticCustomError("invalid_value", "a NIB has 21 digits whose MOD 97-10 check digits hold")
        return nib.normalize(value) if value is not None else None

    def fields(self) -> dict[str, Any]:
        """The fields the body names (a null clears one), as the application keeps them."""
        given = self.model_dump(exclude_unset=True)
        if self.pilot is not None:
            given["pilot"] = self.pilot.settings().public()
        return given


class LogoReviewIn(StrictText):
    """An operator's review of the uploaded logo."""

    model_config = examples({"decision": "approve", "reason": "Matches the brand."})

    decision: Literal["approve", "reject"] = Field(description="approve: the logo is shown; reject: upload another.")
    reason: str = Field(default="", max_length=MAX_REASON, description="Why, at most 500 characters.")


class ApplicationDecisionIn(StrictText):
    """Why an application is approved or rejected (kept with the decision)."""

    model_config = examples({"reason": "KYB complete; certification passed."})

    reason: str = Field(min_length=1, max_length=MAX_REASON, description="Why, at most 500 characters.")

"""Payer subscriptions to recurring bills (docs/bills.md, "Subscriptions"): a channel records that
its payer (its own id for them) agreed to have a product paid for a reference every month. It
needs the payer's consent: `consent.accepted` true and the version of the terms agreed to (at most
60 characters), else 422 consent_required; the consent is kept with when and from which address
it was given."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mzpay.domain.bills.quotes import QuoteRequest, product_view
from mzpay.domain.common.entity import Entity
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.model import examples

MAX_TERMS_VERSION = 60
MAX_PAYER_ID = 64
PAYER_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
ACTIVE = "active"


class Consent(BaseModel):
    """What the payer agreed to (judged by `check_consent`, so that any shortfall is one code)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    accepted: Any = None
    terms_version: Any = None


class SubscriptionRequest(QuoteRequest):
    """The body of `POST /v1/payers/{payer_id}/subscriptions`."""

    model_config = examples(
        {
            "product_id": "01M8A0MH8BAHW8JZV956J9ME25",
            "reference": "04123456789",
            "amount": "500.00",
            "frequency": "monthly",
            "consent": {"accepted": True, "terms_version": "2026-11"},
        }
    )

    frequency: Literal["monthly"] = Field(default="monthly", description="How often the bill is paid.")
    consent: Consent | None = Field(default=None, description="The payer's consent: accepted and terms_version.")


def check_payer_id(payer_id: str) -> None:
    if not PAYER_ID.fullmatch(payer_id):
        message = f"payer ids are 1 to {MAX_PAYER_ID} letters, digits, '_', '.', ':' or '-'"
        raise ServiceError(
            404, "not_found", "No such payer.", errors=[FieldError("payer_id", "invalid_value", message)]
        )


def check_consent(consent: Consent | None) -> dict[str, str]:
    """The consent to keep; 422 consent_required unless accepted is true and a terms version of
    1 to 60 characters is named."""
    version = consent.terms_version if consent is not None else None
    if consent is None or consent.accepted is not True:
        raise ServiceError(422, "consent_required", "The payer's consent is needed: consent.accepted must be true.")
    if not isinstance(version, str) or not version.strip() or len(version) > MAX_TERMS_VERSION:
        raise ServiceError(
            422,
            "consent_required",
            f"consent.terms_version must name the terms the payer accepted (1 to {MAX_TERMS_VERSION} characters).",
        )
    return {"terms_version": version}


class BillSubscription(Entity):
    subscription_id: str
    account_id: str
    mode: str
    payer_id: str
    product_id: str
    product_name: str
    biller_id: str
    biller_name: str
    reference: str
    customer_name: str
    amount: str | None = None
    currency: str
    frequency: str
    consent: dict[str, Any]
    created_at: str

    def view(self) -> dict[str, Any]:
        return {
            "subscription_id": self.subscription_id,
            "payer_id": self.payer_id,
            "status": self.status,
            **product_view(self),
            "amount": self.amount,
            "currency": self.currency,
            "frequency": self.frequency,
            "consent": self.consent,
            "created_at": self.created_at,
        }

"""The management API's answers for PSP onboarding (mzpay.operators.psp_applications,
psp_certification: mzpay.domain.psp.onboarding.view, mzpay.domain.psp.certification.view), and the
example of an application's fields (the request body's too)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mzpay.answers.base import Answer, ByteSize, Currency, Paged, TheCurrency, Timestamp, UpdatedAt, When, examples
from mzpay.answers.psps import PilotSettings

APPLICATION_EXAMPLE: dict[str, Any] = {
    "legal_name": "Tmcel - Moçambique Telecom, S.A.",
    "nuit": "400339910",
    "licence_number": "BM/IME/2026/014",
    "contact_email": "onboarding@mkesh.co.mz",
    "psp_id": "tmcel-mkesh",
    "methods": ["mkesh"],
    "currencies": ["MZN"],
    "settlement_account": "0001 0000 0000 0002 8000 2",
    "pilot": {
        "merchant_ids": ["loja-01"],
        "currencies": ["MZN"],
        "per_transaction": {"MZN": "5000.00"},
        "daily": {"MZN": "50000.00"},
        "monthly": {"MZN": "500000.00"},
    },
}
APPLICATION_ID = "01JDPSPAPP00000000000000AA"
RUN_ID = "01JDPSPRUN00000000000000AB"
SHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
_FILE = {"media_type": "application/pdf", "size": 48213, "sha256": SHA256, "uploaded_at": "2026-11-25T09:00:00Z"}
APPLICATION: dict[str, Any] = {
    "object": "psp_application",
    "application_id": APPLICATION_ID,
    "status": "submitted",
    **APPLICATION_EXAMPLE,
    "settlement_account": "000100000000000280002",  # kept without separators
    "documents": {
        "central_bank_licence": _FILE,
        "commercial_registration": _FILE,
        "tax_certificate": _FILE,
    },
    "logo": {
        "media_type": "image/png",
        "size": 20311,
        "sha256": SHA256,
        "width": 512,
        "height": 512,
        "status": "approved",
        "review": {"decision": "approve", "reason": "Matches the brand.", "at": "2026-11-25T09:10:00Z"},
        "uploaded_at": "2026-11-25T09:05:00Z",
    },
    "certification": None,
    "certification_running": None,
    "decision": None,
    "missing": [],
    "submitted_at": "2026-11-25T09:15:00Z",
    "created_at": "2026-11-25T08:55:00Z",
    "updated_at": "2026-11-25T09:15:00Z",
}
_STEP = {
    "name": "charge_succeeds",
    "method": "mkesh",
    "currency": "MZN",
    "expected": {"status": "succeeded", "failure_code": None},
    "observed": {"status": "succeeded", "failure_code": None},
    "passed": True,
}
RUN: dict[str, Any] = {
    "object": "psp_certification_run",
    "run_id": RUN_ID,
    "application_id": APPLICATION_ID,
    "psp_id": "tmcel-mkesh",
    "status": "passed",
    "steps": [_STEP],
    "started_at": "2026-11-25T09:20:00Z",
    "due_at": "2026-11-25T09:20:03Z",
    "finished_at": "2026-11-25T09:20:04Z",
}


# Keys that answers of this module share, described once.
PutAt = Annotated[Timestamp, Field(description="When it was put.")]
Pixels = Annotated[int, Field(description="Pixels.")]


class StoredFile(Answer):
    """A KYB document as recorded (its bytes: GET .../documents/{kind})."""

    media_type: Literal["application/pdf", "image/png", "image/jpeg"] = Field(description="What it is.")
    size: ByteSize
    sha256: str = Field(description="Its SHA-256 (hex), checked whenever it is used.")
    uploaded_at: PutAt


class LogoReview(Answer):
    """An operator's review of the logo."""

    decision: Literal["approve", "reject"] = Field(description="The decision.")
    reason: str = Field(description="Why (may be empty).")
    at: When


class StoredLogo(Answer):
    """The uploaded logo and its review."""

    media_type: Literal["image/png", "image/jpeg"] = Field(description="PNG or JPEG.")
    size: ByteSize
    sha256: str = Field(description="Its SHA-256 (hex).")
    width: Pixels
    height: Pixels
    status: Literal["pending_review", "approved", "rejected"] = Field(description="Its review's outcome.")
    review: LogoReview | None = Field(description="The review, once made.")
    uploaded_at: PutAt


class CertificationSummary(Answer):
    """The last finished certification run."""

    run_id: str = Field(description="The run.")
    status: Literal["passed", "failed"] = Field(description="Its outcome.")
    finished_at: Timestamp = Field(description="When it ended.")


class ApplicationDecision(Answer):
    """An operator's approval or rejection."""

    decision: Literal["approve", "reject"] = Field(description="The decision.")
    reason: str = Field(description="Why.")
    at: When


class PspApplication(Answer):
    """A PSP's onboarding application (docs/psp-onboarding.md)."""

    model_config = examples(APPLICATION)

    object: Literal["psp_application"] = Field(description="Always psp_application.")
    application_id: str = Field(description="The application's id (a ULID).")
    status: Literal["draft", "submitted", "approved", "rejected"] = Field(description="Where it is.")
    legal_name: str | None = Field(description="Legal name, at most 200 characters.")
    nuit: str | None = Field(description="Tax number (9 digits).")
    licence_number: str | None = Field(description="Banco de Moçambique licence number, at most 50 characters.")
    contact_email: str | None = Field(description="Contact e-mail, at most 254 characters.")
    psp_id: str | None = Field(description="The PSP it applies for (capability matrix).")
    methods: list[str] | None = Field(description="Its methods (a wallet: its network).")
    currencies: list[Currency] | None = Field(description="Its currencies.")
    settlement_account: str | None = Field(description="The NIB its money settles to.")
    pilot: PilotSettings | None = Field(description="The pilot it keeps once approved.")
    documents: dict[str, StoredFile] = Field(description="KYB documents by kind.")
    logo: StoredLogo | None = Field(description="The logo, once uploaded.")
    certification: CertificationSummary | None = Field(description="The last finished certification run.")
    certification_running: str | None = Field(description="The run in progress, if any.")
    decision: ApplicationDecision | None = Field(description="The approval or rejection.")
    missing: list[str] = Field(description="What submission still needs (a draft's; empty once submitted).")
    submitted_at: Timestamp | None = Field(description="When it was submitted.")
    created_at: Timestamp = Field(description="When it was drafted.")
    updated_at: UpdatedAt


class PspApplicationList(Paged[PspApplication]):
    """A page of applications, newest first."""

    model_config = examples({"object": "list", "data": [APPLICATION], "has_more": False, "next_page_token": None})

    data: list[PspApplication] = Field(description="The applications.")
    has_more: bool = Field(description="More follow.")
    next_page_token: str | None = Field(description="Pass as page_token for the next page.")


class Outcome(Answer):
    """A connector's answer, as the run compares it."""

    status: str = Field(description="Its status (capability steps: carried or not_supported).")
    failure_code: str | None = Field(description="Its failure code, if any.")


class RunStep(Answer):
    """One step of the certification script."""

    name: Literal["capability", "charge_succeeds", "charge_fails", "refund", "payout", "payer_confirms"] = Field(
        description="What it exercises."
    )
    method: str = Field(description="The method (a wallet: its network).")
    currency: TheCurrency
    expected: Outcome = Field(description="What the simulator must answer.")
    observed: Outcome | None = Field(description="What it answered (null: not played yet).")
    passed: bool | None = Field(description="observed equals expected (null: not played yet).")


class CertificationRun(Answer):
    """A certification run: the connector script against the simulator."""

    model_config = examples(RUN)

    object: Literal["psp_certification_run"] = Field(description="Always psp_certification_run.")
    run_id: str = Field(description="The run's id (a ULID).")
    application_id: str = Field(description="Its application.")
    psp_id: str = Field(description="The PSP exercised.")
    status: Literal["running", "passed", "failed"] = Field(description="running until the payer answers.")
    steps: list[RunStep] = Field(description="The script's steps.")
    started_at: Timestamp = Field(description="When it started.")
    due_at: Timestamp = Field(description="When the simulated payer has answered (the run can finish).")
    finished_at: Timestamp | None = Field(description="When it ended.")

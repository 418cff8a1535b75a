"""PSP onboarding's pure rules: the transition table, what submission needs, KYB documents, the
logo's checks (Pillow) and the certification script."""

from __future__ import annotations

import hashlib
import io
import typing

import pytest
from PIL import Image

from mzpay.answers import psp_onboarding as answers
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.psp import certification as cert
from mzpay.domain.psp import logos
from mzpay.domain.psp import onboarding as rules
from tests.unit.builders import moves, refused


def png(width: int, height: int, kind: str = "PNG") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (10, 20, 30)).save(out, kind)
    return out.getvalue()


def application(**fields: typing.Any) -> rules.PspApplication:
    now = "2026-11-25T08:00:00Z"
    return rules.PspApplication(
        application_id="01JDPSPAPP00000000000000AA", status="draft", version=1, created_at=now, updated_at=now, **fields
    )


# ---------------------------------------------------------------- the lifecycle
MOVES = {
    "draft": {"edit": "draft", "submit": "submitted"},
    "submitted": {"certify": "submitted", "approve": "approved", "reject": "rejected"},
}


@pytest.mark.parametrize(("status", "action", "after"), moves(MOVES))
def test_the_moves_of_the_table(status: str, action: str, after: str) -> None:
    assert rules.next_status(status, action) == after


@pytest.mark.parametrize("status", ["submitted", "approved", "rejected"])
def test_editing_or_submitting_after_the_draft_is_already_submitted(status: str) -> None:
    edit, submit = (
        refused(lambda: rules.next_status(status, "edit")),
        refused(lambda: rules.next_status(status, "submit")),
    )
    assert (edit.status, edit.code, edit.message) == (
        409,
        "already_submitted",
        f"The application is {status}: it cannot be edited.",
    )
    assert (submit.code, submit.message) == (
        "already_submitted",
        f"The application is {status}: it cannot be submitted again.",
    )


@pytest.mark.parametrize(("status", "action"), [("draft", "approve"), ("approved", "reject"), ("draft", "certify")])
def test_deciding_or_certifying_out_of_turn_is_invalid_state(status: str, action: str) -> None:
    error = refused(lambda: rules.next_status(status, action))
    assert (error.status, error.code) == (409, "invalid_state")


def test_submission_names_every_missing_field_document_and_the_approved_logo() -> None:
    assert rules.missing(application()) == [
        *rules.REQUIRED_FIELDS,
        *(f"documents.{k}" for k in ("commercial_registration", "central_bank_licence", "tax_certificate")),
        "logo",
    ]
    kept = {"media_type": "application/pdf", "size": 1, "sha256": "0" * 64, "key": "k", "uploaded_at": "t"}
    partial = application(
        legal_name="X",
        methods=[],
        documents={"aml_policy": kept, "tax_certificate": kept},
        logo={"status": "pending_review"},
    )
    assert "legal_name" not in rules.missing(partial) and "methods" in rules.missing(partial)
    assert [m for m in rules.missing(partial) if m.startswith("documents.")] == [
        "documents.commercial_registration",
        "documents.central_bank_licence",
    ]
    assert rules.missing(partial)[-1] == "logo"
    error = rules.incomplete(["nuit", "logo"])
    assert (error.status, error.code, error.extensions) == (
        422,
        "application_incomplete",
        {"missing": ["nuit", "logo"]},
    )


def test_approval_needs_a_passed_run_and_none_running() -> None:
    assert refused(lambda: _raise(rules.approval_refusal(application()))).code == "invalid_state"
    running = application(active_run="01JDPSPRUN00000000000000AB", certification={"status": "passed"})
    assert refused(lambda: _raise(rules.approval_refusal(running))).code == "certification_running"
    assert rules.approval_refusal(application(certification={"status": "passed"})) is None
    assert (
        refused(lambda: _raise(rules.approval_refusal(application(certification={"status": "failed"})))).code
        == "invalid_state"
    )


def _raise(error: ServiceError | None) -> None:
    if error is not None:
        raise error


# ---------------------------------------------------------------- documents
def test_documents_are_pdf_png_or_jpeg_by_type_and_first_bytes() -> None:
    document = rules.document_of("tax_certificate", "application/pdf", b"%PDF-1.4")
    assert (document.sha256, document.extension) == (hashlib.sha256(b"%PDF-1.4").hexdigest(), "pdf")
    assert rules.document_of("aml_policy", "image/jpeg", b"\xff\xd8\xff\xe0").extension == "jpeg"
    assert refused(lambda: rules.document_of("passport", "application/pdf", b"%PDF")).status == 404
    cases = [
        ("image/gif", b"GIF89a", "unsupported_type"),
        ("application/pdf", b"", "empty"),
        ("image/png", b"%PDF-", "invalid_value"),
    ]
    for media, content, code in cases:
        error = refused(lambda media=media, content=content: rules.document_of("tax_certificate", media, content))
        assert (error.status, error.code, error.errors[0].code) == (400, "invalid_request", code)
    big = b"%PDF-" + b"0" * rules.MAX_DOCUMENT_BYTES
    assert refused(lambda: rules.document_of("tax_certificate", "application/pdf", big)).errors[0].code == "too_large"
    tampered = rules.tampered("tax_certificate")
    assert (tampered.status, tampered.code, tampered.extensions) == (
        409,
        "document_tampered",
        {"document": "tax_certificate"},
    )


# ---------------------------------------------------------------- the logo
def test_a_square_png_or_jpeg_within_bounds_is_a_logo() -> None:
    logo = logos.checked_logo("image/png", png(256, 270))
    assert (logo.width, logo.height, logo.extension) == (256, 270, "png")
    assert logos.checked_logo("image/jpeg", png(128, 128, "JPEG")).extension == "jpg"


@pytest.mark.parametrize(
    ("media", "content", "codes"),
    [
        ("image/gif", png(256, 256, "GIF"), ["unsupported_type"]),
        ("image/png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 50, ["undecodable"]),
        ("image/png", png(256, 256)[:120], ["undecodable"]),
        ("image/png", png(100, 300), ["dimensions", "not_square"]),
        ("image/png", png(4000, 4000), ["dimensions"]),
        ("image/jpeg", png(256, 256), ["type_mismatch"]),
        ("image/png", b"\x89PNG" + b"\x00" * logos.MAX_LOGO_BYTES, ["too_large"]),
    ],
)
def test_anything_else_is_invalid_logo_naming_every_reason(media: str, content: bytes, codes: list[str]) -> None:
    error = refused(lambda: logos.checked_logo(media, content))
    assert (error.status, error.code) == (400, "invalid_logo")
    assert [e.code for e in error.errors] == codes and {e.field for e in error.errors} == {"logo"}


# ---------------------------------------------------------------- certification
def test_the_script_exercises_each_method_and_currency_the_psp_carries() -> None:
    wallet = cert.script("vodacom-mpesa", ["mpesa"], ["MZN"])
    assert [s.name for s in wallet] == ["charge_succeeds", "charge_fails", "refund", "payout", "payer_confirms"]
    assert wallet[0].source == {
        "type": "mobile_wallet",
        "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"},
    }
    assert wallet[1].expected == {"status": "failed", "failure_code": "insufficient_funds"}
    cards = cert.script("bci-cards", ["card"], ["MZN", "USD"])
    assert [s.name for s in cards] == ["charge_succeeds", "charge_fails", "refund", "payer_confirms"] * 2
    assert cards[3].source == {"type": "card", "card": {"token": "tok_test_3ds"}}
    foreign = cert.script("vodacom-mpesa", ["mpesa", "card"], ["USD"])
    assert [(s.name, s.method, s.currency) for s in foreign] == [
        ("capability", "mpesa", "USD"),
        ("capability", "card", "USD"),
    ]


def test_a_run_passes_only_when_every_step_did() -> None:
    step = cert.script("vodacom-mpesa", ["mpesa"], ["MZN"])[0]
    good, bad = (
        cert.step_record(step, step.expected),
        cert.step_record(step, {"status": "failed", "failure_code": None}),
    )
    assert (good["passed"], bad["passed"], cert.step_record(step, None)["passed"]) == (True, False, None)
    assert (cert.outcome([good]), cert.outcome([good, bad])) == ("passed", "failed")


def test_the_answer_models_enumerate_the_domain() -> None:
    statuses = {v for k, v in vars(rules.Status).items() if k.isupper()}
    assert set(typing.get_args(answers.PspApplication.model_fields["status"].annotation)) == statuses
    run_statuses = {v for k, v in vars(cert.RunStatus).items() if k.isupper()}
    assert set(typing.get_args(answers.CertificationRun.model_fields["status"].annotation)) == run_statuses
    names = {s.name for s in cert.script("vodacom-mpesa", ["mpesa", "card"], ["MZN", "USD"])}
    assert names == set(typing.get_args(answers.RunStep.model_fields["name"].annotation))

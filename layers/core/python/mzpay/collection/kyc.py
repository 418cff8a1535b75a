"""KYC of a business's customers (docs/kyc.md): register a customer with its verification,
read it and its log, comment on it, record a document's expiry date, signal that uploads are
complete, and review it. Customers and verifications belong to the business account the caller
acts for: another account's are 404 (customer_not_found, not_found)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mzpay import deps
from mzpay.answers import collection_kyc as answers
from mzpay.domain.collection.business import looks_like_email, phone_problem
from mzpay.domain.collection.directory import contact_problems
from mzpay.domain.collection.directory import invalid as directory_invalid
from mzpay.domain.collection.kyc import (
    CHECKLIST_ITEMS,
    DOCUMENT_TYPES,
    MAX_TEXT,
    Customer,
    KycStatus,
    KycVerification,
    check_review,
    ensure_open,
    invalid,
    next_status,
    review_message,
)
from mzpay.domain.collection.reference import SUPPORTED_DOCUMENTS
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.files import check_upload, form_parts
from mzpay.domain.common.ids import new_prefixed_id
from mzpay.domain.messages.notices import KYC_OUTCOMES
from mzpay.domain.webhooks.events import new_event
from mzpay.steps.customers import customer_of
from mzpay.steps.notices import business_name
from mzpay.steps.uploads import admit_upload
from mzpay.store.kyc import VerificationChanged
from mzpay.store.transitions import rejudged

MAX_ID = 64
TWO_SIDED = frozenset(d["type"] for d in SUPPORTED_DOCUMENTS if d["config"]["has_back"])


def _verification(account_id: str, kyc_id: str, customer_id: str | None = None) -> KycVerification:
    verification = deps.kyc().verification(kyc_id) if len(kyc_id) <= MAX_ID else None
    if (
        verification is None
        or verification.account_id != account_id
        or (customer_id is not None and verification.customer_id != customer_id)
    ):
        raise ServiceError(404, "not_found", "No such KYC verification.")
    return verification


def _changed(
    account_id: str, kyc_id: str, change: Callable[[KycVerification], dict[str, Any]], customer_id: str | None = None
) -> KycVerification:
    """`change(verification)` (the changes to write) applied to the verification as read, judged
    again if another change lands first."""
    return rejudged(
        lambda: _verification(account_id, kyc_id, customer_id),
        lambda verification: deps.kyc().transition(verification, change(verification)),
        VerificationChanged,
        "verification",
    )


def _kyc(verification: KycVerification) -> answers.KycRead:
    return answers.KycRead.of({"object": "kyc", "kyc": verification.view()})


def _log(verification: KycVerification) -> answers.KycLog:
    return answers.KycLog.of({"object": "kyc_log", "kyclog": verification.log()})


def register(account_id: str, name: str, document_type: str, contact: dict[str, Any] | None = None) -> answers.Customer:
    """A customer of the business and its first verification (initiated), log message 1; its
    `contact` (email, phone_number, language: each optional) is where its messages go, with its
    optional nuit and address (the directory's: docs/customers.md)."""
    if document_type not in DOCUMENT_TYPES:
        raise invalid("document_type", "INVALID_FORMAT", f"one of {', '.join(DOCUMENT_TYPES)}")
    address = (contact or {}).get("address") or None
    contact = {
        name: value.strip() for name, value in (contact or {}).items() if isinstance(value, str) and value.strip()
    }
    if "email" in contact and not looks_like_email(contact["email"]):
        raise invalid("email", "INVALID_FORMAT", "an e-mail address, e.g. ana@example.co.mz")
    problem = phone_problem(contact["phone_number"]) if "phone_number" in contact else None
    if problem:
        raise invalid("phone_number", "INVALID_FORMAT", problem)
    problems = contact_problems({"nuit": contact.get("nuit"), "address": address})
    if problems:
        raise directory_invalid(problems)
    if address:
        contact["address"] = address
    now = now_iso()
    customer_id, kyc_id = new_prefixed_id("usr"), new_prefixed_id("kyc")
    customer = Customer(
        customer_id=customer_id,
        account_id=account_id,
        name=name,
        kyc_id=kyc_id,
        **contact,
        status="active",
        version=1,
        created_at=now,
        updated_at=now,
    )
    verification = KycVerification(
        kyc_id=kyc_id,
        log_id=new_prefixed_id("klg"),
        customer_id=customer_id,
        account_id=account_id,
        document_type=document_type,
        status=KycStatus.INITIATED,
        version=1,
        created_at=now,
        updated_at=now,
    )
    verification = verification.with_changes(
        {"messages": verification.message("KYC verification initiated.", None, KycStatus.INITIATED, now)}
    )
    deps.kyc().register(customer, verification)
    return answers.Customer.of(
        {"object": "customer", "id": customer_id, "name": name, "kyc": verification.view(), "created_at": now}
    )


def read(account_id: str, customer_id: str, kyc_id: str) -> answers.KycRead:
    customer_of(account_id, customer_id)
    return _kyc(_verification(account_id, kyc_id, customer_id))


def customer_log(account_id: str, customer_id: str) -> answers.KycLog:
    customer = customer_of(account_id, customer_id)
    return _log(_verification(account_id, customer.kyc_id))


def log(account_id: str, kyc_id: str) -> answers.KycLog:
    return _log(_verification(account_id, kyc_id))


def comment(account_id: str, kyc_id: str, text: str, reviewer_id: str | None) -> answers.LoggedOk:
    """A message on the log: a reviewer's (reviewer_id) or the system's (none)."""
    if not text.strip():
        raise invalid("comment", "REQUIRED", "the message")

    def change(verification: KycVerification) -> dict[str, Any]:
        now = now_iso()
        messages = verification.message(text.strip(), reviewer_id, verification.status, now)
        return {"messages": messages, "updated_at": now}

    _changed(account_id, kyc_id, change)
    return answers.LoggedOk(object="bool", status=True)


def save_date(account_id: str, kyc_id: str, expiry_date: str, reference: str) -> answers.DocumentDateSaved:
    """The expiry date of a document the customer gave (a checklist item with a duration)."""
    from datetime import date

    try:
        date.fromisoformat(expiry_date)
    except ValueError:
        raise invalid("expiry_date", "INVALID_FORMAT", "a date, YYYY-MM-DD") from None
    if not reference.strip() or len(reference) > MAX_TEXT:
        raise invalid("reference", "INVALID_FORMAT", f"the document's reference, at most {MAX_TEXT} characters")

    def change(verification: KycVerification) -> dict[str, Any]:
        ensure_open(verification.status, "takes no documents")
        now = now_iso()
        # A date saved again replaces the earlier date of that reference, never its uploaded files.
        kept = [
            d
            for d in verification.additional_documents
            if d.get("reference") != reference.strip() or "expiry_date" not in d
        ]
        documents = [*kept, {"reference": reference.strip(), "expiry_date": expiry_date, "saved_at": now}]
        return {"additional_documents": documents, "updated_at": now}

    _changed(account_id, kyc_id, change)
    return answers.DocumentDateSaved(object="bool", saved_date=True)


SIDES = ("front", "back")


def save_document(account_id: str, kyc_id: str, body: bytes, content_type: str) -> answers.LoggedOk:
    """A document of the verification (multipart: reference, document_name, type, attachment;
    optional side front|back, file_type): the attachment checked and stored like POST /v1/files,
    then recorded on the verification with a log message. `type` is a supported document
    (passport, dire, bi) or a checklist item id."""
    form = form_parts(body, content_type)
    for name in ("reference", "document_name", "type"):
        if not form.fields.get(name):
            raise invalid(name, "REQUIRED", "required")
    kind = form.fields["type"]
    if kind not in DOCUMENT_TYPES and kind not in CHECKLIST_ITEMS:
        raise invalid("type", "INVALID_FORMAT", "a supported document (passport, dire, bi) or a checklist item id")
    side = form.fields.get("side") or "front"
    if side not in SIDES:
        raise invalid("side", "INVALID_FORMAT", "front or back")
    checked = check_upload(
        form.fields.get("file_type") or form.extension("attachment"), form.files.get("attachment"), "attachment"
    )
    _verification(account_id, kyc_id)  # before anything is stored: 404 for another's
    admit_upload(account_id, checked.size)  # 429 rate_limited over the account's upload limits
    file_id = new_prefixed_id("file")
    record = deps.files().save(account_id, file_id, checked, now_iso())
    document = {
        "reference": form.fields["reference"],
        "document_name": form.fields["document_name"],
        "type": kind,
        "side": side,
        "file": {"file_id": file_id, "bucket": record["bucket"]},
    }

    def change(verification: KycVerification) -> dict[str, Any]:
        ensure_open(verification.status, "takes no documents")
        now = now_iso()
        text = f"Document saved: {document['document_name']} ({kind}, {side})."
        return {
            "additional_documents": [*verification.additional_documents, {**document, "saved_at": now}],
            "messages": verification.message(text, None, verification.status, now),
            "updated_at": now,
        }

    _changed(account_id, kyc_id, change)
    return answers.LoggedOk(object="bool", status=True)


def _missing_backs(verification: KycVerification) -> list[FieldError]:
    """A two-sided document (has_back) saved without both sides."""
    sides: dict[tuple[str, str], set[str]] = {}
    for document in verification.additional_documents:
        if document.get("type") in TWO_SIDED:
            sides.setdefault((document["reference"], document["type"]), set()).add(document.get("side", "front"))
    return [
        FieldError(f"documents.{reference}", "REQUIRED", f"the {missing} of this {kind} is missing")
        for (reference, kind), seen in sorted(sides.items())
        for missing in SIDES
        if missing not in seen
    ]


def ready(account_id: str, customer_id: str, kyc_id: str) -> answers.KycReady:
    """The customer's uploads are complete: the verification waits for its review."""
    customer_of(account_id, customer_id)

    def change(verification: KycVerification) -> dict[str, Any]:
        ensure_open(verification.status, "waits for nothing")
        missing = _missing_backs(verification)
        if missing:
            names = ", ".join(m.field for m in missing)
            raise ServiceError(400, "missing_field", f"Documents still need a side: {names}.", errors=missing)
        now = now_iso()
        messages = verification.message("The customer submitted the documents.", None, verification.status, now)
        return {"submitted": True, "messages": messages, "updated_at": now}

    _changed(account_id, kyc_id, change, customer_id)
    return answers.KycReady(object="ready", submit=True)


def review(
    account_id: str,
    customer_id: str,
    kyc_id: str,
    status: str,
    reviewer_id: str | None,
    rejection_reason: str | None,
    additional: dict[str, Any] | None,
) -> answers.KycRead:
    """verified, pending (asking for checklist items) or rejected; one versioned log message."""
    customer = customer_of(account_id, customer_id)  # another business's: 404 whatever the body
    cleaned = check_review(status, reviewer_id, rejection_reason, additional)

    def change(verification: KycVerification) -> dict[str, Any]:
        target = next_status(verification.status, status)
        now = now_iso()
        text = review_message(status, rejection_reason, cleaned)
        return {
            "status": target,
            "rejection_reason": (rejection_reason or "").strip() or None,
            "additional_request": cleaned,
            "submitted": False if target == KycStatus.PENDING else verification.submitted,
            "messages": verification.message(text, reviewer_id, target, now),
            "updated_at": now,
        }

    def decided(verification: KycVerification) -> KycVerification:
        changes = change(verification)
        notice = KYC_OUTCOMES.get(changes["status"])
        if notice is None:
            return deps.kyc().transition(verification, changes)
        data = {
            "kyc_id": verification.kyc_id,
            "customer_id": customer.customer_id,
            "name": customer.name,
            "business_name": business_name(account_id),
            "status": changes["status"],
            "reason": changes["rejection_reason"] or "",
            "contact": customer.contact(),
            "language": customer.language,
        }
        event = new_event(
            notice, account_id, "live", "kyc", verification.kyc_id, {"object": data}, changes["updated_at"]
        )
        return deps.kyc().transition(verification, changes, (deps.event_writes(), [event]))

    return _kyc(
        rejudged(lambda: _verification(account_id, kyc_id, customer_id), decided, VerificationChanged, "verification")
    )

"""Collection requests (docs/collection-requests.md): an active business issues an invoice to a
payer, reads, lists, changes and deletes it; the payer's mobile app lists the requests of a phone
number and reads one without a token. Every read and write is scoped to the caller's account:
another account's request is 404. Payment: mzpay.collection.payment_links and the outbox
(mzpay.steps.collection_payments)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.answers import collection_requests as answers
from mzpay.domain.collection import life
from mzpay.domain.collection import requests as rules
from mzpay.domain.collection.business import INVALID_FORMAT, BusinessAccount, e164_problem
from mzpay.domain.collection.payers import payer_problems
from mzpay.domain.collection.requests import CollectionMethod, CollectionRequest, PaymentStatus, RequestStatus
from mzpay.domain.common import page_tokens
from mzpay.domain.common.bounds import url_problem
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.ids import has_prefix, new_prefixed_id
from mzpay.steps import audit
from mzpay.steps import request_references as references
from mzpay.steps.business import gateway_account_of, require_active
from mzpay.steps.collection_payments import close_checkout
from mzpay.steps.customers import with_payer
from mzpay.store.collection_requests import Changed, CustomerGone, account_list_key, phone_list_key
from mzpay.store.transitions import rejudged

MAX_ID = 64


def _not_found() -> ServiceError:
    return ServiceError(404, "not_found", "No such collection request.")


def _visible(request_id: str) -> CollectionRequest:
    """A request that exists and is not deleted (any account's: callers check theirs)."""
    found = deps.collection_requests().get(request_id) if len(request_id) <= MAX_ID else None
    if found is None or found.status == RequestStatus.DELETED:
        raise _not_found()
    return found


def own(account_id: str, request_id: str) -> CollectionRequest:
    """The caller's request (deleted, another account's or none: 404 not_found)."""
    request = _visible(request_id)
    if request.account_id != account_id:
        raise _not_found()
    return request


# ---------------------------------------------------------------- the parts of a request
def _named(account_id: str, ids: list[str]) -> tuple[str, list[CollectionMethod]]:
    """The request's mode and its methods (each of `ids`, usable)."""
    found = {
        method_id: method
        for method_id, method in deps.collection_requests().methods(ids).items()
        if method.account_id == account_id  # another account's method is as absent as an unknown one
    }
    mode = rules.usable_methods(ids, found)
    return mode, [found[method_id] for method_id in ids]


def _day(value: str | None, field: str, problems: list[FieldError]) -> str | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value).isoformat() if len(value) == 10 else datetime.fromisoformat(value).isoformat()
    except ValueError:
        problems.append(FieldError(field, INVALID_FORMAT, "an ISO 8601 date, e.g. 2026-12-31"))
        return None


def _checked(body: dict[str, Any]) -> list[FieldError]:
    """The rules of the optional parts (the payer's are checked apart)."""
    problems: list[FieldError] = []
    invoice = body.get("invoice_metadata") or {}
    issue = _day(invoice.get("issue_date"), "invoice_metadata.issue_date", problems)
    due = _day(invoice.get("due_date"), "invoice_metadata.due_date", problems)
    if issue and due and due[:10] < issue[:10]:
        problems.append(FieldError("invoice_metadata.due_date", INVALID_FORMAT, "not before the issue date"))
    if invoice.get("invoice_type") not in (None, *rules.INVOICE_TYPES):
        problems.append(
            FieldError("invoice_metadata.invoice_type", INVALID_FORMAT, "standard, proforma or credit_note")
        )
    if invoice.get("source_channel") not in (None, *rules.SOURCE_CHANNELS):
        problems.append(FieldError("invoice_metadata.source_channel", INVALID_FORMAT, "api, portal or erp"))
    callback = (body.get("integration_routing") or {}).get("callback_url")
    if callback and (problem := url_problem(callback)):
        problems.append(FieldError("integration_routing.callback_url", INVALID_FORMAT, problem))
    return problems


def _biller(account: BusinessAccount) -> dict[str, Any]:
    business = account.details.get("business_details") or {}
    contact = account.details.get("person_of_contact") or {}
    tax = account.details.get("tax_details") or {}
    logo = account.logo or {}
    return {
        "account_id": account.account_id,
        "business_name": account.name or business.get("legal_name"),
        "logo": {"file_id": logo.get("file_id"), "file_bucket": logo.get("bucket"), "file_link": None}
        if logo
        else None,
        "contact": {"phone_number": contact.get("phone_number"), "email": contact.get("email")},
        "issuer_nuit": tax.get("tax_id") or business.get("vat_number"),
        "billing_address": {
            "country": business.get("country"),
            "state_province": business.get("state_province"),
            "city": business.get("city"),
            "street": None,
            "line1": business.get("line"),
        },
    }


def _financial(amount: dict[str, Any], given: dict[str, Any] | None) -> dict[str, Any]:
    given = given or {}
    return {
        "line_items": given.get("line_items"),
        "products_info": given.get("products_info"),
        "tax_info": given.get("tax_info"),
        "discount": given.get("discount", Decimal(0)),
        "total_amount": amount,
        "fx_rate": Decimal("1.0"),  # every currency taken is local (MZN)
    }


def _reject(problems: list[FieldError]) -> None:
    if problems:
        raise rules.invalid(problems)


# ---------------------------------------------------------------- the business's operations
def create(account_id: str, actor: str, body: dict[str, Any], link_base: str) -> answers.CreatedCollectionRequest:
    """POST /v1/collection-requests by an active business: pending, with its invoice number and
    payment link; collection_request.created is recorded (and sent to its callback_url)."""
    account = require_active(account_id)
    amount = rules.check_amount(body["amount"]["currency"], Decimal(str(body["amount"]["value"])))
    body = with_payer(account_id, body)
    _reject(payer_problems(body["payer"]) + _checked(body))
    mode, methods = _named(account_id, body["collection_method_ids"])
    by_methods, least = rules.installments_of(methods)  # a method that allows instalments: its requests do
    installments = body.get("allow_installments", by_methods)
    request_id, now = new_prefixed_id("cr"), now_iso()
    details, reference = references.issued(
        request_id, account_id, mode, methods, body["payer"], body.get("customer_id"), amount["value"], installments
    )
    number = rules.invoice_number(request_id, now)
    invoice = body.get("invoice_metadata") or {}
    due = invoice.get("due_date")
    routing = body.get("integration_routing") or {}
    biller = _biller(account)
    request = CollectionRequest(
        request_id=request_id,
        account_id=account_id,
        mode=mode,
        status=RequestStatus.PENDING,
        version=1,
        description=body.get("description"),
        collection_method_ids=body["collection_method_ids"],
        collection_method_details=details,
        amount=amount,
        payer=body["payer"],
        third_party_reference=body.get("third_party_reference"),
        metadata=body.get("metadata") or {},
        bill_info={"bill_id": f"bill_{request_id[3:]}", "bill_number": number, "status": "open", "due_date": due},
        invoice_metadata={
            "invoice_number": number,
            "issue_date": invoice.get("issue_date") or now[:10],
            "due_date": due,
            "invoice_type": invoice.get("invoice_type") or "standard",
            "source_channel": invoice.get("source_channel") or "api",
            "reference_number": invoice.get("reference_number") or body.get("third_party_reference"),
            "payment_link": f"{link_base.rstrip('/')}/pay/{request_id}",
        },
        financial_details=_financial(amount, body.get("financial_details")),
        payment_reconciliation={
            "payment_status": PaymentStatus.PENDING,
            "payment_type": None,
            "gateway_transaction_id": None,
            "reconciliation_status": "unmatched",
            "date_payment": None,
            "date_reconciliation": None,
        },
        integration_routing={
            "source_system": routing.get("source_system") or "api",
            "callback_url": routing.get("callback_url"),
        },
        compliance_audit={
            "payer_nuit": body["payer"].get("vat_number"),
            "issuer_nuit": biller["issuer_nuit"],
            "invoice_validity": due,
            "attached_contract": None,
            "user_issuer": actor,
            "user_modifier": None,
            "user_remover": None,
            "issued_at": now,
            "viewed_at": None,
            "paid_at": None,
            "reconciled_at": None,
        },
        biller=biller,
        listed=body.get("listed", True),
        allow_installments=installments,
        min_installment=least if installments else None,
        customer_id=body.get("customer_id"),
        created_at=now,
        updated_at=now,
        **reference,
    )
    try:
        deps.collection_requests().create(request, [rules.request_event(rules.EVENT_CREATED, request, now)])
    except CustomerGone:  # removed while the request was made: its personal data is not copied
        raise ServiceError(404, "customer_not_found", "No such customer.", field="customer_id") from None
    return answers.CreatedCollectionRequest.of(request.created_view())


def read(account_id: str, request_id: str) -> answers.CollectionRequestRead:
    view = own(account_id, request_id).view()
    return answers.CollectionRequestRead.of({"object": "collection_request", "collection_request": view})


def _listing(items: list[dict[str, Any]], last: dict[str, str] | None) -> dict[str, Any]:
    return {
        "object": "list",
        "items": items,
        "has_more": last is not None,
        "next_page_token": page_tokens.encode(last) if last else None,
        "error": None,
    }


def _start(token: str | None, list_key: str, index: str) -> dict[str, str] | None:
    """The page's start key, when `token` is one this list gave; 400 validation_error otherwise."""
    if token is None:
        return None

    def of_this_list(key: dict[str, str]) -> bool:
        request_id = key[f"{index}sk"]
        return key == {"pk": f"CR#{request_id}", "sk": "CR", f"{index}pk": list_key, f"{index}sk": request_id}

    key = page_tokens.decode(token, of_this_list)
    if key is None:
        raise rules.invalid([FieldError("page_token", INVALID_FORMAT, "a page_token this list gave")])
    return key


def listed(account_id: str, size: int, token: str | None, mode: str | None = None) -> answers.CollectionRequestList:
    """The account's requests, newest first (summaries); `mode`: that mode's only (the dashboard)."""
    list_key = account_list_key(account_id)
    found, last = deps.collection_requests().page(list_key, size, _start(token, list_key, "gsi1"))
    shown = [request.summary() for request in found if mode in (None, request.mode)]
    return answers.CollectionRequestList.of(_listing(shown, last))


def _reassigned(account_id: str, target: str) -> BusinessAccount:
    """A request moves only to an account the caller manages: one connected to it as a platform
    (the gateway's rule for acting for another account), active as a business. 404 otherwise."""
    connected, gateway_account = deps.directory().acting_target(
        gateway_account_of(account_id), gateway_account_of(target)
    )
    business = deps.business_accounts().get(target)
    if not connected or gateway_account is None or business is None or business.status != "active":
        raise ServiceError(404, "not_found", "No such account.", field="account_id")
    return business


def update(account_id: str, actor: str, request_id: str, body: dict[str, Any]) -> answers.CollectionRequestChanged:
    """PUT /v1/collection-requests/{id}: only the fields given change, while the request is
    pending with no checkout open. Reassigning account_id also names the new account's methods."""
    target = body.get("account_id") or account_id
    new_account = _reassigned(account_id, target) if target != account_id else None
    if new_account is not None and "collection_method_ids" not in body:
        raise rules.invalid([FieldError("collection_method_ids", "REQUIRED", "the new account's methods")])
    problems = _checked(body)
    if "payer" in body:
        problems += payer_problems(body["payer"])
    _reject(problems)
    changes: dict[str, Any] = {}
    if "amount" in body:
        changes["amount"] = rules.check_amount(body["amount"]["currency"], Decimal(str(body["amount"]["value"])))
    named = _named(target, body["collection_method_ids"]) if "collection_method_ids" in body else None
    if named is not None:
        details = [method.detail() for method in named[1]]
        changes |= {"collection_method_ids": body["collection_method_ids"], "collection_method_details": details}
        changes["mode"] = named[0]
    for name in ("description", "payer", "third_party_reference", "metadata", "listed"):
        if name in body:
            changes[name] = body[name]
    if new_account is not None:
        changes["account_id"] = target
        changes["biller"] = _biller(new_account)

    def change(request: CollectionRequest) -> CollectionRequest:
        rules.ensure_changeable(request, "change")
        merged = {**references.kept(request, changes, named[1] if named else None), **close_checkout(request, "change")}
        now = now_iso()
        if "amount" in merged:
            merged["financial_details"] = {**request.financial_details, "total_amount": merged["amount"]}
        for part in ("invoice_metadata", "integration_routing"):
            if body.get(part):
                merged[part] = {**getattr(request, part), **{k: v for k, v in body[part].items() if v is not None}}
        due = (body.get("invoice_metadata") or {}).get("due_date")
        if due:  # the bill and the audit say the same due date
            merged["bill_info"] = {**request.bill_info, "due_date": due}
            audit_due = {"invoice_validity": due}
        else:
            audit_due = {}
        if "payer" in merged or "account_id" in merged:
            audit = {"payer_nuit": (merged.get("payer") or request.payer).get("vat_number")}
            if "biller" in merged:
                audit["issuer_nuit"] = merged["biller"]["issuer_nuit"]
        else:
            audit = {}
        merged["compliance_audit"] = {**request.compliance_audit, **audit, **audit_due, "user_modifier": actor}
        merged["updated_at"] = now
        return deps.collection_requests().transition(request, merged, [])

    updated = rejudged(lambda: own(account_id, request_id), change, Changed, "collection request")
    changed = {"object": "collection_request", "collection_request": updated.view(), "error": None}
    return answers.CollectionRequestChanged.of(changed)  # with the spec's name and type (ChangedRequest)


def delete(account_id: str, actor: str, request_id: str) -> answers.DeletedCollectionRequest:
    """DELETE /v1/collection-requests/{id}: a pending request with no checkout open leaves every
    read and list (its item stays for the audit, with who removed it); a paid one never."""

    def change(request: CollectionRequest) -> CollectionRequest:
        rules.ensure_changeable(request, "delete")
        changes = close_checkout(request, "delete")
        now = now_iso()
        audit = {**request.compliance_audit, "user_remover": actor}
        changes |= {"status": RequestStatus.DELETED, "compliance_audit": audit, "updated_at": now}
        return deps.collection_requests().transition(request, changes, [])

    rejudged(lambda: own(account_id, request_id), change, Changed, "collection request")
    return answers.DeletedCollectionRequest(object="collection_request", id=request_id, deleted=True, error=None)


def cancel(account_id: str, actor: str, request_id: str, reason: str | None) -> answers.CollectionRequestCancelled:
    """POST /v1/collection-requests/{id}/cancel: an open request (pending, partially_paid, overdue)
    is cancelled in one conditional write with collection_request.cancelled (to its callback_url);
    a paid or cancelled one is 409 invoice_closed. A checkout opened and not paid with is canceled
    first; a payment under way refuses the cancel (400 invalid_request). Of two racing cancels one
    cancels, the other is judged on the request as the first left it."""
    if problem := life.cancel_reason_problem(reason):
        raise rules.invalid([FieldError("reason", INVALID_FORMAT, problem)])

    def change(request: CollectionRequest) -> CollectionRequest:
        now = now_iso()
        changes = life.cancelled(request, actor, reason, now)
        changes |= close_checkout(request, "cancel")
        after = request.changed(changes)
        event = rules.request_event(rules.EVENT_CANCELLED, after, now)
        cancelled = deps.collection_requests().transition(request, changes, [event])
        audit.observe(
            "collection_request",
            request_id,
            account_id=account_id,
            before={"status": request.status, "amount_paid": format(request.amount_paid, "f")},
            after={"status": cancelled.status, "reason": reason},
        )
        return cancelled

    done = rejudged(lambda: own(account_id, request_id), change, Changed, "collection request")
    return answers.CollectionRequestCancelled.of(
        {"object": "collection_request", "collection_request": done.view(), "error": None}
    )


# ---------------------------------------------------------------- the payer's app (no token)
def by_phone(
    phone_number: str, request_id: str | None, page_size: int, page_token: str | None
) -> answers.PayerRequestList:
    """The listed requests whose payer has this phone number, newest first, for whoever holds a
    request sent to it (`request_id`, from its payment link: required, 400 missing_field); with
    a request that is not one of this number's, the answer is the empty list a number with none
    gets, so numbers cannot be probed; only requests of the proof's mode are listed. Only id,
    description, amount, status, created_at."""
    problem = e164_problem(phone_number)
    problems = [FieldError("phone_number", INVALID_FORMAT, problem)] if problem else []
    if not request_id:
        problems.append(FieldError("request_id", "REQUIRED", "the id of a collection request sent to this number"))
    _reject(problems)
    proof = deps.collection_requests().get(request_id or "") if has_prefix(request_id or "", "cr") else None
    if proof is None or not rules.may_list_by_phone(phone_number, proof):
        return answers.PayerRequestList.of(_listing([], None))
    list_key = phone_list_key(proof.mode, phone_number)  # the proof's mode only: modes never meet
    start = _start(page_token, list_key, "gsi2")
    found, last = deps.collection_requests().page(list_key, page_size, start)
    return answers.PayerRequestList.of(_listing([request.public_item() for request in found], last))


def public_read(request_id: str) -> answers.PayerRequestRead:
    return answers.PayerRequestRead.of(_visible(request_id).public_view())

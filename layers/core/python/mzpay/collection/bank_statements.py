"""Bank statements reconciled (docs/bank-statements.md): a business uploads its bank statement
(CSV with a column mapping, CAMT.053, a SIMO ERV settlement file) or posts its lines; each credit
line is stored once (its id is its identity: mzpay.domain.collection.bank_lines), matched to the
one request its reference names and applied as a payment through the recorded payments' own
write (mzpay.collection.payments.apply_received: the payment, the request's change, the line's
change and their events in one transaction); the rest waits in a queue the business resolves by
hand (assign to a request, or dismiss as not ours). A statement imported again, or overlapping
another, applies nothing twice; an import cut short by a fault is finished by importing it again
(the lines it stored but did not judge are judged then)."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from mzpay import deps
from mzpay.answers import bank_statements as answers
from mzpay.collection.collection_requests import own
from mzpay.collection.payments import Received, apply_received
from mzpay.domain.collection import recorded
from mzpay.domain.collection.bank_lines import (
    AMOUNT_NOT_FITTING,
    LISTED,
    NO_REFERENCE,
    PAYMENT_UNDER_WAY,
    SEVERAL_REQUESTS,
    WAITING,
    LineStatus,
    StatementLine,
    line_identities,
    new_line,
    statement_id,
)
from mzpay.domain.collection.bank_references import candidates, pays
from mzpay.domain.collection.business import INVALID_FORMAT, AccountStatus
from mzpay.domain.collection.requests import CollectionRequest
from mzpay.domain.collection.statement_formats import parse
from mzpay.domain.common import page_tokens
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.errors import field_refusal as invalid
from mzpay.domain.common.ids import has_prefix
from mzpay.domain.payments.rules import Payment
from mzpay.steps import audit
from mzpay.steps.bank_matching import requests_named
from mzpay.store.bank_statements import LineMoved, queue_key
from mzpay.store.collection_requests import Changed

ATTEMPTS = 3
_LINE_PAYMENTS = uuid.UUID("6f1d2c1e-5b8a-4f0e-9d57-1c2a7e5b9a31")  # the namespace of lines' payment ids


def _not_found() -> ServiceError:
    return ServiceError(404, "not_found", "No such bank statement line.")


def own_line(account_id: str, line_id: str) -> StatementLine:
    """The caller's line (another business's, or none: 404 not_found)."""
    line = deps.bank_statements().line(line_id) if has_prefix(line_id, "bsl") else None
    if line is None or line.account_id != account_id:
        raise _not_found()
    return line


# ---------------------------------------------------------------- applying a line
def _received(line: StatementLine, over: Decimal) -> Received:
    reference = line.bank_transaction_id or line.reference or line.line_id
    return Received(
        currency=line.currency,
        value=line.amount,
        channel="simo_reference" if line.entity else "bank_transfer",
        reference=reference[: recorded.MAX_REFERENCE],
        paid_at=f"{line.value_on or line.booked_on}T00:00:00Z",
        description=line.description[: recorded.MAX_DESCRIPTION] or None,
        metadata={"bank_statement_line_id": line.line_id},
        over=over,
    )


def _apply(account_id: str, line: StatementLine, request: CollectionRequest, status: str, by: str | None) -> None:
    """Apply `line` to `request` as a payment (judged: `over` is what the request cannot take),
    the line's change in the same transaction. Changed or LineMoved when either moved."""
    over = recorded.overpaid(request, line.amount)
    if over is None or line.currency != request.amount["currency"]:
        raise ServiceError(
            422,
            "amount_out_of_range",
            "The line's amount does not fit the collection request (a part of a request that takes one payment, "
            "an instalment below its minimum, or another currency).",
            amount_due={"currency": request.amount["currency"], "value": request.outstanding},
        )
    payment_id = str(uuid.uuid5(_LINE_PAYMENTS, line.line_id))
    now = now_iso()
    changes: dict[str, Any] = {
        "status": status,
        "judged": True,
        "reason": None,
        "candidates": [],
        "collection_request_id": request.request_id,
        "overpayment": over if over > 0 else None,
        "updated_at": now,
    }
    if by is not None:
        changes["resolution"] = {"by": by, "at": now}
    store = deps.bank_statements()

    def line_change(payment: Payment) -> list[dict[str, Any]]:
        return [store.change_item(line, {**changes, "payment_id": payment.provider_payment_id})]

    try:
        apply_received(account_id, request, _received(line, over), payment_id, f"bank_line#{line.line_id}", line_change)
    except ServiceError as taken:
        if taken.code != "idempotency_key_reused":
            raise
        raise LineMoved() from None  # another assign or the match wrote the line's payment first: judged anew


def _judged(account_id: str, line: StatementLine) -> StatementLine:
    """The automatic match of a stored line not yet judged: applied to the one request its
    reference names when the amount fits, else left in the queue with the reason."""
    store = deps.bank_statements()
    for _attempt in range(ATTEMPTS):
        if line.judged or line.status not in WAITING:
            return line
        found = requests_named(line)
        now = now_iso()
        waiting: dict[str, Any] = {"judged": True, "updated_at": now}
        if not found:
            waiting |= {"reason": NO_REFERENCE}
        elif len(found) > 1:
            several = sorted(named.request.request_id for named in found)
            waiting |= {"status": LineStatus.AMBIGUOUS, "reason": SEVERAL_REQUESTS, "candidates": several}
        try:
            if len(found) == 1:
                request, number = found[0]
                try:
                    if not pays(request, number, line.amount):  # an amount-bound reference takes its amount only
                        raise ServiceError(422, "amount_out_of_range", "The amount does not fit the reference.")
                    _apply(account_id, line, request, LineStatus.MATCHED, None)
                    return store.line(line.line_id) or line
                except ServiceError as refused:
                    reason = PAYMENT_UNDER_WAY if refused.code == "invalid_request" else AMOUNT_NOT_FITTING
                    status = LineStatus.UNMATCHED if reason == PAYMENT_UNDER_WAY else LineStatus.AMBIGUOUS
                    waiting |= {"status": status, "reason": reason, "candidates": [request.request_id]}
            return store.change(line, waiting)
        except (Changed, LineMoved):
            line = store.line(line.line_id) or line
    return line


# ---------------------------------------------------------------- import
def import_statement(account_id: str, body: dict[str, Any]) -> answers.BankStatementImported:
    """POST /v1/bank-statements: parse the statement (400 validation_error naming the line and
    field of a bad one, nothing stored), store its credit lines once each, judge those not
    judged yet; the counts of what each line is now."""
    mode, kind = body["mode"], body["format"]
    lines = parse(kind, body.get("content"), body.get("mapping"), body.get("lines"))
    currency = body.get("currency") or "MZN"
    content = body.get("content") or json.dumps(body.get("lines"), sort_keys=True, default=str)
    statement = statement_id(account_id, mode, kind, content)
    store = deps.bank_statements()
    now = now_iso()
    credits = [pair for pair in zip(lines, line_identities(account_id, mode, lines), strict=True) if pair[0].credit]
    first = store.record_statement(
        mode,
        statement,
        {"account_id": account_id, "mode": mode, "format": kind, "lines": len(lines), "created_at": now},
    )
    fresh: dict[str, StatementLine] = {}
    for parsed, line_id in credits:  # the same bank transaction twice in one statement is one line
        line = new_line(parsed, line_id, account_id, mode, statement, currency, now)
        if not candidates(" ".join(part for part in (line.reference, line.description) if part)):
            line = line.model_copy(update={"judged": True, "reason": NO_REFERENCE})  # judged as it is stored
        fresh.setdefault(line_id, line)
    known = store.stored_of(list(fresh.values()))
    stored = known | store.add_lines([line for line_id, line in fresh.items() if line_id not in known])
    counts: Counter[str] = Counter()
    for line_id, line in fresh.items():
        if stored[line_id] is not line:
            counts["already_imported"] += 1
        counts[_judged(account_id, stored[line_id]).status] += 1
    audit.observe("bank_statement", statement, account_id=account_id, after={"lines": len(lines), **counts})
    return answers.BankStatementImported.of(
        {
            "object": "bank_statement",
            "id": statement,
            "mode": mode,
            "format": kind,
            "imported_before": not first,
            "lines": len(lines),
            "credits": len(fresh),
            "debits": len(lines) - len(credits),
            "already_imported": counts["already_imported"],
            **{status.value: counts[status.value] for status in LineStatus},
            "error": None,
        }
    )


def import_for_business(account_id: str, body: dict[str, Any]) -> answers.BankStatementImported:
    """POST /v1/accounts/{id}/bank-statements (management API): an operator imports a statement
    for the business `account_id`, as the business would: 404 for no such business, 409
    invalid_state unless it is active (the gate of the business's own import)."""
    business = deps.business_accounts().get(account_id)
    if business is None:
        raise ServiceError(404, "not_found", "No such business account.")
    if business.status != AccountStatus.ACTIVE:
        message = f"The business account is {business.status}: only an active account may import a statement."
        raise ServiceError(409, "invalid_state", message, account_status=business.status)
    return import_statement(account_id, body)


# ---------------------------------------------------------------- the queue
def _start(token: str | None, mode: str, list_key: str) -> dict[str, str] | None:
    if token is None:
        return None

    def of_this_list(key: dict[str, str]) -> bool:
        line_id = key.get("gsi1sk", "").rpartition("#")[2]
        return key.get("gsi1pk") == list_key and key.get("pk") == f"BSL#{mode}#{line_id}" and key.get("sk") == "BSL"

    key = page_tokens.decode(token, of_this_list)
    if key is None:
        raise invalid([FieldError("page_token", INVALID_FORMAT, "a page_token this list gave")])
    return key


def listed(account_id: str, mode: str, status: str, page_size: int, token: str | None) -> answers.BankLineList:
    """GET /v1/bank-statement-lines: the business's lines of one mode and status, newest first."""
    problems = []
    if mode not in ("test", "live"):
        problems.append(FieldError("mode", INVALID_FORMAT, "test or live"))
    if status not in LISTED:
        problems.append(FieldError("status", INVALID_FORMAT, "one of " + ", ".join(LISTED)))
    if problems:
        raise invalid(problems)
    found, last = deps.bank_statements().page(
        account_id, mode, status, page_size, _start(token, mode, queue_key(account_id, mode, status))
    )
    return answers.BankLineList.of(
        {
            "object": "list",
            "data": [line.view() for line in found],
            "has_more": last is not None,
            "next_page_token": page_tokens.encode(last) if last else None,
            "error": None,
        }
    )


def read(account_id: str, line_id: str) -> answers.BankLineRead:
    return answers.BankLineRead.of(
        {"object": "bank_statement_line", "line": own_line(account_id, line_id).view(), "error": None}
    )


def _resolved(account_id: str, line_id: str, act: Callable[[StatementLine], None]) -> answers.BankLineRead:
    """Run `act` on the caller's waiting line, judged anew when another change lands first; 409
    invalid_state once it is resolved (matched, assigned or dismissed)."""
    for _attempt in range(ATTEMPTS):
        line = own_line(account_id, line_id)
        if line.status not in WAITING:
            raise ServiceError(409, "invalid_state", f"The line is {line.status} already.", line_status=line.status)
        try:
            act(line)
        except (Changed, LineMoved):
            continue
        after = own_line(account_id, line_id)
        audit.observe("bank_statement_line", line_id, account_id=account_id, before=line.view(), after=after.view())
        return answers.BankLineRead.of({"object": "bank_statement_line", "line": after.view(), "error": None})
    raise ServiceError(503, "processing_error", "The line keeps changing; retry.", headers={"Retry-After": "1"})


def assign(account_id: str, actor: str, line_id: str, request_id: str) -> answers.BankLineRead:
    """POST /v1/bank-statement-lines/{id}/assign: apply the line to the business's request by
    hand, by the automatic match's rules (a part of a request that takes one payment: 422
    amount_out_of_range; a paid or cancelled request keeps it as an overpayment to refund)."""

    def act(line: StatementLine) -> None:
        request = own(account_id, request_id)
        if request.mode != line.mode:  # modes never meet
            raise ServiceError(404, "not_found", "No such collection request.")
        _apply(account_id, line, request, LineStatus.ASSIGNED, actor)

    return _resolved(account_id, line_id, act)


def dismiss(account_id: str, actor: str, line_id: str, reason: str | None) -> answers.BankLineRead:
    """POST /v1/bank-statement-lines/{id}/dismiss: the line is not the business's to match."""

    def act(line: StatementLine) -> None:
        now = now_iso()
        resolution = {"by": actor, "at": now, "reason": reason}
        deps.bank_statements().change(
            line, {"status": LineStatus.DISMISSED, "judged": True, "resolution": resolution, "updated_at": now}
        )

    return _resolved(account_id, line_id, act)

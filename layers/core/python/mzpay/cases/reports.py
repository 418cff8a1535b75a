"""Statements and reports on the gateway (docs/reports.md): POST /v1/reports records a pending
report with report.created, in one transaction; the outbox puts it on ReportQueue and the report
builder (mzpay.cases.report_builder) writes its CSV. GET /v1/reports/{id} answers its state and,
once succeeded, a download link valid for five minutes; GET /v1/reports lists them newest first.
Every read is of the acting account's reports of the key's mode: another's is not found."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mzpay import deps
from mzpay.answers import reports as answers
from mzpay.domain.access.principal import Principal
from mzpay.domain.common import page_tokens
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid, new_id
from mzpay.domain.money.reports import (
    CREATED_EVENT,
    URL_SECONDS,
    Report,
    ReportRequest,
    Status,
    new_report,
    view,
)
from mzpay.domain.webhooks.events import new_event
from mzpay.store.reports import file_link, partition


def _answer(report: Report, url: str | None = None, expires: str | None = None) -> answers.Report:
    return answers.Report.of(view(report, url, expires))


def create(principal: Principal, request: ReportRequest) -> answers.Report:
    """A pending report of the acting account in the key's mode (400 naming the field for a bad
    type, time zone or interval, before anything is stored). Its report.succeeded or
    report.failed is posted to the account's endpoint for its own events of that mode."""
    account_id, mode = principal.acting_account_id, principal.mode
    now = iso(datetime.now(UTC))
    report = new_report(new_id(), account_id, mode, request, now)
    endpoint = deps.account_endpoints().read(account_id, mode)
    if endpoint:
        report = report.with_changes({"callback_url": endpoint["url"]})
    event = new_event(CREATED_EVENT, account_id, mode, "report", report.report_id, {"object": view(report)}, now)
    deps.reports().create(report, event, _answer)
    return _answer(report)


def _found(principal: Principal, report_id: str) -> Report:
    found = deps.reports().get(principal.acting_account_id, principal.mode, report_id) if is_ulid(report_id) else None
    if found is None:
        raise ServiceError(404, "not_found", "No such report.")
    return found


def read(principal: Principal, report_id: str) -> answers.Report:
    """The report; once succeeded, with a fresh link to its file valid for URL_SECONDS."""
    report = _found(principal, report_id)
    if report.status != Status.SUCCEEDED or not report.object_key:
        return _answer(report)
    expires = iso(datetime.now(UTC) + timedelta(seconds=URL_SECONDS))
    return _answer(report, file_link(report.object_key, URL_SECONDS), expires)


def listing(principal: Principal, limit: str | None, page_token: str | None) -> answers.ReportList:
    """The acting account's reports in the key's mode, newest first (no links: read one for it)."""
    account_id, mode = principal.acting_account_id, principal.mode
    size, start = page_tokens.page_request(limit, page_token, partition(account_id, mode))
    found, last = deps.reports().page(account_id, mode, size, start)
    token = page_tokens.encode(last) if last else None
    return answers.ReportList(data=[_answer(r) for r in found], has_more=token is not None, next_page_token=token)

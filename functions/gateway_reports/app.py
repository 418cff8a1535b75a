"""Gateway API: statements and reports (docs/reports.md)."""

from typing import Annotated

from mzpay.answers.reports import Report, ReportList
from mzpay.domain.money.reports import ReportRequest
from mzpay.entry import gateway_app, gateway_handler
from mzpay.http.idempotency import idempotent
from mzpay.http.marks import errors
from mzpay.http.params import Body, Query, Response
from mzpay.http.principal import merchant, requires
from mzpay.http.resolver import created
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import reports

app = gateway_app()


@app.post("/v1/reports")
@requires("balance:read")
@idempotent(app)
def create_report(body: Annotated[ReportRequest, Body()]) -> Response[Report]:
    """Ask for a report

    A CSV of the account's money in the key's mode over [interval_start, interval_end):
    `balance_summary` (per currency the opening balance, the movements by type, the closing
    balance), `balance_transactions` (every ledger entry) or `payments` (every payment made in
    the interval, with its refunds, lost disputes and fees). Days are cut at midnight in
    `timezone` (Africa/Maputo by default). Answered 201 `pending`; read it until `succeeded` (with a download link) or
    `failed`; `report.succeeded` or `report.failed` is posted to the account's endpoint for its
    own events."""
    return created(reports.create(merchant(), body))


@app.get("/v1/reports")
@requires("balance:read")
@errors("invalid_request")
def list_reports(
    limit: Annotated[str | None, Query(description="Reports per page, 1 to 100 (20 by default).")] = None,
    page_token: Annotated[str | None, Query(description="The next_page_token of the previous page.")] = None,
) -> ReportList:
    """List reports

    The account's reports in the key's mode, newest first (read one for its download link)."""
    return reports.listing(merchant(), limit, page_token)


@app.get("/v1/reports/<report_id>")
@requires("balance:read")
def read_report(report_id: str) -> Report:
    """Read a report

    Its status and, once `succeeded`, `url`: a link to download the CSV, valid for five minutes
    (read the report again for a fresh one)."""
    return reports.read(merchant(), report_id)


lambda_handler = gateway_handler(app)

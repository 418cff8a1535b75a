"""The answers about reports (mzpay.domain.money.reports.view) on the gateway; the conventions are
mzpay.answers.base's."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.base import Answer, CreatedAt, Page, TestOrLive, Timestamp, examples

REPORT = {
    "report_id": "01JDC4R8T2V6X0Z4B8D2F6H0K4",
    "type": "balance_transactions",
    "status": "succeeded",
    "interval_start": "2026-10-31T22:00:00Z",
    "interval_end": "2026-11-30T22:00:00Z",
    "timezone": "Africa/Maputo",
    "mode": "test",
    "created_at": "2026-12-01T06:00:00Z",
    "completed_at": "2026-12-01T06:00:04Z",
    "rows": 1284,
    "size_bytes": 171305,
    "url": "https://mzpay-mz-reportsbucket.s3.af-south-1.amazonaws.com/reports/01JC0A1B2C3D4E5F6G7H8J9K0M/"
    "test/01JDC4R8T2V6X0Z4B8D2F6H0K4.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=300&...",
    "url_expires_at": "2026-12-01T06:05:10Z",
    "failure": None,
}
PENDING = {
    **REPORT,
    "status": "pending",
    "completed_at": None,
    "rows": None,
    "size_bytes": None,
    "url": None,
    "url_expires_at": None,
}


class ReportFailure(Answer):
    """Why a report could not be built."""

    code: str = Field(description="A stable code, e.g. report_failed.")
    message: str = Field(description="The failure in plain words.")


class Report(Answer):
    """A report: pending while it is built, then succeeded (with a download link) or failed."""

    model_config = examples(REPORT, PENDING)

    report_id: str = Field(description="The report's id (a ULID).")
    type: Literal["balance_summary", "balance_transactions", "payments"] = Field(description="What it reports.")
    status: Literal["pending", "succeeded", "failed"] = Field(description="pending, succeeded or failed.")
    interval_start: Timestamp = Field(description="The first moment covered (UTC).")
    interval_end: Timestamp = Field(description="The first moment no longer covered (UTC).")
    timezone: str = Field(description="The IANA time zone its days are cut in and its times written in.")
    mode: TestOrLive
    created_at: CreatedAt
    completed_at: Timestamp | None = Field(description="When it succeeded or failed; null while pending.")
    rows: int | None = Field(description="The file's rows (without its header) once succeeded; else null.")
    size_bytes: int | None = Field(description="The file's size once succeeded; else null.")
    url: str | None = Field(
        description="Once succeeded: a link to download the CSV, valid for five minutes (read the report "
        "again for a fresh one); else null."
    )
    url_expires_at: Timestamp | None = Field(description="When `url` stops working; null without a url.")
    failure: ReportFailure | None = Field(description="Why it failed; null unless failed.")


class ReportList(Page[Report]):
    """A page of reports, newest first (download links only on reading one)."""

    model_config = examples({"data": [PENDING], "has_more": False, "next_page_token": None})

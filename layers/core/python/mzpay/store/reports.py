"""Reports (docs/reports.md): the record in the payments table under REPORT#<account>#<mode>/<ulid>
(so a read of another account's or mode's id finds nothing, and the account's reports list newest
first from one partition), the queue that feeds the report builder, and the files in the reports
bucket (encrypted with the data key, deleted by the bucket's lifecycle)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import IO, Any

from mzpay.domain.money.reports import Report
from mzpay.domain.webhooks.events import Event
from mzpay.memo import once
from mzpay.store.aws import client, env, is_conditional_failure, newest_first, session_and_config
from mzpay.store.base import PaymentsTableStore, put_new
from mzpay.store.events import event_puts
from mzpay.store.idempotency import completion_item, pending
from mzpay.store.transitions import versioned_update, write_token


def partition(account_id: str, mode: str) -> str:
    """The partition of an account's reports of one mode."""
    return f"REPORT#{account_id}#{mode}"


def file_key(report: Report, attempt: str) -> str:
    """Where one attempt at a report's file is kept (account and mode in the path; each attempt
    its own object, so the record names the very file whose rows it counted)."""
    return f"reports/{report.account_id}/{report.mode}/{report.report_id}/{attempt}.csv"


def _key(account_id: str, mode: str, report_id: str) -> dict[str, str]:
    return {"pk": partition(account_id, mode), "sk": report_id}


class Finished(Exception):
    """The report was no longer pending: another delivery of its message finished it first."""


class Reports(PaymentsTableStore):
    def create(self, report: Report, event: Event, answer: Callable[[Report], Any]) -> None:
        """The new report with its event, in one transaction; the request's idempotency record,
        if it has one pending, is completed with `answer(report)` in the same transaction."""
        completion = pending()
        rendered = completion.render(answer(report)) if completion is not None else None
        items = [
            put_new(self.name, {**_key(report.account_id, report.mode, report.report_id), **report.item()}),
            *event_puts(self.events_name, [event]),
        ]
        final = completion_item(completion, rendered) if completion is not None and rendered is not None else None
        try:
            self.client.transact_write_items(TransactItems=[*items, *([final] if final else [])])
        except Exception as exc:
            if final is None or not is_conditional_failure(exc):
                raise
            # only the idempotency record can refuse (the report's id is new): its lock was lost
            self.client.transact_write_items(TransactItems=items)
            return
        if completion is not None:
            completion.written = rendered

    def get(self, account_id: str, mode: str, report_id: str) -> Report | None:
        return self.read_item(Report, _key(account_id, mode, report_id))

    def page(
        self, account_id: str, mode: str, size: int, start: dict[str, str] | None
    ) -> tuple[list[Report], dict[str, str] | None]:
        """A page of the account's reports of `mode`, newest first, and the key to go on from."""
        items, last = newest_first(self.table, partition(account_id, mode), size, start)
        return [Report.model_validate(item) for item in items], last

    def finish(self, report: Report, changes: dict[str, Any], event: Event) -> Report:
        """The pending report moved to its outcome with its event, in one transaction; Finished
        when it was not pending any more (an earlier delivery of its message finished it)."""
        token = write_token()
        items = [
            versioned_update(self.name, _key(report.account_id, report.mode, report.report_id), report, changes, token),
            *event_puts(self.events_name, [event]),
        ]

        def refused(fresh: Report | None, exc: BaseException) -> BaseException:
            return Finished(report.report_id)

        return self.transact_versioned(
            items,
            report,
            changes,
            token,
            lambda: self.get(report.account_id, report.mode, report.report_id),
            refused,
        )


def queue_report(account_id: str, mode: str, report_id: str) -> None:
    """One ReportQueue message: the report to build (a duplicate is harmless: building is
    conditional on the report still being pending)."""
    body = json.dumps({"account_id": account_id, "mode": mode, "report_id": report_id})
    client("sqs").send_message(QueueUrl=env("REPORT_QUEUE_URL"), MessageBody=body)


@once
def _signing_client() -> Any:
    """An S3 client that signs download links with Signature Version 4 (which objects encrypted
    with a KMS key require)."""
    from botocore.config import Config

    session, config = session_and_config()
    return session.client("s3", config=config.merge(Config(signature_version="s3v4")))


def keep_file(key: str, body: IO[bytes], file_name: str) -> None:
    """Upload the file `body` (read from where it is, in chunks) under `key` of the reports
    bucket (encrypted there with the data key, by the bucket's default)."""
    _signing_client().put_object(
        Bucket=env("REPORTS_BUCKET"),
        Key=key,
        Body=body,
        ContentType="text/csv; charset=utf-8",
        ContentDisposition=f'attachment; filename="{file_name}"',
    )


def file_link(key: str, seconds: int) -> str:
    """A presigned GET of the file under `key` of the reports bucket, valid for `seconds`."""
    params = {"Bucket": env("REPORTS_BUCKET"), "Key": key}
    return str(_signing_client().generate_presigned_url("get_object", Params=params, ExpiresIn=seconds))

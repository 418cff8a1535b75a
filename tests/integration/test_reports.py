"""Reports end to end against in-process moto (the stack of template.yaml): a report asked for
through the use case, its report.created turned into a ReportQueue message by the outbox's step,
the builder's function fed that message as its event source would, the CSV written to the
encrypted reports bucket and read back through the presigned link, the report's state and its
events; a message delivered again builds nothing twice; a failed build; tenancy and modes; bad
input stores nothing (docs/reports.md)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

import boto3
import pytest
import requests
from ulid import ULID

from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import report_builder, reports
from mzpay.domain.access.principal import Principal
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.money import ledger
from mzpay.domain.money.ledger import Entry
from mzpay.domain.money.reports import TRANSACTION_COLUMNS, ReportRequest
from mzpay.fanout.stream import dispatch_event
from mzpay.store.aws import env, table
from mzpay.store.ledger import entry_items
from tests.integration.support import REGION, function_app, provisioned_stack, sqs_records

ENDPOINT = "https://shop.example/mzpay-events"


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    """The stack, with the environment of the gateway's reports function and of the builder."""
    with provisioned_stack() as provisioned:
        for function in ("GatewayReportsFunction", "ReportBuilderFunction", "WebhookDispatcherFunction"):
            for name, value in provisioned.functions[function].environment.items():
                monkeypatch.setenv(name, value)
        deps.reset()
        yield provisioned
        deps.reset()


def key_of(account_id: str, mode: str = "test") -> Principal:
    return Principal(
        account_id=account_id,
        mode=mode,
        scopes=frozenset({"balance:read"}),
        key_id=str(ULID()),
        allowed_customers=frozenset(),
        expires_at=None,
        acting_account_id=account_id,
    )


def today() -> tuple[str, str]:
    """Today and tomorrow in Maputo: the entries made now fall in that interval."""
    day = datetime.now(ZoneInfo("Africa/Maputo")).date()
    return day.isoformat(), (day + timedelta(days=1)).isoformat()


def ask(principal: Principal, **fields: Any) -> dict[str, Any]:
    start, end = today()
    body = {"type": "balance_transactions", "interval_start": start, "interval_end": end} | fields
    return reports.create(principal, ReportRequest.model_validate(body)).wire()


def move(account_id: str, movement: ledger.Movement, mode: str = "test") -> None:
    """One ledger entry (and the balance it moves), made now, as a state change writes it."""
    now = iso(datetime.now(UTC))
    entry = Entry(account_id, mode, "MZN", movement, str(ULID()), str(ULID()), now)
    client = table(env("PAYMENTS_TABLE")).meta.client
    client.transact_write_items(TransactItems=entry_items(env("PAYMENTS_TABLE"), entry))


def events_of(account_id: str, mode: str = "test") -> list[dict[str, Any]]:
    items = table(env("EVENTS_TABLE")).query(
        KeyConditionExpression="pk = :pk", ExpressionAttributeValues={":pk": f"ACC#{account_id}#{mode}"}
    )["Items"]
    return [dict(i) for i in items]


def queued() -> list[dict[str, Any]]:
    """The ReportQueue messages as the event source hands them to the builder (left invisible)."""
    return sqs_records(env("REPORT_QUEUE_URL"), "ReportQueue")


def context() -> Any:
    return SimpleNamespace(
        function_name="ReportBuilderFunction",
        memory_limit_in_mb=512,
        invoked_function_arn=f"arn:aws:lambda:{REGION}:123456789012:function:ReportBuilderFunction",
        aws_request_id="test",
        get_remaining_time_in_millis=lambda: 300_000,
    )


def dispatched(account_id: str, mode: str = "test") -> dict[str, str | None]:
    """What the outbox (the dispatcher's fan-out) does with each of the account's events, as the
    stream hands them over: each event's type and its webhook delivery, if one was made."""
    deliveries: dict[str, str | None] = {}
    for event in events_of(account_id, mode):
        outcome = dispatch_event(event)
        assert outcome.skipped == ()
        deliveries[event["type"]] = outcome.delivery_id
    return deliveries


def build_all() -> dict[str, Any]:
    """Feed every queued report message to the builder's function, as its event source does."""
    builder = function_app("report_builder", "report_builder_app")
    return builder.lambda_handler({"Records": queued()}, context())  # type: ignore[no-any-return]


def files(account_id: str) -> list[str]:
    listed = boto3.client("s3", region_name=REGION).list_objects_v2(
        Bucket=env("REPORTS_BUCKET"), Prefix=f"reports/{account_id}/"
    )
    return [o["Key"] for o in listed.get("Contents", [])]


def test_a_report_is_built_once_downloaded_and_announced(stack: ProvisionedStack) -> None:
    account = str(ULID())
    shop = key_of(account)
    deps.account_endpoints().write(account, "test", ENDPOINT, iso(datetime.now(UTC)))
    move(account, ledger.captured(Decimal("150.00"), Decimal("3.00")))
    move(account, ledger.hold("refund.created", Decimal("20.00")))
    move(account, ledger.captured(Decimal("99.00")), mode="live")  # the other mode's money

    pending = ask(shop)
    assert pending["status"] == "pending" and pending["url"] is None and pending["rows"] is None
    assert [e["type"] for e in events_of(account)] == ["report.created"]

    dispatched(account)
    assert build_all() == {"batchItemFailures": []}

    done = reports.read(shop, pending["report_id"]).wire()
    assert {k: done[k] for k in ("status", "rows", "failure")} == {"status": "succeeded", "rows": 2, "failure": None}
    assert done["size_bytes"] > 0 and done["completed_at"] is not None
    expires = datetime.fromisoformat(done["url_expires_at"].replace("Z", "+00:00")) - datetime.now(UTC)
    assert timedelta(seconds=250) < expires <= timedelta(seconds=300)
    assert "X-Amz-Algorithm=AWS4-HMAC-SHA256" in done["url"] and "X-Amz-Expires=300" in done["url"]

    download = requests.get(done["url"], timeout=10)
    assert download.status_code == 200
    assert download.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert len(download.content) == done["size_bytes"]
    rows = list(csv.reader(io.StringIO(download.content.decode("utf-8"))))
    assert rows[0] == list(TRANSACTION_COLUMNS)
    assert [(r[3], r[5], r[6], r[7], r[8]) for r in rows[1:]] == [
        ("charge", "150.00", "3.00", "147.00", "0.00"),
        ("refund", "-20.00", "0.00", "-20.00", "20.00"),
    ]
    head = boto3.client("s3", region_name=REGION).head_object(Bucket=env("REPORTS_BUCKET"), Key=files(account)[0])
    assert head["ServerSideEncryption"] == "aws:kms"

    succeeded = [e for e in events_of(account) if e["type"] == "report.succeeded"]
    assert len(succeeded) == 1
    deliveries = dispatched(account)  # the outbox posts report.succeeded, never report.created
    assert deliveries["report.created"] is None and deliveries["report.succeeded"] is not None
    assert succeeded[0]["callback_url"] == ENDPOINT  # posted to the account's own endpoint
    assert succeeded[0]["data"]["object"]["status"] == "succeeded"
    assert succeeded[0]["data"]["object"]["url"] is None  # links are made on reading, never kept

    # the same message again (SQS delivers at least once) and a second copy: nothing is built twice
    dispatched(account)
    message = json.dumps({"account_id": account, "mode": "test", "report_id": pending["report_id"]})
    assert report_builder.build(json.loads(message), 2) == "succeeded"
    assert build_all() == {"batchItemFailures": []}
    assert [e["type"] for e in events_of(account)].count("report.succeeded") == 1
    assert len(files(account)) == 1
    assert reports.read(shop, pending["report_id"]).wire()["rows"] == 2


def test_a_summary_report_opens_and_closes_the_balance(stack: ProvisionedStack) -> None:
    account = str(ULID())
    shop = key_of(account)
    move(account, ledger.captured(Decimal("500.00")))
    move(account, ledger.hold("payout.created", Decimal("100.00")))
    made = ask(shop, type="balance_summary")
    dispatched(account)
    build_all()
    done = reports.read(shop, made["report_id"]).wire()
    rows = list(csv.reader(io.StringIO(requests.get(done["url"], timeout=10).content.decode("utf-8"))))
    assert rows[1:] == [
        ["MZN", "opening_balance", "", "", "", "", "0.00", "0.00"],
        ["MZN", "activity", "charge", "1", "500.00", "0.00", "500.00", "0.00"],
        ["MZN", "activity", "payout", "1", "-100.00", "0.00", "-100.00", "100.00"],
        ["MZN", "closing_balance", "", "", "", "", "400.00", "100.00"],
    ]


def test_a_report_that_cannot_be_built_fails_once_with_its_event(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = str(ULID())
    shop = key_of(account)
    move(account, ledger.captured(Decimal("10.00")))
    made = ask(shop)
    dispatched(account)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("a row the file cannot hold")

    monkeypatch.setattr(report_builder, "transaction_row", broken)
    assert build_all() == {"batchItemFailures": []}  # failed for good: the message is done
    failed = reports.read(shop, made["report_id"]).wire()
    assert {k: failed[k] for k in ("status", "url", "rows")} == {"status": "failed", "url": None, "rows": None}
    assert failed["failure"] == {
        "code": "report_failed",
        "message": "The report could not be built; ask for it again.",
    }
    assert [e["type"] for e in events_of(account)] == ["report.created", "report.failed"]
    assert files(account) == []
    assert report_builder.build({"account_id": account, "mode": "test", "report_id": made["report_id"]}) == "failed"
    assert [e["type"] for e in events_of(account)].count("report.failed") == 1


def test_a_fault_of_aws_is_retried_until_the_last_receive(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    from botocore.exceptions import EndpointConnectionError

    account = str(ULID())
    made = ask(key_of(account))
    message = {"account_id": account, "mode": "test", "report_id": made["report_id"]}

    def unreachable(*args: Any, **kwargs: Any) -> None:
        raise EndpointConnectionError(endpoint_url="https://s3.af-south-1.amazonaws.com")

    monkeypatch.setattr(report_builder, "keep_file", unreachable)
    with pytest.raises(EndpointConnectionError):
        report_builder.build(message, 1)
    assert reports.read(key_of(account), made["report_id"]).wire()["status"] == "pending"
    assert report_builder.build(message, report_builder.MAX_RECEIVES) == "failed"
    failed = reports.read(key_of(account), made["report_id"]).wire()
    assert failed["failure"]["message"].startswith("A dependency of the service was unavailable")


def test_another_account_or_mode_never_sees_a_report(stack: ProvisionedStack) -> None:
    owner, stranger = str(ULID()), str(ULID())
    made = ask(key_of(owner))
    for principal in (key_of(stranger), key_of(owner, "live")):
        with pytest.raises(ServiceError) as refusal:
            reports.read(principal, made["report_id"])
        assert (refusal.value.status, refusal.value.code, refusal.value.message) == (
            404,
            "not_found",
            "No such report.",
        )
        assert reports.listing(principal, None, None).wire() == {"data": [], "has_more": False, "next_page_token": None}
    with pytest.raises(ServiceError) as malformed:
        reports.read(key_of(owner), "../../etc")
    assert malformed.value.status == 404


def test_the_list_is_newest_first_and_pages(stack: ProvisionedStack) -> None:
    account = str(ULID())
    made = [ask(key_of(account))["report_id"] for _ in range(3)]
    first = reports.listing(key_of(account), "2", None).wire()
    assert [r["report_id"] for r in first["data"]] == made[::-1][:2] and first["has_more"] is True
    second = reports.listing(key_of(account), "2", first["next_page_token"]).wire()
    assert [r["report_id"] for r in second["data"]] == made[:1]
    with pytest.raises(ServiceError) as foreign:  # a token of this list is not one of another account's
        reports.listing(key_of(str(ULID())), "2", first["next_page_token"])
    assert (foreign.value.status, foreign.value.code) == (400, "invalid_request")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"interval_start": "yesterday"}, "interval_start"),
        ({"interval_end": "2020-01-01"}, "interval_end"),
        ({"timezone": "Africa/Atlantis"}, "timezone"),
        ({"type": "everything"}, "type"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_stored(
    stack: ProvisionedStack, fields: dict[str, Any], field: str
) -> None:
    account = str(ULID())
    with pytest.raises(ServiceError) as refusal:
        ask(key_of(account), **fields)
    assert (refusal.value.status, refusal.value.code) == (400, "invalid_request")
    assert [e.field for e in refusal.value.errors or []] == [field]
    assert reports.listing(key_of(account), None, None).wire()["data"] == []
    assert events_of(account) == []

"""Reports over HTTP through the local stack (issue 32, item 4): a report asked for, built in the
background (the outbox puts it on ReportQueue, the builder writes the CSV into the reports bucket),
read until it succeeded, downloaded through its presigned link with httpx and checked; its
webhook on the account's own endpoint; the same Idempotency-Key answers the same report; bad
input names its field and stores nothing; the scope, another account and the other mode."""

from __future__ import annotations

import csv
import io
import json
import uuid
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
import requests

from devstack.launcher import RunningStack
from mzpay.domain.money.reports import PAYMENT_COLUMNS
from tests.e2e.test_charges import Merchant, wallet
from tests.e2e.test_webhooks import Receiver
from tests.expected import problem_for
from tests.polling import eventually

pytestmark = pytest.mark.e2e

DEADLINE_SECONDS = 90  # a busy machine: the stream poller, the queue and a cold builder


def today() -> tuple[str, str]:
    day = datetime.now(ZoneInfo("Africa/Maputo")).date()
    return day.isoformat(), (day + timedelta(days=1)).isoformat()


def body(kind: str = "balance_transactions", **fields: Any) -> dict[str, Any]:
    start, end = today()
    return {"type": kind, "interval_start": start, "interval_end": end, **fields}


def done(shop: Shop, report_id: str, key: str | None = None) -> dict[str, Any]:
    """The report, read until it is no longer pending (or the deadline)."""
    answer = eventually(
        lambda: shop.call("GET", f"/v1/reports/{report_id}", key=key).json(),
        lambda report: report.get("status") != "pending",
        timeout=DEADLINE_SECONDS,
        interval=0.5,
    )
    return answer  # type: ignore[no-any-return]


class Shop(Merchant):
    """A fresh account with a captured charge (`paid`: the answer) and a refund of part of it."""

    paid: dict[str, Any]


@pytest.fixture(scope="module")
def shop(stack: RunningStack) -> Shop:
    merchant = Shop(stack)
    paid = merchant.charge(wallet("+258840000000"), amount="300.00")
    assert paid.status_code == 200 and paid.json()["status"] == "succeeded", paid.text
    refund = merchant.call(
        "POST",
        f"/v1/payments/{paid.json()['provider_payment_id']}/refund",
        {"amount": {"amount": "40.00", "currency": "MZN"}},
    )
    assert refund.status_code == 200, refund.text
    merchant.paid = paid.json()
    return merchant


def test_a_report_is_built_downloaded_and_announced(stack: RunningStack, shop: Shop, receiver: Receiver) -> None:
    endpoint = receiver.endpoint()
    assert shop.call("PUT", "/v1/webhook-endpoint", {"url": endpoint}).status_code == 200
    key = str(uuid.uuid4())
    asked = shop.call("POST", "/v1/reports", body(timezone="Africa/Maputo"), idempotency_key=key)
    assert asked.status_code == 201, asked.text
    pending = asked.json()
    assert {k: pending[k] for k in ("type", "status", "timezone", "mode", "url", "rows", "failure")} == {
        "type": "balance_transactions",
        "status": "pending",
        "timezone": "Africa/Maputo",
        "mode": "test",
        "url": None,
        "rows": None,
        "failure": None,
    }
    again = shop.call("POST", "/v1/reports", body(timezone="Africa/Maputo"), idempotency_key=key)
    assert again.status_code == 201 and again.json() == pending
    assert again.headers["Idempotent-Replayed"] == "true"

    report = done(shop, pending["report_id"])
    assert report["status"] == "succeeded", report
    assert report["rows"] == 3  # the charge, the refund's hold and its settlement
    download = httpx.get(report["url"], timeout=30)
    assert download.status_code == 200, download.text
    assert download.headers["content-type"] == "text/csv; charset=utf-8"
    rows = list(csv.reader(io.StringIO(download.text)))
    assert rows[0][:4] == ["balance_transaction_id", "created_at", "created_date", "type"]
    assert sorted((r[3], r[5], r[7], r[8]) for r in rows[1:]) == [
        ("charge", "300.00", "300.00", "0.00"),
        ("refund", "-40.00", "-40.00", "40.00"),
        ("refund", "0.00", "0.00", "-40.00"),
    ]
    assert {r[2] for r in rows[1:]} == {today()[0]} and all(r[1].endswith("+02:00") for r in rows[1:])
    assert len(download.content) == report["size_bytes"]

    arrivals = receiver.wait_for(endpoint, 1, timeout=DEADLINE_SECONDS)
    posted = json.loads(arrivals[0].body)
    assert (posted["type"], posted["data"]["object"]["report_id"]) == ("report.succeeded", pending["report_id"])
    assert posted["data"]["object"]["status"] == "succeeded" and posted["data"]["object"]["url"] is None

    events = shop.call("GET", "/v1/events?limit=100")
    assert events.status_code == 200, events.text
    assert sorted(e["type"] for e in events.json()["data"] if e["resource_id"] == pending["report_id"]) == [
        "report.created",
        "report.succeeded",
    ]

    listed = shop.call("GET", "/v1/reports?limit=1")
    assert listed.status_code == 200 and listed.json()["data"][0]["report_id"] == pending["report_id"]


def test_a_summary_opens_moves_and_closes(shop: Shop) -> None:
    asked = shop.call("POST", "/v1/reports", body("balance_summary"))
    assert asked.status_code == 201, asked.text
    report = done(shop, asked.json()["report_id"])
    rows = list(csv.reader(io.StringIO(httpx.get(report["url"], timeout=30).text)))
    assert rows == [
        ["currency", "category", "type", "count", "amount", "fee", "net", "held_change"],
        ["MZN", "opening_balance", "", "", "", "", "0.00", "0.00"],
        ["MZN", "activity", "charge", "1", "300.00", "0.00", "300.00", "0.00"],
        ["MZN", "activity", "refund", "2", "-40.00", "0.00", "-40.00", "0.00"],
        ["MZN", "closing_balance", "", "", "", "", "260.00", "0.00"],
    ]
    balance = shop.call("GET", "/v1/balance").json()["balances"][0]
    assert (balance["available"], balance["held"]) == ("260.00", "0.00")


@pytest.mark.parametrize(
    ("fields", "status", "code", "field"),
    [
        ({"interval_start": "2026-13-01"}, 400, "invalid_request", "interval_start"),
        ({"interval_end": "2020-01-01"}, 400, "invalid_request", "interval_end"),
        ({"timezone": "Africa/Atlantis"}, 400, "invalid_request", "timezone"),
        ({"type": "everything"}, 400, "invalid_request", "type"),
        ({"colour": "blue"}, 400, "invalid_request", "colour"),
    ],
)
def test_bad_input_names_its_field_and_stores_nothing(
    stack: RunningStack, fields: dict[str, Any], status: int, code: str, field: str
) -> None:
    fresh = Merchant(stack)
    answer = fresh.call("POST", "/v1/reports", body(**fields))
    assert answer.status_code == status, answer.text
    problem = answer.json()
    assert problem["code"] == code and [e["field"] for e in problem["errors"]] == [field]
    assert fresh.call("GET", "/v1/reports").json() == {"data": [], "has_more": False, "next_page_token": None}
    assert fresh.call("GET", "/v1/events").json()["data"] == []


def test_a_payments_report_itemises_each_payment_with_its_refunds(shop: Shop) -> None:
    asked = shop.call("POST", "/v1/reports", body("payments"))
    assert asked.status_code == 201, asked.text
    report = done(shop, asked.json()["report_id"])
    assert (report["status"], report["rows"]) == ("succeeded", 1), report
    rows = list(csv.reader(io.StringIO(httpx.get(report["url"], timeout=30).text)))
    assert rows[0] == list(PAYMENT_COLUMNS)
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["payment_id"] == shop.paid["provider_payment_id"]
    assert row["merchant_payment_id"] == shop.paid["payment_id"]
    assert {k: row[k] for k in ("status", "method", "network", "currency", "created_date")} == {
        "status": "succeeded",
        "method": "mobile_wallet",
        "network": "mpesa",
        "currency": "MZN",
        "created_date": today()[0],
    }
    assert [row[k] for k in ("amount", "captured_amount", "refunded_amount", "charged_back_amount", "net")] == [
        "300.00",
        "300.00",
        "40.00",
        "0.00",
        "260.00",
    ]


def test_reports_need_balance_read(shop: Shop) -> None:
    answer = shop.call("POST", "/v1/reports", body(), key=shop.reader)
    assert answer.status_code == 403
    assert answer.json() == problem_for(
        403, "insufficient_scope", "This API key lacks the scope balance:read.", missing_scope="balance:read"
    )


def test_another_account_and_the_other_mode_see_none(stack: RunningStack, shop: Shop) -> None:
    asked = shop.call("POST", "/v1/reports", body())
    report_id = asked.json()["report_id"]
    stranger = Merchant(stack)
    for who, key in ((stranger, None), (shop, shop.live_key)):
        answer = who.call("GET", f"/v1/reports/{report_id}", key=key)
        assert answer.status_code == 404
        assert answer.json() == problem_for(404, "not_found", "No such report.")
        assert report_id not in {r["report_id"] for r in who.call("GET", "/v1/reports", key=key).json()["data"]}
    done(shop, report_id)  # nothing moves after the test


def test_a_live_report_holds_no_test_money(shop: Shop) -> None:
    asked = shop.call("POST", "/v1/reports", body(), key=shop.live_key)
    assert asked.status_code == 201 and asked.json()["mode"] == "live", asked.text
    report = done(shop, asked.json()["report_id"], key=shop.live_key)
    assert (report["status"], report["rows"]) == ("succeeded", 0), report
    text = requests.get(report["url"], timeout=30).text
    assert (
        text == "balance_transaction_id,created_at,created_date,type,currency,amount,fee,net,held_change,source_id\r\n"
    )

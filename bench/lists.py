"""The merchant's lists at volume (issue 32): one account filled with ROWS payments (with their
ledger entries and events, so the tables are as big as the traffic that made them), then pages of
GET /v1/payments (and GET /v1/balance/transactions) through the gateway functions' handlers, in
process, warm.

Moto answers a Query on a global secondary index by walking every item of the table (DynamoDB
reads only the index partition asked for), so its time grows with the table and says nothing of
the product: it is measured apart and reported beside the gateway's own CPU per page (`own`),
which is what the goal of a page under 50 ms is about. `items read` is what DynamoDB would read
for the page (the Query answers' ScannedCount over the four shards), the real service's cost."""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from bench.events import LambdaContext, rest_event
from bench.payments import _BENCH_PRINCIPAL, _bench_stack, _emulator_cpu, _gateway_handler
from bench.stats import latency_summary

ROWS = int(os.environ.get("BENCH_LIST_ROWS", "100000"))
ITERATIONS = int(os.environ.get("BENCH_LIST_ITERATIONS", "20"))
ACCOUNT = _BENCH_PRINCIPAL["account_id"]
PAYMENTS, TRANSACTIONS = "/v1/payments", "/v1/balance/transactions"
STATUSES = ("succeeded",) * 17 + ("failed", "failed", "expired")  # 85 % succeed


def _payments(rows: int) -> Iterator[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """(payment item, its ledger entry item, its event item) for `rows` payments of one account,
    one a minute back from 2026-11-28."""
    from ulid import ULID

    from mzpay.domain.payments.rules import Payment
    from mzpay.store.list_keys import list_attributes

    base = time.mktime((2026, 11, 28, 0, 0, 0, 0, 0, 0))
    for index in range(rows):
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(base - 60 * (rows - index)))
        status = STATUSES[index % len(STATUSES)]
        amount = f"{50 + (index * 37) % 2000}.00"
        pid = str(ULID())
        payment = Payment.model_construct(
            provider_payment_id=pid,
            payment_id=str(uuid.uuid4()),
            account_id=ACCOUNT,
            mode="test",
            amount=amount,
            currency="MZN",
            country="MZ",
            source={"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}},
            metadata={"order": f"ORD-{index}"},
            authorized_amount=amount,
            captured_amount=amount if status == "succeeded" else "0.00",
            fingerprint="bench",
            created_at=created,
            updated_at=created,
            status=status,
            version=2,
        )
        item = {
            "pk": f"PAY#{pid}",
            "sk": "PAYMENT",
            **payment.model_dump(exclude_none=True),
            **list_attributes(payment),
        }
        entry = {
            "pk": f"LEDGER#{ACCOUNT}#test#MZN",
            "sk": f"ENT#{pid}",
            "kind": "payment.captured",
            "event_id": f"evt_{pid}",
            "resource_id": pid,
            "legs": {"available": Decimal(amount), "clearing": -Decimal(amount)},
            "created_at": created,
        }
        event = {
            "pk": f"ACC#{ACCOUNT}#test",
            "sk": f"EVT#{pid}",
            "id": f"evt_{pid}",
            "type": f"payment.{status}",
            "created_at": created,
        }
        yield item, entry, event


def _fill(stack: Any, rows: int) -> float:
    """Write the account's rows in batches of 25; the seconds it took."""
    import boto3

    started = time.monotonic()
    dynamodb = boto3.resource("dynamodb", region_name="af-south-1")
    environment = stack.functions["GatewayPaymentsFunction"].environment
    payments = dynamodb.Table(environment["PAYMENTS_TABLE"])
    events = dynamodb.Table(environment["EVENTS_TABLE"])
    available = Decimal(0)
    with payments.batch_writer() as to_payments, events.batch_writer() as to_events:
        for item, entry, event in _payments(rows):
            to_payments.put_item(Item=item)
            to_payments.put_item(Item=entry)
            to_events.put_item(Item=event)
            available += entry["legs"]["available"]
    balance = {"available": available, "held": Decimal(0), "fees": Decimal(0), "entries": rows, "currency": "MZN"}
    payments.put_item(Item={"pk": f"BAL#{ACCOUNT}#test", "sk": "CUR#MZN", **balance})
    return time.monotonic() - started


def _handler(logical_id: str) -> Any:
    """The handler of a function of template.yaml, loaded as the bench loads the payments one."""
    from bench.common import template_functions
    from bench.warm import load_module

    function = next(f for f in template_functions() if f.logical_id == logical_id)
    return getattr(load_module(function), function.attribute)


def run() -> list[dict[str, Any]]:
    with _bench_stack() as stack, _emulator_cpu() as emulator:
        filled = _fill(stack, ROWS)
        for function in ("GatewayPaymentsFunction", "GatewayRefundsFunction"):
            os.environ.update(stack.functions[function].environment)
        from mzpay import deps

        deps.reset()
        handlers = {PAYMENTS: _gateway_handler(), TRANSACTIONS: _handler("GatewayRefundsFunction")}
        context = LambdaContext("bench-lists", 10)
        scanned = [0]
        session_counts(scanned)

        def page(path: str, query: dict[str, str]) -> dict[str, Any]:
            event = rest_event("GET", path, request_id=str(uuid.uuid4()), resource=path)
            event["queryStringParameters"] = query
            event["requestContext"]["authorizer"] = {**_BENCH_PRINCIPAL, "scopes": "payments:read balance:read"}
            response = handlers[path](event, context)
            if response["statusCode"] != 200:
                raise RuntimeError(f"GET {path}?{query}: {response['statusCode']} {response['body']}")
            return json.loads(response["body"])  # type: ignore[no-any-return]

        second_token = page(PAYMENTS, {"page_size": "50"})["next_page_token"]
        cases = [
            ("newest 50", PAYMENTS, {"page_size": "50"}),
            ("second page (token)", PAYMENTS, {"page_size": "50", "page_token": second_token}),
            ("status=failed, 50", PAYMENTS, {"status": "failed", "page_size": "50"}),
            (
                "a day, MZN, amount >= 1000, 50",
                PAYMENTS,
                {
                    "created_gte": "2026-11-20T00:00:00Z",
                    "created_lt": "2026-11-21T00:00:00Z",
                    "currency": "MZN",
                    "amount_gte": "1000",
                    "page_size": "50",
                },
            ),
            ("metadata[order] (rare: one match)", PAYMENTS, {"metadata[order]": f"ORD-{ROWS // 2}", "page_size": "50"}),
            ("balance transactions, newest 50", TRANSACTIONS, {"page_size": "50"}),
        ]
        rows = []
        for name, path, query in cases:
            page(path, query)  # warm
            own: list[float] = []
            wall: list[float] = []
            moto_ms = 0.0
            read_before = scanned[0]
            items = 0
            for _ in range(ITERATIONS):
                started_cpu, started_moto, started = time.process_time(), emulator[0], time.perf_counter()
                items = len(page(path, query)["data"])
                in_moto = emulator[0] - started_moto
                wall.append((time.perf_counter() - started) * 1000)
                own.append((time.process_time() - started_cpu - in_moto) * 1000)
                moto_ms += in_moto * 1000
            summary = latency_summary(own, "ms")
            rows.append(
                {
                    "name": name,
                    "items": items,
                    "read": (scanned[0] - read_before) // ITERATIONS,
                    "own_p50_ms": summary["p50_ms"],
                    "own_p99_ms": summary["p99_ms"],
                    "moto_ms_each": moto_ms / ITERATIONS,
                    "wall_p50_ms": latency_summary(wall, "ms")["p50_ms"],
                    "rows": ROWS,
                    "fill_s": filled,
                }
            )
        return rows


def session_counts(scanned: list[int]) -> None:
    """Add each Query answer's ScannedCount (what DynamoDB reads) of mzpay's session to `scanned`."""
    from mzpay.store import aws

    session, _ = aws.session_and_config()

    def seen(parsed: dict[str, Any], **_: Any) -> None:
        scanned[0] += int(parsed.get("ScannedCount", 0))

    session.events.register("after-call.dynamodb.Query", lambda http_response, parsed, **kw: seen(parsed))

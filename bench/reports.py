"""A 200,000-row report built by the report builder (mzpay.cases.report_builder.build), in a fresh
interpreter so that its peak memory is the build's: the report's record in in-process moto (the
stack of template.yaml), the ledger's entries generated one by one as the store's pages would
hand them (DynamoDB's reads are not what is measured: in-process moto sorts the whole table for
each page), the file uploaded to a sink that reads it in 1 MiB chunks, as botocore sends a file.

`python -m bench.reports [rows]` prints the row as JSON (the section runs it)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import IO, Any

from bench.common import ROOT

ROWS = 200_000


def run() -> list[dict[str, Any]]:
    """The section's one row, measured in a subprocess."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.reports", str(ROWS)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "layers" / "core" / "python")])},
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    return [json.loads(done.stdout.strip().splitlines()[-1])]


class GeneratedLedger:
    """The ledger store's reads the builder makes, answering `rows` charges of the interval, made
    one at a time (never held together)."""

    def __init__(self, rows: int, start: datetime, end: datetime) -> None:
        self.rows, self.start, self.step = rows, start, (end - start) / (rows + 1)

    def balances(self, account_id: str, mode: str) -> list[dict[str, Any]]:
        return [{"currency": "MZN"}]

    def entries_between(
        self, account_id: str, mode: str, currency: str, start_iso: str, end_iso: str
    ) -> Iterator[dict[str, Any]]:
        from decimal import Decimal

        from ulid import ULID

        from mzpay.domain.common.clock import iso
        from mzpay.domain.money import ledger

        if start_iso < iso(self.start):
            return
        for n in range(self.rows):
            at = self.start + self.step * (n + 1)
            movement = ledger.captured(Decimal(100 + n % 9000) / 100, Decimal(n % 300) / 100)
            yield {
                "pk": f"LEDGER#{account_id}#{mode}#{currency}",
                "sk": f"ENT#{ULID.from_datetime(at)}",
                "kind": movement.kind,
                "event_id": str(ULID()),
                "resource_id": str(ULID()),
                "legs": {name: amount for name, amount in movement.legs().items() if amount},
                "created_at": iso(at),
            }


def _sink(sent: dict[str, int]) -> Any:
    def keep_file(key: str, body: IO[bytes], file_name: str) -> None:
        while chunk := body.read(1024 * 1024):
            sent["bytes"] += len(chunk)

    return keep_file


def measure(rows: int) -> dict[str, Any]:
    from bench.payments import _bench_stack
    from mzpay import deps
    from mzpay.cases import report_builder, reports
    from mzpay.domain.access.principal import Principal
    from mzpay.domain.money.reports import ReportRequest

    with _bench_stack() as stack:
        for function in ("GatewayReportsFunction", "ReportBuilderFunction"):
            os.environ.update(stack.functions[function].environment)
        deps.reset()
        account = "01JBENCH000000000000000000"
        principal = Principal(account, "test", frozenset({"balance:read"}), "k", frozenset(), None, account)
        request = ReportRequest(type="balance_transactions", interval_start="2026-01-01", interval_end="2027-01-01")
        report = reports.create(principal, request)
        start = datetime(2025, 12, 31, 22, tzinfo=UTC)
        sent = {"bytes": 0}
        report_builder.keep_file = _sink(sent)  # type: ignore[assignment]
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with deps.substitute(ledger=GeneratedLedger(rows, start, start + timedelta(days=365))):
            started = time.perf_counter()
            status = report_builder.build({"account_id": account, "mode": "test", "report_id": report.report_id})
            wall = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        built = reports.read(principal, report.report_id)
    assert status == "succeeded" and built.rows == rows, (status, built)
    return {
        "name": f"balance_transactions, {rows:,} rows",
        "wall_s": wall,
        "rows_per_s": rows / wall,
        "file_mb": (built.size_bytes or 0) / 2**20,
        "rss_before_mb": before / 1024,
        "peak_rss_mb": peak / 1024,
        "uploaded_mb": sent["bytes"] / 2**20,
    }


if __name__ == "__main__":
    print(json.dumps(measure(int(sys.argv[1]) if len(sys.argv) > 1 else ROWS)))

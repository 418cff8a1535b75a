"""`python -m bench` (make bench): run every section, print the tables, write bench/results.json."""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path

from bench import (
    cold_start,
    collection,
    hot_merchant,
    lists,
    money_out,
    payments,
    reports,
    routing,
    through_stack,
    warm,
    webhooks,
)
from bench.report import Column, Section, metadata, render_table, write_results

RESULTS = Path(__file__).resolve().parent / "results.json"


def latency_columns(label: str, unit: str, precision: str) -> list[Column]:
    """The name column, then p50, p90, p99, mean and max in `unit` (ms or us)."""
    stats = [Column(f"{stat}_{unit}", f"{stat} {unit}", precision) for stat in ("p50", "p90", "p99", "mean", "max")]
    return [Column("name", label), *stats]


SECTIONS: list[Section] = [
    Section(
        "cold_start",
        f"Cold start: import + handler init in a fresh interpreter (median of {cold_start.REPEATS})",
        [
            Column("name", "function"),
            Column("handler", "handler"),
            Column("median_ms", "median ms", ".1f"),
            Column("min_ms", "min ms", ".1f"),
            Column("max_ms", "max ms", ".1f"),
            Column("ratio_to_boto3", "x import boto3", ".2f"),
            Column("modules_loaded", "modules"),
            Column("loads_boto3", "boto3"),
        ],
        cold_start.run,
    ),
    Section(
        "warm_in_process",
        f"Warm latency in-process ({warm.ITERATIONS} calls after {warm.WARMUP} warm-up)",
        latency_columns("route", "us", ".1f"),
        warm.run,
    ),
    Section(
        "local_stack_http",
        f"Through the local stack over HTTP ({through_stack.ITERATIONS} requests after {through_stack.WARMUP} warm-up)",
        latency_columns("request", "ms", ".2f"),
        through_stack.run,
    ),
    Section(
        "payments_http",
        f"Payments through the local stack over HTTP ({payments.ITERATIONS} of each after 10 warm-up)",
        latency_columns("request", "ms", ".2f"),
        payments.run_http,
    ),
    Section(
        "webhook_delivery",
        f"Webhook delivery through the local stack: event written -> receiver got it ({webhooks.CHARGES} charges)",
        latency_columns("interval", "ms", ".1f"),
        webhooks.run,
    ),
    Section(
        "money_out",
        f"Refunds and payouts through the local stack ({money_out.ITERATIONS} each, {money_out.WARMUP} warm-up)",
        latency_columns("interval", "ms", ".1f"),
        money_out.run,
    ),
    Section(
        "collection_signin",
        "Collection sign-in: token validation in-process (cold, cached JWKS) and a licensed route over HTTP",
        latency_columns("measurement", "ms", ".3f"),
        collection.run,
    ),
    Section(
        "routing_in_process",
        f"Routing by health in process: a live charge's route chosen, against connector_for before "
        f"({routing.ITERATIONS} of each after {routing.WARMUP} warm-up; in-process moto)",
        [*latency_columns("step", "ms", ".3f"), Column("added_p50_ms", "added p50 ms", ".3f")],
        routing.run,
    ),
    Section(
        "dynamodb_round_trips",
        f"DynamoDB round trips per request end to end, warm (the gateway authorizer with an API key, the rate "
        f"limiter and the gateway payments function; in-process moto; mean of {payments.BURST} of each)",
        [
            Column("name", "operation"),
            Column("authorizer", "authorizer", ".2g"),
            Column("rate_limiter", "+ rate limiter", ".2g"),
            Column("round_trips", "+ operation", ".2g"),
            Column("total", "total", ".3g"),
            Column("by_operation", "the operation's requests"),
        ],
        payments.run_round_trips,
    ),
    Section(
        "hot_merchant",
        f"One merchant at {hot_merchant.RATE:,} charges a second: each item's capacity units a second "
        f"(DynamoDB: {hot_merchant.WCU_PER_ITEM:,} WCU and {hot_merchant.RCU_PER_ITEM:,} RCU a partition, "
        "so an item; a simulation replaying the items the code names)",
        [
            Column("name", "item"),
            Column("wcu_before", "WCU/s before"),
            Column("wcu_now", "WCU/s now"),
            Column("rcu_before", "RCU/s before"),
            Column("rcu_now", "RCU/s now"),
            Column("throttled", "over a partition now"),
        ],
        hot_merchant.run,
    ),
    Section(
        "report_200k",
        f"A report of {reports.ROWS:,} rows built by the report builder in a fresh interpreter (the ledger's "
        "reads generated, the upload read in 1 MiB chunks; the report's record in in-process moto)",
        [
            Column("name", "report"),
            Column("wall_s", "wall s", ".1f"),
            Column("rows_per_s", "rows/s", ".0f"),
            Column("file_mb", "file MiB", ".1f"),
            Column("rss_before_mb", "RSS before MiB", ".0f"),
            Column("peak_rss_mb", "peak RSS MiB", ".0f"),
        ],
        reports.run,
    ),
    Section(
        "throughput_in_process",
        f"Throughput in-process: the gateway's own CPU per request, one process, warm, the test "
        f"connector; in-process moto's CPU measured apart ({payments.THROUGHPUT_ITERATIONS} of each "
        f"after {payments.THROUGHPUT_WARMUP} warm-up)",
        [
            Column("name", "operation"),
            Column("per_core_second", "per core-second", ".1f"),
            Column("cpu_ms_each", "core ms each", ".2f"),
            Column("p50_ms", "p50 core ms", ".2f"),
            Column("p99_ms", "p99 core ms", ".2f"),
            Column("moto_ms_each", "moto ms each", ".1f"),
        ],
        payments.run_throughput,
    ),
    Section(
        "lists_in_process",
        f"GET /v1/payments on one account of {lists.ROWS:,} payments (with their ledger entries and events), "
        f"in process, warm ({lists.ITERATIONS} of each): the gateway's own CPU per page, in-process moto's apart "
        "(it walks the whole table for an index query), and the items DynamoDB would read",
        [
            Column("name", "page"),
            Column("items", "items"),
            Column("read", "items read"),
            Column("own_p50_ms", "own p50 ms", ".2f"),
            Column("own_p99_ms", "own p99 ms", ".2f"),
            Column("moto_ms_each", "moto ms each", ".0f"),
            Column("wall_p50_ms", "wall p50 ms", ".0f"),
        ],
        lists.run,
    ),
]


def main(argv: list[str] | None = None) -> int:
    """Run the chosen sections; a failing section is reported and makes the exit status 1,
    the others still run and are written."""
    parser = argparse.ArgumentParser(prog="bench", description=__doc__)
    parser.add_argument("--only", action="append", choices=[s.key for s in SECTIONS], help="run only this section")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write the results (JSON)")
    args = parser.parse_args(argv)

    meta = metadata()
    print(f"mzpay bench  {meta['timestamp']}  python {meta['python']}  {meta['platform']}  commit {meta['git_commit']}")
    results: dict[str, object] = {}
    failed = False
    for section in SECTIONS:
        if args.only and section.key not in args.only:
            continue
        started = time.monotonic()
        try:
            rows = section.run()
        except Exception as exc:  # report it, keep the other sections' numbers
            failed = True
            traceback.print_exc()
            results[section.key] = {"error": f"{type(exc).__name__}: {exc}"}
            print(f"\n{section.title}: FAILED ({type(exc).__name__}: {exc})", file=sys.stderr)
            continue
        results[section.key] = rows
        print()
        print(render_table(section.title, section.columns, rows))
        print(f"({time.monotonic() - started:.1f} s)", flush=True)
    write_results(args.output, meta, results)
    print(f"\nwritten: {args.output}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

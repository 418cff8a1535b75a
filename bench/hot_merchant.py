"""One merchant at 2,000 charges a second against DynamoDB's per-partition limits (1,000 WCU and
3,000 RCU a partition; an item never spreads over partitions, so an item's limit is its
partition's; adaptive capacity moves a busy partition's unused share to it and splits partitions
by key, but never one item): which item each charge writes and reads, and the busiest item's
rate, before (main before issue 36) and now. A replay, not a load test: each charge's items are
the ones the code names (the rate counter's shard chosen by mzpay.domain.access.rate_limits, at
random with the fall-through to the next shard), counted per simulated second."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

RATE = 2_000  # charges a second, one merchant, one API key
SECONDS = 5
WCU_PER_ITEM = 1_000  # writes of up to 1 KB a second, one partition
RCU_PER_ITEM = 3_000  # strongly consistent reads of up to 4 KB a second, one partition
TRANSACTION_COST = 2  # a write inside TransactWriteItems costs 2 WCU, a read inside one 2 RCU


def _rate_counter_writes(per_account: int, seed: int) -> Counter[str]:
    """The writes to the rate counters in one second of RATE requests with `per_account` as both
    limits: each request to a random shard, to the next while it is full (as
    store.rate_limits.RateCounters.lease does)."""
    from mzpay.domain.access.rate_limits import RateLimits, shards, share

    limits = RateLimits(per_key=per_account, per_account=per_account)
    count = shards(limits)
    counted = [0] * count
    writes: Counter[str] = Counter()
    chooser = random.Random(seed)
    for _ in range(RATE):
        start = chooser.randrange(count) if count > 1 else 0
        for step in range(count):
            index = (start + step) % count
            writes[f"RATE#<account>#<second>{'#' + str(index) if index else ''}"] += 1
            if counted[index] < share(limits.per_account, count, index):
                counted[index] += 1
                break
    return writes


def run() -> list[dict[str, Any]]:
    """The items one merchant's charges touch, each with its writes (WCU) and reads (RCU) a
    second before and now; the busiest item per column is what decides throttling."""
    rows: list[dict[str, Any]] = []
    before_rate = Counter({"RATE#<account>#<second>": RATE})
    now_rate: Counter[str] = Counter()
    for second in range(SECONDS):
        now_rate.update(_rate_counter_writes(RATE, second))
    now_rate = Counter({item: round(n / SECONDS) for item, n in now_rate.items()})
    for item in sorted(set(before_rate) | set(now_rate)):
        rows.append(_row(f"rate-limit window {item}", before_rate.get(item, 0), now_rate.get(item, 0), 0, 0))
    # written in every charge's creating transaction (a reservation the payment keeps)
    rows.append(
        _row("daily ceiling DAILY#<account>#<mode>#<currency>#<day> (not sharded yet)", RATE * 2, RATE * 2, 0, 0)
    )
    rows.append(_row("pilot windows PILOT#<psp>#... (live, a PSP in pilot; not sharded yet)", RATE * 2, RATE * 2, 0, 0))
    # read on every request, strongly consistent
    rows.append(_row("the API key KEY#<id> (authorizer, read)", 0, 0, RATE, RATE))
    rows.append(_row("the account ACCOUNT#<id> (authorizer, read)", 0, 0, RATE, RATE))
    rows.append(_row("the key's hash pointer KEYHASH#<hash> (read)", 0, 0, RATE // 2, 0))
    # two items of one partition key (the accounts table's ACCOUNT#<id>): each read at RATE; split
    # for heat can put them on two partitions, never one item on two
    rows.append(_row("ceilings LIMITS# and fee schedule PRICING (admission, each item, read)", 0, 0, RATE, RATE))
    rows.append(_row("a payment's own items (payment, payment_id claim, events): once or twice", 4, 4, 0, 0))
    return rows


def _row(item: str, writes_before: int, writes_now: int, reads_before: int, reads_now: int) -> dict[str, Any]:
    over = writes_now > WCU_PER_ITEM or reads_now > RCU_PER_ITEM
    return {
        "name": item,
        "wcu_before": writes_before,
        "wcu_now": writes_now,
        "rcu_before": reads_before,
        "rcu_now": reads_now,
        "throttled": "yes" if over else "no",
    }

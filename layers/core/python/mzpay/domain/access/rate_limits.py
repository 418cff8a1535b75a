"""Per-tenant rate limits of the gateway (docs/access.md, "Rate limits"): requests per second per
API key and per account, counted in fixed one-second windows. Over either: 429 rate_limited with
Retry-After. Pure rules; the counters live in mzpay.store.rate_limits."""

from __future__ import annotations

import time
from dataclasses import dataclass

from mzpay.config import settings
from mzpay.domain.common.errors import ServiceError

DEFAULT_PER_KEY = 100  # requests per second, per API key
DEFAULT_PER_ACCOUNT = 200  # requests per second, per account (all its keys, both modes)
MAX_RATE = 10_000  # what an operator may set; API Gateway's stage throttle is the outer guard
RETRY_AFTER_SECONDS = 1  # a window is one second


@dataclass(frozen=True)
class RateLimits:
    per_key: int = DEFAULT_PER_KEY
    per_account: int = DEFAULT_PER_ACCOUNT

    def public(self) -> dict[str, int]:
        return {"per_key": self.per_key, "per_account": self.per_account}


def stack_defaults() -> RateLimits:
    """The stack's defaults (template parameters RateLimitPerKey, RateLimitPerAccount)."""
    current = settings()
    return RateLimits(
        current.rate_limit_per_key or DEFAULT_PER_KEY,
        current.rate_limit_per_account or DEFAULT_PER_ACCOUNT,
    )


SHARD_WRITES = 500  # requests a second one counter item admits at most (DynamoDB: 1,000 writes per item)


def shards(limits: RateLimits) -> int:
    """How many items a window's count is split over: one per SHARD_WRITES of the account's
    limit (1 up to 500 requests a second), so that no item takes more than SHARD_WRITES writes
    a second however busy the account."""
    return max(1, -(-limits.per_account // SHARD_WRITES))


def share(limit: int, count: int, index: int) -> int:
    """The part of `limit` shard `index` of `count` admits (the parts sum to `limit`)."""
    return limit // count + (1 if index < limit % count else 0)


def window(now: float) -> int:
    """The one-second window a request made at `now` (epoch seconds) counts in."""
    return int(now)


def rate_limited(which: str, limit: int) -> ServiceError:
    """429 for the limit `which` (key or account) that a request went over."""
    subject = "this API key" if which == "key" else "this account"
    return ServiceError(
        429,
        "rate_limited",
        f"Too many requests for {subject}: at most {limit} per second. Retry after {RETRY_AFTER_SECONDS} s.",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        rule=f"rate_per_{which}",
        limit=limit,
    )


# ---------------------------------------------------------------- uploads
# Files people upload (POST /v1/files, KYC documents, biller invoice PDFs, dispute and manual
# payment evidence, PSP documents and logos) are counted per owner (the account, or the PSP
# application) on top of the request rate: at most UPLOADS_PER_MINUTE uploads in a minute, and
# UPLOADS_PER_DAY uploads or UPLOAD_BYTES_PER_DAY bytes in a UTC day (docs/conventions.md).
UPLOADS_PER_MINUTE = 10
UPLOADS_PER_DAY = 200
UPLOAD_BYTES_PER_DAY = 256 * 1024 * 1024


@dataclass(frozen=True)
class UploadLimits:
    per_minute: int = UPLOADS_PER_MINUTE
    per_day: int = UPLOADS_PER_DAY
    bytes_per_day: int = UPLOAD_BYTES_PER_DAY


def upload_limits() -> UploadLimits:
    """The stack's upload limits (UPLOAD_LIMIT_PER_MINUTE, UPLOAD_LIMIT_PER_DAY,
    UPLOAD_BYTES_PER_DAY; the documented defaults when unset)."""
    current = settings()
    return UploadLimits(
        current.upload_limit_per_minute or UPLOADS_PER_MINUTE,
        current.upload_limit_per_day or UPLOADS_PER_DAY,
        current.upload_bytes_per_day or UPLOAD_BYTES_PER_DAY,
    )


def upload_day(now: float) -> tuple[str, int, int]:
    """The UTC day an upload at `now` counts in (YYYY-MM-DD), its minute of that day, and the
    seconds until the day ends."""
    seconds = int(now)
    start = seconds - seconds % 86_400
    day = time.strftime("%Y-%m-%d", time.gmtime(start))
    return day, (seconds - start) // 60, start + 86_400 - seconds


def upload_limited(rule: str, limits: UploadLimits, now: float) -> ServiceError:
    """429 rate_limited for the upload limit `rule` (uploads_per_minute, uploads_per_day,
    upload_bytes_per_day) an upload would pass; Retry-After says when it may pass."""
    _day, _minute, day_left = upload_day(now)
    limit, retry, words = {
        "uploads_per_minute": (limits.per_minute, 60 - int(now) % 60, f"{limits.per_minute} uploads a minute"),
        "uploads_per_day": (limits.per_day, day_left, f"{limits.per_day} uploads a day (UTC)"),
        "upload_bytes_per_day": (
            limits.bytes_per_day,
            day_left,
            f"{limits.bytes_per_day} bytes of uploads a day (UTC)",
        ),
    }[rule]
    return ServiceError(
        429,
        "rate_limited",
        f"Too many uploads for this account: at most {words}. Retry after {retry} s.",
        headers={"Retry-After": str(retry)},
        rule=rule,
        limit=limit,
    )

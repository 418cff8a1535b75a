"""Per-tenant rate limits of the gateway (docs/access.md, "Rate limits"): requests per second per
API key and per account, counted in fixed one-second windows. Over either: 429 rate_limited with
Retry-After. Pure rules; the counters live in mzpay.store.rate_limits."""

from __future__ import annotations

import os
from dataclasses import dataclass

from mzpay.domain.errors import ServiceError

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
    return RateLimits(
        int(os.environ.get("RATE_LIMIT_PER_KEY") or DEFAULT_PER_KEY),
        int(os.environ.get("RATE_LIMIT_PER_ACCOUNT") or DEFAULT_PER_ACCOUNT),
    )


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

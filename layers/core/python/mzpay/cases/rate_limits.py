"""Rate limits of the gateway: every authenticated request is counted against its API key and its
account before any route runs (one conditional write); over either, 429 rate_limited. Operators
override the stack's defaults per account on the management API."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from mzpay import deps
from mzpay.answers.limits import RateLimits as RateLimitsShown
from mzpay.domain.access.principal import Principal
from mzpay.domain.access.rate_limits import RateLimits, rate_limited, stack_defaults, window
from mzpay.domain.common.clock import iso
from mzpay.steps.accounts import home_account

OVERRIDE_CACHE_SECONDS = 10  # an operator's change reaches every execution environment within this
_overrides: dict[str, tuple[float, RateLimits | None]] = {}
deps.on_reset(_overrides.clear)


def limits_of(account_id: str, now: float) -> RateLimits:
    cached = _overrides.get(account_id)
    if cached is None or cached[0] <= now:
        if len(_overrides) > 10_000:
            _overrides.clear()
        cached = (now + OVERRIDE_CACHE_SECONDS, deps.rate_counters().read_override(account_id))
        _overrides[account_id] = cached
    return cached[1] or stack_defaults()


def enforce(principal: Principal | None) -> None:
    """Count the request of `principal` (None: not a merchant route, not counted); raise 429 over
    a limit. A fault of the counter store is the fault of every route's own store (the same
    table): it answers 503 + Retry-After at once, rather than let the route spend the rest of the
    function's time on the same fault and end in a gateway timeout."""
    if principal is None:
        return
    now = time.time()
    limits = limits_of(principal.account_id, now)
    over = deps.rate_counters().take(principal.account_id, principal.key_id, window(now), limits)
    if over is not None:
        raise rate_limited(over, limits.per_key if over == "key" else limits.per_account)


def set_rate_limits(account_id: str, limits: RateLimits) -> RateLimitsShown:
    """Operators: the account's own limits (replacing the stack's defaults for it)."""
    account = home_account(account_id)
    deps.rate_counters().write_override(account.account_id, limits, iso(datetime.now(UTC)))
    _overrides.pop(account.account_id, None)
    return RateLimitsShown.of({"account_id": account.account_id, **limits.public()})

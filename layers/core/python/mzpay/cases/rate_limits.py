"""Rate limits of the gateway: every authenticated request is counted against its API key and its
account before any route runs; over either, 429 rate_limited. Operators override the stack's
defaults per account on the management API.

Counting is leased (docs/access.md, "Rate limits"): an execution environment counts several of
its requests in the window's counter at once, with one conditional write, and admits them from its
lease without a round trip. A lease is as large as the requests the environment admitted for the
key in the previous window, at most a tenth of the smaller limit (MAX_LEASE at most): at low
rates and small limits every request is one write, exactly as before; a busy key pays one write
per lease. Conservative: every admitted request was counted before it was admitted, so no window
ever admits more than the limits; a lease left unspent at the window's end may refuse a request
of another environment a little early. A key refused in a window is refused again in it without
a write (its counts only grow until the window ends), so a flood over the limit costs no writes."""

from __future__ import annotations

import threading
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


LEASE_SHARE = 10  # a lease is at most 1/LEASE_SHARE of the smaller limit
MAX_LEASE = 50  # requests one write may count
_lock = threading.Lock()
_leases: dict[tuple[str, str], list[int]] = {}  # (account, key) -> [window, left in the lease, admitted in it]
_previous: dict[tuple[str, str], tuple[int, int]] = {}  # (account, key) -> (window, admitted in it)
_full: dict[tuple[str, str], tuple[int, str]] = {}  # (account, key) -> (window, the limit found full)
deps.on_reset(_leases.clear)
deps.on_reset(_previous.clear)
deps.on_reset(_full.clear)


def _spend(holder: tuple[str, str], second: int) -> bool:
    """Admit one request from this environment's lease of `second` (False: none left)."""
    with _lock:
        lease = _leases.get(holder)
        if lease is None or lease[0] != second or lease[1] <= 0:
            return False
        lease[1] -= 1
        lease[2] += 1
        return True


def _lease_size(holder: tuple[str, str], second: int, limits: RateLimits) -> int:
    """How many requests to count at once: what this environment admitted for the key in the
    previous window (1 when nothing), at most the cap of `limits`."""
    cap = max(1, min(MAX_LEASE, min(limits.per_key, limits.per_account) // LEASE_SHARE))
    with _lock:
        lease = _leases.get(holder)
        if lease is not None and lease[0] != second:  # the lease's window ended: remember its rate
            _previous[holder] = (lease[0], lease[2])
        window_before, admitted = _previous.get(holder, (0, 0))
    return max(1, min(cap, admitted if window_before == second - 1 else 1))


def _keep(holder: tuple[str, str], second: int, granted: int) -> None:
    """A lease of `granted` counted requests in `second`, one of them admitted now."""
    with _lock:
        if len(_leases) > 10_000:
            _leases.clear()
            _previous.clear()
        lease = _leases.get(holder)
        if lease is None or lease[0] != second:
            _leases[holder] = [second, granted - 1, 1]
        else:
            lease[1] += granted - 1
            lease[2] += 1


def enforce(principal: Principal | None) -> None:
    """Count the request of `principal` (None: not a merchant route, not counted); raise 429 over
    a limit. A fault of the counter store is the fault of every route's own store (the same
    table): it answers 503 + Retry-After at once, rather than let the route spend the rest of the
    function's time on the same fault and end in a gateway timeout."""
    if principal is None:
        return
    now = time.time()
    holder, second = (principal.account_id, principal.key_id), window(now)
    if _spend(holder, second):
        return
    limits = limits_of(principal.account_id, now)
    full = _full.get(holder)
    if full is not None and full[0] == second:  # found full in this window: counts only grow in it
        raise rate_limited(full[1], limits.per_key if full[1] == "key" else limits.per_account)
    wanted = _lease_size(holder, second, limits)
    counters = deps.rate_counters()
    if wanted == 1:  # one request, counted alone
        granted, over = 1, counters.take(principal.account_id, principal.key_id, second, limits)
    else:
        granted, over = counters.lease(principal.account_id, principal.key_id, second, limits, wanted)
    if over is not None:
        with _lock:
            if len(_full) > 10_000:
                _full.clear()
            _full[holder] = (second, over)
        raise rate_limited(over, limits.per_key if over == "key" else limits.per_account)
    _keep(holder, second, granted)


def set_rate_limits(account_id: str, limits: RateLimits) -> RateLimitsShown:
    """Operators: the account's own limits (replacing the stack's defaults for it)."""
    account = home_account(account_id)
    deps.rate_counters().write_override(account.account_id, limits, iso(datetime.now(UTC)))
    _overrides.pop(account.account_id, None)
    return RateLimitsShown.of({"account_id": account.account_id, **limits.public()})

"""The rate-limit rules: defaults from the stack, the window, the 429 they answer."""

from __future__ import annotations

import pytest

from mzpay import config
from mzpay.domain.access import rate_limits


def test_stack_defaults_come_from_the_template_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RATE_LIMIT_PER_KEY", raising=False)
    monkeypatch.delenv("RATE_LIMIT_PER_ACCOUNT", raising=False)
    assert rate_limits.stack_defaults() == rate_limits.RateLimits(100, 200)
    monkeypatch.setenv("RATE_LIMIT_PER_KEY", "7")
    monkeypatch.setenv("RATE_LIMIT_PER_ACCOUNT", "9")
    config.reload()  # the settings are read once per execution environment
    assert rate_limits.stack_defaults().public() == {"per_key": 7, "per_account": 9}


def test_a_window_is_one_second() -> None:
    assert rate_limits.window(1_900_000_000.0) == rate_limits.window(1_900_000_000.999) == 1_900_000_000
    assert rate_limits.window(1_900_000_001.0) == 1_900_000_001


@pytest.mark.parametrize(("which", "rule"), [("key", "rate_per_key"), ("account", "rate_per_account")])
def test_over_a_limit_is_429_rate_limited_naming_it(which: str, rule: str) -> None:
    refusal = rate_limits.rate_limited(which, 5)
    assert (refusal.status, refusal.code, refusal.headers) == (429, "rate_limited", {"Retry-After": "1"})
    assert refusal.extensions == {"rule": rule, "limit": 5}
    assert "at most 5 per second" in refusal.message

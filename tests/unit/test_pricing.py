"""The service's fee (mzpay.domain.payments.pricing): the arithmetic of one rule, proved for every
amount by a property test, and the operators' schedule bodies (bounded, no negative, percent at
most 100, minimum at most maximum, one rule per method and currency)."""

from __future__ import annotations

import typing
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from mzpay.answers.pricing import FeeRule as ShownRule
from mzpay.domain.money.amounts import quantize
from mzpay.domain.payments import pricing
from mzpay.domain.payments.manual import MANUAL
from mzpay.domain.payments.pricing import FeeRule, service_fee
from mzpay.http.account_schemas import FeeRuleIn, FeeScheduleIn


def rule(percent: str, fixed: str = "0", minimum: str = "0", maximum: str | None = None) -> FeeRule:
    top = Decimal(maximum) if maximum is not None else None
    return FeeRule("mpesa", "MZN", Decimal(percent), Decimal(fixed), Decimal(minimum), top)


@pytest.mark.parametrize(
    ("fee_rule", "amount", "provider_fee", "fee"),
    [
        (rule("1.5"), "150.00", "0", "2.25"),
        (rule("1.5", "1.00"), "150.00", "0", "3.25"),
        (rule("2.9", "5.00", maximum="6.00"), "150.00", "0", "6.00"),  # clamped to the maximum
        (rule("1", minimum="2.00"), "10.00", "0", "2.00"),  # raised to the minimum
        (rule("1", minimum="20.00"), "10.00", "0", "10.00"),  # never more than the amount
        (rule("1", minimum="20.00"), "10.00", "3.00", "7.00"),  # nor than the provider left
        (rule("0.5"), "10.50", "0", "0.05"),  # 0.0525 -> 0.05
        (rule("0.5"), "10.10", "0", "0.05"),  # 0.0505 -> 0.05
        (rule("0.5"), "5.00", "0", "0.02"),  # 0.025: half to even -> 0.02
        (rule("0.5"), "7.00", "0", "0.04"),  # 0.035: half to even -> 0.04
        (rule("100"), "99.99", "0", "99.99"),
        (None, "150.00", "0", "0.00"),  # no rule: no fee
    ],
)
def test_the_fee_of_a_capture(fee_rule: FeeRule | None, amount: str, provider_fee: str, fee: str) -> None:
    assert f"{service_fee(fee_rule, Decimal(amount), 'MZN', Decimal(provider_fee)):f}" == fee


cents = st.decimals(min_value=0, max_value=10_000_000, places=2, allow_nan=False, allow_infinity=False)
percents = st.decimals(min_value=0, max_value=100, places=4, allow_nan=False, allow_infinity=False)


@st.composite
def rules(draw: st.DrawFn) -> FeeRule:
    low, high = sorted((draw(cents), draw(cents)))
    maximum = draw(st.one_of(st.none(), st.just(high)))
    return FeeRule(draw(st.sampled_from(pricing.PRICED_METHODS)), "MZN", draw(percents), draw(cents), low, maximum)


@settings(max_examples=300, deadline=None, derandomize=True)  # repeatable; a busy machine never fails it
@given(rules(), cents, cents)
def test_a_fee_is_a_cent_amount_within_its_bounds_and_never_above_what_the_merchant_got(
    fee_rule: FeeRule, amount: Decimal, provider_fee: Decimal
) -> None:
    provider_fee = min(provider_fee, amount)
    fee = service_fee(fee_rule, amount, "MZN", provider_fee)
    assert fee == quantize(fee, "MZN") and fee.as_tuple().exponent == -2  # rounded to the centavo
    assert Decimal(0) <= fee <= amount - provider_fee  # never negative, never above what is left
    exact = amount * fee_rule.percent / 100 + fee_rule.fixed
    clamped = max(exact, fee_rule.minimum)
    if fee_rule.maximum is not None:
        clamped = min(clamped, fee_rule.maximum)
    # the clamped fee rounded half-even, unless the amount itself caps it
    assert fee == min(quantize(clamped, "MZN"), amount - provider_fee)
    if fee_rule.maximum is not None:
        assert fee <= fee_rule.maximum
    if fee < amount - provider_fee:
        assert fee >= fee_rule.minimum


def test_the_default_schedule_charges_nothing() -> None:
    assert pricing.DEFAULT_SCHEDULE.updated_at is None
    assert pricing.DEFAULT_SCHEDULE.rule_for("mpesa", "MZN") is None


def test_the_priced_methods_are_the_gateways_networks_methods_and_manual_payments() -> None:
    assert pricing.PRICED_METHODS == (
        "mpesa",
        "emola",
        "mkesh",
        "card",
        "bank_transfer",
        "reference",
        "ussd",
        "qr",
        "bnpl",
        MANUAL,
    )
    assert typing.get_args(pricing.PricedMethod) == pricing.PRICED_METHODS
    typed = (FeeRuleIn.model_fields["method"].annotation, ShownRule.model_fields["method"].annotation)
    assert typed == (pricing.PricedMethod, pricing.PricedMethod)


def test_a_rule_round_trips_through_its_public_form() -> None:
    kept = rule("1.5", "0.50", "1.00", "500.00")
    assert FeeRule.from_public(kept.public()) == kept
    assert FeeRule.from_public(rule("2").public()).maximum is None


GOOD = {"method": "mpesa", "currency": "MZN", "percent": "1.5", "fixed": "0.00", "minimum": "1.00", "maximum": "9.00"}


def refusal(body: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    with pytest.raises(ValidationError) as refused:
        FeeScheduleIn.model_validate(body)
    return [(error["loc"], error["type"]) for error in refused.value.errors()]


@pytest.mark.parametrize(
    ("change", "field", "kind"),
    [
        ({"percent": "100.01"}, "percent", "invalid_value"),
        ({"percent": "-1"}, "percent", "string_pattern_mismatch"),
        ({"fixed": "-0.01"}, "fixed", "string_pattern_mismatch"),
        ({"fixed": "1e3"}, "fixed", "string_pattern_mismatch"),
        ({"fixed": "0.001"}, "fixed", "string_pattern_mismatch"),
        ({"minimum": "9.01"}, "maximum", "invalid_value"),
        ({"maximum": "1" * 17}, "maximum", "string_too_long"),
        ({"method": "mobile_wallet"}, "method", "literal_error"),
        ({"currency": "mzn"}, "currency", "string_pattern_mismatch"),
        ({"percent": 1.5}, "percent", "string_type"),
        ({"surprise": "x"}, "surprise", "extra_forbidden"),
    ],
)
def test_a_bad_rule_is_refused_naming_its_field(change: dict[str, Any], field: str, kind: str) -> None:
    assert refusal({"fees": [GOOD | change]}) == [(("fees", 0, field), kind)]


def test_a_schedule_has_one_rule_per_method_and_currency_and_a_bounded_length() -> None:
    assert refusal({"fees": [GOOD, GOOD | {"percent": "2"}]}) == [(("fees",), "invalid_value")]
    assert FeeScheduleIn.model_validate({"fees": [GOOD, GOOD | {"currency": "USD"}]}).rules()[1].currency == "USD"
    many = [GOOD | {"currency": f"A{chr(65 + i // 26)}{chr(65 + i % 26)}"} for i in range(pricing.MAX_RULES + 1)]
    assert refusal({"fees": many}) == [(("fees",), "too_long")]


def test_a_good_schedule_becomes_its_rules() -> None:
    body = FeeScheduleIn.model_validate(
        {"fees": [GOOD, {"method": "card", "currency": "USD", "percent": "2.9", "fixed": "0.30"}]}
    )
    assert body.rules() == (
        FeeRule("mpesa", "MZN", Decimal("1.5"), Decimal("0.00"), Decimal("1.00"), Decimal("9.00")),
        FeeRule("card", "USD", Decimal("2.9"), Decimal("0.30"), Decimal("0.00"), None),
    )

"""Routing rules of the capability matrix (pure)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.routing import CAPABILITY_MATRIX, Psp, choose, eligible

REJECTION = "01JREJECTION0000000000000A"
CRYPTO_SIMULATED = Psp(
    "sim-crypto",
    "Simulated crypto",
    frozenset({"test"}),
    {"crypto": frozenset()},
    frozenset({"MZN"}),
    frozenset({"MZ"}),
)


def refused(*args: object, matrix: tuple[Psp, ...] = CAPABILITY_MATRIX) -> ServiceError:
    with pytest.raises(ServiceError) as raised:
        eligible(*args, rejection_id=REJECTION, matrix=matrix)  # type: ignore[arg-type]
    return raised.value


def test_test_mode_routes_every_method_to_the_simulator() -> None:
    assert [p.psp_id for p in eligible("mobile_wallet", "emola", "MZN", "MZ", Decimal("10"), "test", REJECTION)] == [
        "simulator"
    ]
    assert [p.psp_id for p in eligible("card", None, "USD", "MZ", Decimal("10"), "test", REJECTION)] == ["simulator"]


def test_live_mode_routes_a_network_to_its_operator() -> None:
    assert [p.psp_id for p in eligible("mobile_wallet", "mpesa", "MZN", "MZ", Decimal("10"), "live", REJECTION)] == [
        "vodacom-mpesa"
    ]


@pytest.mark.parametrize(
    ("args", "code", "rule", "message"),
    [
        (
            ("mobile_wallet", "mpesa", "USD", "MZ", Decimal("10"), "live"),
            "not_supported",
            "currency",
            "No PSP carries mobile_wallet in USD.",
        ),
        (
            ("card", None, "MZN", "ZA", Decimal("100"), "test"),
            "not_supported",
            "country",
            "No PSP carries card for country ZA.",
        ),
        (
            ("card", None, "USD", "MZ", Decimal("5000.01"), "live"),
            "limit_exceeded",
            "routing_max",
            "The routing maximum for this charge is 5000.00 USD.",
        ),
        (
            ("card", None, "MZN", "MZ", Decimal("5.00"), "live"),
            "limit_exceeded",
            "routing_min",
            "The routing minimum for this charge is 10.00 MZN.",
        ),
        (
            ("mobile_wallet", "mkesh", "MZN", "MZ", Decimal("50000.01"), "live"),
            "limit_exceeded",
            "routing_max",
            "The routing maximum for this charge is 50000.00 MZN.",
        ),
    ],
)
def test_refusals_name_their_rule_and_rejection(args: tuple[object, ...], code: str, rule: str, message: str) -> None:
    error = refused(*args)
    assert (error.status, error.code, error.message, error.extensions) == (
        422,
        code,
        message,
        {"rule": rule, "rejection_id": REJECTION},
    )


def test_a_simulated_method_on_a_live_request_is_method_not_live() -> None:
    for method in ("bnpl", "reference", "ussd", "qr", "bank_transfer"):  # the simulator carries them, no live PSP
        error = refused(method, None, "MZN", "MZ", Decimal("1000"), "live")
        assert (error.code, error.extensions["rule"]) == ("not_supported", "method_not_live")
    matrix = (*CAPABILITY_MATRIX, CRYPTO_SIMULATED)
    assert refused("crypto", None, "MZN", "MZ", Decimal("10"), "live", matrix=matrix).extensions["rule"] == (
        "method_not_live"
    )
    assert refused("crypto", None, "MZN", "MZ", Decimal("10"), "live").extensions["rule"] == "method"
    assert [p.psp_id for p in eligible("crypto", None, "MZN", "MZ", Decimal("10"), "test", REJECTION, matrix)] == [
        "sim-crypto"
    ]


def test_no_available_candidate_is_no_route_with_retry_after() -> None:
    candidates = eligible("card", None, "MZN", "MZ", Decimal("100"), "live", REJECTION)
    assert choose(candidates, set(), REJECTION).psp_id == "bci-cards"
    with pytest.raises(ServiceError) as raised:
        choose(candidates, {"bci-cards"}, REJECTION)
    error = raised.value
    assert (error.status, error.code, error.headers, error.extensions) == (
        503,
        "no_route",
        {"Retry-After": "30"},
        {"rule": "availability", "rejection_id": REJECTION},
    )

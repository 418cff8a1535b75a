"""Money stays a Decimal from the wire to the wire, never a float."""

from __future__ import annotations

from decimal import Decimal

import pytest

from mzpay.domain.money.amounts import (
    InvalidAmount,
    collection_money,
    format_amount,
    is_currency_code,
    minor_units,
    parse_amount,
    parse_number,
)


def exact(value: object) -> tuple[type, str]:
    """Type and digits: Decimal('150.00') == Decimal('150'), so equality alone hides the scale."""
    return type(value), str(value)


# ---------------------------------------------------------------- parse_amount


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        ("150.00", "150.00"),
        ("0", "0"),
        ("0.5", "0.5"),
        ("0.00", "0.00"),
        ("1", "1"),
        ("999999999999999.99", "999999999999999.99"),
    ],
)
def test_parse_amount_accepts_plain_decimal_strings_exactly_as_written(text: str, digits: str) -> None:
    assert exact(parse_amount(text)) == (Decimal, digits)


@pytest.mark.parametrize(("text", "digits"), [("150.00", "150.00"), ("150.5", "150.5"), ("7", "7")])
def test_parse_amount_accepts_up_to_the_currency_fraction_digits(text: str, digits: str) -> None:
    assert exact(parse_amount(text, "MZN")) == (Decimal, digits)


def test_parse_amount_without_currency_accepts_up_to_four_fraction_digits() -> None:
    assert exact(parse_amount("1.0001")) == (Decimal, "1.0001")


@pytest.mark.parametrize(
    "value",
    [
        150.0,
        150,
        True,
        None,
        Decimal("150.00"),
        b"150.00",
        "1e3",
        "1E3",
        "-1.00",
        "+1.00",
        " 1.00",
        "1.00 ",
        "",
        " ",
        "01.00",
        "00",
        ".5",
        "1.",
        "1,00",
        "1 000.00",
        "NaN",
        "Infinity",
        "1.00001",
        "1000000000000000",
        "\u0661\u0665\u0660",  # Arabic-Indic digits 150: Decimal() would take them
    ],
)
def test_parse_amount_refuses_anything_but_a_plain_non_negative_decimal_string(value: object) -> None:
    with pytest.raises(InvalidAmount):
        parse_amount(value)


@pytest.mark.parametrize("text", ["150.00\n", "1\n"])
def test_parse_amount_refuses_a_trailing_newline(text: str) -> None:
    """'$' in a Python regex also matches before a final newline; an amount must arrive exactly as written."""
    with pytest.raises(InvalidAmount):
        parse_amount(text)


@pytest.mark.parametrize(("text", "currency"), [("1.001", "MZN"), ("0.125", "USD"), ("1.0000", "ZAR")])
def test_parse_amount_refuses_more_fraction_digits_than_the_currency_has(text: str, currency: str) -> None:
    with pytest.raises(InvalidAmount, match=f"{currency} amounts have at most 2 fraction digits"):
        parse_amount(text, currency)


def test_invalid_amount_is_a_value_error() -> None:
    assert issubclass(InvalidAmount, ValueError)


# ---------------------------------------------------------------- minor units, formatting


def test_minor_units_are_two_for_known_and_unknown_currencies() -> None:
    assert [minor_units(code) for code in ("MZN", "USD", "ZAR", "EUR", "XYZ")] == [2, 2, 2, 2, 2]


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        (Decimal("2.345"), "2.34"),
        (Decimal("2.355"), "2.36"),
        (Decimal("2.3450001"), "2.35"),
        (Decimal("0.005"), "0.00"),
        (Decimal("0.015"), "0.02"),
        (Decimal("5"), "5.00"),
        (Decimal("150.5"), "150.50"),
        (Decimal("0"), "0.00"),
        (Decimal("1E+3"), "1000.00"),
        (Decimal("150.00"), "150.00"),
    ],
)
def test_format_amount_writes_the_currency_digits_with_bankers_rounding(amount: Decimal, text: str) -> None:
    assert format_amount(amount, "MZN") == text


def test_format_amount_refuses_an_amount_beyond_decimal_precision() -> None:
    with pytest.raises(InvalidAmount):
        format_amount(Decimal("1E+30"), "MZN")


def test_parsed_amount_round_trips_through_format_amount() -> None:
    assert format_amount(parse_amount("150.5", "MZN"), "MZN") == "150.50"


# ---------------------------------------------------------------- collection money


def test_collection_money_is_currency_and_a_quantized_decimal_value() -> None:
    money = collection_money(Decimal("150"), "MZN")
    assert money == {"currency": "MZN", "value": Decimal("150.00")}
    assert exact(money["value"]) == (Decimal, "150.00")


def test_collection_money_rounds_half_to_even() -> None:
    money = collection_money(Decimal("2.345"), "USD")
    assert money == {"currency": "USD", "value": Decimal("2.34")}
    assert exact(money["value"]) == (Decimal, "2.34")


# ---------------------------------------------------------------- parse_number


@pytest.mark.parametrize(
    ("value", "digits"),
    [
        (Decimal("12.50"), "12.50"),
        (Decimal("0"), "0"),
        (Decimal("0.1"), "0.1"),
        (12, "12"),
        (0, "0"),
        (10**20, "100000000000000000000"),
    ],
)
def test_parse_number_accepts_decimals_and_ints(value: object, digits: str) -> None:
    assert exact(parse_number(value)) == (Decimal, digits)


def test_parse_number_keeps_the_same_decimal() -> None:
    value = Decimal("12.50")
    assert parse_number(value) is value


@pytest.mark.parametrize(
    "value",
    [
        True,
        False,
        12.5,
        0.0,
        -1,
        Decimal("-0.01"),
        Decimal("-0"),
        Decimal("NaN"),
        Decimal("sNaN"),
        Decimal("Infinity"),
        Decimal("-Infinity"),
        "12.50",
        "12",
        None,
        [12],
    ],
)
def test_parse_number_refuses_bool_float_negative_non_finite_and_non_numbers(value: object) -> None:
    with pytest.raises(InvalidAmount):
        parse_number(value)


# ---------------------------------------------------------------- currency codes


@pytest.mark.parametrize("code", ["MZN", "USD", "ZAR", "EUR", "XYZ"])
def test_is_currency_code_accepts_three_upper_case_letters(code: str) -> None:
    assert is_currency_code(code) is True


@pytest.mark.parametrize("value", ["mzn", "Mzn", "MZ", "MZNN", "MZ1", "", " MZN", "MZN ", "MZN\n", None, 123, b"MZN"])
def test_is_currency_code_refuses_anything_else(value: object) -> None:
    assert is_currency_code(value) is False

"""Mozambican NIBs: 21 digits, ISO 7064 MOD 97-10 check digits, separators ignored."""

from __future__ import annotations

import pytest
from stdnum import iban

from mzpay.domain.common import nib

# The NIB of the IBAN registry's example for Mozambique (MZ59 0003 0108 0016 3671 0237 1).
REGISTRY_EXAMPLE = "000301080016367102371"


def made(first19: str) -> str:
    return first19 + nib.check_digits(first19)


def test_the_registry_example_is_valid() -> None:
    assert nib.is_valid(REGISTRY_EXAMPLE)


@pytest.mark.parametrize(
    "written",
    [
        "0003 0108 0016 3671 0237 1",
        "0003.0108.0016.3671.0237.1",
        "0003-0108-00163671023-71",
        " 000301080016367102371 ",
        "0003 0108\t0016 3671 0237 1",
    ],
)
def test_spaces_dots_and_dashes_are_ignored(written: str) -> None:
    assert nib.normalize(written) == REGISTRY_EXAMPLE
    assert nib.is_valid(written)


def test_check_digits_make_a_valid_nib() -> None:
    assert nib.check_digits("0001000000000002800") == "02"
    assert nib.is_valid("0001 0000 0000 0002 8000 2")
    for body in ("0001000001234567890", "0008000012345678901", "9999999999999999999", "0000000000000000000"):
        number = made(body)
        assert len(number) == 21
        assert nib.is_valid(number)


def test_a_wrong_check_digit_is_invalid() -> None:
    number = made("0001000001234567890")
    for wrong in {f"{(int(number[-2:]) + delta) % 100:02d}" for delta in (1, 2, 10, 50)}:
        assert not nib.is_valid(number[:-2] + wrong)


def test_two_swapped_digits_are_invalid() -> None:
    assert not nib.is_valid("000310080016367102371")


@pytest.mark.parametrize(
    "text",
    [
        "00030108001636710237",  # 20 digits
        "0003010800163671023710",  # 22 digits, a valid body with a digit added
        "",
        "   ",
    ],
)
def test_a_wrong_length_is_invalid(text: str) -> None:
    assert not nib.is_valid(text)


@pytest.mark.parametrize(
    "text",
    [
        "00030108001636710237A",
        "MZ5900030108001636710",
        "0003 0108 0016 3671 0237 l",
        "000301080016367102371".replace("1", "\u0661"),  # Arabic-Indic digits are not digits of a NIB
        "0003/0108/0016/3671/0237/1",
    ],
)
def test_letters_and_other_characters_are_invalid(text: str) -> None:
    assert not nib.is_valid(text)


def test_check_digits_needs_nineteen_digits() -> None:
    with pytest.raises(ValueError, match="19 digits"):
        nib.check_digits("000100000123456789")
    with pytest.raises(ValueError, match="19 digits"):
        nib.check_digits("000100000123456789X")


def test_the_iban_of_a_nib_is_mz59_and_the_nib() -> None:
    assert nib.to_iban("0003 0108 0016 3671 0237 1") == "MZ59000301080016367102371"
    for body in ("0001000001234567890", "0008000012345678901", "1234567890123456789"):
        number = made(body)
        # checked against stdnum's own IBAN check-digit computation
        assert nib.to_iban(number) == "MZ" + iban.calc_check_digits("MZ00" + number) + number


def test_the_iban_of_an_invalid_nib_is_refused() -> None:
    with pytest.raises(ValueError, match="not a valid NIB"):
        nib.to_iban("000301080016367102372")

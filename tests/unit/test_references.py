"""Payment references: MOD 97-10 over entity, reference and amount."""

from __future__ import annotations

from decimal import Decimal

import pytest

from mzpay.domain.payments.references import payment_reference, reference_valid


def test_a_reference_is_valid_for_its_entity_and_amount_only() -> None:
    reference = payment_reference("21000", 123456789, Decimal("150.00"))
    assert len(reference) == 11 and reference.isdigit() and reference.startswith("123456789")
    assert reference_valid("21000", reference, Decimal("150.00"))
    assert not reference_valid("21000", reference, Decimal("150.01"))
    assert not reference_valid("21001", reference, Decimal("150.00"))


def test_every_single_digit_typo_is_caught() -> None:
    reference = payment_reference("21000", 42, Decimal("99.90"))
    for index in range(11):
        for digit in "0123456789":
            if digit != reference[index]:
                typo = reference[:index] + digit + reference[index + 1 :]
                assert not reference_valid("21000", typo, Decimal("99.90")), typo


def test_the_body_is_nine_digits_of_the_seed_and_deterministic() -> None:
    assert payment_reference("21000", 10**12 + 7, Decimal("1.00"))[:9] == "000000007"
    assert payment_reference("21000", 7, Decimal("1.00")) == payment_reference("21000", 7, Decimal("1.00"))


@pytest.mark.parametrize("reference", ["", "1234567890", "123456789012", "12345678a01"])
def test_malformed_references_are_invalid(reference: str) -> None:
    assert not reference_valid("21000", reference, Decimal("1.00"))


def test_an_entity_has_five_digits() -> None:
    with pytest.raises(ValueError):
        payment_reference("2100", 1, Decimal("1.00"))

"""Bank references of collection requests: 11 digits (a 9-digit body and MOD 97-10 check digits
over the entity, the body and the amount), and the reference numbers free text may carry."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from mzpay.domain.collection.bank_references import (
    INTERBANK_ENTITY,
    PREFIX,
    candidates,
    derived_body,
    oldest_open,
    pays,
    reference_fits,
    reference_number,
    written,
)
from mzpay.domain.collection.requests import CollectionRequest, RequestStatus
from mzpay.domain.payments.references import payment_reference
from tests.unit.test_payer_reads import request

ENTITY = "54321"
REFERENCE = reference_number(ENTITY, 123456789, Decimal("1500.00"))


def test_a_reference_is_the_gateway_scheme_over_the_entity_body_and_amount() -> None:
    assert payment_reference(ENTITY, 123456789, Decimal("1500.00")) == REFERENCE
    assert REFERENCE[:9] == "123456789"
    assert len(REFERENCE) == 11 and REFERENCE.isdigit()


def test_an_amount_bound_reference_fits_its_entity_and_amount_only() -> None:
    assert reference_fits(ENTITY, REFERENCE, Decimal("1500.00"))
    assert reference_fits(ENTITY, REFERENCE, Decimal("1500"))
    assert not reference_fits(ENTITY, REFERENCE, Decimal("1500.01"))
    assert not reference_fits("54322", REFERENCE, Decimal("1500.00"))
    assert not reference_fits(ENTITY, REFERENCE, None)


def test_a_reference_bound_to_no_amount_fits_none_given() -> None:
    free = reference_number(ENTITY, 77, None)
    assert reference_fits(ENTITY, free, None)
    assert not reference_fits(ENTITY, free, Decimal("0.01"))


def test_an_interbank_only_reference_uses_the_fixed_entity() -> None:
    interbank = reference_number(None, 5, Decimal("99.90"))
    assert interbank == payment_reference(INTERBANK_ENTITY, 5, Decimal("99.90"))
    assert reference_fits(None, interbank, Decimal("99.90"))
    assert not reference_fits(ENTITY, interbank, Decimal("99.90"))


@pytest.mark.parametrize("bad", ["", "1234567890", "123456789012", "1234567890a", "١٢٣٤٥٦٧٨٩٠١"])
def test_anything_but_eleven_ascii_digits_fits_nothing(bad: str) -> None:
    assert not reference_fits(ENTITY, bad, Decimal("1500.00"))


@pytest.mark.parametrize("entity", ["1234", "123456", "abcde"])
def test_an_entity_that_is_not_five_digits_fits_nothing(entity: str) -> None:
    assert not reference_fits(entity, REFERENCE, Decimal("1500.00"))


def test_a_body_is_derived_the_same_way_each_time_and_moves_on_a_collision() -> None:
    assert derived_body("cr_01J", 0) == derived_body("cr_01J", 0)
    assert derived_body("cr_01J", 0) != derived_body("cr_01J", 1)
    assert 0 <= derived_body("anything", 7) < 10**9


def test_an_interbank_payer_writes_the_prefix_and_the_reference() -> None:
    assert written("12345678901") == PREFIX + "12345678901"


@pytest.mark.parametrize(
    "text",
    [
        "12345678901",
        "MZP12345678901",
        "mzp12345678901",
        "MzP 123 456 789 01",
        "MZP-123.456.789-01",
        "MZP. 123456789-01",
        "Pagamento factura 123.456.789.01",
        "TRF 123 456 789 01 LOJA",
        "fatura n 12345678901 de outubro",
        "ref:12345678901/2026",
        "INV12345678901X",
    ],
)
def test_a_mangled_reference_is_found(text: str) -> None:
    assert candidates(text)[0] == "12345678901"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "pagamento de outubro",
        "1234567890",  # 10 digits
        "123456789012",  # 12 digits
        "tel 841234567 / 258841234567",
        "NIB 0003 0108 0016 3671 0237 1",  # a NIB: 21 digits in groups that make no 11
        "MZP1234567890",  # the prefix, but 10 digits
        "29-11-2026",
    ],
)
def test_noise_gives_no_candidate(text: str) -> None:
    assert candidates(text) == []


def test_the_prefixed_number_comes_first() -> None:
    assert candidates("98765432101 MZP12345678901") == ["12345678901", "98765432101"]


def test_the_prefix_marks_the_first_eleven_digits_even_glued_to_more() -> None:
    assert candidates("MZP 12345678901 2026")[0] == "12345678901"
    assert candidates("MZP123456789012") == ["12345678901"]


def test_a_number_written_whole_comes_before_one_written_in_groups() -> None:
    assert candidates("123 45678901 e 98765432101") == ["98765432101", "12345678901"]


def test_a_date_before_the_reference_does_not_hide_it() -> None:
    assert candidates("2026-11-29 12345678901") == ["12345678901"]


def test_a_long_text_is_read_to_a_bound_and_gives_few_candidates() -> None:
    many = " ".join(str(10**10 + n) for n in range(500))
    found = candidates(many)
    assert 0 < len(found) <= 20
    assert candidates("x" * 5000 + "12345678901") == []


def carrying(reference: str, bound: Decimal | None, **changes: Any) -> CollectionRequest:
    return request(reference_number=reference, reference_entity=ENTITY, reference_amount=bound, **changes)


def test_an_amount_bound_reference_takes_its_exact_amount_only() -> None:
    bound = carrying(REFERENCE, Decimal("1500.00"))
    assert pays(bound, REFERENCE, Decimal("1500"))
    assert not pays(bound, REFERENCE, Decimal("1499.99"))
    assert not pays(bound, reference_number(ENTITY, 1, Decimal("1500.00")), Decimal("1500"))


def test_a_reference_bound_to_no_amount_takes_any_part() -> None:
    free = reference_number(ENTITY, 99, None)
    assert pays(carrying(free, None, allow_installments=True), free, Decimal("10.00"))


def test_a_payment_under_a_standing_reference_goes_to_the_oldest_open_request() -> None:
    paid = carrying(REFERENCE, Decimal("1500"), request_id="cr_1", status=RequestStatus.PAID)
    older = carrying(REFERENCE, Decimal("1500"), request_id="cr_2", status=RequestStatus.PARTIALLY_PAID)
    newer = carrying(REFERENCE, Decimal("1500"), request_id="cr_3")
    assert oldest_open([paid, older, newer]) is older
    assert oldest_open([paid, carrying(REFERENCE, None, status=RequestStatus.CANCELLED)]) is None

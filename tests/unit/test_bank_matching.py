"""Matching a bank statement line (docs/bank-statements.md, "Matching"): the references a line's
text carries however mangled (bank_references.candidates, as a statement writes them), which of
the requests found the line pays (bank_lines.narrowed: one; two references are ambiguous; a
standing reference pays its oldest open bill), an amount-bound reference paid its amount only, and
what of a line's amount a request cannot take (recorded.overpaid)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from mzpay.domain.collection import recorded
from mzpay.domain.collection.bank_lines import Named, narrowed
from mzpay.domain.collection.bank_references import candidates, pays, reference_number
from mzpay.domain.collection.requests import CollectionRequest
from tests.unit.test_payer_reads import request

NUMBER = reference_number("11223", 123456789, Decimal("1500.50"))


def bill(request_id: str, number: str = NUMBER, **changes: Any) -> CollectionRequest:
    return request(request_id=request_id, reference_number=number, **changes)


@pytest.mark.parametrize(
    "text",
    [
        f"PAG FACTURA {NUMBER}",
        f"TRF MZP{NUMBER} RITA",
        f"trf mzp {NUMBER[:3]} {NUMBER[3:6]} {NUMBER[6:]}",
        f"REF {NUMBER[:3]}.{NUMBER[3:6]}.{NUMBER[6:9]}-{NUMBER[9:]}",
        f"Mzp-{NUMBER}",
    ],
    ids=["whole", "prefix", "spaces", "dots-dashes", "case-dash"],
)
def test_a_mangled_reference_is_read_from_a_lines_text(text: str) -> None:
    assert NUMBER in candidates(text)


def test_a_line_pays_the_one_request_found_and_two_references_are_ambiguous() -> None:
    one = Named(bill("cr_A"), NUMBER)
    assert narrowed({NUMBER: [one]}) == [one]
    assert narrowed({}) == []
    other_number = reference_number("11223", 223456789, Decimal("1500.50"))
    other = Named(bill("cr_B", other_number), other_number)
    assert narrowed({NUMBER: [one], other_number: [other]}) == [one, other]


def test_a_standing_reference_pays_its_oldest_open_bill() -> None:
    january = Named(bill("cr_JAN", status="paid"), NUMBER)
    february, march = Named(bill("cr_FEB"), NUMBER), Named(bill("cr_MAR"), NUMBER)
    assert narrowed({NUMBER: [january, february, march]}) == [february]
    closed = Named(bill("cr_DEC", status="cancelled"), NUMBER)
    assert narrowed({NUMBER: [closed, january]}) == [closed, january]  # all closed: the business decides


def test_an_amount_bound_reference_takes_its_amount_only() -> None:
    bound = bill("cr_A", reference_entity="11223", reference_amount=Decimal("1500.50"))
    assert pays(bound, NUMBER, Decimal("1500.50"))
    assert not pays(bound, NUMBER, Decimal("1600.50")) and not pays(bound, NUMBER, Decimal("100"))


@pytest.mark.parametrize(
    ("changes", "amount", "over"),
    [
        ({}, "1500.50", Decimal(0)),
        ({}, "1600.50", Decimal(100)),
        ({}, "100.00", None),
        ({"allow_installments": True}, "100.00", Decimal(0)),
        ({"allow_installments": True, "min_installment": Decimal(200)}, "100.00", None),
        ({"status": "paid"}, "100.00", Decimal(100)),
        ({"status": "cancelled"}, "100.00", Decimal(100)),
    ],
    ids=["all-due", "more", "part-one-payment", "instalment", "below-minimum", "paid", "cancelled"],
)
def test_what_of_a_line_a_request_cannot_take(changes: dict[str, Any], amount: str, over: Decimal | None) -> None:
    assert recorded.overpaid(request(**changes), Decimal(amount)) == over

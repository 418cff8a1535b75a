"""Matching a bank statement line (docs/bank-statements.md, "Matching"): the references a line's
text carries however mangled (bank_references.candidates, as a statement writes them), which of
the requests found the line pays (bank_lines.narrowed: one; two references are ambiguous; a
standing reference pays its only open bill, else the oldest whose due is the amount), and what of a
line's amount a request cannot take (recorded.overpaid)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from mzpay.domain.collection import recorded
from mzpay.domain.collection.bank_lines import narrowed
from mzpay.domain.collection.bank_references import candidates, reference_number
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
    one = bill("cr_A")
    assert narrowed(Decimal("1500.50"), [one]) == [one]
    assert narrowed(Decimal("1500.50"), []) == []
    other = bill("cr_B", reference_number("11223", 223456789, Decimal("1500.50")))
    paid = bill("cr_C", reference_number("11223", 323456789, Decimal("1500.50")), status="paid")
    assert narrowed(Decimal("1500.50"), [one, other]) == [one, other]
    assert narrowed(Decimal("1500.50"), [paid, one]) == [paid, one]  # two references: the business decides


def test_a_standing_reference_pays_its_open_bill_or_the_oldest_whose_due_is_the_amount() -> None:
    january = bill("cr_JAN", status="paid")
    february = bill("cr_FEB")
    assert narrowed(Decimal("1500.50"), [january, february]) == [february]
    march = bill("cr_MAR")
    assert narrowed(Decimal("1500.50"), [january, february, march]) == [february]
    assert narrowed(Decimal("99.00"), [february, march]) == [february, march]


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

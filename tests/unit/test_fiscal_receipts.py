"""Receipts as fiscal documents, in-process: the IVA in an IVA-inclusive amount (Decimal,
half-even to the centavo), the short receipt number, the fiscal details an operator sets, and the
payer's page and PDF that show them in Portuguese and English with a four-digit year."""

from __future__ import annotations

import io
import re
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError
from pypdf import PdfReader

from mzpay.domain.payments.fiscal import CROCKFORD, FiscalDetails, iva_breakdown, short_number
from mzpay.domain.payments.receipts import receipt
from mzpay.http import receipts as pages
from tests.unit.test_receipts import payment

NUIT = "400339910"
SHOP = {"legal_name": "Mercearia Central, Lda", "nuit": NUIT, "address": "Av. 24 de Julho 1234, Maputo"}


@pytest.mark.parametrize(
    ("amount", "rate", "base", "tax"),
    [
        ("250.00", "0.16", "215.52", "34.48"),  # 215.5172...
        ("116.00", "0.16", "100.00", "16.00"),
        ("0.01", "0.16", "0.01", "0.00"),
        ("1.16", "0.16", "1.00", "0.16"),
        ("0.29", "0.16", "0.25", "0.04"),  # 0.25 exactly: 0.29/1.16 = 0.25
        ("10.00", "0.05", "9.52", "0.48"),  # another rate: 9.5238...
        ("2.25", "0.125", "2.00", "0.25"),
        ("0.73", "0.16", "0.63", "0.10"),  # 0.62931... rounds up
    ],
)
def test_the_iva_in_an_amount_is_split_half_even_and_adds_up(amount: str, rate: str, base: str, tax: str) -> None:
    got = iva_breakdown(Decimal(amount), Decimal(rate))
    assert got == (Decimal(base), Decimal(tax))
    assert got[0] + got[1] == Decimal(amount)


def test_a_base_on_a_half_centavo_rounds_to_the_even_centavo() -> None:
    # at rate 1 the base is half the amount: 0.29 -> 0.145 -> 0.14 and 0.31 -> 0.155 -> 0.16
    assert iva_breakdown(Decimal("0.29"), Decimal("1")) == (Decimal("0.14"), Decimal("0.15"))
    assert iva_breakdown(Decimal("0.31"), Decimal("1")) == (Decimal("0.16"), Decimal("0.15"))


def test_the_short_number_is_short_stable_and_differs_between_payments() -> None:
    number = short_number("01JDA6Q0Z8X4M2N7P5R3T9V1W6")
    assert number == short_number("01JDA6Q0Z8X4M2N7P5R3T9V1W6")
    assert re.fullmatch(rf"R-[{CROCKFORD}]{{4}}-[{CROCKFORD}]{{4}}-[{CROCKFORD}]{{4}}", number), number
    assert len(number) == 16
    ids = [f"01JDA6Q0Z8X4M2N7P5R3T9{i:04d}" for i in range(20000)]
    assert len({short_number(i) for i in ids}) == len(ids)


def test_fiscal_details_check_the_nuit_and_the_rate() -> None:
    details = FiscalDetails.model_validate({**SHOP, "vat_registered": True})
    assert details.vat_rate == Decimal("0.16")  # Mozambique's standard rate unless given
    for bad, says in (("400339911", "check digit"), ("12345", "9 digits")):
        with pytest.raises(ValidationError, match=says):
            FiscalDetails.model_validate({**SHOP, "nuit": bad, "vat_registered": True})
    for rate in ("0", "1", "-0.1", "0.123456"):
        with pytest.raises(ValidationError):
            FiscalDetails.model_validate({**SHOP, "vat_registered": True, "vat_rate": rate})
    with pytest.raises(ValidationError):
        FiscalDetails.model_validate({**SHOP, "vat_registered": True, "colour": "blue"})


def test_a_receipt_carries_the_fiscal_details_and_its_iva() -> None:
    plain = receipt(payment(), "Mercearia")
    assert plain["fiscal"] is None
    assert plain["short_number"] == short_number("01JDA6Q0Z8X4M2N7P5R3T9V1W6")
    vat = receipt(payment(), "Mercearia", FiscalDetails.model_validate({**SHOP, "vat_registered": True}))
    assert vat["fiscal"] == {
        **SHOP,
        "vat": {
            "base": {"amount": "215.52", "currency": "MZN"},
            "rate": "0.16",
            "tax": {"amount": "34.48", "currency": "MZN"},
        },
    }
    exempt = receipt(payment(), "Mercearia", FiscalDetails.model_validate({**SHOP, "vat_registered": False}))
    assert exempt["fiscal"] == {**SHOP, "vat": None}


def event(**query: str) -> Any:
    return SimpleNamespace(query_string_parameters=query, headers={}, multi_value_headers={})


def fiscal_receipt(refunded: str = "10.00") -> dict[str, Any]:
    details = FiscalDetails.model_validate({**SHOP, "vat_registered": True})
    return receipt(payment(refunded_amount=refunded), "Mercearia", details)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "pt",
            [
                "Recibo n.º",
                "Mercearia Central, Lda",
                NUIT,
                "Av. 24 de Julho 1234, Maputo",
                "Valor sem IVA",
                "215,52",
                "IVA a 16%",
                "34,48",
                "Parcialmente reembolsado",
                "26/11/2026 00:30",
                "Descarregar o recibo (PDF)",
            ],
        ),
        (
            "en",
            [
                "Receipt no.",
                "Mercearia Central, Lda",
                NUIT,
                "Amount before IVA",
                "MZN\xa0215.52",
                "IVA at 16%",
                "MZN\xa034.48",
                "Partly refunded",
                "26/11/2026 00:30",
                "Download the receipt (PDF)",
            ],
        ),
    ],
)
def test_the_payers_page_shows_the_fiscal_fields(lang: str, expected: list[str]) -> None:
    url = "https://pay.example/checkout/01JDA6Q0Z8X4M2N7P5R3T9V1W6"
    page = pages.receipt_page(fiscal_receipt(), url, event(lang=lang))
    body = str(page.body)
    assert f'<html lang="{lang}"' in body
    for text in expected:
        assert text in body, text
    assert f'<span class="receipt-number">{short_number("01JDA6Q0Z8X4M2N7P5R3T9V1W6")}</span>' in body
    assert f'href="{url}/receipt?format=pdf&amp;lang={lang}"' in body
    assert f'href="{url}/receipt?lang=en" lang="en"' in body  # the switch stays on the receipt
    assert f'<a class="button secondary" href="{url}">' in body  # and leads back to the payment
    assert "/26," not in body and "/26 " not in body  # never a two-digit year


@pytest.mark.parametrize(
    ("lang", "name", "expected"),
    [
        ("pt", "recibo", ["Recibo n.º", "NUIT", NUIT, "Endereço", "Valor sem IVA", "IVA a 16%", "Pago", "26/11/2026"]),
        ("en", "receipt", ["Receipt no.", "NUIT", NUIT, "Address", "Amount before IVA", "IVA at 16%", "Paid"]),
    ],
)
def test_the_pdf_carries_the_same_fields(lang: str, name: str, expected: list[str]) -> None:
    answer = pages.receipt_pdf(fiscal_receipt(refunded="0.00"), event(lang=lang))
    number = short_number("01JDA6Q0Z8X4M2N7P5R3T9V1W6")
    assert answer.content_type == "application/pdf"
    assert answer.headers["Content-Disposition"] == f'attachment; filename="{name}-{number}.pdf"'
    text = PdfReader(io.BytesIO(answer.body)).pages[0].extract_text()  # type: ignore[arg-type]
    for field in (*expected, number, "Mercearia Central, Lda", "Av. 24 de Julho 1234, Maputo"):
        assert field in text, (field, text)

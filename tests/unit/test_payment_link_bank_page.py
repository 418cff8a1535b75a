"""The payment link's bank page: a request paid by bank reference shows its entity and reference,
or its NIB and the transfer's description, each with a copy button (hidden until the page's script
file shows it: no inline script), in Portuguese and English."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from mzpay.http import page_locale, payment_link_page

LINK = "https://collection.example/pay/cr_01JD9H1J2K3M4N5P6Q7R8S9T0V"


def bank(**changes: Any) -> dict[str, Any]:
    return {
        "simo": [{"type": "simo_erv", "entity_number": "54321", "reference_number": "12345678901"}],
        "interbank": [
            {
                "type": "interbank",
                "nib": "000301080016367102371",
                "reference_number": "12345678901",
                "transfer_description": "MZP12345678901",
            }
        ],
        "amount": Decimal("1500.00"),
        "currency": "MZN",
        "any_part": False,
        "least": None,
        "wallets": True,
        **changes,
    }


def rendered(lang: str, **changes: Any) -> str:
    return page_locale.render(
        "payment_link.html",
        lang,
        nonce="n0nce",
        state="bank",
        biller="Loja",
        invoice_number="INV-2026-X",
        receipt_url=None,
        url=LINK,
        bank=bank(**changes),
    )


@pytest.mark.parametrize(
    ("lang", "title", "copy"),
    [
        ("en", "Pay this invoice at your bank", "Copy the reference"),
        ("pt", "Pague esta factura no seu banco", "Copiar a referência"),
    ],
)
def test_the_bank_page_shows_what_the_payer_keys_in(lang: str, title: str, copy: str) -> None:
    page = rendered(lang)
    assert title in page and copy in page
    for shown in ('class="entity">54321<', 'class="reference">12345678901<', 'class="nib">000301080016367102371<'):
        assert shown in page
    assert 'class="description">MZP12345678901<' in page
    assert page.count('data-copy="') == 4 and page.count("hidden>") == 4  # shown by the script only
    assert '<script src="assets/copy.js"></script>' in page and "<script>" not in page
    assert f'href="{LINK}?via=wallet&amp;lang={lang}"' in page


def test_a_request_in_instalments_shows_no_fixed_amount_and_no_wallet_button_without_wallets() -> None:
    page = rendered("en", any_part=True, least=Decimal("100"), wallets=False)
    assert "You may pay it in parts with the same reference." in page and "Each part at least" in page
    assert "<dt>Amount</dt>" not in page and "via=wallet" not in page


def test_the_script_is_a_file_and_only_the_bank_page_may_load_one() -> None:
    script = payment_link_page.copy_script()
    assert script.content_type.startswith("text/javascript") and "clipboard" in str(script.body)
    assert payment_link_page.STATUSES["bank"] == 200

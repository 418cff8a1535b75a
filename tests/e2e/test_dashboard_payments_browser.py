"""The dashboard's payments pages in a real browser (Debian's Chromium through Playwright, a phone's
screen): a support user finds a payment by its reference and refunds part of it within the limit,
in Portuguese and in English; a finance user sees no refund form and its post is refused; axe finds
no serious violation on the payments list, a payment's page and the refund's page."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
import requests
from playwright.sync_api import Browser, Page

from devstack.launcher import RunningStack
from tests.e2e.browsers import fresh_pages
from tests.e2e.dashboard_client import new_user, sign_in_in_browser
from tests.e2e.test_charges import Merchant, wallet
from tests.e2e.test_console_browser import click, main_data
from tests.e2e.test_dashboard_browser import PHONE, audit, dashboard

pytestmark = pytest.mark.e2e

WORDS = {
    "pt": {
        "reference": "O seu id do pagamento (referência)",
        "search": "Procurar",
        "amount": "Montante (em branco: tudo o que falta) (MZN)",
        "reason": "Motivo",
        "refund": "Fazer o reembolso",
        "forbidden": "A sua função não permite fazer isto.",
        "limit": "A sua função reembolsa até 5000.00 MZN de cada vez.",
    },
    "en": {
        "reference": "Your payment id (reference)",
        "search": "Search",
        "amount": "Amount (blank: all that is left) (MZN)",
        "reason": "Reason",
        "refund": "Make the refund",
        "forbidden": "Your role may not do this.",
        "limit": "Your role refunds up to 5000.00 MZN at a time.",
    },
}


@pytest.fixture
def phone(browser: Browser) -> Iterator[Callable[..., Page]]:
    with fresh_pages(browser, PHONE) as open_page:
        yield open_page


def paid(shop: Merchant, amount: str) -> dict[str, str]:
    answer = shop.charge(wallet("+258840000000"), amount=amount)
    assert answer.json()["status"] == "succeeded", answer.text
    return answer.json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_support_finds_a_payment_and_refunds_it_within_the_limit_and_finance_is_refused(
    phone: Callable[..., Page], stack: RunningStack, lang: str
) -> None:
    shop = Merchant(stack)
    paid(shop, "90.00")  # another payment: the search must find the right one
    payment = paid(shop, "250.00")
    words = WORDS[lang]
    support = new_user(stack, shop.account["id"], f"support-{uuid.uuid4().hex[:8]}@example.co.mz", "support")
    page = phone(locale="pt-PT" if lang == "pt" else "en-GB", javascript=True)  # for axe and the width
    assert sign_in_in_browser(page, dashboard(stack), support, lang).status == 200
    page.goto(dashboard(stack) + "/payments")
    assert main_data(page, "page") == "payments" and len(page.locator("tr[data-payment]").all()) == 2
    audit(page)
    page.get_by_label(words["reference"]).fill(payment["payment_id"])
    click(page, words["search"])
    found = page.locator("tr[data-payment]")
    assert found.count() == 1 and found.get_attribute("data-payment") == payment["provider_payment_id"]
    with page.expect_navigation():
        found.get_by_role("link").click()
    assert main_data(page, "page") == "payment"
    assert page.locator("[data-limit]").inner_text() == words["limit"]
    audit(page)
    page.get_by_label(words["amount"]).fill("100.00")
    page.get_by_label(words["reason"]).fill("Produto devolvido")
    answer = click(page, words["refund"])
    assert (answer.status, main_data(page, "page")) == (200, "refund")
    assert page.locator("[data-field=amount] [data-amount]").get_attribute("data-amount") == "100.00"
    audit(page)
    made = requests.get(
        shop.gateway + "/v1/refunds", headers={"Authorization": f"Bearer {shop.test_key}"}, timeout=30
    ).json()["data"]
    assert [(r["provider_payment_id"], r["money"]["amount"], r["reason"]) for r in made] == [
        (payment["provider_payment_id"], "100.00", "Produto devolvido")
    ]

    finance = new_user(stack, shop.account["id"], f"finance-{uuid.uuid4().hex[:8]}@example.co.mz", "finance")
    page = phone(locale="pt-PT" if lang == "pt" else "en-GB")
    assert sign_in_in_browser(page, dashboard(stack), finance, lang).status == 200
    page.goto(f"{dashboard(stack)}/payments/{payment['provider_payment_id']}")
    assert main_data(page, "page") == "payment" and page.locator("form[data-refund-form]").count() == 0
    token = page.locator("header input[name=csrf_token]").first.get_attribute("value")
    refused = page.request.post(
        f"{dashboard(stack)}/payments/{payment['provider_payment_id']}/refund",
        form={"csrf_token": token or "", "form_token": uuid.uuid4().hex, "amount": "10.00"},
    )
    assert refused.status == 403 and words["forbidden"] in refused.text()

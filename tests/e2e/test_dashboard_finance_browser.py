"""The dashboard's money pages in a real browser (Debian's Chromium through Playwright, a phone's
screen, as tests/e2e/test_dashboard_browser.py): a finance user asks for a report and downloads it
once written, in Portuguese and in English, and is offered no payout form and no dispute form; axe
finds no serious violation on the balance transactions, reports, payouts and disputes pages."""

from __future__ import annotations

import csv
import io
import uuid
from collections.abc import Callable

import pytest
from playwright.sync_api import Page

from devstack.launcher import RunningStack
from mzpay.domain.money.reports import TRANSACTION_COLUMNS
from tests.e2e.dashboard_client import browser_sign_in, new_user
from tests.e2e.test_console_browser import click, main_data
from tests.e2e.test_dashboard_browser import audit, dashboard, phone  # noqa: F401 (phone: the fixture)
from tests.e2e.test_disputes import open_dispute, paid
from tests.e2e.test_payouts import funded
from tests.e2e.test_reports import DEADLINE_SECONDS
from tests.polling import eventually

pytestmark = pytest.mark.e2e

WORDS = {
    "pt": {
        "reports": "Relatórios",
        "type": "Tipo",
        "request": "Pedir o relatório",
        "download": "Descarregar",
        "payouts": "Pagamentos a terceiros",
        "transactions": "Movimentos do saldo",
        "send": "Enviar o pagamento",
        "disputes": "Disputas",
    },
    "en": {
        "reports": "Reports",
        "type": "Type",
        "request": "Request the report",
        "download": "Download",
        "payouts": "Payouts",
        "transactions": "Balance transactions",
        "send": "Send the payout",
        "disputes": "Disputes",
    },
}


def follow(page: Page, name: str) -> None:
    """Follow the header's link `name` (the money pages' navigation)."""
    with page.expect_navigation():
        page.locator("nav.sections").get_by_role("link", name=name, exact=True).click()


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_finance_user_requests_a_report_and_downloads_it_but_sends_no_payout(
    phone: Callable[..., Page],  # noqa: F811
    stack: RunningStack,
    lang: str,
) -> None:
    shop = funded(stack, "420.00")
    member = new_user(stack, shop.account["id"], f"finance-{uuid.uuid4().hex[:8]}@example.co.mz", "finance")
    page = phone(locale="pt-PT" if lang == "pt" else "en-GB", javascript=True)  # for axe and the width
    browser_sign_in(page, dashboard(stack), member, lang)
    words = WORDS[lang]

    follow(page, words["transactions"])
    assert main_data(page, "page") == "finance-transactions"
    assert page.locator("tr[data-transaction]").count() == 1
    audit(page)

    follow(page, words["reports"])
    assert (main_data(page, "page"), page.locator('[data-empty="reports"]').count()) == ("finance-reports", 1)
    audit(page)
    page.get_by_label(words["type"], exact=True).select_option("balance_transactions")
    answer = click(page, words["request"])
    posted = answer.request.redirected_from
    assert posted is not None and posted.method == "POST"
    assert (answer.status, answer.url) == (200, f"{dashboard(stack)}/reports")

    def reread(_: object = None) -> str | None:
        page.reload()
        return page.locator("tr[data-report]").first.get_attribute("data-status")

    assert eventually(reread, lambda status: status != "pending", timeout=DEADLINE_SECONDS, interval=0.5) == "succeeded"
    with page.expect_download() as downloading:
        page.get_by_role("link", name=words["download"]).click()
    download = downloading.value
    assert download.suggested_filename.startswith("balance_transactions_")
    with open(download.path(), encoding="utf-8") as handle:
        table = list(csv.DictReader(io.StringIO(handle.read())))
    assert len(table) == 1 and list(table[0]) == list(TRANSACTION_COLUMNS)  # the one charge
    audit(page)

    follow(page, words["payouts"])
    assert main_data(page, "page") == "finance-payouts"
    assert page.get_by_role("button", name=words["send"]).count() == 0  # finance sends no payout
    audit(page)

    dispute = open_dispute(stack, shop, paid(shop, "60.00")).json()
    follow(page, words["disputes"])
    assert main_data(page, "page") == "finance-disputes"
    audit(page)
    with page.expect_navigation():
        page.locator(f'tr[data-dispute="{dispute["dispute_id"]}"] a').click()
    assert main_data(page, "page") == "finance-dispute"
    assert page.locator("main form").count() == 0  # finance neither answers nor accepts a dispute
    audit(page)

"""The operator console in a real browser: Debian's Chromium driven by Playwright (the
`browser` of tests/e2e/conftest.py) on a desktop screen, JavaScript off (the console has
none), against the local stack. Each test signs in in its own browser context and checks what
the operator sees (the words in the page's language, `<main data-page / data-code>`, the status
of each answer) and what the API reports afterwards."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, Response

from devstack.launcher import RunningStack
from mzpay.domain.webhooks.rules import MAX_ATTEMPTS, delivery_id_for
from tests.e2e.browsers import fresh_pages, serious_violations
from tests.e2e.test_checkout_browser import lines
from tests.e2e.test_console import operator_payout, waiting_payout
from tests.e2e.test_webhooks import SUCCEEDS, Receiver, Shop

pytestmark = pytest.mark.e2e

DESKTOP = {"viewport": {"width": 1280, "height": 900}}
Operator = Callable[..., Page]


@pytest.fixture
def operator(browser: Browser, stack: RunningStack) -> Iterator[Operator]:
    """operator(locale=...) is a page of a fresh browser context (its own cookies) at the
    console's address; closed after the test."""
    with fresh_pages(browser, DESKTOP) as open_browser:
        yield open_browser


def console(stack: RunningStack) -> str:
    return f"{stack.state['regions']['mz']['management']}/console"


def visit(page: Page, url: str) -> Response:
    answer = page.goto(url)
    assert answer is not None
    return answer


def click(page: Page, name: str, within: str = "main") -> Response:
    """Click the button `name` (in `within`) and return the answer of the page it leads to."""
    with page.expect_navigation() as navigation:
        page.locator(within).get_by_role("button", name=name, exact=True).click()
    return navigation.value


def main_data(page: Page, name: str) -> str | None:
    return page.locator("main").get_attribute(f"data-{name}")


def sign_in(page: Page, stack: RunningStack, token: str | None = None) -> Response:
    visit(page, f"{console(stack)}/accounts")  # no session yet: the sign-in page
    assert main_data(page, "page") == "sign-in"
    page.get_by_label("Token de operador").fill(token or stack.state["operator_token"])
    return click(page, "Iniciar sessão")


def test_an_operator_signs_in_in_portuguese_and_a_wrong_token_is_refused(
    operator: Operator, stack: RunningStack
) -> None:
    page = operator()
    refused = sign_in(page, stack, token="not-an-operator-token")
    assert (refused.status, main_data(page, "page")) == (401, "sign-in")
    assert page.get_by_role("alert").inner_text() == "Este token não pertence a um operador."

    page.get_by_label("Token de operador").fill(stack.state["operator_token"])
    answer = click(page, "Iniciar sessão")
    assert (answer.status, answer.url, main_data(page, "page")) == (200, f"{console(stack)}/accounts", "accounts")
    assert page.locator("html").get_attribute("lang") == "pt"
    assert page.get_by_role("heading", level=1).inner_text() == "Contas"
    assert lines(page.get_by_role("navigation", name="Secções")) == [
        "Contas",
        "Pagamentos a aguardar aprovação",
        "Reconciliação",
        "Candidaturas de PSP",
        "Registo de auditoria",
    ]
    assert page.locator("[data-operator]").inner_text() == "operator"

    english = visit(page, f"{console(stack)}/accounts?lang=en")
    assert (english.headers["content-language"], page.get_by_role("heading", level=1).inner_text()) == (
        "en",
        "Accounts",
    )
    signed_out = click(page, "Sign out", within="header")
    assert (signed_out.url, main_data(page, "page")) == (f"{console(stack)}/sign-in?done=signed_out", "sign-in")
    assert page.get_by_role("status").inner_text() == "You signed out."


def test_a_form_without_its_csrf_cookie_is_refused_and_nothing_changes(operator: Operator, stack: RunningStack) -> None:
    shop, payout_id = waiting_payout(stack)
    page = operator()
    sign_in(page, stack)
    visit(page, f"{console(stack)}/payouts")
    row = page.locator(f'tr[data-payout="{payout_id}"]')
    assert row.count() == 1
    page.context.clear_cookies(name="mzpay_console_csrf")  # as if it expired or another site posted

    with page.expect_navigation() as navigation:
        row.get_by_role("button", name="Aprovar", exact=True).click()
    answer = navigation.value
    assert (answer.status, main_data(page, "page"), main_data(page, "code")) == (403, "refused", "csrf_missing")
    assert page.get_by_role("heading", level=1).inner_text() == "Este formulário já não é válido"
    assert "403 csrf_missing" in page.get_by_role("alert").inner_text()
    assert operator_payout(stack, shop, payout_id)["status"] == "waiting_for_approval"


def test_an_operator_approves_a_payout_waiting_for_approval(operator: Operator, stack: RunningStack) -> None:
    shop, payout_id = waiting_payout(stack)
    page = operator(locale="en-GB")
    page.context.add_cookies([{"name": "mzpay_lang", "value": "en", "url": console(stack)}])
    sign_in_page = visit(page, f"{console(stack)}/payouts")
    assert sign_in_page.url == f"{console(stack)}/sign-in"
    page.get_by_label("Operator token").fill(stack.state["operator_token"])
    click(page, "Sign in")
    listing = visit(page, f"{console(stack)}/payouts")
    assert (listing.status, main_data(page, "page")) == (200, "payouts")
    row = page.locator(f'tr[data-payout="{payout_id}"]')
    assert lines(row.locator("td").nth(2)) == ["MZN\xa01,500.00"]

    with page.expect_navigation() as navigation:
        row.get_by_role("button", name="Approve", exact=True).click()
    answer = navigation.value
    posted = answer.request.redirected_from
    assert posted is not None and posted.response() is not None
    assert (posted.method, posted.response().status) == ("POST", 303)  # type: ignore[union-attr]
    assert (answer.status, answer.url) == (200, f"{console(stack)}/payouts?done=payout_approved")
    assert page.get_by_role("status").inner_text() == "The payout was approved."
    assert page.locator(f'tr[data-payout="{payout_id}"]').count() == 0
    assert operator_payout(stack, shop, payout_id)["status"] in ("pending", "in_transit", "paid")

    # the audit trail says who approved it, from the console, and what it was before and after
    with page.expect_navigation():
        page.get_by_role("link", name="Audit trail").click()
    page.get_by_label("Target type").fill("payout")
    page.get_by_label("Target", exact=True).fill(payout_id)
    click(page, "Filter")
    record = page.locator('tr[data-action="approve_payout"]')
    assert record.count() == 1
    assert record.locator("td").nth(1).inner_text().startswith("operator (operator, console)")
    assert record.get_attribute("data-record") is not None
    with page.expect_navigation():
        record.get_by_role("link").click()
    assert main_data(page, "page") == "audit-record"
    assert '"status": "waiting_for_approval"' in page.locator('pre[data-part="before"]').inner_text()


def test_an_operator_replays_a_failed_webhook_delivery(
    operator: Operator, stack: RunningStack, receiver: Receiver
) -> None:
    shop = Shop(stack)
    url = receiver.endpoint(503, fast=True)
    charge = shop.charge(SUCCEEDS, url)
    delivery_id = delivery_id_for(shop.event(charge["provider_payment_id"], "payment.succeeded")["id"], url)
    shop.delivery_once(delivery_id, lambda d: d["status"] == "failed")
    receiver.script(url, 200)  # the merchant fixed the endpoint

    page = operator()
    sign_in(page, stack)
    visit(page, f"{console(stack)}/accounts/{shop.account_id}/deliveries?status=failed")
    row = page.locator(f'tr[data-delivery="{delivery_id}"]')
    assert row.get_attribute("data-status") == "failed"
    with page.expect_navigation() as navigation:
        row.get_by_role("button", name="Reenviar", exact=True).click()
    answer = navigation.value
    assert (answer.status, answer.url) == (
        200,
        f"{console(stack)}/accounts/{shop.account_id}/deliveries?done=delivery_replayed",
    )
    assert page.get_by_role("status").inner_text() == "A entrega voltou à fila."

    delivered = shop.delivery_once(delivery_id, lambda d: d["status"] == "delivered")
    assert (delivered["round"], len(delivered["attempts"])) == (1, MAX_ATTEMPTS + 1)
    assert len(receiver.wait_for(url, MAX_ATTEMPTS + 1)) == MAX_ATTEMPTS + 1
    visit(page, f"{console(stack)}/accounts/{shop.account_id}/deliveries")
    assert page.locator(f'tr[data-delivery="{delivery_id}"]').get_attribute("data-status") == "delivered"


def test_axe_finds_no_serious_violation_on_the_console_pages(operator: Operator, stack: RunningStack) -> None:
    """axe runs in the page (page.evaluate): this browser has JavaScript on; the pages have no
    script of their own, so they are the same pages."""
    shop, payout_id = waiting_payout(stack)
    account_id = shop.account["id"]
    page = operator(javascript=True)
    sign_in(page, stack)
    for path in [
        "/sign-in",
        "/accounts",
        f"/accounts/{account_id}",
        "/payouts",
        f"/accounts/{account_id}/deliveries",
        f"/accounts/{account_id}/payments?mode=test",
        "/reconciliation",
        "/payouts/NOT-A-PAYOUT/approve-missing",
    ]:
        visit(page, f"{console(stack)}{path}")
        assert page.locator("script").count() == 0
        if path == "/payouts":  # a list with its forms, not the empty one
            assert page.locator(f'tr[data-payout="{payout_id}"]').count() == 1
        serious, found = serious_violations(page)
        assert serious == [], f"axe on {page.url}:\n{found}"
    assert (main_data(page, "page"), main_data(page, "code")) == ("refused", "not_found")  # the last: no such page

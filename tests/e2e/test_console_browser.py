"""The operator console in a real browser: Debian's Chromium driven by Playwright (the
`browser` of tests/e2e/conftest.py) on a desktop screen, JavaScript off (the console has
none), against the local stack. Each test signs in in its own browser context and checks what
the operator sees (the words in the page's language, `<main data-page / data-code>`, the status
of each answer) and what the API reports afterwards."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, Page, Response
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay.domain.money.reports import TRANSACTION_COLUMNS
from mzpay.domain.webhooks.rules import MAX_ATTEMPTS, delivery_id_for
from mzpay.http.page_locale import money
from tests.e2e.browsers import fresh_pages, serious_violations
from tests.e2e.test_charges import Merchant, wallet
from tests.e2e.test_checkout_browser import lines
from tests.e2e.test_console import operator_payout, waiting_payout
from tests.e2e.test_payouts import funded, payout, set_payout_limits, settled
from tests.e2e.test_refunds import refund
from tests.e2e.test_reports import DEADLINE_SECONDS
from tests.e2e.test_webhooks import SUCCEEDS, Receiver, Shop
from tests.polling import eventually

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
        "Saúde das rotas",
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
        f"/accounts/{account_id}/refunds?mode=test",
        f"/accounts/{account_id}/payouts?mode=test",
        f"/accounts/{account_id}/payout-batches?mode=test",
        f"/accounts/{account_id}/balance-transactions?mode=test",
        f"/accounts/{account_id}/reports?mode=test",
        "/reconciliation",
        "/route-health",
        "/payouts/NOT-A-PAYOUT/approve-missing",
    ]:
        visit(page, f"{console(stack)}{path}")
        assert page.locator("script").count() == 0
        if path == "/payouts":  # a list with its forms, not the empty one
            assert page.locator(f'tr[data-payout="{payout_id}"]').count() == 1
        serious, found = serious_violations(page)
        assert serious == [], f"axe on {page.url}:\n{found}"
    assert (main_data(page, "page"), main_data(page, "code")) == ("refused", "not_found")  # the last: no such page


# ---------------------------------------------------------------- an approver and a support agent (issue 37, item 6)
def test_an_approver_decides_with_the_destination_description_and_balance_in_portuguese(
    operator: Operator, stack: RunningStack
) -> None:
    shop = funded(stack, "5000.00")
    set_payout_limits(stack, shop, approval_threshold={"MZN": "1000.00"})
    made = payout(shop, wallet("+258841234567"), "1500.00", description="Salários de Novembro").json()
    available = next(b for b in shop.call("GET", "/v1/balance").json()["balances"] if b["currency"] == "MZN")
    page = operator(javascript=True)
    sign_in(page, stack)
    visit(page, f"{console(stack)}/payouts")
    row = page.locator(f'tr[data-payout="{made["provider_payout_id"]}"]')
    cells = row.locator("td")
    assert lines(cells.nth(3)) == [money(available["available"], "MZN", "pt")]  # the account's available balance
    assert lines(cells.nth(4)) == ["carteira móvel mpesa", "*********4567"]
    assert (lines(cells.nth(5)), lines(cells.nth(6))) == (["Salários de Novembro"], ["a aguardar aprovação"])
    assert "841234567" not in page.content()
    serious, found = serious_violations(page)
    assert serious == [], f"axe on {page.url}:\n{found}"


def test_a_support_agent_edits_one_limit_rolls_and_revokes_a_key_and_sees_a_refund(
    operator: Operator, stack: RunningStack
) -> None:
    shop = Merchant(stack)
    account_id = shop.account["id"]
    set_payout_limits(stack, shop, per_transaction={"MZN": "2000.00"}, daily={"MZN": "9000.00"})
    page = operator(javascript=True)
    sign_in(page, stack)
    visit(page, f"{console(stack)}/accounts/{account_id}")
    form = page.locator('div[data-limits="payout-test-MZN"]')
    assert form.get_by_label("Diário", exact=True).input_value() == "9000.00"  # the current limits, in the form
    form.get_by_label("Aprovação acima de", exact=True).fill("750.00")
    with page.expect_navigation():
        form.get_by_role("button", name="Guardar", exact=True).click()
    assert page.get_by_role("status").count() == 1
    form = page.locator('div[data-limits="payout-test-MZN"]')
    assert [
        form.get_by_label(label, exact=True).input_value()
        for label in ("Por transacção", "Diário", "Aprovação acima de")
    ] == [
        "2000.00",
        "9000.00",
        "750.00",
    ]  # the field edited, the others kept

    # the account's keys: issue one, see it listed, roll it, revoke the new one
    click(page, "Emitir uma chave", within='section[data-section="api-keys"]')
    key_id = page.locator("[data-key-id]").get_attribute("data-key-id")
    secret = page.locator('[data-secret="api_key"]').inner_text()
    visit(page, f"{console(stack)}/accounts/{account_id}")
    row = page.locator(f'tr[data-key="{key_id}"]')
    assert lines(row.locator("td").nth(5)) == ["activa"] and secret not in page.content()
    with page.expect_navigation() as navigation:
        row.get_by_role("button", name="Renovar", exact=True).click()
    assert (navigation.value.status, main_data(page, "page")) == (201, "key-created")
    rolled_secret = page.locator('[data-secret="api_key"]').inner_text()
    new_id = page.locator("[data-key-id]").get_attribute("data-key-id")
    assert rolled_secret != secret
    visit(page, f"{console(stack)}/accounts/{account_id}")
    assert page.locator(f'tr[data-key="{key_id}"]').get_attribute("data-key-status") == "rolled"
    with page.expect_navigation():
        page.locator(f'tr[data-key="{new_id}"]').get_by_role("button", name="Revogar", exact=True).click()
    assert page.locator(f'tr[data-key="{new_id}"]').get_attribute("data-key-status") == "revoked"
    assert rolled_secret not in page.content()
    serious, found = serious_violations(page)
    assert serious == [], f"axe on {page.url}:\n{found}"

    pid = shop.charge(wallet("+258840000000"), amount="300.00").json()["provider_payment_id"]
    refund(shop, pid, "300.00")
    payment_page = f"{console(stack)}/payments/{pid}"
    eventually(lambda: visit(page, payment_page) and page.locator("[data-refund-state]").count(), bool)
    assert page.locator("[data-refund-state]").get_attribute("data-refund-state") == "refunded"
    assert "bem-sucedido (reembolsado)" in page.locator("main table").first.inner_text()
    serious, found = serious_violations(page)
    assert serious == [], f"axe on {page.url}:\n{found}"


# ---------------------------------------------------------------- an account's lists and reports
def rows(page: Page, kind: str) -> list[tuple[str, str]]:
    """The (id, status or type) of each row of the list of `kind` (data-refund, data-payout, ...)."""
    found = page.locator(f"main tr[data-{kind}]")
    second = "data-type" if kind == "transaction" else "data-status"
    return [(row.get_attribute(f"data-{kind}") or "", row.get_attribute(second) or "") for row in found.all()]


def filter_by(page: Page, **fields: str) -> Response:
    """Fill the list's filters (by their Portuguese labels) and submit them."""
    for label, value in fields.items():
        page.get_by_label(label.replace("_", " "), exact=True).fill(value)
    return click(page, "Filtrar")


def next_page(page: Page) -> Response:
    with page.expect_navigation() as navigation:
        page.get_by_role("link", name="Página seguinte").click()
    return navigation.value


def from_the_account_page(page: Page, stack: RunningStack, account: str, link: str) -> Page:
    """`page` signed in, at the account's page, then at the page its link `link` leads to."""
    sign_in(page, stack)
    visit(page, account)
    with page.expect_navigation():
        page.get_by_role("link", name=link).click()
    return page


@pytest.fixture(scope="module")
def books(stack: RunningStack) -> dict[str, Any]:
    """One merchant's money: two M-Pesa payments and a failed one, three refunds of the first
    (10, 20 and 30 MZN) and a paid payout."""
    merchant = Merchant(stack)
    paid = [merchant.charge(wallet("+258840000000"), amount) for amount in ("300.00", "120.00")]
    failed = merchant.charge(wallet("+258840000001"), "250.00")
    assert [a.json()["status"] for a in (*paid, failed)] == ["succeeded", "succeeded", "failed"], failed.text
    first = paid[0].json()["provider_payment_id"]
    refunds = [refund(merchant, first, amount) for amount in ("10.00", "20.00", "30.00")]
    assert all(r.status_code == 200 for r in refunds), refunds[-1].text
    money = {"amount": "12.00", "currency": "MZN"}
    payout = merchant.call(
        "POST", "/payouts", {"payout_id": str(ULID()), "money": money, "destination": wallet("+258840000000")}
    )
    assert payout.status_code == 200, payout.text
    done = settled(merchant, payout.json()["provider_payout_id"])
    assert done["status"] == "paid", done
    return {
        "merchant": merchant,
        "account_id": merchant.account["id"],
        "paid": [a.json()["provider_payment_id"] for a in paid],
        "failed": failed.json()["provider_payment_id"],
        "refunds": [r.json()["provider_refund_id"] for r in refunds],
        "payout": done["provider_payout_id"],
    }


def test_an_operator_filters_and_pages_an_accounts_lists(
    operator: Operator, stack: RunningStack, books: dict[str, Any]
) -> None:
    account = f"{console(stack)}/accounts/{books['account_id']}"
    page = from_the_account_page(operator(), stack, account, "Reembolsos (test)")
    assert (main_data(page, "page"), page.get_by_role("heading", level=1).inner_text().split(" (")[0]) == (
        "refunds",
        "Reembolsos",
    )
    newest_first = list(reversed(books["refunds"]))
    assert rows(page, "refund") == [(r, "succeeded") for r in newest_first]
    assert page.locator("main tr[data-refund] td").nth(1).inner_text() == "bem-sucedido"  # the status in words

    filter_by(page, Montante_máximo="15")
    assert rows(page, "refund") == [(books["refunds"][0], "succeeded")]
    assert page.get_by_label("Montante máximo", exact=True).input_value() == "15"  # the form shows what was asked
    page.get_by_label("Montante máximo", exact=True).fill("")
    filter_by(page, Por_página="2")
    assert [r for r, _ in rows(page, "refund")] == newest_first[:2]
    answer = next_page(page)
    assert (answer.status, [r for r, _ in rows(page, "refund")]) == (200, newest_first[2:])
    assert page.get_by_role("link", name="Página seguinte").count() == 0

    # payments: a filter the page's own query keeps (network) and the page size, across pages
    visit(page, f"{account}/payments?mode=test")
    filter_by(page, Estado="failed")
    assert rows(page, "payment") == [(books["failed"], "failed")]
    page.get_by_label("Estado", exact=True).fill("")
    filter_by(page, Rede="mpesa", Por_página="1")
    assert rows(page, "payment") == [(books["failed"], "failed")]
    next_page(page)
    assert rows(page, "payment") == [(books["paid"][1], "succeeded")]
    assert page.get_by_label("Rede", exact=True).input_value() == "mpesa"

    visit(page, f"{account}/payouts?mode=test")
    assert rows(page, "payout") == [(books["payout"], "paid")]
    filter_by(page, Estado="failed")
    assert (rows(page, "payout"), page.locator('[data-empty="payouts"]').count()) == ([], 1)
    refused = filter_by(page, Estado="paid", Rede="mkesh", Montante_mínimo="abc")
    assert (refused.status, main_data(page, "code")) == (400, "invalid_request")

    visit(page, f"{account}/payout-batches?mode=test")
    assert (main_data(page, "page"), page.locator('[data-empty="batches"]').count()) == ("payout-batches", 1)

    visit(page, f"{account}/balance-transactions?mode=test")
    everything = rows(page, "transaction")
    assert {kind for _, kind in everything} >= {"charge", "refund", "payout"}
    filter_by(page, Tipo="refund", Por_página="2")
    first_page = rows(page, "transaction")
    assert len(first_page) == 2 and {kind for _, kind in first_page} == {"refund"}
    assert page.locator("main tr[data-transaction] td").nth(1).inner_text() == "reembolso"
    next_page(page)
    second_page = rows(page, "transaction")
    assert second_page and {kind for _, kind in second_page} == {"refund"}
    assert not {t for t, _ in first_page} & {t for t, _ in second_page}

    visit(page, f"{account}/refunds?mode=live")  # the other mode's list: none of it
    assert page.locator('[data-empty="refunds"]').count() == 1


def test_an_operator_requests_a_report_and_downloads_it_once_written(
    operator: Operator, stack: RunningStack, books: dict[str, Any]
) -> None:
    account = f"{console(stack)}/accounts/{books['account_id']}"
    page = from_the_account_page(operator(), stack, account, "Relatórios (test)")
    assert (main_data(page, "page"), page.locator('[data-empty="reports"]').count()) == ("reports", 1)
    page.get_by_label("Tipo").select_option("balance_transactions")
    answer = click(page, "Pedir o relatório")
    posted = answer.request.redirected_from
    assert posted is not None and posted.method == "POST"
    assert (answer.status, answer.url) == (200, f"{account}/reports?mode=test&done=report_requested")
    assert page.get_by_role("status").inner_text().startswith("O relatório foi pedido")
    [(report_id, _)] = rows(page, "report")

    def reread(_: object = None) -> list[tuple[str, str]]:
        visit(page, f"{account}/reports?mode=test")
        return rows(page, "report")

    written = eventually(reread, lambda found: found[0][1] != "pending", timeout=DEADLINE_SECONDS, interval=0.5)
    assert written == [(report_id, "succeeded")]
    assert page.locator(f'tr[data-report="{report_id}"] td').nth(2).inner_text() == "bem-sucedido"
    with page.expect_download() as downloading:
        page.get_by_role("link", name="Descarregar").click()
    download = downloading.value
    assert download.suggested_filename.startswith("balance_transactions_")
    with open(download.path(), encoding="utf-8") as handle:
        table = list(csv.DictReader(io.StringIO(handle.read())))
    assert table and list(table[0]) == list(TRANSACTION_COLUMNS)
    assert set(books["refunds"]) <= {line["source_id"] for line in table}
    [signature] = parse_qs(urlsplit(download.url).query)["X-Amz-Signature"]  # the presigned link: in no log
    assert signature not in stack.function_log() and signature not in stack.log()

    # the audit trail names the console's operator and the report asked for
    visit(page, f"{console(stack)}/audit?target_type=report&target_id={report_id}")
    record = page.locator('main tr[data-action="request_report"]')
    assert record.count() == 1
    assert record.locator("td").nth(1).inner_text().startswith("operator (operator, console)")


def test_without_a_session_no_report_is_asked_for(
    operator: Operator, stack: RunningStack, books: dict[str, Any]
) -> None:
    """Every console operator may read an account's lists and ask for its reports (the console has
    no roles below the operator: docs/console.md); anyone else may not, even with a form's fields."""
    reports = f"{console(stack)}/accounts/{books['account_id']}/reports"
    before = books["merchant"].call("GET", "/v1/reports", idempotency_key=None).json()["data"]
    stranger = operator()
    visit(stranger, f"{console(stack)}/sign-in")  # a sign-in CSRF token, no session
    form = {"mode": "test", "type": "payments", "interval_start": "2026-11-01", "interval_end": "2026-11-02"}
    answer = stranger.request.post(reports, form=form, max_redirects=0)
    assert (answer.status, answer.headers["x-error-code"]) == (401, "unauthorized")
    read = stranger.request.get(f"{reports}?mode=test", max_redirects=0)
    assert (read.status, read.headers["location"]) == (303, "/console/sign-in")
    assert books["merchant"].call("GET", "/v1/reports", idempotency_key=None).json()["data"] == before

"""The hosted checkout page in a real browser: Debian's Chromium driven by Playwright as a payer's
phone (390 x 844 CSS pixels, touch, JavaScript off: the page has none and must work without it),
against the local stack. Each test opens its own checkout in its own browser context and checks
what the payer sees: the words in the page's language, `<main data-status>`, the status codes of
the page's answers, the size of its tap targets, and what axe finds."""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, Locator, Page, Response
from pypdf import PdfReader

from devstack.launcher import RunningStack
from tests.e2e.browsers import fresh_pages, serious_violations
from tests.e2e.collection_client import Collection
from tests.e2e.test_charges import Merchant, wallet
from tests.e2e.test_collection_requests import create as create_request
from tests.e2e.test_collection_requests import payer as request_payer
from tests.e2e.test_collection_requests import unique_phone, wait_for
from tests.polling import eventually

pytestmark = pytest.mark.e2e

PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
}
RETURN_URL = "https://loja.example/ok"
DESCRIPTION = "Cabaz de Natal"
# The amount as the server writes it (Babel): pt_MZ puts a no-break space before MTn, English
# writes the ISO code first.
AMOUNT_PT = "250,00\xa0MTn"
AMOUNT_EN = "MZN\xa0250.00"
PAY_PT = f"Pagar {AMOUNT_PT}"
PAY_EN = f"Pay {AMOUNT_EN}"
SUMMARY_PT = ["Pagamento a Mercearia", AMOUNT_PT, DESCRIPTION, "Modo de teste: nenhum dinheiro real é movimentado."]
SUMMARY_EN = ["Payment to Mercearia", AMOUNT_EN, DESCRIPTION, "Test mode: no real money moves."]
PAID_PT = ["Pago. Obrigado!", "Pode fechar esta página.", "Ver o recibo", "Voltar a Mercearia"]
NOT_MPESA_EN = (
    "This number is not on the M-Pesa network: M-Pesa numbers start with 84 / 85. "
    "Choose the wallet of this number, or type another number."
)
WAITING_PT = [
    "Aprove o pagamento no seu telemóvel",
    "Enviámos um pedido para o seu telemóvel. Introduza lá o seu PIN para confirmar e depois verifique o pagamento "
    "aqui.",
    "Verificar o pagamento",
]
STALE_PT = [
    "Esta página esteve aberta tempo demais",
    "Para sua segurança, abra de novo a página de pagamento e repita a sua escolha. Nada foi pago.",
    "Abrir a página de pagamento",
]
MIN_TARGET = 44  # CSS pixels, each way (WCAG 2.5.5)
TAP_TARGETS = "a, button, input:not([type=hidden]), label.choice, summary"
Payer = Callable[..., Page]


# ---------------------------------------------------------------- fixtures and helpers
@pytest.fixture
def payer(browser: Browser) -> Iterator[Payer]:
    """A payer's phone: payer(locale=..., javascript=...) is a page in a fresh browser context
    (its own cookies), JavaScript off unless asked; closed after the test."""
    with fresh_pages(browser, PHONE) as open_phone:
        yield open_phone


@pytest.fixture(scope="module")
def shop(stack: RunningStack) -> Merchant:
    return Merchant(stack)


def create(shop: Merchant, **extra: Any) -> tuple[str, str]:
    """A new test checkout of 250.00 MZN: its checkout_url and provider_payment_id."""
    body = {"amount": "250.00", "currency": "MZN", "description": DESCRIPTION, "return_url": RETURN_URL, **extra}
    created = shop.call("POST", "/v1/payments", body)
    assert created.status_code == 201, created.text
    answer = created.json()
    return answer["checkout_url"], answer["provider_payment_id"]


def api_payment(shop: Merchant, pid: str) -> dict[str, Any]:
    read = shop.call("GET", f"/v1/payments/{pid}")
    assert read.status_code == 200, read.text
    return read.json()  # type: ignore[no-any-return]


def visit(page: Page, url: str) -> Response:
    answer = page.goto(url)
    assert answer is not None
    return answer


def tap(page: Page, target: Locator) -> Response:
    """Tap `target` (a button or a link) and return the answer of the page it leads to."""
    with page.expect_navigation() as navigation:
        target.tap()
    return navigation.value


def pay_button(page: Page, name: str) -> Locator:
    return page.get_by_role("button", name=name, exact=True)


def type_phone(page: Page, label: str, number: str) -> None:
    field = page.get_by_label(label, exact=True)
    field.tap()
    field.press_sequentially(number)


def lines(locator: Locator) -> list[str]:
    """The text a reader sees in `locator`, one entry per non-empty line."""
    return [line.strip() for line in locator.inner_text().splitlines() if line.strip()]


def status_of(page: Page) -> str | None:
    return page.locator("main").get_attribute("data-status")


def summary(page: Page) -> list[str]:
    return lines(page.locator("section.summary"))


def outcome(page: Page) -> list[str]:
    return lines(page.locator("section.outcome"))


def assert_settled(page: Page, shown: list[str], told: list[str]) -> None:
    """A page with nothing left to pay: the summary `shown`, the outcome `told`, and no form to post."""
    assert summary(page) == shown
    assert outcome(page) == told
    assert page.locator("form").count() == 0


def language_of(page: Page, answer: Response) -> tuple[str | None, str | None]:
    """The page's `<html lang>` and the answer's Content-Language."""
    return page.locator("html").get_attribute("lang"), answer.headers.get("content-language")


def after_post(answer: Response, url: str) -> tuple[int, str, str | None, int | None]:
    """The answer a form post led to: its status and address, and the post's own method and status
    (post/redirect/get: POST answered 303 to the checkout's page)."""
    posted = answer.request.redirected_from
    first = posted.response() if posted is not None else None
    return (
        answer.status,
        answer.url,
        posted.method if posted is not None else None,
        first.status if first is not None else None,
    )


def future_expiry() -> str:
    return f"12/{(datetime.now(UTC).year + 3) % 100:02d}"


# ---------------------------------------------------------------- paying
def test_a_payer_pays_with_a_wallet_in_portuguese_on_a_phone(shop: Merchant, payer: Payer) -> None:
    url, pid = create(shop)
    page = payer()
    opened = visit(page, url)
    assert (opened.status, *language_of(page, opened)) == (200, "pt", "pt")
    assert status_of(page) == "requires_payment_method"
    assert page.title() == f"Pagar a Mercearia · {AMOUNT_PT}"
    assert summary(page) == SUMMARY_PT
    assert page.locator("p.amount").inner_text() == AMOUNT_PT
    assert page.get_by_role("radio", name="M-Pesa").is_checked()
    assert pay_button(page, PAY_PT).inner_text() == PAY_PT

    type_phone(page, "Número de telemóvel", "84 000 0000")
    paid = tap(page, pay_button(page, PAY_PT))
    assert after_post(paid, url) == (200, url, "POST", 303)
    assert page.url == url
    assert (status_of(page), *language_of(page, paid)) == ("succeeded", "pt", "pt")
    assert_settled(page, SUMMARY_PT, PAID_PT)
    assert page.get_by_role("link", name="Voltar a Mercearia").get_attribute("href") == RETURN_URL

    snapshot = api_payment(shop, pid)
    assert (snapshot["status"], snapshot["captured_amount"]) == ("succeeded", "250.00")
    assert snapshot["source"] == wallet("+258840000000")

    receipt = tap(page, page.get_by_role("link", name="Ver o recibo"))  # the printable receipt
    assert (receipt.status, page.url, status_of(page)) == (200, f"{url}/receipt", "receipt")
    assert page.locator("h1").inner_text() == "Recibo"
    assert page.locator("dd.merchant").inner_text() == "Mercearia"
    assert page.locator("dd.paid").inner_text() == AMOUNT_PT
    assert page.locator("dd.method").inner_text() == "M-Pesa ****000"


def test_a_failed_payment_in_english(shop: Merchant, payer: Payer) -> None:
    url, pid = create(shop)
    page = payer(locale="en-GB")
    opened = visit(page, url)
    assert (opened.status, *language_of(page, opened)) == (200, "en", "en")
    assert page.title() == f"Pay Mercearia · {AMOUNT_EN}"
    assert summary(page) == SUMMARY_EN

    type_phone(page, "Phone number", "84 000 0001")
    failed = tap(page, pay_button(page, PAY_EN))
    assert after_post(failed, url) == (200, url, "POST", 303)
    assert (status_of(page), *language_of(page, failed)) == ("failed", "en", "en")
    assert_settled(
        page,
        SUMMARY_EN,
        ["The payment did not go through.", "The balance is too low for this payment.", "Back to Mercearia"],
    )
    snapshot = api_payment(shop, pid)
    assert (snapshot["status"], snapshot["failure_code"]) == ("failed", "insufficient_funds")


def test_a_number_of_another_network_is_refused_on_the_form(shop: Merchant, payer: Payer) -> None:
    url, pid = create(shop)
    page = payer(locale="en-GB")
    visit(page, url)
    page.get_by_role("radio", name="M-Pesa").tap()
    type_phone(page, "Phone number", "86 123 4567")
    refused = tap(page, pay_button(page, PAY_EN))

    assert (refused.status, refused.url, refused.request.method) == (400, f"{url}/pay", "POST")
    assert (status_of(page), page.locator("main").get_attribute("data-notice")) == (
        "requires_payment_method",
        "phone_network",
    )
    assert language_of(page, refused) == ("en", "en")
    assert summary(page) == SUMMARY_EN
    alert = page.get_by_role("alert")
    assert alert.inner_text() == NOT_MPESA_EN
    field = page.get_by_label("Phone number", exact=True)
    assert (field.get_attribute("aria-invalid"), field.get_attribute("aria-describedby")) == ("true", "notice")
    assert alert.get_attribute("id") == "notice"
    assert field.input_value() == "86 123 4567"
    assert page.get_by_role("radio", name="M-Pesa").is_checked()
    snapshot = api_payment(shop, pid)
    assert (snapshot["status"], snapshot["source"]) == ("requires_payment_method", None)

    page.get_by_role("radio", name="e-Mola").tap()  # the wallet of this number, from the refused form
    waiting = tap(page, pay_button(page, PAY_EN))
    assert after_post(waiting, url) == (200, url, "POST", 303)
    assert status_of(page) == "requires_action"
    assert outcome(page)[0] == "Approve the payment on your phone"
    assert api_payment(shop, pid)["source"] == wallet("+258861234567", "emola")


def test_a_payment_waiting_for_the_phone_is_checked_again(shop: Merchant, payer: Payer) -> None:
    url, pid = create(shop)
    page = payer()
    visit(page, url)
    type_phone(page, "Número de telemóvel", "84 123 4567")
    waiting = tap(page, pay_button(page, PAY_PT))
    assert after_post(waiting, url) == (200, url, "POST", 303)
    assert status_of(page) == "requires_action"
    assert summary(page) == SUMMARY_PT
    assert outcome(page) == WAITING_PT
    assert page.get_by_role("button", name="Simular o pagador a concluir este passo").is_visible()

    time.sleep(3.5)  # the simulated payer approves by themselves after 3 s
    checked = tap(page, page.get_by_role("link", name="Verificar o pagamento"))
    assert (checked.status, checked.url, checked.request.method) == (200, url, "GET")
    assert status_of(page) == "succeeded"
    assert outcome(page) == PAID_PT
    assert api_payment(shop, pid)["status"] == "succeeded"


def test_an_expired_checkout_is_not_paid(shop: Merchant, payer: Payer) -> None:
    url, pid = create(shop, expires_in=10)  # room to open and fill in the page on a busy machine
    page = payer()
    opened = visit(page, url)
    assert (opened.status, status_of(page)) == (200, "requires_payment_method")
    assert page.get_by_label("Número de telemóvel", exact=True).is_visible()
    type_phone(page, "Número de telemóvel", "84 000 0000")

    expires_at = datetime.fromisoformat(api_payment(shop, pid)["expires_at"])
    eventually(lambda: datetime.now(UTC), lambda now: now > expires_at + timedelta(seconds=0.5), timeout=30)
    late = tap(page, pay_button(page, PAY_PT))
    assert (late.status, late.url, late.request.method) == (409, f"{url}/pay", "POST")
    assert (status_of(page), page.locator("main").get_attribute("data-notice")) == ("expired", "state")
    assert outcome(page) == [
        "Este pagamento já não pode ser pago.",
        "Este pagamento expirou.",
        "Peça ao comerciante um novo link de pagamento.",
        "Voltar a Mercearia",
    ]
    assert page.get_by_role("alert").inner_text() == "Este pagamento já não pode ser pago."
    assert page.locator("form").count() == 0

    again = visit(page, url)
    assert (again.status, status_of(page)) == (200, "expired")
    assert_settled(
        page,
        SUMMARY_PT,
        ["Este pagamento expirou.", "Peça ao comerciante um novo link de pagamento.", "Voltar a Mercearia"],
    )
    assert api_payment(shop, pid)["status"] == "expired"


def test_the_language_switch_is_kept_for_the_forms_posts(shop: Merchant, payer: Payer) -> None:
    url, _ = create(shop)
    page = payer(locale="pt-PT")
    opened = visit(page, url)
    assert language_of(page, opened) == ("pt", "pt")
    assert page.get_by_role("link", name="Português").get_attribute("aria-current") == "true"

    switched = tap(page, page.get_by_role("link", name="English"))
    assert (switched.status, switched.url) == (200, f"{url}?lang=en")
    assert language_of(page, switched) == ("en", "en")
    assert status_of(page) == "requires_payment_method"
    assert summary(page) == SUMMARY_EN
    assert page.get_by_role("link", name="English").get_attribute("aria-current") == "true"
    assert page.get_by_role("link", name="Português").get_attribute("aria-current") == "false"
    assert {c["name"]: c["value"] for c in page.context.cookies()}.get("mzpay_lang") == "en"

    type_phone(page, "Phone number", "86 123 4567")
    refused = tap(page, pay_button(page, PAY_EN))  # the browser still asks for Portuguese (pt-PT)
    assert refused.request.headers.get("accept-language", "").startswith("pt")
    assert (refused.status, status_of(page)) == (400, "requires_payment_method")
    assert language_of(page, refused) == ("en", "en")
    assert page.get_by_role("alert").inner_text() == NOT_MPESA_EN


def test_a_stale_form_leads_back_to_the_page(shop: Merchant, payer: Payer) -> None:
    url, pid = create(shop)
    page = payer()
    visit(page, url)
    page.context.clear_cookies()  # the CSRF cookie is gone (a browser restarted, a page left open)
    type_phone(page, "Número de telemóvel", "84 000 0000")
    stale = tap(page, pay_button(page, PAY_PT))

    assert (stale.status, stale.url, stale.request.method) == (403, f"{url}/pay", "POST")
    main = page.locator("main")
    assert (main.get_attribute("data-status"), main.get_attribute("data-code")) == ("problem", "csrf_missing")
    assert language_of(page, stale) == ("pt", "pt")
    assert lines(main) == STALE_PT
    assert page.get_by_role("heading", level=1).inner_text() == "Esta página esteve aberta tempo demais"
    reopen = page.get_by_role("link", name="Abrir a página de pagamento")
    assert reopen.get_attribute("href") == url
    assert api_payment(shop, pid)["status"] == "requires_payment_method"

    reopened = tap(page, reopen)
    assert (reopened.status, reopened.url, status_of(page)) == (200, url, "requires_payment_method")
    assert summary(page) == SUMMARY_PT
    type_phone(page, "Número de telemóvel", "84 000 0000")
    paid = tap(page, pay_button(page, PAY_PT))
    assert after_post(paid, url) == (200, url, "POST", 303)
    assert (status_of(page), outcome(page)) == ("succeeded", PAID_PT)


# ---------------------------------------------------------------- the other ways to pay
def test_a_payment_reference_then_the_test_toolbar(shop: Merchant, payer: Payer) -> None:
    url, pid = create(shop)
    page = payer()
    visit(page, url)
    chosen = tap(page, page.get_by_role("button", name="Obter uma referência de pagamento"))
    assert after_post(chosen, url) == (200, url, "POST", 303)
    assert status_of(page) == "requires_action"
    action = api_payment(shop, pid)["next_action"]
    assert action["type"] == "display_reference"
    shown = outcome(page)
    assert shown[:9] == [
        "Pague com esta referência",
        "Num ATM, ao balcão do banco ou na aplicação do seu banco, escolha pagamentos a uma entidade e escreva:",
        "Entidade",
        action["entity"],
        "Referência",
        action["reference"],
        "Montante",
        AMOUNT_PT,
        shown[8],
    ]
    assert re.fullmatch(r"Válido até \d\d/\d\d/\d\d, \d\d:\d\d \(hora de Maputo\)\.", shown[8])
    assert shown[9:] == ["Verificar o pagamento"]
    assert (action["entity"], len(action["reference"])) == ("21000", 11)
    assert page.locator("dd.entity").inner_text() == action["entity"]
    assert page.locator("dd.reference").inner_text() == action["reference"]

    done = tap(page, page.get_by_role("button", name="Simular o pagador a concluir este passo"))
    assert after_post(done, url) == (200, url, "POST", 303)
    assert (status_of(page), outcome(page)) == ("succeeded", PAID_PT)
    assert api_payment(shop, pid)["status"] == "succeeded"


@pytest.mark.parametrize(
    ("number", "status", "shown"),
    [
        ("4242 4242 4242 4242", "succeeded", PAID_PT),
        (
            "4000 0000 0000 0002",
            "failed",
            ["O pagamento não foi concluído.", "O emissor do cartão recusou o pagamento.", "Voltar a Mercearia"],
        ),
    ],
    ids=["paid", "declined"],
)
def test_a_card_on_the_card_form(shop: Merchant, payer: Payer, number: str, status: str, shown: list[str]) -> None:
    url, pid = create(shop)
    page = payer()
    visit(page, url)
    page.get_by_label("Número do cartão", exact=True).press_sequentially(number)
    page.get_by_label("Data de validade (MM/AA)", exact=True).press_sequentially(future_expiry())
    answer = tap(page, pay_button(page, f"{PAY_PT} com cartão"))
    assert after_post(answer, url) == (200, url, "POST", 303)
    assert (status_of(page), outcome(page)) == (status, shown)
    snapshot = api_payment(shop, pid)
    assert (snapshot["status"], snapshot["source"]["type"]) == (status, "card")


# ---------------------------------------------------------------- tap targets and accessibility
def small_targets(page: Page) -> list[str]:
    """The visible tap targets of `page` smaller than 44 x 44 CSS pixels. A radio button's target
    is its label (label.choice: tapping anywhere on it chooses the radio), which must hold it."""
    small = []
    for element in page.locator(TAP_TARGETS).all():
        if not element.is_visible():
            continue
        target = element
        if element.get_attribute("type") in ("radio", "checkbox"):
            target = element.locator("xpath=ancestor::label[1]")
            assert target.count() == 1, f"{element.evaluate('e => e.outerHTML')} has no label around it"
        box, own = target.bounding_box(), element.bounding_box()
        assert box is not None and own is not None
        inside = box["x"] <= own["x"] and own["x"] + own["width"] <= box["x"] + box["width"]
        if box["width"] < MIN_TARGET or box["height"] < MIN_TARGET or not inside:
            html = element.evaluate("e => e.outerHTML")
            small.append(f"{page.url} [{status_of(page)}] {box['width']:.0f}x{box['height']:.0f}: {html[:160]}")
    return small


def test_every_tap_target_is_at_least_44_pixels(shop: Merchant, payer: Payer) -> None:
    small: list[str] = []
    url, _ = create(shop)
    page = payer()
    visit(page, url)
    assert status_of(page) == "requires_payment_method"
    assert page.locator(TAP_TARGETS).count() > 10  # the selector finds the form's targets
    small += small_targets(page)
    tap(page, page.get_by_role("link", name="English"))
    assert status_of(page) == "requires_payment_method" and page.locator("html").get_attribute("lang") == "en"
    small += small_targets(page)
    type_phone(page, "Phone number", "84 123 4567")
    tap(page, pay_button(page, PAY_EN))
    assert status_of(page) == "requires_action"
    small += small_targets(page)
    tap(page, page.get_by_role("button", name="Simulate the payer finishing this step"))
    assert status_of(page) == "succeeded"
    small += small_targets(page)

    stale_url, _ = create(shop)
    stale = payer()
    visit(stale, stale_url)
    stale.context.clear_cookies()
    tap(stale, stale.get_by_role("button", name="Simular um pagamento bem-sucedido"))
    assert status_of(stale) == "problem"
    small += small_targets(stale)
    assert small == [], "tap targets below 44 x 44 CSS pixels:\n" + "\n".join(small)


def _nothing(page: Page) -> None:
    """The payment page as opened."""


def _paying(number: str) -> Callable[[Page], None]:
    """Pay the page's M-Pesa with `number` (its last digits decide the simulated outcome)."""

    def pay(page: Page) -> None:
        type_phone(page, "Número de telemóvel", number)
        tap(page, pay_button(page, PAY_PT))

    return pay


def _expired(page: Page) -> None:
    time.sleep(2.2)
    visit(page, page.url)


def _stale(page: Page) -> None:
    page.context.clear_cookies()
    _paying("84 000 0000")(page)


AXE_PAGES: list[tuple[str, str, dict[str, Any], Callable[[Page], None], str]] = [
    ("payment-pt", "pt-PT", {}, _nothing, "requires_payment_method"),
    ("payment-en", "en-GB", {}, _nothing, "requires_payment_method"),
    ("refused-form", "pt-PT", {}, _paying("86 123 4567"), "requires_payment_method"),
    ("waiting", "pt-PT", {}, _paying("84 123 4567"), "requires_action"),
    ("succeeded", "pt-PT", {}, _paying("84 000 0000"), "succeeded"),
    ("failed", "pt-PT", {}, _paying("84 000 0001"), "failed"),
    ("expired", "pt-PT", {"expires_in": 1}, _expired, "expired"),
    ("csrf-problem", "pt-PT", {}, _stale, "problem"),
]


@pytest.mark.parametrize(
    ("locale", "checkout", "reach", "status"), [p[1:] for p in AXE_PAGES], ids=[p[0] for p in AXE_PAGES]
)
def test_axe_finds_no_serious_violation(
    shop: Merchant,
    payer: Payer,
    locale: str,
    checkout: dict[str, Any],
    reach: Callable[[Page], None],
    status: str,
) -> None:
    """axe runs in the page (page.evaluate), which a context without JavaScript does not finish:
    this phone has JavaScript on. The page has no script of its own, so it is the same page."""
    url, _ = create(shop, **checkout)
    page = payer(locale=locale, javascript=True)
    visit(page, url)
    reach(page)
    assert status_of(page) == status
    assert page.locator("script").count() == 0
    serious, found = serious_violations(page)
    assert serious == [], f"axe on {page.url} [{status}]:\n{found}"


# ---------------------------------------------------------------- receipts and payment links
NUIT = "400339910"
FISCAL = {
    "legal_name": "Mercearia Central, Lda",
    "nuit": NUIT,
    "address": "Av. 24 de Julho 1234, Maputo",
    "vat_registered": True,
}
# 250.00 with 16% IVA in it: base 250 / 1.16 = 215.5172... -> 215.52, tax the rest
RECEIPT_PT = {
    "dd.legal-name": "Mercearia Central, Lda",
    "dd.nuit": NUIT,
    "dd.address": "Av. 24 de Julho 1234, Maputo",
    "dd.paid": AMOUNT_PT,
    "dd.vat-base": "215,52\xa0MTn",
    "dd.vat-tax": "34,48\xa0MTn",
    "dd.state": "Pago",
}
RECEIPT_EN = {
    **RECEIPT_PT,
    "dd.paid": AMOUNT_EN,
    "dd.vat-base": "MZN\xa0215.52",
    "dd.vat-tax": "MZN\xa034.48",
    "dd.state": "Paid",
}
FOUR_DIGIT_DATE = re.compile(r"^\d{2}/\d{2}/\d{4} \d{2}:\d{2}$")


def fiscal_shop(stack: RunningStack) -> Merchant:
    """A fresh merchant whose operator set its fiscal details (VAT-registered at the standard rate)."""
    merchant = Merchant(stack)
    management = stack.state["regions"]["mz"]["management"]
    operator = {"Authorization": f"Bearer {stack.state['operator_token']}"}
    answer = requests.put(
        f"{management}/v1/accounts/{merchant.account['id']}/fiscal-details", json=FISCAL, headers=operator, timeout=30
    )
    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "account_id": merchant.account["id"],
        **FISCAL,
        "vat_rate": "0.16",
        "updated_at": answer.json()["updated_at"],
    }
    return merchant


def receipt_fields(page: Page, fields: dict[str, str]) -> dict[str, str]:
    return {selector: page.locator(selector).inner_text() for selector in fields}


def test_a_fiscal_receipt_in_both_languages_with_its_pdf(stack: RunningStack, payer: Payer) -> None:
    from mzpay.domain.payments.fiscal import short_number

    merchant = fiscal_shop(stack)
    url, pid = create(merchant)
    page = payer(javascript=True)  # axe runs in the page; the page itself has no script
    visit(page, url)
    type_phone(page, "Número de telemóvel", "84 000 0000")
    tap(page, pay_button(page, PAY_PT))
    assert status_of(page) == "succeeded"
    receipt = tap(page, page.get_by_role("link", name="Ver o recibo"))
    assert (receipt.status, status_of(page), *language_of(page, receipt)) == (200, "receipt", "pt", "pt")
    assert receipt_fields(page, RECEIPT_PT) == RECEIPT_PT
    number = page.locator(".receipt-number")
    assert number.inner_text() == short_number(pid)
    box = number.bounding_box()
    assert box is not None and box["height"] < 40 and box["x"] + box["width"] <= PHONE["viewport"]["width"]
    assert FOUR_DIGIT_DATE.match(page.locator("dd.date").inner_text())
    assert page.get_by_text("IVA a 16%", exact=True).count() == 1
    serious, found = serious_violations(page)
    assert serious == [], f"axe on {page.url}:\n{found}"

    link = page.get_by_role("link", name="Descarregar o recibo (PDF)")
    href = link.get_attribute("href")
    assert href == f"{url}/receipt?format=pdf&lang=pt"
    pdf = page.request.get(href)
    assert (pdf.status, pdf.headers["content-type"]) == (200, "application/pdf")
    assert pdf.headers["content-disposition"] == f'attachment; filename="recibo-{short_number(pid)}.pdf"'
    text = PdfReader(io.BytesIO(pdf.body())).pages[0].extract_text()
    for field in ("Recibo n.º", short_number(pid), "Mercearia Central, Lda", NUIT, "Av. 24 de Julho 1234, Maputo"):
        assert field in text, text
    for field in ("Valor sem IVA", "215,52", "IVA a 16%", "34,48", "Pago"):
        assert field in text, text
    assert re.search(r"\d{2}/\d{2}/\d{4} \d{2}:\d{2}", text), text

    english = tap(page, page.get_by_role("link", name="English"))
    assert (english.status, status_of(page), *language_of(page, english)) == (200, "receipt", "en", "en")
    assert receipt_fields(page, RECEIPT_EN) == RECEIPT_EN
    assert page.get_by_text("IVA at 16%", exact=True).count() == 1
    assert FOUR_DIGIT_DATE.match(page.locator("dd.date").inner_text())
    serious, found = serious_violations(page)
    assert serious == [], f"axe on {page.url}:\n{found}"
    href = page.get_by_role("link", name="Download the receipt (PDF)").get_attribute("href")
    pdf = page.request.get(str(href))
    assert pdf.headers["content-disposition"] == f'attachment; filename="receipt-{short_number(pid)}.pdf"'
    text = PdfReader(io.BytesIO(pdf.body())).pages[0].extract_text()
    for field in ("Receipt no.", "Amount before IVA", "MZN 215.52", "IVA at 16%", "MZN 34.48", "Paid", NUIT):
        assert field in text, text

    api = merchant.call("GET", f"/v1/payments/{pid}/receipt")
    assert api.json()["fiscal"] == {
        "legal_name": FISCAL["legal_name"],
        "nuit": NUIT,
        "address": FISCAL["address"],
        "vat": {
            "base": {"amount": "215.52", "currency": "MZN"},
            "rate": "0.16",
            "tax": {"amount": "34.48", "currency": "MZN"},
        },
    }


RECEIPT_LINK = {"pt": "Ver o recibo", "en": "See the receipt"}
PAID_REQUEST = {"pt": "1\xa0500,50\xa0MTn", "en": "MZN\xa01,500.50"}
LINK_PAGES = {
    "pt": {"paid": "Esta factura está paga. Obrigado.", "not_found": "Esta factura não existe."},
    "en": {"paid": "This invoice is paid. Thank you.", "not_found": "There is no such invoice."},
}


def test_the_payment_links_own_pages_in_both_languages(stack: RunningStack, payer: Payer) -> None:
    mz = Collection(stack, "mz")
    request_id = create_request(mz, payer=request_payer(unique_phone()))["id"]
    link = f"{mz.url}/pay/{request_id}"
    page = payer()
    visit(page, link)  # 303 to the request's checkout
    assert page.url.startswith(stack.state["regions"]["mz"]["gateway"] + "/checkout/")
    type_phone(page, "Número de telemóvel", "84 000 0000")
    tap(page, pay_button(page, "Pagar 1\xa0500,50\xa0MTn"))
    assert status_of(page) == "succeeded"
    checkout_url = page.url
    wait_for(mz, request_id, lambda r: r["status"] == "paid")

    for locale, lang in (("pt-PT", "pt"), ("en-GB", "en")):
        for state, address in (("paid", link), ("not_found", f"{mz.url}/pay/cr_01ARZ3NDEKTSV4RRFFQ69G5FAV")):
            reader = payer(locale=locale, javascript=True)
            answer = visit(reader, address)
            assert (answer.status, *language_of(reader, answer)) == (
                200 if state == "paid" else 404,
                lang,
                lang,
            )
            assert reader.locator("main").get_attribute("data-state") == state
            assert reader.locator("h1").inner_text() == LINK_PAGES[lang][state]
            # the checkout's styles: the page's card and the language switch, styled by its sheet
            assert reader.locator("style").count() == 1
            card = reader.locator("section.card").evaluate("e => getComputedStyle(e).borderRadius")
            assert card == "16px"
            serious, found = serious_violations(reader)
            assert serious == [], f"axe on {address} [{lang}]:\n{found}"
            if state == "paid":  # the page leads to the receipt of the payment that paid it
                receipt = tap(reader, reader.get_by_role("link", name=RECEIPT_LINK[lang]))
                assert (receipt.status, reader.url) == (200, f"{checkout_url}/receipt?lang={lang}")
                assert (status_of(reader), *language_of(reader, receipt)) == ("receipt", lang, lang)
                assert reader.locator("dd.paid").inner_text() == PAID_REQUEST[lang]
        switched = payer(locale="pt-PT")
        answer = visit(switched, f"{link}?lang={lang}")  # the switch wins over Accept-Language
        assert language_of(switched, answer) == (lang, lang)


BANK_PAGE = {
    "pt": ("Pague esta factura no seu banco", "Copiar a referência", "Referência copiada."),
    "en": ("Pay this invoice at your bank", "Copy the reference", "Reference copied."),
}


def test_the_bank_page_of_a_request_paid_by_reference_copies_its_numbers(stack: RunningStack, payer: Payer) -> None:
    mz = Collection(stack, "mz")
    simo = {"type": "simo_erv", "mode": "test", "details": {"entity_number": "54321"}}
    interbank = {"type": "interbank", "mode": "test", "details": {"nib": "000301080016367102371"}}
    methods = [mz.call("POST", "/v1/collection-methods", body).json()["id"] for body in (simo, interbank)]
    created = create_request(mz, collection_method_ids=[*methods, mz.demo["collection_method_ids"][0]])
    number = created["collection_method_details"][0]["reference_number"]
    link = created["invoice_metadata"]["payment_link"]
    for locale, lang in (("pt-PT", "pt"), ("en-GB", "en")):
        title, copy, copied = BANK_PAGE[lang]
        reader = payer(locale=locale, javascript=True)
        reader.context.grant_permissions(["clipboard-read", "clipboard-write"])
        answer = visit(reader, link)
        assert (answer.status, *language_of(reader, answer)) == (200, lang, lang)
        assert reader.locator("main").get_attribute("data-state") == "bank"
        assert reader.locator("h1").inner_text() == title
        assert reader.locator("dd.entity").inner_text() == "54321"
        assert reader.locator("dd.reference").inner_text() == number
        assert reader.locator("dd.nib").inner_text() == "000301080016367102371"
        assert reader.locator("dd.description").inner_text() == f"MZP{number}"
        button = reader.get_by_role("button", name=copy)
        assert button.is_visible()  # the script file showed the buttons (none runs inline)
        button.click()
        reader.wait_for_function(f"document.getElementById('copied').textContent === {copied!r}")
        assert reader.evaluate("navigator.clipboard.readText()") == number
        assert small_targets(reader) == []
        serious, found = serious_violations(reader)
        assert serious == [], f"axe on {link} [{lang}]:\n{found}"
        wallet = reader.locator("a.wallet")
        assert wallet.get_attribute("href") == f"{link}?via=wallet&lang={lang}"
    without_script = payer(locale="en-GB")
    visit(without_script, link)
    assert without_script.locator("button.copy").count() == 4
    assert not without_script.locator("button.copy").first.is_visible()  # hidden: the numbers are there to select

"""The dashboard's home charts and settings in a real browser (Debian's Chromium through
Playwright, a phone's screen): an owner of an account with payments sees today's and the last 30
days' volume and success rate by method as SVG charts with their table, in Portuguese and in
English; changes the brand colour on the settings page and sees it on the hosted checkout; axe
finds no serious violation on the home and settings pages, and nothing is wider than the phone."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
import requests
from playwright.sync_api import Browser, Page

from devstack.dashboard_demo import fresh_totp_code
from devstack.launcher import RunningStack
from tests.e2e.browsers import fresh_pages
from tests.e2e.dashboard_client import new_user
from tests.e2e.test_charges import Merchant, card, wallet
from tests.e2e.test_checkout import checkout
from tests.e2e.test_console_browser import click, main_data
from tests.e2e.test_dashboard_browser import PHONE, WORDS, audit, dashboard

pytestmark = pytest.mark.e2e

SIGN_IN = {"pt": "Iniciar sessão", "en": "Sign in"}
VOLUME = {"pt": "Volume e taxa de sucesso", "en": "Volume and success rate"}
WALLET = {"pt": "Carteira móvel (MZN)", "en": "Mobile wallet (MZN)"}
RATE = {"pt": "Taxa de sucesso por método", "en": "Success rate by method"}


@pytest.fixture
def phone(browser: Browser) -> Iterator[Callable[..., Page]]:
    with fresh_pages(browser, PHONE) as open_page:
        yield open_page


@pytest.fixture(scope="module")
def shop(stack: RunningStack) -> Merchant:
    """An account with a day of payments: two wallet payments succeeded and one failed, a card paid."""
    shop = Merchant(stack)
    made = [
        shop.charge(wallet("+258840000000"), amount="40.10"),
        shop.charge(wallet("+258840000000"), amount="12.35"),
        shop.charge(wallet("+258860000001", "emola")),
        shop.charge(card("tok_test_visa"), amount="100.00"),
    ]
    assert [m.json()["status"] for m in made] == ["succeeded", "succeeded", "failed", "succeeded"]
    return shop


def signed_in(phone: Callable[..., Page], stack: RunningStack, shop: Merchant, lang: str) -> Page:
    owner = new_user(stack, shop.account["id"], f"owner-{uuid.uuid4().hex[:8]}@example.co.mz")
    page = phone(locale="pt-PT" if lang == "pt" else "en-GB", javascript=True)  # for axe and the width
    page.goto(f"{dashboard(stack)}/sign-in?lang={lang}")
    page.get_by_label(WORDS[lang]["email"]).fill(owner["email"])
    page.get_by_label(WORDS[lang]["password"]).fill(owner["password"])
    assert main_data(page, "page") == "sign-in" and click(page, WORDS[lang]["continue"]).status == 200
    page.get_by_label(WORDS[lang]["code"]).fill(fresh_totp_code(owner["totp_secret"]))
    home = click(page, SIGN_IN[lang])
    assert (home.status, main_data(page, "page")) == (200, "home")
    return page


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_owner_sees_the_volume_and_success_rate_charts_on_a_phone(
    phone: Callable[..., Page], stack: RunningStack, shop: Merchant, lang: str
) -> None:
    page = signed_in(phone, stack, shop, lang)
    assert page.locator("html").get_attribute("lang") == lang
    assert page.get_by_role("heading", level=2, name=VOLUME[lang]).is_visible()
    charts = page.get_by_role("img")
    assert charts.count() == 4  # volume and rate, today and 30 days
    assert page.get_by_role("img", name=RATE[lang]).first.is_visible()
    today = page.locator('section[data-period="today"]')
    wallet_row = today.locator('tr[data-method="mobile_wallet"]')
    assert wallet_row.locator("th").inner_text() == WALLET[lang]
    assert (wallet_row.get_attribute("data-volume"), wallet_row.get_attribute("data-rate")) == ("52.45", "66.7")
    shown = wallet_row.locator("td").all_inner_texts()
    assert shown[0] == "3" and shown[2] == ("66,7%" if lang == "pt" else "66.7%")
    bar = today.locator('svg[data-chart="volume-chart-today"] rect').nth(1)  # card (100.00) then wallet (52.45)
    assert bar.bounding_box() is not None and bar.get_attribute("data-width") == "62.9"
    audit(page)


def test_the_owner_changes_the_brand_colour_and_sees_it_on_the_checkout(
    phone: Callable[..., Page], stack: RunningStack, shop: Merchant
) -> None:
    page = signed_in(phone, stack, shop, "pt")
    with page.expect_navigation():
        page.locator("nav.sections").get_by_role("link", name="Definições").click()
    assert main_data(page, "page") == "settings"
    audit(page)
    page.get_by_label("Cor da marca (#RRGGBB)").fill("#5B2A86")
    saved = click(page, "Guardar definições")
    assert (saved.status, main_data(page, "page")) == (200, "settings")
    assert page.get_by_role("status").inner_text() == "Guardado."
    assert page.get_by_label("Cor da marca (#RRGGBB)").input_value() == "#5b2a86"
    audit(page)
    url = checkout(shop).json()["checkout_url"]
    assert requests.get(url, timeout=30).status_code == 200
    page.goto(url)
    assert page.locator("main").get_attribute("data-brand-colour") == "#5b2a86"
    pay = page.locator("main button[type=submit]").first
    colours = pay.evaluate("b => [getComputedStyle(b).backgroundColor, getComputedStyle(b).color]")
    assert colours == ["rgb(91, 42, 134)", "rgb(255, 255, 255)"]
    audit(page)

"""The merchant dashboard in a real browser: Debian's Chromium driven by Playwright (the `browser`
of tests/e2e/conftest.py) against the local stack. A user signs in with its TOTP code in
Portuguese and in English on a phone's screen (the pages have no script: JavaScript is on only
where axe-core runs in the page), sees its balance, signs out; axe finds no serious violation on
the sign-in, code and home pages."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page

from devstack.dashboard_demo import fresh_totp_code
from devstack.launcher import RunningStack
from tests.e2e.browsers import fresh_pages, serious_violations
from tests.e2e.dashboard_client import SIGN_IN_BUTTON, SIGN_IN_WORDS, new_user
from tests.e2e.test_console_browser import click, main_data

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
WORDS, SIGN_IN = SIGN_IN_WORDS, SIGN_IN_BUTTON
SIGN_OUT = {"pt": "Terminar sessão", "en": "Sign out"}
BALANCE = {"pt": "Saldo", "en": "Balance"}
WRONG_CODE = {
    "pt": "O código não está certo: escreva o que a sua aplicação mostra agora.",
    "en": "The code is not right: type the one your app shows now.",
}


@pytest.fixture
def phone(browser: Browser) -> Iterator[Callable[..., Page]]:
    with fresh_pages(browser, PHONE) as open_page:
        yield open_page


def dashboard(stack: RunningStack) -> str:
    return str(stack.state["demo"]["mz"]["dashboard"]["url"])


def fits_the_screen(page: Page) -> bool:
    """Nothing wider than the phone: no sideways scrolling (JavaScript on to measure)."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def audit(page: Page) -> None:
    serious, found = serious_violations(page)
    assert serious == [], f"axe on {page.url}:\n{found}"
    assert fits_the_screen(page), page.url


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_user_signs_in_with_totp_sees_its_balance_and_signs_out(
    phone: Callable[..., Page], stack: RunningStack, lang: str
) -> None:
    demo = stack.state["demo"]["mz"]
    user = (
        demo["dashboard"]["owner"]
        if lang == "pt"
        else new_user(stack, demo["account_id"], f"support-{uuid.uuid4().hex[:8]}@example.co.mz", "support")
    )
    page = phone(locale="pt-PT" if lang == "pt" else "en-GB", javascript=True)  # for axe and the width
    words = WORDS[lang]
    answer = page.goto(dashboard(stack) + "/")
    assert answer is not None and main_data(page, "page") == "sign-in" and answer.url.endswith("/sign-in")
    assert page.locator("html").get_attribute("lang") == lang
    audit(page)
    page.get_by_label(words["email"]).fill(user["email"])
    page.get_by_label(words["password"]).fill(user["password"])
    answer = click(page, words["continue"])
    assert (answer.status, main_data(page, "page")) == (200, "code")
    audit(page)
    right = fresh_totp_code(user["totp_secret"])
    page.get_by_label(words["code"]).fill(f"{(int(right) + 1) % 1_000_000:06d}")
    refused = click(page, SIGN_IN[lang])
    assert (refused.status, main_data(page, "page")) == (401, "code")
    assert page.get_by_role("alert").inner_text() == WRONG_CODE[lang]
    page.get_by_label(words["code"]).fill(fresh_totp_code(user["totp_secret"]))
    home = click(page, SIGN_IN[lang])
    assert (home.status, main_data(page, "page")) == (200, "home")
    assert page.get_by_role("heading", level=1).inner_text() == BALANCE[lang]
    assert page.locator("[data-mode]").get_attribute("data-mode") == "test"
    cookies = {cookie["name"]: cookie for cookie in page.context.cookies()}
    session = cookies["__Host-mzpay_dashboard"]
    assert (session["secure"], session["httpOnly"], session["sameSite"], session["path"]) == (True, True, "Strict", "/")
    audit(page)
    out = click(page, SIGN_OUT[lang], within="header")
    assert (out.status, main_data(page, "page")) == (200, "sign-in")
    assert "__Host-mzpay_dashboard" not in {cookie["name"] for cookie in page.context.cookies()}

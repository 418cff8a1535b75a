"""The dashboard's team in a real browser (Debian's Chromium through Playwright, a phone's screen,
as tests/e2e/test_dashboard_browser.py): an owner signs in with TOTP, opens the team page from the
header, invites a support user; the support user opens the e-mail's link (read back from moto's
SES), chooses a password, sets up TOTP and is signed in; in Portuguese and in English, axe finding
no serious violation on the team, invitation and setup pages."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page

from devstack.dashboard_demo import demo_password, fresh_totp_code
from devstack.launcher import RunningStack
from tests.e2e.browsers import fresh_pages
from tests.e2e.dashboard_client import dashboard_link, emails_sent_to, new_user
from tests.e2e.test_charges import Merchant
from tests.e2e.test_console_browser import click, main_data
from tests.e2e.test_dashboard_browser import PHONE, SIGN_IN, WORDS, audit, dashboard

pytestmark = pytest.mark.e2e

TEAM = {
    "pt": {
        "team": "Equipa",
        "role": "Função",
        "invite": "Enviar o convite",
        "support": "Apoio ao cliente",
        "password": "Nova palavra-passe",
        "accept": "Aceitar e continuar",
        "confirm": "Confirmar e entrar",
        "subject": "Foi convidado para o painel mzpay de mzpay",
    },
    "en": {
        "team": "Team",
        "role": "Role",
        "invite": "Send the invitation",
        "support": "Support",
        "password": "New password",
        "accept": "Accept and continue",
        "confirm": "Confirm and sign in",
        "subject": "You are invited to the mzpay dashboard of mzpay",
    },
}


@pytest.fixture
def phone(browser: Browser) -> Iterator[Callable[..., Page]]:
    with fresh_pages(browser, PHONE) as open_page:
        yield open_page


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_an_owner_invites_a_support_user_who_accepts_sets_up_totp_and_signs_in(
    phone: Callable[..., Page], stack: RunningStack, lang: str
) -> None:
    words, team = WORDS[lang], TEAM[lang]
    locale = "pt-PT" if lang == "pt" else "en-GB"
    owner = new_user(stack, Merchant(stack).account["id"], f"owner-{uuid.uuid4().hex[:8]}@example.co.mz")
    page = phone(locale=locale, javascript=True)  # for axe and the width
    page.goto(dashboard(stack) + "/sign-in")
    page.get_by_label(words["email"]).fill(owner["email"])
    page.get_by_label(words["password"]).fill(owner["password"])
    assert (click(page, words["continue"]).status, main_data(page, "page")) == (200, "code")
    page.get_by_label(words["code"]).fill(fresh_totp_code(owner["totp_secret"]))
    assert (click(page, SIGN_IN[lang]).status, main_data(page, "page")) == (200, "home")

    with page.expect_navigation():
        page.locator("nav.sections").get_by_role("link", name=team["team"], exact=True).click()
    assert main_data(page, "page") == "team"
    audit(page)
    invitee = f"support-{uuid.uuid4().hex[:8]}@example.co.mz"
    page.locator("main").get_by_label(words["email"], exact=True).fill(invitee)
    page.locator("main").get_by_label(team["role"], exact=True).select_option("support")
    answer = click(page, team["invite"])
    assert (answer.status, main_data(page, "page")) == (200, "team")
    row = page.locator(f'tr[data-member="{invitee}"]')
    assert row.get_attribute("data-status") == "invited" and team["support"] in row.inner_text()

    mail = emails_sent_to(stack, invitee)[0]
    assert mail["Subject"] == team["subject"]
    invited = phone(locale=locale, javascript=True)
    answer = invited.goto(dashboard(stack) + dashboard_link(mail, "invitations"))
    assert answer is not None and answer.status == 200 and main_data(invited, "page") == "team-accept"
    assert invited.locator("html").get_attribute("lang") == lang
    audit(invited)
    invited.get_by_label(team["password"]).fill(demo_password())
    assert (click(invited, team["accept"]).status, main_data(invited, "page")) == (200, "setup")
    audit(invited)
    secret = invited.locator("[data-secret]").inner_text()
    invited.get_by_label(words["code"]).fill(fresh_totp_code(secret))
    assert (click(invited, team["confirm"]).status, main_data(invited, "page")) == (200, "home")
    assert invited.locator("[data-user]").get_attribute("data-user") == invitee
    assert invited.locator('header [data-nav="team"]').count() == 0  # support may not manage the team

    page.reload()
    row = page.locator(f'tr[data-member="{invitee}"]')
    assert (row.get_attribute("data-status"), row.get_attribute("data-totp")) == ("active", "yes")

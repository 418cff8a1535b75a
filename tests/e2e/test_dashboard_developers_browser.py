"""The dashboard's API keys and webhooks pages in a real browser (Debian's Chromium through
Playwright, a phone's screen), in Portuguese and in English: a developer replays a failed webhook
delivery that the receiver then gets, and rolls a key whose old secret stops working once the
overlap it chose (the API's rule) is over; a support user cannot roll a key. axe finds no serious
violation on any of these pages and nothing is wider than the phone."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import datetime

import pytest
import requests
from playwright.sync_api import Browser, Page

from devstack.launcher import RunningStack
from mzpay.domain.webhooks.rules import MAX_ATTEMPTS, delivery_id_for
from tests.e2e.browsers import fresh_pages
from tests.e2e.dashboard_client import new_user, sign_in_in_browser
from tests.e2e.test_console_browser import click, main_data
from tests.e2e.test_dashboard_browser import PHONE, audit, dashboard
from tests.e2e.test_webhooks import SUCCEEDS, Receiver, Shop
from tests.polling import eventually
from tests.receivers import serving

pytestmark = pytest.mark.e2e

LOCALES = {"pt": "pt-PT", "en": "en-GB"}
WORDS = {
    "pt": {
        "webhooks": "Webhooks",
        "failed": "Falhadas (esgotadas as tentativas)",
        "replay": "Reenviar",
        "keys": "Chaves de API",
        "overlap": "A chave antiga funciona durante (segundos)",
        "roll": "Renovar a chave",
        "forbidden": "A sua função não permite fazer isto.",
    },
    "en": {
        "webhooks": "Webhooks",
        "failed": "Failed (dead-lettered)",
        "replay": "Replay",
        "keys": "API keys",
        "overlap": "The old key works for (seconds)",
        "roll": "Roll the key",
        "forbidden": "Your role may not do this.",
    },
}
OVERLAP_SECONDS = 8


@pytest.fixture
def phone(browser: Browser) -> Iterator[Callable[..., Page]]:
    with fresh_pages(browser, PHONE) as open_page:
        yield open_page


def key_status(stack: RunningStack, key: str) -> int:
    url = stack.state["regions"]["mz"]["gateway"] + "/v1/api-keys/current"
    return requests.get(url, headers={"Authorization": f"Bearer {key}"}, timeout=30).status_code


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_developer_replays_a_failed_delivery_and_rolls_a_key(
    phone: Callable[..., Page], stack: RunningStack, lang: str
) -> None:
    shop = Shop(stack)
    words = WORDS[lang]
    developer = new_user(stack, shop.account_id, f"dev-{lang}-{uuid.uuid4().hex[:10]}@example.co.mz", "developer")
    page = phone(locale=LOCALES[lang], javascript=True)  # for axe and the width
    sign_in_in_browser(page, dashboard(stack), developer, lang)
    with serving(Receiver()) as receiver:
        url = receiver.endpoint(503, fast=True)
        charge = shop.charge(SUCCEEDS, url)
        delivery_id = delivery_id_for(shop.event(charge["provider_payment_id"], "payment.succeeded")["id"], url)
        shop.delivery_once(delivery_id, lambda d: d["status"] == "failed")

        with page.expect_navigation():
            page.locator("nav.sections").get_by_role("link", name=words["webhooks"], exact=True).click()
        assert main_data(page, "page") == "developers-webhooks"
        audit(page)
        with page.expect_navigation():
            page.locator("main").get_by_role("link", name=words["failed"], exact=True).click()
        assert main_data(page, "page") == "developers-deliveries"
        row = page.locator(f'tr[data-delivery="{delivery_id}"]')
        assert row.get_attribute("data-delivery-status") == "failed"
        audit(page)
        with page.expect_navigation():
            row.get_by_role("link").click()
        assert main_data(page, "page") == "developers-delivery"
        assert page.locator("[data-attempt]").count() == MAX_ATTEMPTS
        audit(page)
        receiver.script(url, 200)  # the endpoint is fixed: the replay is answered 200
        replayed = click(page, words["replay"])
        assert (replayed.status, main_data(page, "page")) == (200, "developers-delivery")
        arrivals = receiver.wait_for(url, MAX_ATTEMPTS + 1)
        assert arrivals[-1].body == arrivals[0].body
    shown = eventually(
        lambda: (page.reload(), page.locator("[data-delivery-status]").get_attribute("data-delivery-status"))[1],
        lambda status: status == "delivered",
    )
    assert shown == "delivered"

    assert key_status(stack, shop.key) == 200
    page.goto(dashboard(stack) + "/")
    with page.expect_navigation():
        page.locator("nav.sections").get_by_role("link", name=words["keys"], exact=True).click()
    assert main_data(page, "page") == "developers-keys"
    audit(page)
    with page.expect_navigation():
        page.locator("tr[data-key]").first.get_by_role("link").click()  # the account's one key
    assert main_data(page, "page") == "developers-key"
    audit(page)
    page.get_by_label(words["overlap"]).fill(str(OVERLAP_SECONDS))
    rolled = click(page, words["roll"])
    assert (rolled.status, main_data(page, "page")) == (201, "developers-secret")
    new = page.locator("[data-secret]").inner_text()
    until = datetime.fromisoformat(page.locator("[data-rolled-until]").get_attribute("data-rolled-until") or "")
    audit(page)
    assert key_status(stack, new) == 200
    assert key_status(stack, shop.key) == 200 or datetime.now(until.tzinfo) >= until  # within its overlap
    refused = eventually(
        lambda: key_status(stack, shop.key), lambda status: status == 401, timeout=OVERLAP_SECONDS + 30
    )
    assert refused == 401 and datetime.now(until.tzinfo) >= until  # not before the overlap ended
    page.goto(dashboard(stack) + "/keys")
    assert new not in page.content()  # shown once


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_support_user_cannot_roll_a_key(phone: Callable[..., Page], stack: RunningStack, lang: str) -> None:
    shop = Shop(stack)
    key_id = requests.get(
        stack.state["regions"]["mz"]["gateway"] + "/v1/api-keys/current",
        headers={"Authorization": f"Bearer {shop.key}"},
        timeout=30,
    ).json()["id"]
    support = new_user(stack, shop.account_id, f"support-{lang}-{uuid.uuid4().hex[:10]}@example.co.mz", "support")
    page = phone(locale=LOCALES[lang], javascript=True)
    sign_in_in_browser(page, dashboard(stack), support, lang)
    assert page.locator("nav.sections").get_by_role("link", name=WORDS[lang]["keys"], exact=True).count() == 0
    answer = page.goto(f"{dashboard(stack)}/keys/{key_id}")
    assert answer is not None and answer.status == 403 and main_data(page, "page") == "refused"
    assert page.get_by_role("alert").inner_text() == WORDS[lang]["forbidden"]
    assert page.get_by_role("button", name=WORDS[lang]["roll"]).count() == 0
    audit(page)
    assert key_status(stack, shop.key) == 200

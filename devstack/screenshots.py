"""Screenshots of the merchant dashboard's main pages, for docs/dashboard.md.

    make run                      # in one terminal
    .venv/bin/python -m devstack.screenshots

With the local stack running (.local/stack.json), it makes a few test-mode payments with the
demo account's test key (succeeded, failed, refunded), signs in as the demo owner in Debian's
Chromium (Playwright; the TOTP code from the owner's secret) and saves each page of PAGES in
Portuguese, at a laptop's width, to docs/images/dashboard/<name>.png. A page the dashboard does
not serve (404) is skipped and said so."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import requests
from playwright.sync_api import Page, sync_playwright

from devstack.dashboard_demo import fresh_totp_code

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "images" / "dashboard"
CHROMIUM = "/usr/bin/chromium"
SCREEN: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}, "device_scale_factor": 1}
# (file name, path): the pages docs/dashboard.md shows
PAGES = (
    ("sign-in", "/sign-in"),
    ("home", "/"),
    ("payments", "/payments"),
    ("payment", "/payments/{payment}"),
    ("refunds", "/refunds"),
    ("payouts", "/payouts"),
    ("balance-transactions", "/balance-transactions"),
    ("reports", "/reports"),
    ("keys", "/keys"),
    ("webhooks", "/webhooks"),
    ("team", "/team"),
    ("settings", "/settings"),
)
# test mode's numbers (docs/test-mode.md): one ending 0000 succeeds, 0002 fails (payer_declined)
PAYERS = (("+258840000000", "150.00"), ("+258841230000", "2500.00"), ("+258840000002", "75.00"))


def seed(gateway: str, key: str) -> str:
    """A few payments of the demo account (one refunded in part); the first payment's id."""
    first = ""
    for phone, amount in PAYERS:
        body = {
            "payment_id": str(uuid.uuid4()),
            "money": {"amount": amount, "currency": "MZN"},
            "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": phone}},
            "country": "MZ",
        }
        answer = _post(f"{gateway}/charges", key, body)
        first = first or str(answer["provider_payment_id"])
    refund = {"refund_id": str(uuid.uuid4()), "provider_payment_id": first, "reason": "Returned"}
    _post(f"{gateway}/refunds", key, {**refund, "amount": {"amount": "50.00", "currency": "MZN"}})
    return first


def _post(url: str, key: str, body: dict[str, Any]) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": str(uuid.uuid4())}
    answer = requests.post(url, json=body, headers=headers, timeout=30)
    if answer.status_code >= 300:
        sys.exit(f"{url}: {answer.status_code} {answer.text}")
    return answer.json()  # type: ignore[no-any-return]


def sign_in(page: Page, url: str, owner: dict[str, str]) -> None:
    page.goto(f"{url}/sign-in")
    page.locator('input[name="email"]').fill(owner["email"])
    page.locator('input[name="password"]').fill(owner["password"])
    page.locator('form button[type="submit"]').first.click()
    page.locator('input[name="code"]').fill(fresh_totp_code(owner["totp_secret"]))
    page.locator('form button[type="submit"]').first.click()


def main() -> None:
    state = json.loads((ROOT / ".local" / "stack.json").read_text(encoding="utf-8"))
    demo = state["demo"]["mz"]
    url, owner = demo["dashboard"]["url"], demo["dashboard"]["owner"]
    names = {"payment": seed(state["regions"]["mz"]["gateway"], demo["test_key"])}
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        context = browser.new_context(**SCREEN, java_script_enabled=False, locale="pt-PT")
        page = context.new_page()
        page.goto(f"{url}/sign-in")
        page.screenshot(path=str(OUT / "sign-in.png"), full_page=True)
        sign_in(page, url, owner)
        for name, path in PAGES[1:]:
            answer = page.goto(url + path.format(**names))
            if answer is None or answer.status == 404:
                print(f"skipped {name}: {path} is not served")
                continue
            page.screenshot(path=str(OUT / f"{name}.png"), full_page=True)
            print(f"wrote docs/images/dashboard/{name}.png")
        browser.close()


if __name__ == "__main__":
    main()

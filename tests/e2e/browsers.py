"""Debian's Chromium driven by Playwright, for the browser tests (the payer's checkout page, the
operator console, the interactive docs): launched once a module (the `browser` fixture of
tests/e2e/conftest.py), each test's pages in browser contexts of their own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

SERIOUS = ("serious", "critical")  # the axe impacts a page must not have
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--no-first-run",
]


@contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's Chromium, headless (Playwright's own browser cannot be downloaded here)."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the browser tests drive Debian's Chromium. "
            "`make test` installs it (make system-packages: apt-get install chromium).",
            pytrace=False,
        )
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@contextmanager
def fresh_pages(browser: Browser, screen: dict[str, Any]) -> Iterator[Callable[..., Page]]:
    """open(locale=..., javascript=...) is a page on `screen` in a fresh browser context (its own
    cookies), JavaScript off unless asked; every context closed when the block ends."""
    contexts: list[BrowserContext] = []

    def open_page(locale: str = "pt-PT", javascript: bool = False) -> Page:
        context = browser.new_context(**screen, java_script_enabled=javascript, locale=locale)
        contexts.append(context)
        return context.new_page()

    try:
        yield open_page
    finally:
        for context in contexts:
            context.close()


def serious_violations(page: Page) -> tuple[list[dict[str, Any]], str]:
    """What axe finds on `page` at a SERIOUS impact (axe runs in the page: its context needs
    JavaScript on), and the same written out for an assertion's message."""
    violations = Axe().run(page).response["violations"]
    serious = [v for v in violations if v["impact"] in SERIOUS]
    found = "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']}\n"
        + "\n".join(f"    {node['target']}: {node['html']}" for node in v["nodes"])
        for v in serious
    )
    return serious, found

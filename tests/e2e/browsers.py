"""Debian's Chromium driven by Playwright, for the browser tests (the payer's checkout page, the
operator console, the interactive docs): launched once a module (the `browser` fixture of
tests/e2e/conftest.py), each test's pages in browser contexts of their own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

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

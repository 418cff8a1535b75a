"""The interactive documentation (/docs, Swagger UI served by each API itself) works in a real
browser under its Content-Security-Policy: Debian's Chromium driven by Playwright renders the
gateway's and the collection surface's documents, and the management API's with the operator's
token, with no request or script the policy blocks; and no page of another origin can frame it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Response

from devstack.launcher import RunningStack

pytestmark = pytest.mark.e2e

TITLES = {"gateway": "mzpay gateway API", "collection": "mzpay collection API", "management": "mzpay management API"}


@pytest.mark.parametrize("api", ["gateway", "collection", "management"])
def test_swagger_ui_renders_the_document_under_its_policy(stack: RunningStack, browser: Browser, api: str) -> None:
    headers = {"Authorization": f"Bearer {stack.state['operator_token']}"} if api == "management" else {}
    context = browser.new_context(extra_http_headers=headers)
    try:
        page = context.new_page()
        complaints: list[str] = []
        page.on("console", lambda message: _note(message, complaints))
        page.on("pageerror", lambda error: complaints.append(f"page error: {error}"))
        page.on("response", lambda response: _failed(response, complaints))
        answer = page.goto(f"{stack.state['regions']['mz'][api]}/docs")
        assert answer is not None and answer.status == 200
        title = page.locator(".swagger-ui .info .title")
        title.wait_for(timeout=30_000)
        assert title.inner_text().startswith(TITLES[api])
        assert page.locator(".swagger-ui .opblock").count() > 3  # the operations are listed
        assert complaints == []
    finally:
        context.close()


def test_another_origin_cannot_frame_the_docs(stack: RunningStack, browser: Browser) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        docs = f"{stack.state['regions']['mz']['gateway']}/docs"
        with page.expect_console_message(lambda m: "frame-ancestors" in m.text, timeout=30_000) as refusal:
            page.set_content(f'<iframe id="f" src="{docs}"></iframe>')
        assert refusal.value.text.startswith(f"Framing '{docs.rsplit('/docs', 1)[0]}/' violates")
        assert "\"frame-ancestors 'none'\". The request has been blocked." in refusal.value.text
        framed = page.frame_locator("#f").locator(".swagger-ui")
        assert framed.count() == 0
    finally:
        context.close()


def _note(message: ConsoleMessage, complaints: list[str]) -> None:
    """A policy violation, or an error of the page's script (a failed load is judged by _failed)."""
    if "Content Security Policy" in message.text or (
        message.type == "error" and not message.text.startswith("Failed to load resource")
    ):
        complaints.append(message.text)


def _failed(response: Response, complaints: list[str]) -> None:
    """A request of the page that failed, but the favicon browsers ask every site for."""
    if response.status >= 400 and not response.url.endswith("/favicon.ico"):
        complaints.append(f"{response.status} {response.url}")

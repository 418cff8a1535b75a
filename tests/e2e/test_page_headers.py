"""Every page people open says it may not be framed nor sniffed as another type: the payment link
(/pay/<id>: its redirect and its own pages) and the hosted checkout (its page, a post's redirect,
its problem page), over real HTTP. The interactive docs' headers are in test_openapi.py and their
behaviour in a browser in test_docs_browser.py."""

from __future__ import annotations

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.collection_client import Collection
from tests.e2e.test_charges import Merchant
from tests.e2e.test_checkout import checkout, token_in
from tests.e2e.test_collection_requests import create, payer, unique_phone

pytestmark = pytest.mark.e2e

LINK_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
REDIRECT_POLICY = "default-src 'none'; frame-ancestors 'none'"


def guard(answer: requests.Response) -> dict[str, str | None]:
    return {name: answer.headers.get(name) for name in ("X-Content-Type-Options", "X-Frame-Options")}


def test_a_payment_links_redirect_and_pages_are_locked_down(stack: RunningStack) -> None:
    mz = Collection(stack, "mz")
    request_id = create(mz, payer=payer(unique_phone()))["id"]
    link = requests.get(f"{mz.url}/pay/{request_id}", allow_redirects=False, timeout=30)
    assert (link.status_code, link.headers["Content-Security-Policy"], guard(link)) == (
        303,
        LINK_POLICY,
        {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"},
    )
    assert "/checkout/" in link.headers["Location"]
    missing = requests.get(
        f"{mz.url}/pay/cr_01ARZ3NDEKTSV4RRFFQ69G5FAV", params={"lang": "en"}, allow_redirects=False, timeout=30
    )
    assert (missing.status_code, missing.headers["Content-Type"], "There is no such invoice." in missing.text) == (
        404,
        "text/html; charset=utf-8",
        True,
    )
    # the link's pages are the checkout's pages (styles by nonce, no script), never framed
    policy = missing.headers["Content-Security-Policy"]
    assert policy.startswith("default-src 'none'; style-src 'nonce-") and policy.endswith("frame-ancestors 'none'")
    assert "script-src" not in policy
    assert guard(missing) == {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"}


def test_the_checkout_page_its_redirects_and_its_problem_page_are_locked_down(stack: RunningStack) -> None:
    shop = Merchant(stack)
    url = checkout(shop).json()["checkout_url"]
    browser = requests.Session()
    page = browser.get(url, timeout=30)
    assert page.status_code == 200
    token = token_in(page.text)  # the token of this page's forms, with the cookie it set
    policy = page.headers["Content-Security-Policy"]
    assert policy.startswith("default-src 'none'; style-src 'nonce-") and policy.endswith("frame-ancestors 'none'")
    assert guard(page) == {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"}
    posted = browser.post(
        f"{url}/pay",
        data={"csrf_token": token, "network": "mpesa", "phone_number": "84 000 0000"},
        allow_redirects=False,
        timeout=30,
    )
    assert (posted.status_code, posted.headers["Location"], posted.headers["Content-Security-Policy"]) == (
        303,
        url,
        REDIRECT_POLICY,
    )
    assert guard(posted) == {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"}
    unknown = requests.get(url.rsplit("/", 1)[0] + "/01JDA6Q0Z8X4M2N7P5R3T9V1W7", timeout=30)
    assert unknown.status_code == 404
    assert "frame-ancestors 'none'" in unknown.headers["Content-Security-Policy"]
    assert guard(unknown) == {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"}

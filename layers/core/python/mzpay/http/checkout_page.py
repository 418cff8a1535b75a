"""The hosted checkout page: what the payer sees at checkout_url, and its form post.

State-changing posts need the CSRF cookie set with the page and the same token in the form
(double submit): without either, 403 csrf_missing; when they differ, 403 csrf_invalid.
"""

from __future__ import annotations

import hmac
import os
import secrets
from html import escape
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.shared.cookies import Cookie, SameSite

from mzpay.domain.errors import ServiceError
from mzpay.domain.methods import NETWORK_NAMES

if TYPE_CHECKING:
    from mzpay.domain.payments import Payment

CSRF_COOKIE = "mzpay_csrf"
# The test toolbar's buttons (see mzpay.cases.checkout.test_action).
TEST_ACTIONS = {"succeed": "Simulate a successful payment", "fail": "Simulate a failed payment"}

_STATUS_TEXT = {
    "requires_payment_method": "Choose how to pay.",
    "pending": "Waiting for your provider's answer.",
    "requires_action": "Approve the payment on your phone.",
    "succeeded": "Paid. Thank you.",
    "failed": "The payment did not go through.",
    "canceled": "The merchant canceled this payment.",
    "expired": "This checkout has expired.",
    "authorized": "Authorized.",
}


def public_base_url(event: Any) -> str:
    """The gateway's public address: PUBLIC_GATEWAY_URL, else the execute-api one of the request."""
    configured = os.environ.get("PUBLIC_GATEWAY_URL", "")
    if configured:
        return configured.rstrip("/")
    context = event.request_context
    return f"https://{context.domain_name}/{context.stage}"


def form(event: Any) -> dict[str, str]:
    fields = parse_qs(event.decoded_body or "", keep_blank_values=True)
    return {name: values[-1] for name, values in fields.items()}


def check_csrf(event: Any, fields: dict[str, str]) -> None:
    cookie = _cookie(event, CSRF_COOKIE)
    token = fields.get("csrf_token", "")
    if not cookie or not token:
        raise ServiceError(403, "csrf_missing", "The form needs its CSRF cookie and token; reload the page.")
    if not hmac.compare_digest(cookie.encode(), token.encode()):
        raise ServiceError(403, "csrf_invalid", "The form's CSRF token does not match its cookie; reload the page.")


def _cookie(event: Any, name: str) -> str | None:
    for header in event.multi_value_headers.get("Cookie") or event.multi_value_headers.get("cookie") or []:
        for part in header.split(";"):
            key, _, value = part.strip().partition("=")
            if key == name:
                return value
    return None


def page(payment: Payment, status_code: int = 200, error: str | None = None) -> Response[str]:
    """The page for the checkout's state, with a fresh CSRF token when the payer can still pay."""
    token = secrets.token_urlsafe(24)
    status = payment.status
    amount = f"{escape(payment.amount)} {escape(payment.currency)}"
    parts = [
        "<!doctype html><html lang='pt'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        "<title>mzpay checkout</title></head><body>",
        f"<main data-status='{escape(status)}'><h1>{amount}</h1>",
    ]
    statement = payment.statement or {}
    if statement.get("biller"):
        parts.append(f"<p class='biller'>{escape(statement['biller'])}</p>")
    if statement.get("invoice_number"):
        parts.append(f"<p class='invoice'>Invoice <span>{escape(statement['invoice_number'])}</span></p>")
    if statement.get("description"):
        parts.append(f"<p class='description'>{escape(statement['description'])}</p>")
    if payment.mode == "test":
        parts.append("<p class='test-mode'>Test mode: no real money moves.</p>")
    parts.append(f"<p class='status'>{escape(_STATUS_TEXT.get(status, status))}</p>")
    if error:
        parts.append(f"<p class='error' role='alert'>{escape(error)}</p>")
    if payment.failure_message:
        parts.append(f"<p class='failure'>{escape(payment.failure_message)}</p>")
    if status == "requires_payment_method":
        offered = payment.networks if payment.networks is not None else list(NETWORK_NAMES)
        options = "".join(f"<option value='{n}'>{escape(NETWORK_NAMES[n])}</option>" for n in offered)
        action = f"/checkout/{escape(payment.provider_payment_id)}/pay"
        parts.append(
            f"<form method='post' action='{action}'>"
            f"<input type='hidden' name='csrf_token' value='{token}'>"
            f"<label>Wallet <select name='network'>{options}</select></label>"
            "<label>Phone <input name='phone_number' type='tel' placeholder='+25884...' required></label>"
            "<button type='submit'>Pay</button></form>"
        )
        if payment.mode == "test":  # the test toolbar: play the payer without a phone
            for outcome, label in TEST_ACTIONS.items():
                parts.append(
                    f"<form class='test-toolbar' method='post' action='{action[: -len('/pay')]}/test/{outcome}'>"
                    f"<input type='hidden' name='csrf_token' value='{token}'>"
                    f"<button type='submit'>{escape(label)}</button></form>"
                )
    return_url = payment.return_url
    if return_url and status in ("succeeded", "failed", "canceled", "expired"):
        parts.append(f"<a href='{escape(return_url)}'>Back to the merchant</a>")
    parts.append("</main></body></html>")
    secure = (payment.checkout_url or "").startswith("https://")
    cookie = Cookie(CSRF_COOKIE, token, path="/checkout", secure=secure, http_only=True, same_site=SameSite.STRICT_MODE)
    return Response(
        status_code,
        "text/html; charset=utf-8",
        "".join(parts),
        headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY"},
        cookies=[cookie] if status == "requires_payment_method" else None,
    )

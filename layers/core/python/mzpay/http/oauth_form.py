"""The token endpoint's request and answer on the wire (RFC 6749 4.4, 2.3.1, 5.1): a form body,
client credentials in HTTP Basic or in the form, and a JSON answer that is never cached."""

from __future__ import annotations

import base64
import binascii
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

from aws_lambda_powertools.event_handler import Response

from mzpay.answers.access import OAuthToken
from mzpay.domain.access import oauth as rules
from mzpay.domain.access.oauth import TokenRequest
from mzpay.http.body import content_type, raw_body
from mzpay.http.request_id import header_value
from mzpay.http.resolver import to_response

FORM = "application/x-www-form-urlencoded"
MAX_BODY_BYTES = 16 * 1024
MAX_FIELDS = 16
MAX_VALUE = {"client_assertion": 8192, "scope": 1024}  # every other parameter: 512
PARAMETERS = ("grant_type", "scope", "client_id", "client_secret", "client_assertion_type", "client_assertion")
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def token_request(event: dict[str, Any]) -> TokenRequest:
    """The request's parameters; 400 invalid_request for a body that is not a readable form, a
    parameter sent twice or too long; 401 invalid_client for an Authorization that is not Basic."""
    if content_type(event).split(";", 1)[0].strip().lower() != FORM:
        raise rules.invalid_request(f"The token request is a form: Content-Type: {FORM}.")
    body = raw_body(event)
    if len(body) > MAX_BODY_BYTES:
        raise rules.invalid_request(f"The form is larger than {MAX_BODY_BYTES} bytes.")
    try:
        text = body.decode("utf-8")
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=bool(text), max_num_fields=MAX_FIELDS)
    except (UnicodeDecodeError, ValueError) as exc:
        raise rules.invalid_request("The form body cannot be read.") from exc
    form: dict[str, str] = {}
    for name, value in pairs:
        if name in form:  # RFC 6749 3.2: a parameter is sent once
            raise rules.invalid_request(f"The parameter {name[:40]} is sent more than once.")
        if len(value) > MAX_VALUE.get(name, 512):
            raise rules.invalid_request(f"The parameter {name[:40]} is too long.")
        form[name] = value
    client_id, client_secret = _basic(event)
    if client_id is not None and ("client_secret" in form or "client_id" in form):
        raise rules.invalid_request("Send the client's credentials once: HTTP Basic or the form, not both.")
    return TokenRequest(
        grant_type=form.get("grant_type") or None,
        scope=form.get("scope"),
        client_id=client_id if client_id is not None else form.get("client_id"),
        client_secret=client_secret if client_secret is not None else form.get("client_secret"),
        assertion_type=form.get("client_assertion_type"),
        assertion=form.get("client_assertion"),
        basic=client_id is not None,
    )


def _basic(event: dict[str, Any]) -> tuple[str | None, str | None]:
    """client_id and client_secret of an `Authorization: Basic` header (each form-encoded first,
    RFC 6749 2.3.1), or (None, None) without the header."""
    value = header_value(event, "Authorization")
    if not value:
        return None, None
    scheme, _, encoded = value.strip().partition(" ")
    try:
        if scheme.lower() != "basic":
            raise ValueError(scheme)
        client_id, colon, secret = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
        if not colon or len(client_id) > 512 or len(secret) > 512:
            raise ValueError("no colon")
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise rules.invalid_client("Authorization must be HTTP Basic with client_id:client_secret.") from exc
    return unquote_plus(client_id), unquote_plus(secret)


def token_response(token: OAuthToken) -> Response[OAuthToken]:
    response: Response[OAuthToken] = to_response(token)
    response.headers.update(NO_STORE)
    return response

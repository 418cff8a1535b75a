"""The operator console's session and CSRF rules (pure: no HTTP, no AWS).

A session is a signed cookie value `v1.<operator>.<issued_at>.<session_id>.<mac>`: the operator
who signed in, when (Unix seconds), a random id, and an HMAC-SHA256 of the rest under a key derived
from the operator secret, so rotating the secret ends every session. It lasts `SESSION_SECONDS`
at most, and only while the service holds its record (mzpay.store.console_sessions): signing out
deletes the record, so the cookie is worthless afterwards even if a copy survives, and a session
unused for `IDLE_SECONDS` ends (its record keeps when it was last used, written at most once every
`TOUCH_SECONDS`).

A CSRF token is `<nonce>.<mac>`: the mac binds the nonce to the session id (or, before sign-in,
to the sign-in form), so only the service can issue one and a token of one session is worthless
in another. A form post carries the token in a field and in a cookie (double submit): the cookie
absent is `csrf_missing`; the field absent, different from the cookie, or not issued by the
service for this session is `csrf_invalid` (the spec's error table).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from mzpay.domain.common.errors import ServiceError

SESSION_SECONDS = 8 * 3600
IDLE_SECONDS = 30 * 60  # a session unused this long has ended (docs/console.md)
TOUCH_SECONDS = 60  # how stale the record's last use may be before a request writes it again
SIGN_IN_BINDING = "sign-in"  # what a CSRF token is bound to before there is a session
MAX_COOKIE = 512  # longer session or CSRF values are not read
_VERSION = "v1"
_NAME = re.compile(r"^[A-Za-z0-9._@-]{1,64}$")
_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


@dataclass(frozen=True)
class Session:
    """Who is signed in to the console, since when (Unix seconds), under which session id."""

    operator: str
    issued_at: int
    session_id: str

    def expires_at(self) -> int:
        return self.issued_at + SESSION_SECONDS


def idle(last_used: int, now: int) -> bool:
    """True when a session last used at `last_used` has been idle too long at `now`."""
    return now - last_used >= IDLE_SECONDS


def needs_touch(last_used: int, now: int) -> bool:
    """True when the session's record should be told it was used at `now`."""
    return now - last_used >= TOUCH_SECONDS


def session_key(operator_secret: str) -> bytes:
    """The key sessions and CSRF tokens are signed with: derived from the operator secret (never
    the secret itself), so a new secret invalidates every cookie issued under the old one."""
    return hmac.new(operator_secret.encode(), b"mzpay-console-session-v1", hashlib.sha256).digest()


def _mac(key: bytes, text: str) -> str:
    digest = hmac.new(key, text.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def new_session(operator: str, now: int) -> Session:
    return Session(operator, now, secrets.token_urlsafe(18))


def seal(key: bytes, session: Session) -> str:
    """The session's cookie value."""
    body = f"{_VERSION}.{session.operator}.{session.issued_at}.{session.session_id}"
    return f"{body}.{_mac(key, body)}"


def opened(key: bytes, value: str | None, now: int) -> Session | None:
    """The session a cookie value holds when the service signed it and it has not expired; None
    for anything else (absent, malformed, forged, signed under an older secret, expired, or issued
    in the future)."""
    if not value or len(value) > MAX_COOKIE:
        return None
    body, _, mac = value.rpartition(".")
    parts = body.split(".")
    if len(parts) < 4 or parts[0] != _VERSION:
        return None
    operator, issued, session_id = ".".join(parts[1:-2]), parts[-2], parts[-1]
    if not hmac.compare_digest(mac.encode(), _mac(key, body).encode()):
        return None
    if not (_NAME.match(operator) and issued.isdigit() and _ID.match(session_id)):
        return None
    session = Session(operator, int(issued), session_id)
    if not session.issued_at - 60 <= now < session.expires_at():  # a minute of clock skew
        return None
    return session


def csrf_token(key: bytes, binding: str) -> str:
    """A fresh CSRF token bound to `binding` (a session id, or SIGN_IN_BINDING)."""
    nonce = secrets.token_urlsafe(18)
    return f"{nonce}.{_mac(key, f'csrf:{binding}:{nonce}')}"


def check_csrf(key: bytes, binding: str, cookie: str | None, field: str | None) -> None:
    """Raise 403 csrf_missing without the cookie; 403 csrf_invalid when the form's token is
    absent, differs from the cookie, or was not issued by the service for `binding`."""
    if not cookie:
        raise ServiceError(403, "csrf_missing", "The form's CSRF cookie is absent; open the page again.")
    if not field or len(field) > MAX_COOKIE or not hmac.compare_digest(cookie.encode(), field.encode()):
        raise ServiceError(403, "csrf_invalid", "The form's CSRF token is missing or does not match its cookie.")
    nonce, _, mac = field.partition(".")
    if not nonce or not hmac.compare_digest(mac.encode(), _mac(key, f"csrf:{binding}:{nonce}").encode()):
        raise ServiceError(403, "csrf_invalid", "The form's CSRF token was not issued by the service for this session.")

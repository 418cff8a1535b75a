"""The account's endpoint for its own events (docs/access.md, "Leaked credentials"): where
api_key.revoked, oauth_client.revoked and oauth_token.revoked are posted, per mode, signed like
every webhook. Set by the merchant with a key of that mode."""

from __future__ import annotations

from datetime import UTC, datetime

from mzpay import deps
from mzpay.answers.access import WebhookEndpoint
from mzpay.domain.access.principal import Principal
from mzpay.domain.common.bounds import url_problem
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import refused_field


def _view(principal: Principal, stored: dict[str, str] | None) -> WebhookEndpoint:
    return WebhookEndpoint.of(
        {
            "account_id": principal.acting_account_id,
            "mode": principal.mode,
            "url": stored["url"] if stored else None,
            "updated_at": stored["updated_at"] if stored else None,
        }
    )


def read(principal: Principal) -> WebhookEndpoint:
    return _view(principal, deps.account_endpoints().read(principal.acting_account_id, principal.mode))


def set_url(principal: Principal, url: str) -> WebhookEndpoint:
    """The endpoint set (the callback_url rule: 400 invalid_callback_url otherwise)."""
    problem = url_problem(url)
    if problem is not None:
        raise refused_field("invalid_callback_url", "url", f"url must be {problem}.", f"must be {problem}")
    now = iso(datetime.now(UTC))
    deps.account_endpoints().write(principal.acting_account_id, principal.mode, url, now)
    return _view(principal, {"url": url, "updated_at": now})


def remove(principal: Principal) -> WebhookEndpoint:
    deps.account_endpoints().delete(principal.acting_account_id, principal.mode)
    return _view(principal, None)

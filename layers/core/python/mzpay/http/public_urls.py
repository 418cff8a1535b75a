"""The public address of an API, as its callers reach it (payment links, checkout pages, the OAuth
token endpoint's audience)."""

from __future__ import annotations

from typing import Any

from mzpay.config import optional_env


def public_url(event: Any, variable: str) -> str:
    """The API's public address: the `variable` setting, else the execute-api one of the request."""
    configured = optional_env(variable)
    if configured:
        return configured.rstrip("/")
    context = event.request_context
    return f"https://{context.domain_name}/{context.stage}"

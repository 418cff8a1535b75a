"""The public address of an API, as its callers reach it (payment links, checkout pages, the OAuth
token endpoint's audience)."""

from __future__ import annotations

import os
from typing import Any


def public_url(event: Any, variable: str) -> str:
    """The API's public address: the `variable` setting, else the execute-api one of the request."""
    configured = os.environ.get(variable, "")
    if configured:
        return configured.rstrip("/")
    context = event.request_context
    return f"https://{context.domain_name}/{context.stage}"

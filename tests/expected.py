"""What answers should look like, written once for every kind of test."""

from __future__ import annotations

from typing import Any


def problem(status: int, title: str, code: str, detail: str, **extensions: Any) -> dict[str, Any]:
    """The full problem document the gateway and management APIs answer with."""
    return {
        "type": "about:blank",
        "title": title,
        "status": status,
        "code": code,
        "detail": detail,
        **extensions,
        "error": {"code": code, "message": detail},
    }

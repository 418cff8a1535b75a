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


STAGE_ARN = "arn:aws:execute-api:af-south-1:123456789012:abc123/prod/*"


def policy(effect: str, resource: str = STAGE_ARN) -> dict[str, Any]:
    """The IAM policy a Lambda authorizer answers with: `effect` on every route of the stage."""
    return {
        "Version": "2012-10-17",
        "Statement": [{"Action": "execute-api:Invoke", "Effect": effect, "Resource": resource}],
    }

"""One boto3 session per execution environment; clients and tables are made once and reused."""

from __future__ import annotations

import os
from functools import cache
from typing import Any


@cache
def _session_and_config() -> tuple[Any, Any]:
    # Imported on first use: a request that never touches AWS keeps boto3 off the cold start.
    import boto3
    from botocore.config import Config

    # Fail fast and let the caller answer 503 + Retry-After rather than hang a request.
    config = Config(connect_timeout=2, read_timeout=5, retries={"max_attempts": 2, "mode": "standard"})
    return boto3.session.Session(), config


@cache
def client(service: str) -> Any:
    """A boto3 client for `service` (AWS_ENDPOINT_URL, if set, points it at the local stack)."""
    session, config = _session_and_config()
    return session.client(service, config=config)


@cache
def table(name: str) -> Any:
    """A DynamoDB Table resource."""
    session, config = _session_and_config()
    return session.resource("dynamodb", config=config).Table(name)


def env(name: str) -> str:
    """A required environment variable of the function (declared in template.yaml)."""
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set for this function")
    return value


def is_conditional_failure(exc: BaseException) -> bool:
    """True for a lost conditional write (single item or inside a transaction)."""
    code = getattr(exc, "response", {}).get("Error", {}).get("Code", "")
    if code == "ConditionalCheckFailedException":
        return True
    if code == "TransactionCanceledException":
        reasons = getattr(exc, "response", {}).get("CancellationReasons") or []
        return any(r.get("Code") == "ConditionalCheckFailed" for r in reasons)
    return False

"""Lambda REQUEST authorizer of the management API."""

from typing import Any

from mzpay.http.operator_auth import authorize_operator


def lambda_handler(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    return authorize_operator(event)

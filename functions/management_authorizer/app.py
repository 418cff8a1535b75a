"""Lambda REQUEST authorizer of the management API."""

from typing import Any

from mzpay.http.authorizers import answer
from mzpay.http.operator_auth import authorize_operator


def lambda_handler(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    return answer(authorize_operator, event)

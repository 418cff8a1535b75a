"""Lambda REQUEST authorizer of the gateway API (merchant API keys)."""

from typing import Any

from mzpay.http.authorizers import answer
from mzpay.http.merchant_auth import authorize_merchant


def lambda_handler(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    return answer(authorize_merchant, event)

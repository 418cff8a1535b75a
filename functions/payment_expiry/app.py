"""PaymentExpiryFunction: every minute, expire the waiting payments whose deadline passed."""

from typing import Any

from mzpay.cases import expiry
from mzpay.observability import logger


@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    swept = expiry.expire_due()
    if swept["expired"]:  # a sweep that found nothing says nothing (it runs every minute)
        logger.info("expiry sweep", extra=swept)
    return swept

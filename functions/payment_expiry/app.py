"""PaymentExpiryFunction: every minute, expire the waiting payments whose deadline passed, ask
providers about live payments, refunds and payouts left pending, and report how many wait for
an operator (the ReconciliationCasesOpen metric, which ReconciliationCasesAlarm watches)."""

from dataclasses import asdict
from typing import Any

from aws_lambda_powertools.metrics import Metrics, MetricUnit

from mzpay.cases import expiry
from mzpay.observability import logger

metrics = Metrics()  # namespace: POWERTOOLS_METRICS_NAMESPACE; dimension service: POWERTOOLS_SERVICE_NAME


@logger.inject_lambda_context
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    swept = expiry.expire_due()
    metrics.add_metric(name="ReconciliationCasesOpen", unit=MetricUnit.Count, value=swept.operator_cases)
    tally = asdict(swept)
    if swept.expired or swept.operator_cases:  # a sweep that found nothing says nothing (every minute)
        logger.info("expiry sweep", extra=tally)
    return tally

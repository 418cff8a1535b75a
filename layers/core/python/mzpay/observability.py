"""Structured JSON logs (Powertools Logger) with a correlation id, and the business counts an
operator watches (Powertools Metrics in CloudWatch's embedded metric format), shared by every
function of the stack.

Each count is one EMF line written at once, by the code that decides it (a charge's answer,
a payment's, refund's or payout's outcome, a webhook attempt, an authorizer's refusal), so no
handler has to flush anything; CloudWatch turns the lines into metrics of the namespace
POWERTOOLS_METRICS_NAMESPACE (template.yaml: mzpay) with the dimension `service`
(POWERTOOLS_SERVICE_NAME) and the count's own. docs/operations.md, "Metrics", lists them.
"""

from __future__ import annotations

from aws_lambda_powertools import Logger

from mzpay.config import settings

# Service name comes from POWERTOOLS_SERVICE_NAME (set per function in template.yaml).
logger = Logger(utc=True)

DEFAULT_NAMESPACE = "mzpay"
# Every business count and its dimensions (besides `service`): a bounded set of values each.
COUNTS: dict[str, tuple[str, ...]] = {
    "Charges": ("outcome", "mode"),  # a new charge's answer: succeeded, failed, pending, requires_action
    "PaymentOutcomes": ("outcome", "mode"),  # a payment's status moved by its provider, or it expired or was canceled
    "Refunds": ("outcome", "mode"),  # a refund settled: succeeded, failed (or left pending)
    "Payouts": ("outcome", "mode"),  # a payout's provider answer applied: paid, failed, pending
    "WebhookAttempts": ("outcome",),  # one POST: delivered, retry, stopped, failed
    "WebhookDeliveries": ("outcome",),  # a delivery's end: delivered, stopped, failed (out of attempts)
    "AuthorizerRefusals": ("code",),  # unauthorized, invalid_api_key, ip_not_allowed, wrong_region, ...
    "Messages": (
        "outcome",
        "channel",
    ),  # a message to a person: sent, failed, suppressed, throttled, delivered, bounced, complained
    "AuditWriteFailures": (),  # an audit record that only the log kept (the trail's table refused it)
}


def count(name: str, **dimensions: str) -> None:
    """One more `name` (a Count of 1), with its dimensions, as one EMF line on stdout."""
    if set(dimensions) != set(COUNTS[name]):
        raise ValueError(f"{name} takes the dimensions {COUNTS[name]}, not {sorted(dimensions)}")
    # Imported on first use: a function that counts nothing keeps Metrics off its cold start.
    from aws_lambda_powertools.metrics import MetricUnit, single_metric

    namespace = settings().powertools_metrics_namespace or DEFAULT_NAMESPACE
    with single_metric(name=name, unit=MetricUnit.Count, value=1, namespace=namespace, default_dimensions=dimensions):
        pass


def correlate(correlation_id: str, **keys: str) -> None:
    """Every log line from here on carries `correlation_id` (and `keys`): the request id an API
    answers in X-Request-ID, or the id of the record a worker handles."""
    logger.set_correlation_id(correlation_id)
    if keys:
        logger.append_keys(**keys)

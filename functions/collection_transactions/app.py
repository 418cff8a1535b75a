"""Collection API: transactions on customers' payment methods (money moves through the gateway);
and PayBillSettlementQueue's messages (the outbox's: a pay_bill's charge or bill payment settled),
which finish the pay_bill by the path a read takes (mzpay.collection.bill_transactions.settle). A
message that fails (the biller or the gateway down) is reported and comes back; past
maxReceiveCount it goes to the dead-letter queue (alarmed)."""

import json
from typing import Annotated, Any

from mzpay.answers.collection_transactions import TransactionList, TransactionRead, TransactionResult
from mzpay.domain.collection.access import active_business, guarded
from mzpay.entry import bind_gateway, collection_app
from mzpay.http.collection_auth import caller
from mzpay.http.idempotency import derived_id, idempotent
from mzpay.http.marks import errors
from mzpay.http.params import Body, Query
from mzpay.http.partner_schemas import TransactionIn
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports
from mzpay.observability import correlate, logger

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.collection import bill_transactions, transactions

bind_gateway()  # pay_in, pay_out, pay_bill: the gateway's own charge, payout, bill paths (mzpay.ports.gateway)
app, routes = collection_app()
TRANSACTION_CREATE, CUSTOMER_READ = active_business(guarded("transaction:create")), guarded("customer:read")
Filter = Annotated[str | None, Query(max_length=200)]


def _scope() -> str:
    """Idempotency-Keys are the business's own (apart from any the gateway's keys use)."""
    return f"collection#{caller().account_id()}"


@routes.post("/v1/customers/<customer_id>/payment_methods/<payment_method_id>/transactions", TRANSACTION_CREATE)
@idempotent(app, scope=_scope, complete_in_store=False, optional=True)  # the spec names no key here
@errors(
    "customer_not_found",
    "missing_field",
    "invalid_request",
    "amount_too_low",
    "amount_too_high",
    "invalid_card_token",
    "transaction_failed",
    "no_connector_binding",
    "insufficient_balance",
    "limit_exceeded",
    "not_supported",
    "risk_declined",
    "pilot_limit",
    "provider_error",
    "no_route",
    "reference_not_found",
    "reference_rejected",
    "amount_out_of_range",
    "invoice_closed",
    "biller_unavailable",
)
def process_transaction(
    customer_id: str, payment_method_id: str, body: Annotated[TransactionIn, Body()]
) -> TransactionResult:
    """Process a transaction on a customer's payment method

    `pay_in` charges the customer's wallet or card, `pay_out`, `deposit` and `transfer` pay out to
    a wallet or a bank account, `pay_bill` charges the customer's wallet or card and pays the bill
    (`product_id`, `destination`: the meter or account) from the business's float, through the
    business's gateway account in the method's mode; the queries
    (`check_balance`, `get_authorization`, `validata`) are answered in test mode. Every processed
    transaction is kept in the customer's history; a declined one is 400 `transaction_failed`.
    Without an `Idempotency-Key` each request is a new transaction: send one to retry safely
    (docs/partners.md)."""
    return transactions.process(
        caller().account_id(), customer_id, payment_method_id, body.model_dump(), derived_id("transaction")
    )


@routes.get("/v1/customers/<customer_id>/transactions", CUSTOMER_READ)
@errors("customer_not_found")
def list_transactions(
    customer_id: str,
    payment_method_id: Filter = None,
    type: Filter = None,
    status: Filter = None,
    description: Filter = None,
    partner: Filter = None,
    page: Annotated[int, Query(ge=1, le=1000)] = 1,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> TransactionList:
    """List a customer's transactions

    Newest first, filtered by payment method, method type, status, partner or a part of the
    description; `page` and `limit` page through them."""
    filters = {
        "payment_method_id": payment_method_id,
        "type": type,
        "status": status,
        "description": description,
        "partner": partner,
    }
    return transactions.listed(caller().account_id(), customer_id, filters, page, limit)


@routes.get("/v1/customers/<customer_id>/transactions/<instruction_id>", CUSTOMER_READ)
@errors("customer_not_found")
def get_transaction(customer_id: str, instruction_id: str) -> TransactionRead:
    """Read a customer's transaction

    A pending money movement is answered as the gateway has it now."""
    return transactions.read(caller().account_id(), customer_id, instruction_id)


api_handler = handler_for(app, routes.admit)


def record_handler(record: Any) -> None:
    """One PayBillSettlementQueue message (an SQSRecord): {event_type, bill_payment_id}."""
    message = json.loads(record.body)
    event_type, bill_payment_id = str(message["event_type"]), str(message["bill_payment_id"])
    correlate(bill_payment_id)
    outcome = bill_transactions.settle(event_type, bill_payment_id)
    logger.info("pay_bill settled", event_type=event_type, bill_payment_id=bill_payment_id, outcome=outcome)


def settlements(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """A batch of the queue's messages: the failed ones are reported, and come back."""
    # Powertools' batch utilities are loaded here, not by an API request's cold start.
    from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response

    processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """An API Gateway request, or a batch of the queue's messages (SQS records)."""
    records = event.get("Records")
    if isinstance(records, list) and records and records[0].get("eventSource") == "aws:sqs":
        return settlements(event, context)
    return api_handler(event, context)

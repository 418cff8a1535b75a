"""Collection API: transactions on customers' payment methods (money moves through the gateway)."""

from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from mzpay.domain.collection_access import guarded
from mzpay.entry import collection_app
from mzpay.http.collection_auth import caller
from mzpay.http.idempotency import derived_id, idempotent
from mzpay.http.partner_schemas import TransactionIn
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred

if TYPE_CHECKING:
    from mzpay.collection import transactions
else:  # loaded when a request first needs it
    transactions = deferred("mzpay.collection.transactions")

app, routes = collection_app()
TRANSACTION_CREATE, CUSTOMER_READ = guarded("transaction:create"), guarded("customer:read")
Filter = Annotated[str | None, Query(max_length=200)]


def _scope() -> str:
    """Idempotency-Keys are the business's own (apart from any the gateway's keys use)."""
    return f"collection#{caller().account_id()}"


@routes.post("/v1/customers/<customer_id>/payment_methods/<payment_method_id>/transactions", TRANSACTION_CREATE)
@idempotent(app, scope=_scope, complete_in_store=False)
def process_transaction(
    customer_id: str, payment_method_id: str, body: Annotated[TransactionIn, Body()]
) -> dict[str, Any]:
    return transactions.process(
        caller().account_id(), customer_id, payment_method_id, body.model_dump(), derived_id("transaction")
    )


@routes.get("/v1/customers/<customer_id>/transactions", CUSTOMER_READ)
def list_transactions(
    customer_id: str,
    payment_method_id: Filter = None,
    type: Filter = None,
    status: Filter = None,
    description: Filter = None,
    partner: Filter = None,
    page: Annotated[int, Query(ge=1, le=1000)] = 1,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> dict[str, Any]:
    filters = {
        "payment_method_id": payment_method_id,
        "type": type,
        "status": status,
        "description": description,
        "partner": partner,
    }
    return transactions.listed(caller().account_id(), customer_id, filters, page, limit)


@routes.get("/v1/customers/<customer_id>/transactions/<instruction_id>", CUSTOMER_READ)
def get_transaction(customer_id: str, instruction_id: str) -> dict[str, Any]:
    return transactions.read(caller().account_id(), customer_id, instruction_id)


lambda_handler = handler_for(app, routes.admit)

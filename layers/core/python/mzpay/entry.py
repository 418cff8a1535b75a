"""How the endpoint-group functions are wired (the handler layer's composition root): every
gateway group answers through the same Lambda entry point, with the per-request rate limit and
the platform-connection check of ?account_id= bound to their use cases; every collection group
gets its resolver and route table with the licence check bound to the licence use case. The use
cases are imported on first use, so a group imports only what its own routes need."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver

from mzpay.http.principal import current_merchant
from mzpay.http.resolver import create_resolver, lambda_handler
from mzpay.ports import gateway as gateway_port

if TYPE_CHECKING:
    from mzpay.domain.access.principal import Principal
    from mzpay.domain.bills.payments import BillPaymentRequest
    from mzpay.domain.bills.quotes import QuoteRequest
    from mzpay.domain.payments.charges import ChargeRequest
    from mzpay.domain.payouts.rules import PayoutRequest
    from mzpay.http.collection_auth import CollectionRoutes


class GatewayCases:
    """mzpay.ports.gateway answered by the gateway's use cases (each imported on first use)."""

    def create_charge(self, principal: Principal, request: ChargeRequest) -> Any:
        from mzpay.cases import charges

        return charges.create_charge(principal, request)

    def create_payout(self, principal: Principal, request: PayoutRequest) -> Any:
        from mzpay.cases import payouts

        return payouts.create_payout(principal, request)

    def quote_bill(self, principal: Principal, request: QuoteRequest) -> Any:
        from mzpay.cases import bill_quotes

        return bill_quotes.quote(principal, request)

    def pay_bill(self, principal: Principal, request: BillPaymentRequest, payment_id: str) -> Any:
        from mzpay.cases import bill_payments

        return bill_payments.pay(principal, request, payment_id)

    def refund_payment(self, principal: Principal, provider_payment_id: str, refund_id: str, reason: str) -> Any:
        from mzpay.cases import refunds

        return refunds.create_refund(principal, provider_payment_id, refund_id, None, reason)


def bind_gateway() -> None:
    """Bind mzpay.ports.gateway to the gateway's use cases: called by the function whose routes
    reach the gateway from the collection surface (collection_transactions), and by tests."""
    gateway_port.bind(GatewayCases())


def _rate_limit(_event: dict[str, Any]) -> None:
    from mzpay.cases import rate_limits

    rate_limits.enforce(current_merchant())


def _may_act_for(caller_account_id: str, account_id: str) -> None:
    from mzpay.cases.access import ensure_may_act_for  # read only when ?account_id= names another account

    ensure_may_act_for(caller_account_id, account_id)


def gateway_app() -> APIGatewayRestResolver:
    """A gateway group's resolver (its Lambda entry point: gateway_handler(app))."""
    from mzpay.http.errors import Surface

    return create_resolver(Surface.GATEWAY)


def gateway_handler(app: APIGatewayRestResolver) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The Lambda entry point of a gateway group's resolver `app`."""
    return lambda_handler(app, admit_more=_rate_limit, may_act_for=_may_act_for)


def _require_licence() -> Any:
    from mzpay.collection import licence  # read by the first request that needs a licence

    return licence.require_active()


def _require_business(account_id: str) -> Any:
    from mzpay.steps import business  # read by the first request of a route that needs an active business

    return business.require_active(account_id)


def collection_app() -> tuple[APIGatewayRestResolver, CollectionRoutes]:
    """A collection group's resolver and the route table that checks each route's licence,
    token, capability, permission and active business (its Lambda entry point:
    lambda_handler(app, routes.admit))."""
    from mzpay.http.collection_auth import CollectionRoutes
    from mzpay.http.errors import Surface

    app = create_resolver(Surface.COLLECTION)
    return app, CollectionRoutes(app, _require_licence, _require_business)


def reviewers_audited(
    group: tuple[APIGatewayRestResolver, CollectionRoutes],
) -> tuple[APIGatewayRestResolver, CollectionRoutes]:
    """A collection group (collection_app()) whose routes marked `@audited` go to the audit trail,
    a reviewer as their actor: reviewers_audited(collection_app()). A separate call, so that only
    the groups that audit reach the audit trail's table (devstack.permissions reads the calls)."""
    audit_trail(group[0], reviewers=True)
    return group


def management_app(surface: str | None = None) -> APIGatewayRestResolver:
    """A management group's resolver (operators only), every state-changing request of it on the
    audit trail (`surface`: "console" for the operator console's)."""
    from mzpay.http.errors import Surface

    app = create_resolver(Surface.MANAGEMENT)
    audit_trail(app, surface)
    return app


def _write_audit(*record: Any) -> None:
    from mzpay.steps import audit  # read by the first state-changing request

    audit.write(*record)


def audit_trail(app: APIGatewayRestResolver, surface: str | None = None, reviewers: bool = False) -> None:
    """Send `app`'s state-changing requests to the audit trail: every one of an operator's
    (management API, console), or, with `reviewers`, the collection routes marked `@audited`."""
    from mzpay.http.audit import audit_requests

    if reviewers:
        from mzpay.http.collection_auth import reviewer

        audit_requests(app, _write_audit, surface, only_marked=True, actor=reviewer)
    else:
        audit_requests(app, _write_audit, surface)

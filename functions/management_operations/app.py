"""Management API: account and payout limits, payout and payout batch approvals, PSPs, connector bindings,
identity provider audit."""

from typing import Annotated

from mzpay.answers.audit_trail import AuditTrailList, AuditTrailRecord
from mzpay.answers.bindings import ConnectorBinding, ConnectorBindingList, Unbinding
from mzpay.answers.disputes import Dispute
from mzpay.answers.limits import AccountLimits, PayoutLimits
from mzpay.answers.management_audit import IdentityProviderAuditList
from mzpay.answers.payments import PaymentSnapshot
from mzpay.answers.payouts import Payout, PayoutBatch
from mzpay.answers.psps import PilotState, PspList, PspStatus
from mzpay.answers.reconciliation import ReconciliationCase, ReconciliationCaseList
from mzpay.answers.route_health import FurtherRoute, RouteHealth, RouteHealthList
from mzpay.domain.operators.audit import AuditFilter
from mzpay.domain.payments.disputes import DecideDisputeRequest, OpenDisputeRequest
from mzpay.domain.payments.manual import OperatorNote
from mzpay.entry import management_app
from mzpay.http.marks import errors
from mzpay.http.operations_schemas import (
    AccountLimitsIn,
    ConnectorBindingIn,
    FurtherRouteIn,
    PayoutLimitsIn,
    PilotIn,
    PspAvailability,
    RejectPayout,
    ResolveCase,
    RouteForceIn,
)
from mzpay.http.params import Body, Query, Response
from mzpay.http.resolver import created
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import disputes, manual_payments, payout_batches, payouts
    from mzpay.collection import identity_providers
    from mzpay.operators import audit, bindings, psps, reconciliation, route_health

app = management_app()


@app.put("/v1/accounts/<account_id>/limits")
@errors("wrong_region", "invalid_amount", "invalid_currency")
def set_account_limits(account_id: str, body: Annotated[AccountLimitsIn, Body()]) -> AccountLimits:
    """Set an account's charge ceilings

    The currencies, per-transaction and daily ceilings of the account in a mode, replacing the
    previous ones."""
    return psps.set_account_limits(account_id, body.mode, body.limits())


@app.get("/v1/psps")
def list_psps() -> PspList:
    """List PSPs

    The capability matrix with each PSP's availability and pilot."""
    return psps.psps()


@app.put("/v1/psps/<psp_id>/availability")
def set_psp_availability(psp_id: str, body: Annotated[PspAvailability, Body()]) -> PspStatus:
    """Set a PSP's availability

    Routing skips an unavailable PSP; `reason` says why it is."""
    return psps.set_psp_availability(psp_id, body.available, body.reason)


@app.put("/v1/psps/<psp_id>/pilot")
@errors("invalid_amount", "invalid_currency", "missing_ceiling")
def set_psp_pilot(psp_id: str, body: Annotated[PilotIn, Body()]) -> PilotState:
    """Put a PSP in pilot or graduate it

    In pilot, its live traffic must keep the settings: the merchants, currencies and
    per-transaction, daily and monthly ceilings. The simulator cannot be put in pilot."""
    return psps.set_psp_pilot(psp_id, body.in_pilot, body.settings.settings() if body.settings else None)


@app.put("/v1/accounts/<account_id>/payout-limits")
@errors("wrong_region", "invalid_amount", "invalid_currency")
def set_payout_limits(account_id: str, body: Annotated[PayoutLimitsIn, Body()]) -> PayoutLimits:
    """Set an account's payout limits

    The per-transaction, daily and per-beneficiary daily ceilings and the approval threshold of the
    account in a mode, replacing the previous ones."""
    return payouts.set_payout_limits(account_id, body.mode, body.limits())


@app.post("/v1/payouts/<payout_id>/approve")
@errors("wrong_region", "invalid_state")
def approve_payout(payout_id: str) -> Payout:
    """Approve a payout

    A payout waiting for approval goes on to settlement."""
    return payouts.approve(payout_id)


@app.post("/v1/payouts/<payout_id>/reject")
@errors("wrong_region", "invalid_state")
def reject_payout(payout_id: str, body: Annotated[RejectPayout, Body()]) -> Payout:
    """Reject a payout

    A payout waiting for approval is refused with `reason`; its held money comes back."""
    return payouts.reject(payout_id, body.reason)


@app.post("/v1/payout-batches/<batch_id>/approve")
@errors("wrong_region", "invalid_state")
def approve_payout_batch(batch_id: str) -> PayoutBatch:
    """Approve a payout batch

    A batch awaiting approval is released; its payouts are made at once through the settlement
    queue."""
    return payout_batches.approve(batch_id)


@app.post("/v1/payout-batches/<batch_id>/reject")
@errors("wrong_region", "invalid_state")
def reject_payout_batch(batch_id: str, body: Annotated[RejectPayout, Body()]) -> PayoutBatch:
    """Reject a payout batch

    A batch awaiting approval is refused with `reason`: none of its payouts is made, and its
    share of the debit account's daily total comes back."""
    return payout_batches.reject(batch_id, body.reason)


@app.get("/v1/reconciliation-cases")
@errors("invalid_request")
def list_reconciliation_cases(
    limit: Annotated[int, Query(ge=1, le=100)] = 50, page_token: Annotated[str | None, Query(max_length=512)] = None
) -> ReconciliationCaseList:
    """List what waits for an operator

    Live payments, refunds and payouts whose provider never answered within the reconciliation
    horizon (72 h), oldest first; an alarm fires while the list is not empty."""
    return reconciliation.list_cases(limit, page_token)


@app.get("/v1/reconciliation-cases/<object_id>")
@errors("wrong_region")
def read_reconciliation_case(object_id: str) -> ReconciliationCase:
    """Read a reconciliation case

    A payment, refund or payout by its provider id: its reconciliation and, once resolved, the
    audit record of its resolution."""
    return reconciliation.read_case(object_id)


@app.post("/v1/reconciliation-cases/<object_id>/resolve")
@errors("wrong_region", "invalid_state")
def resolve_reconciliation_case(object_id: str, body: Annotated[ResolveCase, Body()]) -> ReconciliationCase:
    """Resolve a reconciliation case

    Applies what the operator established with the provider (`succeeded` or `failed`) as the
    provider's answer would have been (events, ledger, webhooks), with an audit record (the
    note, who, from where, when); only an object waiting for an operator (else 409)."""
    source_ip = app.current_event.request_context.identity.source_ip or ""
    return reconciliation.resolve(object_id, body.outcome, body.note, source_ip)


@app.post("/v1/disputes")
@errors("not_found", "wrong_region", "invalid_state", "invalid_amount", "invalid_currency")
def open_dispute(body: Annotated[OpenDisputeRequest, Body()]) -> Response[Dispute]:
    """Open a dispute

    On an account's succeeded payment (a chargeback its provider reported): the disputed money
    (by default all that was not refunded) is held at once, whatever the balance, and the
    merchant has 7 days to answer; no refund of the payment meanwhile. 409 for a payment that
    did not succeed or is disputed already."""
    return created(disputes.open_dispute(body))


@app.get("/v1/disputes/<dispute_id>")
@errors("not_found", "wrong_region")
def read_dispute(dispute_id: str) -> Dispute:
    """Read a dispute"""
    return disputes.read_for_operator(dispute_id)


@app.post("/v1/disputes/<dispute_id>/decide")
@errors("not_found", "wrong_region", "invalid_state")
def decide_dispute(dispute_id: str, body: Annotated[DecideDisputeRequest, Body()]) -> Dispute:
    """Decide a dispute

    `won` gives the held money back to the merchant, `lost` pays it to the payer; only an open
    dispute (else 409), with an audit record (the note, who, from where, when)."""
    source_ip = app.current_event.request_context.identity.source_ip or ""
    return disputes.decide(dispute_id, body, source_ip)


@app.post("/v1/payments/<payment_id>/confirm")
@errors("not_found", "wrong_region", "invalid_state")
def confirm_manual_payment(payment_id: str, body: Annotated[OperatorNote, Body()]) -> PaymentSnapshot:
    """Confirm a manual payment

    Its evidence holds: the payment succeeds and its money enters the merchant's balance; only
    while pending (else 409), with an audit record (the note, who, from where, when)."""
    source_ip = app.current_event.request_context.identity.source_ip or ""
    return manual_payments.confirm(payment_id, body, source_ip)


@app.post("/v1/payments/<payment_id>/reject")
@errors("not_found", "wrong_region", "invalid_state")
def reject_manual_payment(payment_id: str, body: Annotated[OperatorNote, Body()]) -> PaymentSnapshot:
    """Reject a manual payment

    Its evidence does not hold: the payment fails (`manual_payment_rejected`); only while
    pending (else 409), with an audit record."""
    source_ip = app.current_event.request_context.identity.source_ip or ""
    return manual_payments.reject(payment_id, body, source_ip)


@app.get("/v1/accounts/<account_id>/connector-bindings")
@errors("wrong_region")
def list_connector_bindings(account_id: str) -> ConnectorBindingList:
    """List an account's connector bindings"""
    return bindings.list_bindings(account_id)


@app.put("/v1/accounts/<account_id>/connector-bindings/<mode>/<method>")
@errors("wrong_region", "too_large")
def bind_connector(
    account_id: str, mode: str, method: str, body: Annotated[ConnectorBindingIn, Body()]
) -> ConnectorBinding:
    """Bind a connector

    Binds a live PSP's connector, with its credentials, to the account's method; test traffic
    always goes to the simulator."""
    return bindings.bind(account_id, mode, method, body.psp_id, body.credentials)


@app.delete("/v1/accounts/<account_id>/connector-bindings/<mode>/<method>")
@errors("wrong_region")
def unbind_connector(account_id: str, mode: str, method: str) -> Unbinding:
    """Unbind a connector"""
    return bindings.unbind(account_id, mode, method)


@app.put("/v1/accounts/<account_id>/connector-bindings/<mode>/<method>/routes/<psp_id>")
@errors("wrong_region", "too_large", "no_connector_binding")
def bind_further_route(
    account_id: str, mode: str, method: str, psp_id: str, body: Annotated[FurtherRouteIn, Body()]
) -> FurtherRoute:
    """Bind a further route of a method

    Another live connector that carries the method (an aggregator beside the PSP's own, or the
    reverse), with its credentials, an operator-set `preference` (lower first; the method's
    binding is 0) and `cost_bps` (lower first among equal preferences). A new live charge takes
    the first route whose circuit admits it (docs/connectors.md "Routing by health")."""
    return bindings.bind_route(account_id, mode, method, psp_id, body.credentials, body.preference, body.cost_bps)


@app.get("/v1/route-health")
def list_route_health() -> RouteHealthList:
    """List route health

    Every (route, method) a live connector carries: its circuit's state and since when, an
    operator's force, the failure rate and the outcomes counted. Installation-wide: every
    account's live charges on a route count, and its circuit steers every account's."""
    return route_health.route_health()


@app.put("/v1/route-health/<route>/<method>")
@errors("not_found")
def force_route(route: str, method: str, body: Annotated[RouteForceIn, Body()]) -> RouteHealth:
    """Force a route open or closed

    `open`: no new live charge takes the route (they fail over to the next eligible one);
    `closed`: every new live charge may take it, whatever its outcomes; `auto`: its circuit
    decides again. Installation-wide; audited with the route's health before and after."""
    return route_health.force_route(route, method, body.force)


@app.get("/v1/identity-providers/<idp_id>/audit")
def identity_provider_audit(
    idp_id: str,
    page_size: Annotated[int, Query(ge=1, le=100)] = 50,
    page_token: Annotated[str | None, Query(max_length=1024)] = None,
) -> IdentityProviderAuditList:
    """List an identity provider's audit records

    Every create, update and delete of a collection identity provider, newest first (a deleted
    provider's too); cursor pagination."""
    return identity_providers.audit_records(idp_id, page_size, page_token)


@app.get("/v1/audit-records")
@errors("invalid_request")
def list_audit_records(
    account_id: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
    actor: Annotated[str | None, Query(min_length=1, max_length=128)] = None,
    action: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
    target_type: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
    target_id: Annotated[str | None, Query(min_length=1, max_length=128)] = None,
    since: Annotated[str | None, Query(min_length=1, max_length=40)] = None,
    until: Annotated[str | None, Query(min_length=1, max_length=40)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    page_token: Annotated[str | None, Query(max_length=1024)] = None,
) -> AuditTrailList:
    """List the audit trail

    Every state-changing request of an operator (management API, console) or a reviewer
    (collection surface), newest first: who, from where, when, which action on what, the
    outcome, and the target before and after. Filters combine: `account_id`, `actor` (an
    operator's name or a reviewer's subject), `action` (e.g. approve_payout), `target_type`
    with `target_id`, and `since`/`until` (ISO 8601). Append-only: no route changes a record."""
    wanted = AuditFilter(account_id, actor, action, target_type, target_id, since, until)
    return audit.list_records(wanted, limit, page_token)


@app.get("/v1/audit-records/<audit_id>")
@errors("not_found")
def read_audit_record(audit_id: str) -> AuditTrailRecord:
    """Read an audit record"""
    return audit.read_record(audit_id)


lambda_handler = handler_for(app)

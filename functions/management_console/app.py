"""Management API: the operator console (HTML pages for people, docs/console.md): sign-in, accounts,
keys and limits, an account's lists (payments, refunds, payouts, payout batches, balance
transactions, messages to people) and reports, payments with their events and refunds, payouts awaiting approval,
webhook deliveries, reconciliation cases, route health, disputes, PSP applications and the audit trail. A page is
one route here and one template under mzpay/http/templates/console/."""

from collections.abc import Callable, Mapping
from datetime import timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from mzpay.deps import settings
from mzpay.domain.access.principal import Principal
from mzpay.domain.common import clock
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.money.reports import ReportRequest
from mzpay.domain.operators.audit import AuditFilter
from mzpay.domain.payments.disputes import DecideDisputeRequest
from mzpay.domain.payments.pricing import PRICED_METHODS
from mzpay.domain.webhooks.rules import DeliveryStatus
from mzpay.entry import management_app
from mzpay.http import console
from mzpay.http.account_schemas import CreateAccount, CreateApiKey, FeeRuleIn, LinkBusiness, SuspendAccount
from mzpay.http.console_pages import download, field, fields_as, one_of, query, see_other, show, source_ip
from mzpay.http.key_schemas import RollApiKey
from mzpay.http.operations_schemas import AccountLimitsIn, PayoutLimitsIn, RejectPayout, ResolveCase, RouteForceIn
from mzpay.http.params import Response
from mzpay.http.psp_schemas import ApplicationDecisionIn, LogoReviewIn
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports
from mzpay.steps import audit

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import access, balance_transactions, disputes, listings, payout_batches, payouts, reports
    from mzpay.operators import audit as trail
    from mzpay.operators import (
        business_links,
        operator_reads,
        pricing,
        psp_applications,
        psp_certification,
        psps,
        reconciliation,
        route_health,
        webhook_deliveries,
    )

app = management_app("console")
console.identify_with(audit.identify)  # the audit trail names the console's operator
console.answers_unknown_paths(app)
console.answers_refusals(app)  # a refusal before any route (card data in a form) is a page too
HTML = {"include_in_schema": False}  # pages for people: not in the management API's OpenAPI document
MODES = ("test", "live")
# The filters an account's lists offer: the merchant lists' own (docs/lists.md, docs/balance.md).
SPAN = ("created_gte", "created_lt")
AMOUNTS = ("currency", "amount_gte", "amount_lte")
PAGING = ("page_size", "page_token")
PAYMENT_FILTERS = ("status", "payment_id", "method", "network", *SPAN, *AMOUNTS, *PAGING)
REFUND_FILTERS = ("status", "refund_id", "payment", *SPAN, *AMOUNTS, *PAGING)
PAYOUT_FILTERS = ("status", "payout_id", "batch_id", "method", "network", *SPAN, *AMOUNTS, *PAGING)
BATCH_FILTERS = ("status", *SPAN, *AMOUNTS, *PAGING)
BALANCE_FILTERS = ("type", "source", "currency", *SPAN, *PAGING)
BILL_FILTERS = ("status", "product_id", *SPAN, *AMOUNTS, *PAGING)
DEPOSIT_FILTERS = ("status", "intent_id", "network", *SPAN, *AMOUNTS, *PAGING)
DISPUTE_FILTERS = ("status", "payment", *SPAN, *AMOUNTS, "limit", "page_token")  # its page size is `limit`
PSP_FILTERS = ("type", "originator_reference", "network", *SPAN, *AMOUNTS, "limit", "page_token")
MESSAGE_FILTERS = ("channel", "status", "recipient", *SPAN, *PAGING)
MAPUTO = ZoneInfo("Africa/Maputo")


# ---------------------------------------------------------------- signing in
@app.get("/console", **HTML)
@console.page(app)
def home() -> Response[str]:
    """The console's first page: the accounts."""
    return see_other("/accounts")


@app.get("/console/sign-in", **HTML)
@console.public(app)
def sign_in_page() -> Response[str]:
    """The sign-in form: an operator's token."""
    return console.sign_in_form()


@app.post("/console/sign-in", **HTML)
@console.public(app, posting=True)
def sign_in() -> Response[str]:
    """Sign in: a session for the operator the token names, else the form again (401)."""
    return console.sign_in()


@app.post("/console/sign-out", **HTML)
@console.action(app, back="/accounts")
def sign_out() -> Response[str]:
    """Sign out: the session's cookies cleared."""
    return console.sign_out()


# ---------------------------------------------------------------- accounts, keys, limits
@app.get("/console/accounts", **HTML)
@console.page(app)
def accounts() -> Response[str]:
    """Find an account by its id or by the start of its name; create one."""
    wanted = query("q")
    if wanted is None:
        return show("accounts.html", q=None, found=[])
    if is_ulid(wanted):
        return see_other(f"/accounts/{wanted}")
    return show("accounts.html", q=wanted, found=access.find_accounts(wanted))


@app.post("/console/accounts", **HTML)
@console.action(app, back="/accounts")
def create_account() -> Response[str]:
    """Create an account: its webhook signing secrets are shown this once."""
    body = fields_as(CreateAccount, "name", region=settings().service_region)  # accounts of this region only
    created = access.create_account(body.name, body.region)
    return show("secrets_shown.html", 201, account=created.wire(), key=None)


@app.get("/console/accounts/<account_id>", **HTML)
@console.page(app)
def account(account_id: str) -> Response[str]:
    """An account: its status, the business it collects for, and the forms acting on it."""
    shown = access.get_account(account_id).wire()
    fees = pricing.fee_schedule(account_id).wire()
    charge = {mode: psps.account_limits(account_id, mode).wire() for mode in MODES}
    paying = {mode: payouts.payout_limits(account_id, mode).wire() for mode in MODES}
    return show(
        "account.html",
        account=shown,
        pricing=fees,
        fee_methods=PRICED_METHODS,
        limits={"charge": charge, "payout": paying},
        ceilings={"charge": CHARGE_CEILINGS, "payout": PAYOUT_CEILINGS},
        keys=access.account_api_keys(account_id).wire(),
        business=business_links.collecting_for(account_id),
    )


@app.post("/console/accounts/<account_id>/business-link", **HTML)
@console.action(app, back="/accounts/{account_id}")
def link_business(account_id: str) -> Response[str]:
    """Let a business collect through this account (docs/onboarding.md, "Linking an existing gateway account")."""
    business_links.link(fields_as(LinkBusiness, "business_account_id").business_account_id, account_id)
    return see_other(f"/accounts/{account_id}", done="business_linked")


@app.post("/console/accounts/<account_id>/suspend", **HTML)
@console.action(app, back="/accounts/{account_id}")
def suspend_account(account_id: str) -> Response[str]:
    access.change_account_status(account_id, "suspend", fields_as(SuspendAccount, "reason").reason)
    return see_other(f"/accounts/{account_id}", done="account_suspended")


@app.post("/console/accounts/<account_id>/reactivate", **HTML)
@console.action(app, back="/accounts/{account_id}")
def reactivate_account(account_id: str) -> Response[str]:
    access.change_account_status(account_id, "reactivate")
    return see_other(f"/accounts/{account_id}", done="account_reactivated")


@app.post("/console/accounts/<account_id>/api-keys", **HTML)
@console.action(app, back="/accounts/{account_id}")
def create_api_key(account_id: str) -> Response[str]:
    """Issue an API key: its secret is shown this once."""
    body = fields_as(CreateApiKey, "mode")
    key = access.create_api_key(
        account_id, body.mode, body.scopes, body.expires_at, body.ip_allowlist, body.allowed_customers
    )
    return show("secrets_shown.html", 201, account=access.get_account(account_id).wire(), key=key.wire())


@app.post("/console/accounts/<account_id>/api-keys/revoke", **HTML)
@console.action(app, back="/accounts/{account_id}")
def revoke_api_key(account_id: str) -> Response[str]:
    """Revoke a key (by its id: the list's button, or the form's field); audited with the key as target."""
    revoked = access.revoke_api_key(field("key_id"), account_id)
    audit.observe("api_key", revoked.id, account_id=revoked.account_id, after=revoked.wire())
    return see_other(f"/accounts/{account_id}", done="key_revoked")


@app.post("/console/accounts/<account_id>/api-keys/<key_id>/roll", **HTML)
@console.action(app, back="/accounts/{account_id}")
def roll_api_key(account_id: str, key_id: str) -> Response[str]:
    """Roll a key as its owner would (the old one works for the overlap): the new secret is shown this once."""
    overlap = fields_as(RollApiKey, "overlap_seconds").overlap_seconds
    rolled = access.roll_account_api_key(account_id, key_id, overlap)
    return show("secrets_shown.html", 201, account=access.get_account(account_id).wire(), key=rolled.wire())


CHARGE_CEILINGS = ("per_transaction", "daily")
PAYOUT_CEILINGS = ("per_transaction", "daily", "beneficiary_daily", "approval_threshold")
NO_CEILING = "none"  # a limit field holding this removes that ceiling; an empty one leaves it as it is


def _ceiling_edits(
    model: type[AccountLimitsIn] | type[PayoutLimitsIn], names: tuple[str, ...]
) -> tuple[str, str, dict[str, Decimal | None]]:
    """The limits form as one currency's edits (docs/console.md, "Limits"): a filled field sets
    its ceiling (checked by the API's own body model: the same codes), `none` removes it, an empty
    one is not an edit. Answers the mode, the currency and the edits."""
    sent = {name: field(name).strip() for name in names}
    cleared = tuple(name for name, value in sent.items() if value.lower() == NO_CEILING)
    body = fields_as(model, "mode", per_currency=tuple(name for name in names if name not in cleared))
    currency = field("currency").strip().upper()
    edits: dict[str, Decimal | None] = {name: None for name in cleared}
    for name in names:
        value = getattr(body, name).get(currency)
        if value is not None:
            edits[name] = Decimal(value)
    return body.mode, currency, edits


@app.post("/console/accounts/<account_id>/limits", **HTML)
@console.action(app, back="/accounts/{account_id}")
def set_account_limits(account_id: str) -> Response[str]:
    """Edit one currency's charge ceilings of a mode; the other ceilings are kept."""
    mode, currency, edits = _ceiling_edits(AccountLimitsIn, CHARGE_CEILINGS)
    psps.edit_account_limits(account_id, mode, currency, edits)
    return see_other(f"/accounts/{account_id}", done="limits_set")


@app.post("/console/accounts/<account_id>/payout-limits", **HTML)
@console.action(app, back="/accounts/{account_id}")
def set_payout_limits(account_id: str) -> Response[str]:
    """Edit one currency's payout limits of a mode; the other limits are kept."""
    mode, currency, edits = _ceiling_edits(PayoutLimitsIn, PAYOUT_CEILINGS)
    payouts.edit_payout_limits(account_id, mode, currency, edits)
    return see_other(f"/accounts/{account_id}", done="payout_limits_set")


@app.post("/console/accounts/<account_id>/pricing", **HTML)
@console.action(app, back="/accounts/{account_id}")
def set_fee_rule(account_id: str) -> Response[str]:
    """Set the service's fee of one method and currency (the account's other rules kept)."""
    rule = fields_as(FeeRuleIn, "method", "currency", "percent", "fixed", "minimum", "maximum")
    pricing.set_fee_rule(account_id, rule.rule())
    return see_other(f"/accounts/{account_id}", done="fee_set")


# ---------------------------------------------------------------- an account's lists and reports
def _account_list(
    template: str, account_id: str, names: tuple[str, ...], read: Callable[[Principal, Mapping[str, str]], Any]
) -> Response[str]:
    """A page of one of the account's lists, in a mode: the merchant's own use case `read`, with the
    filters of `names` the query holds (a bad one is its 400, naming the field)."""
    mode = one_of("mode", MODES) or "test"
    chosen = {name: value for name in names if (value := query(name)) is not None}
    listed = read(operator_reads.as_account(account_id, mode), chosen)
    return show(template, account_id=account_id, mode=mode, chosen=chosen, listed=listed.wire())


@app.get("/console/accounts/<account_id>/payments", **HTML)
@console.page(app)
def account_payments(account_id: str) -> Response[str]:
    """An account's payments in a mode, newest first, by the merchant list's filters."""
    return _account_list("payments.html", account_id, PAYMENT_FILTERS, listings.payments)


@app.get("/console/accounts/<account_id>/refunds", **HTML)
@console.page(app)
def account_refunds(account_id: str) -> Response[str]:
    """An account's refunds in a mode, newest first, by the merchant list's filters."""
    return _account_list("refunds.html", account_id, REFUND_FILTERS, listings.refunds)


@app.get("/console/accounts/<account_id>/payouts", **HTML)
@console.page(app)
def account_payouts(account_id: str) -> Response[str]:
    """An account's payouts in a mode, newest first, by the merchant list's filters."""
    return _account_list("account_payouts.html", account_id, PAYOUT_FILTERS, listings.payouts)


@app.get("/console/accounts/<account_id>/payout-batches", **HTML)
@console.page(app)
def account_payout_batches(account_id: str) -> Response[str]:
    """An account's payout batches in a mode, newest first, by the merchant list's filters."""
    return _account_list("payout_batches.html", account_id, BATCH_FILTERS, listings.payout_batches)


@app.get("/console/accounts/<account_id>/bill-payments", **HTML)
@console.page(app)
def account_bill_payments(account_id: str) -> Response[str]:
    """An account's bill payments in a mode, newest first, by the merchant list's filters."""
    return _account_list("bill_payments.html", account_id, BILL_FILTERS, listings.bill_payments)


@app.get("/console/accounts/<account_id>/cash-deposits", **HTML)
@console.page(app)
def account_cash_deposits(account_id: str) -> Response[str]:
    """A partner account's cash deposits in a mode (another account's page is 403 not_a_partner)."""
    return _account_list("cash_deposits.html", account_id, DEPOSIT_FILTERS, listings.cash_deposits)


@app.get("/console/accounts/<account_id>/messages", **HTML)
@console.page(app)
def account_messages(account_id: str) -> Response[str]:
    """An account's messages to people in a mode, newest first, each as it was rendered
    (docs/notifications.md, "The console's Messages page")."""
    return _account_list("messages.html", account_id, MESSAGE_FILTERS, listings.messages)


@app.get("/console/accounts/<account_id>/psp-transactions", **HTML)
@console.page(app)
def account_psp_transactions(account_id: str) -> Response[str]:
    """The transactions a PSP account recorded in a mode, newest first, by the merchant list's filters."""
    return _account_list("psp_transactions.html", account_id, PSP_FILTERS, listings.psp_transactions)


@app.get("/console/accounts/<account_id>/balance-transactions", **HTML)
@console.page(app)
def account_balance_transactions(account_id: str) -> Response[str]:
    """An account's balance transactions in a mode, newest first, each with the balance after it."""
    return _account_list("balance_transactions.html", account_id, BALANCE_FILTERS, balance_transactions.listing)


@app.get("/console/accounts/<account_id>/reports", **HTML)
@console.page(app)
def account_reports(account_id: str) -> Response[str]:
    """An account's reports in a mode, newest first, and the form asking for one."""
    mode = one_of("mode", MODES) or "test"
    listed = reports.listing(operator_reads.as_account(account_id, mode), str(operator_reads.PAGE), query("page_token"))
    today = clock.now().astimezone(MAPUTO).date()
    interval = {"start": today.isoformat(), "end": (today + timedelta(days=1)).isoformat()}
    return show("reports.html", account_id=account_id, mode=mode, listed=listed.wire(), interval=interval)


@app.post("/console/accounts/<account_id>/reports", **HTML)
@console.action(app, back="/accounts/{account_id}/reports")
def request_report(account_id: str) -> Response[str]:
    """Ask for a report of the account, as POST /v1/reports does; the builder writes it."""
    mode = field("mode")
    body = fields_as(ReportRequest, "type", "interval_start", "interval_end", "timezone")
    created = reports.create(operator_reads.as_account(account_id, mode), body)
    audit.observe("report", created.report_id, account_id=account_id, after=created.wire())
    return see_other(f"/accounts/{account_id}/reports", mode=mode, done="report_requested")


@app.get("/console/accounts/<account_id>/reports/<report_id>/download", **HTML)
@console.page(app)
def download_report(account_id: str, report_id: str) -> Response[str]:
    """A succeeded report's file: 303 to its short-lived link (docs/console.md, "Reports")."""
    mode = one_of("mode", MODES) or "test"
    return download(reports.read(operator_reads.as_account(account_id, mode), report_id).url)


# ---------------------------------------------------------------- payments, refunds, disputes
@app.get("/console/payments", **HTML)
@console.page(app)
def find_payment() -> Response[str]:
    """Find a payment by its provider_payment_id."""
    wanted = query("q")
    return see_other(f"/payments/{wanted}") if wanted else see_other("/accounts")


@app.get("/console/payments/<payment_id>", **HTML)
@console.page(app)
def payment(payment_id: str) -> Response[str]:
    """A payment with its events and refunds."""
    return show("payment.html", payment=operator_reads.payment_for_operator(payment_id).wire())


@app.get("/console/accounts/<account_id>/disputes", **HTML)
@console.page(app)
def account_disputes(account_id: str) -> Response[str]:
    """An account's disputes in a mode, newest first, by the merchant list's filters."""
    return _account_list("disputes.html", account_id, DISPUTE_FILTERS, listings.disputes)


@app.get("/console/disputes/<dispute_id>", **HTML)
@console.page(app)
def dispute(dispute_id: str) -> Response[str]:
    """A dispute, with the decision form while it is open."""
    return show("dispute.html", dispute=disputes.read_for_operator(dispute_id).wire())


@app.post("/console/disputes/<dispute_id>/decide", **HTML)
@console.action(app, back="/disputes/{dispute_id}")
def decide_dispute(dispute_id: str) -> Response[str]:
    disputes.decide(dispute_id, fields_as(DecideDisputeRequest, "outcome", "note"), source_ip())
    return see_other(f"/disputes/{dispute_id}", done="dispute_decided")


# ---------------------------------------------------------------- payouts awaiting approval
@app.get("/console/payouts", **HTML)
@console.page(app)
def payouts_awaiting_approval() -> Response[str]:
    """The payouts and payout batches an operator must approve or reject, oldest first."""
    listed = operator_reads.payouts_awaiting_approval(query("page_token")).wire()
    batches = operator_reads.batches_awaiting_approval(query("batch_token")).wire()
    return show("payouts.html", listed=listed, batches=batches)


@app.post("/console/payouts/<payout_id>/approve", **HTML)
@console.action(app, back="/payouts")
def approve_payout(payout_id: str) -> Response[str]:
    payouts.approve(payout_id)
    return see_other("/payouts", done="payout_approved")


@app.post("/console/payouts/<payout_id>/reject", **HTML)
@console.action(app, back="/payouts")
def reject_payout(payout_id: str) -> Response[str]:
    payouts.reject(payout_id, fields_as(RejectPayout, "reason").reason)
    return see_other("/payouts", done="payout_rejected")


@app.post("/console/payout-batches/<batch_id>/approve", **HTML)
@console.action(app, back="/payouts")
def approve_payout_batch(batch_id: str) -> Response[str]:
    payout_batches.approve(batch_id)
    return see_other("/payouts", done="batch_approved")


@app.post("/console/payout-batches/<batch_id>/reject", **HTML)
@console.action(app, back="/payouts")
def reject_payout_batch(batch_id: str) -> Response[str]:
    payout_batches.reject(batch_id, fields_as(RejectPayout, "reason").reason)
    return see_other("/payouts", done="batch_rejected")


# ---------------------------------------------------------------- webhook deliveries
@app.get("/console/accounts/<account_id>/deliveries", **HTML)
@console.page(app)
def deliveries(account_id: str) -> Response[str]:
    """An account's webhook deliveries, newest first, optionally of one status."""
    status = one_of("status", tuple(DeliveryStatus))
    chosen = DeliveryStatus(status) if status else None
    listed = webhook_deliveries.account_deliveries(account_id, chosen, 25, query("page_token"))
    return show("deliveries.html", account_id=account_id, chosen=status, listed=listed.wire())


@app.post("/console/accounts/<account_id>/deliveries/<delivery_id>/replay", **HTML)
@console.action(app, back="/accounts/{account_id}/deliveries")
def replay_delivery(account_id: str, delivery_id: str) -> Response[str]:
    webhook_deliveries.replay(delivery_id)
    return see_other(f"/accounts/{account_id}/deliveries", done="delivery_replayed")


# ---------------------------------------------------------------- reconciliation
@app.get("/console/reconciliation", **HTML)
@console.page(app)
def reconciliation_cases() -> Response[str]:
    """What waits for an operator: objects their provider never answered for, oldest first."""
    return show("reconciliation.html", listed=reconciliation.list_cases(25, query("page_token")).wire())


@app.post("/console/reconciliation/<object_id>/resolve", **HTML)
@console.action(app, back="/reconciliation")
def resolve_case(object_id: str) -> Response[str]:
    body = fields_as(ResolveCase, "outcome", "note")
    reconciliation.resolve(object_id, body.outcome, body.note, source_ip())
    return see_other("/reconciliation", done="case_resolved")


# ---------------------------------------------------------------- route health
@app.get("/console/route-health", **HTML)
@console.page(app)
def route_health_page() -> Response[str]:
    """Every route's health (installation-wide: docs/connectors.md "Routing by health")."""
    return show("route_health.html", listed=route_health.route_health().wire())


@app.post("/console/route-health/<route>/<method>", **HTML)
@console.action(app, back="/route-health")
def force_route(route: str, method: str) -> Response[str]:
    """Force a route open or closed, or hand it back to its circuit (audited)."""
    body = fields_as(RouteForceIn, "force", "reason")
    route_health.force_route(route, method, body.force)
    return see_other("/route-health", done="route_forced")


# ---------------------------------------------------------------- PSP applications
@app.get("/console/psp-applications", **HTML)
@console.page(app)
def psp_application_list() -> Response[str]:
    """PSP applications, newest first."""
    return show("psp_applications.html", listed=psp_applications.listing("25", query("page_token")).wire())


@app.get("/console/psp-applications/<application_id>", **HTML)
@console.page(app)
def psp_application(application_id: str) -> Response[str]:
    """A PSP application: what it asks, its documents, logo and certification, and the review forms."""
    application = psp_certification.read_application(application_id).wire()
    return show("psp_application.html", application=application)


@app.post("/console/psp-applications/<application_id>/certification-runs", **HTML)
@console.action(app, back="/psp-applications/{application_id}")
def start_psp_certification(application_id: str) -> Response[str]:
    psp_certification.start(application_id)
    return see_other(f"/psp-applications/{application_id}", done="certification_started")


@app.post("/console/psp-applications/<application_id>/logo/review", **HTML)
@console.action(app, back="/psp-applications/{application_id}")
def review_psp_logo(application_id: str) -> Response[str]:
    body = fields_as(LogoReviewIn, "decision", "reason")
    psp_applications.review_logo(application_id, body.decision, body.reason)
    return see_other(f"/psp-applications/{application_id}", done="logo_reviewed")


@app.post("/console/psp-applications/<application_id>/approve", **HTML)
@console.action(app, back="/psp-applications/{application_id}")
def approve_psp_application(application_id: str) -> Response[str]:
    psp_applications.approve(application_id, fields_as(ApplicationDecisionIn, "reason").reason)
    return see_other(f"/psp-applications/{application_id}", done="application_approved")


@app.post("/console/psp-applications/<application_id>/reject", **HTML)
@console.action(app, back="/psp-applications/{application_id}")
def reject_psp_application(application_id: str) -> Response[str]:
    psp_applications.reject(application_id, fields_as(ApplicationDecisionIn, "reason").reason)
    return see_other(f"/psp-applications/{application_id}", done="application_rejected")


# ---------------------------------------------------------------- the audit trail
AUDIT_FILTERS = ("account_id", "actor", "action", "target_type", "target_id", "since", "until")


@app.get("/console/audit", **HTML)
@console.page(app)
def audit_trail_page() -> Response[str]:
    """The audit trail, newest first, with its filters."""
    chosen = {name: query(name) for name in AUDIT_FILTERS}
    listed = trail.list_records(AuditFilter(**chosen), 25, query("page_token"))
    return show("audit.html", listed=listed.wire(), chosen=chosen)


@app.get("/console/audit/<audit_id>", **HTML)
@console.page(app)
def audit_record(audit_id: str) -> Response[str]:
    """One audit record: who, from where, what, the outcome, before and after."""
    return show("audit_record.html", record=trail.read_record(audit_id).wire())


lambda_handler = handler_for(app)

"""The merchant dashboard (HTML pages for a merchant's people, docs/dashboard.md): sign-in with
e-mail, password and TOTP, the test/live switch, sign-out, the home page, the API keys and webhooks
pages. A page is one route here and one template under mzpay/http/templates/dashboard/; the work
is mzpay.dashboard's."""

from base64 import b64encode
from collections.abc import Callable
from typing import Any

from mzpay.dashboard import collection
from mzpay.dashboard import home as home_page
from mzpay.dashboard import payments as payments_area
from mzpay.dashboard import settings as account_settings
from mzpay.dashboard import sign_in as signing
from mzpay.dashboard import team as team_page
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import new_id
from mzpay.domain.dashboard import roles, sessions
from mzpay.domain.dashboard.sessions import Session
from mzpay.entry import management_app
from mzpay.http import dashboard, dashboard_forms
from mzpay.http.console_pages import validated
from mzpay.http.dashboard import current, see_other, show
from mzpay.http.dashboard_forms import bounded, chosen, texts, to_file
from mzpay.http.params import Response
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports
from mzpay.steps import audit
from mzpay.version import health_report

with deferred_imports():  # the receipt's PDF maker, loaded by the first download
    from mzpay.http import receipts
with deferred_imports():  # the keys and webhooks pages' use cases and forms load with their first request
    from mzpay.dashboard import developers
    from mzpay.http import developer_forms
with deferred_imports():  # the money pages' use case and body models: loaded by the first that needs them
    from mzpay.dashboard import finance
    from mzpay.domain.common import evidence
    from mzpay.domain.money import reports as report_rules
    from mzpay.domain.payouts import rules as payout_rules

app = management_app("dashboard")  # every post on the audit trail, the user named by sign_in
dashboard.sessions_from(signing.current)
dashboard.identify_with(audit.identify, audit.concerns)  # a post without a session is recorded as anonymous
dashboard.answers_unknown_paths(app)
dashboard.page_context_from(lambda session: {"collects": collection.collects(session)})
dashboard.admits_with(account_settings.admit)  # the account's dashboard IP allowlist, when set
dashboard_forms.answers_refusals(app)  # a card number in a form (refused before any route) is a page too
HTML = {"include_in_schema": False}  # pages for people: no OpenAPI document


@app.get("/health", **HTML)
def health() -> dict[str, str]:
    """The dashboard's health (devstack.wait and the load balancers' checks read it)."""
    return health_report("dashboard")


@app.get("/", **HTML)
@dashboard.page(app)
def home() -> Response[str]:
    """The account's balance in the session's mode, and its volume and success rate by method."""
    visit = current()
    assert visit.session is not None
    return show("home.html", balance=home_page.balance(visit.session), volume=home_page.volume_by_method(visit.session))


@app.get("/sign-in", **HTML)
@dashboard.public(app)
def sign_in_form() -> Response[str]:
    return show("sign_in.html")


@app.post("/sign-in", **HTML)
@dashboard.public(app, posting=True, form_page="sign_in.html")
def sign_in() -> Response[str]:
    """E-mail and password: signed in, or the TOTP code next, or its setup."""
    visit = current()
    session_id = sessions.new_id()
    password = visit.fields().get("password", "")[:512]
    session = signing.password(session_id, visit.field("email"), password, visit.source_ip(), visit.session_id())
    dashboard.open_session(session_id, session)
    return see_other(NEXT_STEP.get(session.stage, "/"))


NEXT_STEP = {sessions.TOTP: "/sign-in/code", sessions.SETUP: "/sign-in/setup"}  # after the password


@app.get("/sign-in/code", **HTML)
@dashboard.pending(app)
def code_page() -> Response[str]:
    return show("code.html")


@app.get("/sign-in/setup", **HTML)
@dashboard.pending(app)
def setup_page() -> Response[str]:
    visit = current()
    assert visit.session is not None
    return show("setup.html", **dashboard.form_context(visit))


@app.post("/sign-in/code", **HTML)
@dashboard.pending(app, posting=True, form_page="code.html")
def sign_in_code() -> Response[str]:
    return _second_factor()


@app.post("/sign-in/setup", **HTML)
@dashboard.pending(app, posting=True, form_page="setup.html")
def sign_in_setup() -> Response[str]:
    return _second_factor()


def _second_factor() -> Response[str]:
    visit = current()
    assert visit.session is not None
    session_id = sessions.new_id()
    session = signing.code(visit.session, session_id, visit.field("code"), visit.source_ip())
    dashboard.open_session(session_id, session)
    return see_other("/")


@app.post("/mode", **HTML)
@dashboard.action(app, live=False)  # the switch itself needs no live confirmation
def switch_mode() -> Response[str]:
    visit = current()
    assert visit.session is not None
    signing.switch_mode(visit.session, visit.field("mode"), visit.source_ip())
    return see_other("/")


@app.post("/sign-out", **HTML)
@dashboard.action(app, live=False)
def sign_out() -> Response[str]:
    visit = current()
    signing.sign_out(visit.session, visit.source_ip())
    dashboard.close_session()
    return see_other("/sign-in")


# ---------------- collection (an account that collects for a business)
@app.get("/collection-requests", **HTML)
@dashboard.page(app)
def collection_requests() -> Response[str]:
    return show(
        "collection_requests.html", listed=collection.requests_page(_user(), current().query("page_token")).wire()
    )


@app.get("/collection-requests/<request_id>", **HTML)
@dashboard.page(app)
def collection_request(request_id: str) -> Response[str]:
    found, paid = collection.request(_user(), request_id)
    return show("collection_request.html", request=found, paid=paid.wire())


@app.get("/collection-payments", **HTML)
@dashboard.page(app)
def collection_payments() -> Response[str]:
    return show(
        "collection_payments.html", listed=collection.payments_page(_user(), current().query("page_token")).wire()
    )


@app.get("/customers", **HTML)
@dashboard.page(app)
def customers() -> Response[str]:
    visit = current()
    search = visit.query("search")
    listed = collection.customers_page(_user(), search, visit.query("page_token")).wire()
    return show("customers.html", listed=listed, search=search)


@app.get("/customers/<customer_id>", **HTML)
@dashboard.page(app)
def customer(customer_id: str) -> Response[str]:
    return show("customer.html", customer=collection.customer(_user(), customer_id))


# ---------------------------------------------------------------- developers (API keys, webhooks)
KEY_FORM = {"expires_on": 10, "ip_allowlist": 2000, "allowed_customers": 2000}  # each field's maximum
ROLL_FORM = {"overlap_seconds": 7}
ENDPOINT_FORM = {"url": 2048}
STATUS_QUERY = 16


def _user() -> Session:
    """The session of a signed-in user's page or post (its decorator let it through)."""
    session = current().session
    assert session is not None
    return session


# ---------------- payments
@app.get("/payments", **HTML)
@dashboard.page(app)
def payments() -> Response[str]:
    """The account's payments in the session's mode, by the list's filters (a GET form)."""
    visit = current()
    assert visit.session is not None
    return show("payments.html", **payments_area.payments(visit.session, visit.event.query_string_parameters or {}))


@app.get("/payments/<payment_id>", **HTML)
@dashboard.page(app)
def payment(payment_id: str) -> Response[str]:
    """A payment: its fields, timeline, refunds, receipt and the refund form."""
    visit = current()
    assert visit.session is not None
    return show("payment.html", **payments_area.payment_page(visit.session, payment_id))


@app.get("/payments/<payment_id>/receipt", **HTML)
@dashboard.page(app)
def payment_receipt(payment_id: str) -> Response[bytes]:
    """The payment's receipt as the API's PDF (in the page's language: ?lang=)."""
    visit = current()
    assert visit.session is not None
    return receipts.receipt_pdf(payments_area.receipt(visit.session, payment_id).model_dump(), visit.event)


@app.post("/payments/<payment_id>/refund", **HTML)
@dashboard.action(app, form_page="payment.html", context=payments_area.payment_page)
def refund_payment(payment_id: str) -> Response[str]:
    """Refund the payment (all that is left, or `amount`), once per form."""
    visit = current()
    assert visit.session is not None
    made = payments_area.refund(visit.session, payment_id, visit.fields(), visit.source_ip())
    return see_other(f"/refunds/{made.provider_refund_id}")


@app.get("/refunds", **HTML)
@dashboard.page(app)
def refunds() -> Response[str]:
    """The account's refunds in the session's mode, by the list's filters; the support limit."""
    visit = current()
    assert visit.session is not None
    return show("refunds.html", **payments_area.refund_list(visit.session, visit.event.query_string_parameters or {}))


@app.get("/refunds/<refund_id>", **HTML)
@dashboard.page(app)
def refund(refund_id: str) -> Response[str]:
    visit = current()
    assert visit.session is not None
    return show("refund.html", **payments_area.refund_page(visit.session, refund_id))


@app.post("/refunds/limit", **HTML)
@dashboard.action(app, form_page="refunds.html", context=payments_area.refunds_page)
def set_refund_limit() -> Response[str]:
    """The support role's refund limit (an owner or administrator)."""
    visit = current()
    assert visit.session is not None
    payments_area.set_limit(visit.session, visit.fields(), visit.source_ip())
    return see_other("/refunds")


def _keys_page(error: ServiceError | None = None, http_status: int = 200) -> Response[str]:
    user = _user()
    keys = developers.keys(user)
    return show("developers_keys.html", http_status, error=error, keys=keys, scopes=developer_forms.OFFERED_SCOPES)


def _key_page(error: ServiceError | None = None, key_id: str = "", http_status: int = 200) -> Response[str]:
    user = _user()
    return show("developers_key.html", http_status, error=error, key=developers.key(user, key_id))


def _webhooks_page(error: ServiceError | None = None, http_status: int = 200) -> Response[str]:
    user = _user()
    return show("developers_webhooks.html", http_status, error=error, endpoint=developers.endpoint(user))


def _delivery_page(error: ServiceError | None = None, delivery_id: str = "", http_status: int = 200) -> Response[str]:
    user = _user()
    found, payload = developers.delivery(user, delivery_id)
    return show("developers_delivery.html", http_status, error=error, delivery=found, payload=payload)


def _refused(page: Callable[..., Response[str]]) -> Callable[..., Response[str]]:
    return lambda error, *args, **kwargs: page(error, *args, http_status=error.status, **kwargs)


@app.get("/keys", **HTML)
@dashboard.page(app)
def api_keys() -> Response[str]:
    """The account's API keys in the session's mode, and the form that creates one."""
    return _keys_page()


@app.post("/keys", **HTML)
@dashboard.action(app, again=_refused(_keys_page))
def create_api_key() -> Response[str]:
    """A new key: its secret is shown on this answer only."""
    user = _user()
    grant = developer_forms.new_key(texts(**KEY_FORM), current().fields())
    created = developers.create_key(user, grant.scopes, grant.expires_at, grant.ip_allowlist, grant.allowed_customers)
    return show("developers_secret.html", 201, kind="key", shown=created.wire())


@app.get("/keys/<key_id>", **HTML)
@dashboard.page(app)
def api_key(key_id: str) -> Response[str]:
    """One key (never its secret), with its roll and revoke forms."""
    return _key_page(key_id=key_id)


@app.post("/keys/<key_id>/roll", **HTML)
@dashboard.action(app, again=_refused(_key_page))
def roll_api_key(key_id: str) -> Response[str]:
    """The key rolled (the old one works for the overlap): the new secret is shown on this answer only."""
    user = _user()
    overlap = developer_forms.overlap(texts(**ROLL_FORM))
    return show("developers_secret.html", 201, kind="key", shown=developers.roll_key(user, key_id, overlap).wire())


@app.post("/keys/<key_id>/revoke", **HTML)
@dashboard.action(app, again=_refused(_key_page))
def revoke_api_key(key_id: str) -> Response[str]:
    """The key revoked: the next API request with it is refused."""
    user = _user()
    developers.revoke_key(user, key_id)
    return see_other(f"/keys/{key_id}")


@app.get("/webhooks", **HTML)
@dashboard.page(app)
def webhooks() -> Response[str]:
    """The account's endpoint for its own events in the session's mode, its signing secret's roll."""
    return _webhooks_page()


@app.post("/webhooks/endpoint", **HTML)
@dashboard.action(app, again=_refused(_webhooks_page))
def set_webhook_endpoint() -> Response[str]:
    user = _user()
    developers.set_endpoint(user, texts(**ENDPOINT_FORM)["url"])
    return see_other("/webhooks")


@app.post("/webhooks/endpoint/remove", **HTML)
@dashboard.action(app, again=_refused(_webhooks_page))
def remove_webhook_endpoint() -> Response[str]:
    user = _user()
    developers.remove_endpoint(user)
    return see_other("/webhooks")


@app.post("/webhooks/secret/roll", **HTML)
@dashboard.action(app, again=_refused(_webhooks_page))
def roll_webhook_secret() -> Response[str]:
    """A new signing secret of the session's mode, shown on this answer only."""
    user = _user()
    rolled = developers.roll_signing_secret(user)
    return show("developers_secret.html", 201, kind="webhook_secret", shown=rolled.wire())


@app.get("/webhooks/deliveries", **HTML)
@dashboard.page(app)
def webhook_deliveries() -> Response[str]:
    """The latest deliveries of the session's mode, optionally of one status."""
    user = _user()
    status = developer_forms.status_filter(current().event.query_string_parameters or {}, STATUS_QUERY)
    listed = developers.deliveries(user, status)
    return show("developers_deliveries.html", deliveries=listed, status=status or "")


@app.get("/webhooks/deliveries/<delivery_id>", **HTML)
@dashboard.page(app)
def webhook_delivery(delivery_id: str) -> Response[str]:
    """A delivery: its attempts, their answers, the event it carries."""
    return _delivery_page(delivery_id=delivery_id)


@app.post("/webhooks/deliveries/<delivery_id>/replay", **HTML)
@dashboard.action(app, again=_refused(_delivery_page))
def replay_webhook_delivery(delivery_id: str) -> Response[str]:
    """A failed delivery queued again in a new round of attempts."""
    user = _user()
    developers.replay(user, delivery_id)
    return see_other(f"/webhooks/deliveries/{delivery_id}")


# ---------------- finance
# The money pages (docs/dashboard.md, "Money"): balance transactions, reports, payouts, disputes.
def _transactions() -> dict[str, Any]:
    picked = chosen(finance.BALANCE_FILTERS)
    return {"listed": finance.transactions(_user(), picked).wire(), "chosen": picked}


def _reports(session: Session, **_: str) -> dict[str, Any]:
    listed = finance.report_list(session, chosen(("page_token",)).get("page_token")).wire()
    return {"listed": listed, "interval": finance.this_day()}


def _payouts(session: Session, **_: str) -> dict[str, Any]:
    listed = finance.payout_list(session, chosen(finance.PAYOUT_FILTERS)).wire()
    batches = finance.batch_list(session, chosen(("batch_token",)).get("batch_token")).wire()
    return {"listed": listed, "batches": batches, "form_token": new_id()}  # a new payout's id: one per form


def _dispute(session: Session, dispute_id: str) -> dict[str, Any]:
    return {"dispute": finance.dispute(session, dispute_id).wire()}


@app.get("/balance-transactions", **HTML)
@dashboard.page(app)
def balance_transactions() -> Response[str]:
    """Every movement of the balance in the session's mode, newest first (GET /v1/balance/transactions)."""
    return show("finance_transactions.html", **_transactions())


@app.get("/reports", **HTML)
@dashboard.page(app)
def reports() -> Response[str]:
    """The account's reports and the form asking for one."""
    return show("finance_reports.html", **_reports(_user()))


@app.post("/reports", **HTML)
@dashboard.action(app, form_page="finance_reports.html", context=_reports)
def request_report() -> Response[str]:
    """Ask for a report, as POST /v1/reports does; the report builder writes it."""
    finance.request_report(_user(), current().source_ip(), _report_form())
    return see_other("/reports")


@app.get("/reports/<report_id>/download", **HTML)
@dashboard.page(app)
def download_report(report_id: str) -> Response[str]:
    """A written report's file: 303 to its link of five minutes."""
    return to_file(finance.report_link(_user(), report_id))


@app.get("/payouts", **HTML)
@dashboard.page(app)
def payouts() -> Response[str]:
    """The account's payouts and payout batches, and the form sending a payout."""
    return show("finance_payouts.html", **_payouts(_user()))


@app.post("/payouts", **HTML)
@dashboard.action(app, form_page="finance_payouts.html", context=_payouts)
def create_payout() -> Response[str]:
    """Send a payout, as POST /payouts does (awaiting approval above the account's threshold)."""
    made = finance.create_payout(_user(), current().source_ip(), _payout_form())
    return see_other(f"/payouts/{made.provider_payout_id}")


@app.get("/payouts/<payout_id>", **HTML)
@dashboard.page(app)
def payout(payout_id: str) -> Response[str]:
    return show("finance_payout.html", payout=finance.payout(_user(), payout_id).wire())


@app.get("/disputes", **HTML)
@dashboard.page(app)
def disputes() -> Response[str]:
    picked = chosen(finance.DISPUTE_FILTERS)
    return show("finance_disputes.html", listed=finance.dispute_list(_user(), picked).wire(), chosen=picked)


@app.get("/disputes/<dispute_id>", **HTML)
@dashboard.page(app)
def dispute(dispute_id: str) -> Response[str]:
    """A dispute, with the evidence and acceptance forms while it needs a response."""
    return show("finance_dispute.html", **_dispute(_user(), dispute_id))


@app.post("/disputes/<dispute_id>/evidence", **HTML)
@dashboard.action(app, form_page="finance_dispute.html", context=_dispute)
def submit_dispute_evidence(dispute_id: str) -> Response[str]:
    """Give the dispute's evidence (text and a file), as POST /v1/disputes/{id}/evidence does."""
    finance.submit_evidence(_user(), current().source_ip(), dispute_id, _evidence_form())
    return see_other(f"/disputes/{dispute_id}")


@app.post("/disputes/<dispute_id>/accept", **HTML)
@dashboard.action(app, form_page="finance_dispute.html", context=_dispute)
def accept_dispute(dispute_id: str) -> Response[str]:
    """Concede the dispute, as POST /v1/disputes/{id}/accept does."""
    finance.accept_dispute(_user(), current().source_ip(), dispute_id)
    return see_other(f"/disputes/{dispute_id}")


def _report_form() -> "report_rules.ReportRequest":
    names = (("type", 40), ("interval_start", 40), ("interval_end", 40), ("timezone", 64))
    values = {name: value for name, limit in names if (value := bounded(name, limit))}
    return validated(report_rules.ReportRequest, values)


def _payout_form() -> "payout_rules.PayoutRequest":
    kind = bounded("destination_type", 40)
    details = (
        {"name": bounded("beneficiary_name", 140), "account": bounded("beneficiary_account", 40)}
        if kind == "bank_transfer"
        else {"network": bounded("network", 20), "phone_number": bounded("phone_number", 20)}
    )
    values: dict[str, Any] = {
        "payout_id": bounded("payout_id", 40),
        "money": {"amount": bounded("amount", 20), "currency": bounded("currency", 3) or "MZN"},
        "destination": {"type": kind, kind: {k: v for k, v in details.items() if v}},
    }
    if description := bounded("description", 140):
        values["description"] = description
    return validated(payout_rules.PayoutRequest, values)


def _evidence_form() -> "evidence.EvidenceRequest":
    text = bounded("text", evidence.MAX_TEXT_LENGTH)
    files = [
        {
            "file_type": name.rsplit(".", 1)[-1].lower() if "." in name else "",
            "content_base64": b64encode(data).decode(),
        }
        for name, data in current().files().values()
    ]
    return validated(evidence.EvidenceRequest, {"text": text, "files": files})


# ---------------------------------------------------------------- team
TEAM_FORMS = {"invite_email": "", "invite_role": ""}


def _team_page(status: int = 200, error: ServiceError | None = None, **typed: str) -> Response[str]:
    visit = current()
    assert visit.session is not None
    grantable = [role for role in roles.ROLES if role != roles.OWNER or roles.allows(visit.session.role, "team:owner")]
    members = team_page.members(visit.session)
    return show("team.html", status, error, members=members, grantable=grantable, typed={**TEAM_FORMS, **typed})


def _team_action(change: Callable[[Session, str], object], **typed: str) -> Response[str]:
    """A team form's change (given the session and the source address), then the team page (303);
    a refusal re-renders the page with the error (a role without team:write: the refusal page)."""
    visit = current()
    assert visit.session is not None
    try:
        change(visit.session, visit.source_ip())
    except ServiceError as refusal:
        if not roles.allows(visit.session.role, "team:write"):
            raise
        return _team_page(refusal.status, refusal, **typed)
    return see_other("/team")


@app.get("/team", **HTML)
@dashboard.page(app)
def team() -> Response[str]:
    """The account's users (role, TOTP, last sign-in) and open invitations."""
    return _team_page()


@app.post("/team/invitations", **HTML)
@dashboard.action(app, live=False)  # the team is one for both modes
def team_invite() -> Response[str]:
    visit = current()
    email, role, site = visit.field("email"), visit.field("role"), dashboard_forms.site(visit)
    return _team_action(
        lambda session, ip: team_page.invite(session, email, role, visit.lang, site, ip),
        invite_email=email,
        invite_role=role,
    )


@app.post("/team/role", **HTML)
@dashboard.action(app, live=False)  # the team is one for both modes
def team_role() -> Response[str]:
    email, role = current().field("email"), current().field("role")
    return _team_action(lambda session, ip: team_page.change_role(session, email, role, ip))


@app.post("/team/remove", **HTML)
@dashboard.action(app, live=False)  # the team is one for both modes
def team_remove() -> Response[str]:
    email = current().field("email")
    return _team_action(lambda session, ip: team_page.remove(session, email, ip))


@app.post("/team/invitations/revoke", **HTML)
@dashboard.action(app, live=False)  # the team is one for both modes
def team_revoke() -> Response[str]:
    email = current().field("email")
    return _team_action(lambda session, ip: team_page.revoke(session, email, ip))


@app.get("/invitations/<token>", **HTML)
@dashboard.public(app)
def invitation_page(token: str) -> Response[str]:
    return show("team_accept.html", invitation=team_page.invitation(token))


@app.post("/invitations/<token>", **HTML)
@dashboard.public(app, posting=True)
def invitation_accept(token: str) -> Response[str]:
    """The invitee's password: the user made, then signed in (TOTP set up next where the role needs it)."""

    def accepted(password: str) -> Response[str]:
        visit = current()
        email = team_page.accept(token, password, visit.source_ip()).email
        session_id = sessions.new_id()
        session = signing.password(session_id, email, password, visit.source_ip(), visit.session_id())
        dashboard.open_session(session_id, session)
        return see_other(NEXT_STEP.get(session.stage, "/"))

    return _new_password(accepted, "team_accept.html", lambda: {"invitation": team_page.invitation(token)})


def _new_password(
    use: Callable[[str], Response[str]], page: str, context: Callable[[], dict[str, object]]
) -> Response[str]:
    """A password form's post: `use` the password typed; one the pool's policy refuses re-renders
    `page` (with `context()`) and its error, nothing done."""
    try:
        return use(current().fields().get("password", ""))
    except ServiceError as refusal:
        if refusal.code != "weak_password":
            raise
        return show(page, refusal.status, refusal, **context())


@app.get("/password-reset", **HTML)
@dashboard.public(app)
def reset_form() -> Response[str]:
    return show("team_reset.html")


@app.post("/password-reset", **HTML)
@dashboard.public(app, posting=True, form_page="team_reset.html")
def reset_request() -> Response[str]:
    """A one-time link by e-mail, when the address is a user's: the same page either way."""
    visit = current()
    team_page.request_reset(visit.field("email"), visit.lang, dashboard_forms.site(visit), visit.source_ip())
    return show("team_reset.html", sent=True)


@app.get("/password-reset/<token>", **HTML)
@dashboard.public(app)
def reset_page(token: str) -> Response[str]:
    return show("team_new_password.html", email=team_page.reset_email(token))


@app.post("/password-reset/<token>", **HTML)
@dashboard.public(app, posting=True)
def reset_password(token: str) -> Response[str]:
    """The new password (the link works once); the user's sessions end; sign in again (with TOTP)."""

    def reset(password: str) -> Response[str]:
        team_page.reset(token, password, current().source_ip())
        return see_other("/sign-in")

    return _new_password(reset, "team_new_password.html", lambda: {"email": team_page.reset_email(token)})


# ---------------- settings
@app.get("/settings", **HTML)
@dashboard.page(app)
def settings_page() -> Response[str]:
    """The account's brand colour, messages' language and sender name, dashboard IP allowlist."""
    visit = current()
    assert visit.session is not None
    return show("settings.html", **account_settings.shown(visit.session, visit.query("saved") == "1"))


def _settings_typed(session: Session) -> dict[str, object]:
    return account_settings.typed(session, current().fields())


@app.post("/settings", **HTML)
@dashboard.action(app, form_page="settings.html", context=_settings_typed, live=False)  # one for both modes
def change_settings() -> Response[str]:
    visit = current()
    assert visit.session is not None
    account_settings.change(visit.session, visit.fields(), visit.source_ip())
    return see_other("/settings?saved=1")


lambda_handler = handler_for(app)

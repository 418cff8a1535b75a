"""The merchant dashboard (HTML pages for a merchant's people, docs/dashboard.md): sign-in with
e-mail, password and TOTP, the test/live switch, sign-out and the home page. A page is one route
here and one template under mzpay/http/templates/dashboard/; the work is mzpay.dashboard's."""

from mzpay.dashboard import collection
from mzpay.dashboard import home as home_page
from mzpay.dashboard import payments as payments_area
from mzpay.dashboard import sign_in as signing
from mzpay.domain.dashboard import sessions
from mzpay.entry import management_app
from mzpay.http import dashboard
from mzpay.http.dashboard import current, see_other, show
from mzpay.http.params import Response
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports
from mzpay.steps import audit
from mzpay.version import health_report

with deferred_imports():  # the receipt's PDF maker, loaded by the first download
    from mzpay.http import receipts

app = management_app("dashboard")  # every post on the audit trail, the user named by sign_in
dashboard.sessions_from(signing.current)
dashboard.identify_with(audit.identify)  # a post without a session is recorded as anonymous
dashboard.answers_unknown_paths(app)
dashboard.page_context_from(lambda session: {"collects": collection.collects(session)})
dashboard.answers_refusals(app)  # a card number in a form (refused before any route) is a page too
HTML = {"include_in_schema": False}  # pages for people: no OpenAPI document


@app.get("/health", **HTML)
def health() -> dict[str, str]:
    """The dashboard's health (devstack.wait and the load balancers' checks read it)."""
    return health_report("dashboard")


@app.get("/", **HTML)
@dashboard.page(app)
def home() -> Response[str]:
    """The account's balance in the session's mode."""
    visit = current()
    assert visit.session is not None
    return show("home.html", balance=home_page.balance(visit.session))


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
    return see_other({sessions.TOTP: "/sign-in/code", sessions.SETUP: "/sign-in/setup"}.get(session.stage, "/"))


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
        "collection_requests.html", listed=collection.requests_page(_session(), current().query("page_token")).wire()
    )


@app.get("/collection-requests/<request_id>", **HTML)
@dashboard.page(app)
def collection_request(request_id: str) -> Response[str]:
    found, paid = collection.request(_session(), request_id)
    return show("collection_request.html", request=found, paid=paid.wire())


@app.get("/collection-payments", **HTML)
@dashboard.page(app)
def collection_payments() -> Response[str]:
    return show(
        "collection_payments.html", listed=collection.payments_page(_session(), current().query("page_token")).wire()
    )


@app.get("/customers", **HTML)
@dashboard.page(app)
def customers() -> Response[str]:
    visit = current()
    search = visit.query("search")
    listed = collection.customers_page(_session(), search, visit.query("page_token")).wire()
    return show("customers.html", listed=listed, search=search)


@app.get("/customers/<customer_id>", **HTML)
@dashboard.page(app)
def customer(customer_id: str) -> Response[str]:
    return show("customer.html", customer=collection.customer(_session(), customer_id))


def _session() -> sessions.Session:
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


lambda_handler = handler_for(app)

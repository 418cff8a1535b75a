"""The merchant dashboard (HTML pages for a merchant's people, docs/dashboard.md): sign-in with
e-mail, password and TOTP, the test/live switch, sign-out and the home page. A page is one route
here and one template under mzpay/http/templates/dashboard/; the work is mzpay.dashboard's."""

from mzpay.dashboard import home as home_page
from mzpay.dashboard import settings as account_settings
from mzpay.dashboard import sign_in as signing
from mzpay.domain.dashboard import sessions
from mzpay.entry import management_app
from mzpay.http import dashboard
from mzpay.http.dashboard import current, see_other, show
from mzpay.http.params import Response
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.steps import audit
from mzpay.version import health_report

app = management_app("dashboard")  # every post on the audit trail, the user named by sign_in
dashboard.sessions_from(signing.current)
dashboard.identify_with(audit.identify)  # a post without a session is recorded as anonymous
dashboard.admits_with(account_settings.admit)  # the account's dashboard IP allowlist, when set
dashboard.answers_unknown_paths(app)
dashboard.answers_refusals(app)  # a card number in a form: the page again, never JSON
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
@dashboard.action(app)
def switch_mode() -> Response[str]:
    visit = current()
    assert visit.session is not None
    signing.switch_mode(visit.session, visit.field("mode"), visit.source_ip())
    return see_other("/")


@app.post("/sign-out", **HTML)
@dashboard.action(app)
def sign_out() -> Response[str]:
    visit = current()
    signing.sign_out(visit.session, visit.source_ip())
    dashboard.close_session()
    return see_other("/sign-in")


# ---------------- settings
@app.get("/settings", **HTML)
@dashboard.page(app)
def settings_page() -> Response[str]:
    """The account's brand colour, messages' language and sender name, dashboard IP allowlist."""
    visit = current()
    assert visit.session is not None
    return show("settings.html", **account_settings.shown(visit.session, visit.query("saved") == "1"))


def _settings_typed(visit: dashboard.Visit) -> dict[str, object]:
    return account_settings.typed(visit.session, visit.fields())


dashboard.re_renders("/settings", "settings.html", _settings_typed)


@app.post("/settings", **HTML)
@dashboard.action(app, form_page="settings.html", context=_settings_typed)
def change_settings() -> Response[str]:
    visit = current()
    assert visit.session is not None
    account_settings.change(visit.session, visit.fields(), visit.source_ip())
    return see_other("/settings?saved=1")


lambda_handler = handler_for(app)

"""The merchant dashboard (HTML pages for a merchant's people, docs/dashboard.md): sign-in with
e-mail, password and TOTP, the test/live switch, sign-out and the home page. A page is one route
here and one template under mzpay/http/templates/dashboard/; the work is mzpay.dashboard's."""

from collections.abc import Callable

from mzpay.dashboard import home as home_page
from mzpay.dashboard import sign_in as signing
from mzpay.dashboard import team as team_page
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.dashboard import roles, sessions
from mzpay.domain.dashboard.sessions import Session
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
dashboard.answers_unknown_paths(app)
dashboard.answers_refusals_before_route(app)  # a card number in a form: a page, never JSON
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
@dashboard.action(app)
def team_invite() -> Response[str]:
    visit = current()
    email, role, site = visit.field("email"), visit.field("role"), dashboard.site(visit)
    return _team_action(
        lambda session, ip: team_page.invite(session, email, role, visit.lang, site, ip),
        invite_email=email,
        invite_role=role,
    )


@app.post("/team/role", **HTML)
@dashboard.action(app)
def team_role() -> Response[str]:
    email, role = current().field("email"), current().field("role")
    return _team_action(lambda session, ip: team_page.change_role(session, email, role, ip))


@app.post("/team/remove", **HTML)
@dashboard.action(app)
def team_remove() -> Response[str]:
    email = current().field("email")
    return _team_action(lambda session, ip: team_page.remove(session, email, ip))


@app.post("/team/invitations/revoke", **HTML)
@dashboard.action(app)
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
    team_page.request_reset(visit.field("email"), visit.lang, dashboard.site(visit), visit.source_ip())
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


lambda_handler = handler_for(app)

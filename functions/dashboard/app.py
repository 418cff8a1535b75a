"""The merchant dashboard (HTML pages for a merchant's people, docs/dashboard.md): sign-in with
e-mail, password and TOTP, the test/live switch, sign-out and the home page. A page is one route
here and one template under mzpay/http/templates/dashboard/; the work is mzpay.dashboard's."""

from base64 import b64encode
from typing import Any

from mzpay.dashboard import home as home_page
from mzpay.dashboard import sign_in as signing
from mzpay.domain.common.ids import new_id
from mzpay.domain.dashboard import sessions
from mzpay.entry import management_app
from mzpay.http import dashboard
from mzpay.http.dashboard import bounded, chosen, current, see_other, show, to_file, validated
from mzpay.http.params import Response
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports
from mzpay.steps import audit
from mzpay.version import health_report

with deferred_imports():  # the money pages' use case and body models: loaded by the first that needs them
    from mzpay.dashboard import finance
    from mzpay.domain.common import evidence
    from mzpay.domain.money import reports as report_rules
    from mzpay.domain.payouts import rules as payout_rules

app = management_app("dashboard")  # every post on the audit trail, the user named by sign_in
dashboard.sessions_from(signing.current)
dashboard.identify_with(audit.identify)  # a post without a session is recorded as anonymous
dashboard.answers_unknown_paths(app)
dashboard.answers_refusals(app)  # a refusal before any route (a card number in a form) is a page too
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


# ---------------- finance
# The money pages (docs/dashboard.md, "Money"): balance transactions, reports, payouts, disputes.
def _session() -> sessions.Session:
    visit = current()
    assert visit.session is not None
    return visit.session


def _transactions() -> dict[str, Any]:
    picked = chosen(finance.BALANCE_FILTERS)
    return {"listed": finance.transactions(_session(), picked).wire(), "chosen": picked}


def _reports() -> dict[str, Any]:
    listed = finance.report_list(_session(), chosen(("page_token",)).get("page_token")).wire()
    return {"listed": listed, "interval": finance.this_day()}


def _payouts() -> dict[str, Any]:
    session = _session()
    listed = finance.payout_list(session, chosen(finance.PAYOUT_FILTERS)).wire()
    batches = finance.batch_list(session, chosen(("batch_token",)).get("batch_token")).wire()
    return {"listed": listed, "batches": batches, "form_token": new_id()}  # a new payout's id: one per form


def _dispute() -> dict[str, Any]:
    dispute_id = current().event.path.split("/")[2]  # /disputes/<dispute_id>[/...] (the API is ANY /{proxy+})
    return {"dispute": finance.dispute(_session(), dispute_id).wire()}


@app.get("/balance-transactions", **HTML)
@dashboard.page(app)
def balance_transactions() -> Response[str]:
    """Every movement of the balance in the session's mode, newest first (GET /v1/balance/transactions)."""
    return show("finance_transactions.html", **_transactions())


@app.get("/reports", **HTML)
@dashboard.page(app)
def reports() -> Response[str]:
    """The account's reports and the form asking for one."""
    return show("finance_reports.html", **_reports())


@app.post("/reports", **HTML)
@dashboard.action(app, form_page="finance_reports.html", again=_reports)
def request_report() -> Response[str]:
    """Ask for a report, as POST /v1/reports does; the report builder writes it."""
    finance.request_report(_session(), current().source_ip(), _report_form(), _live_confirmed())
    return see_other("/reports")


@app.get("/reports/<report_id>/download", **HTML)
@dashboard.page(app)
def download_report(report_id: str) -> Response[str]:
    """A written report's file: 303 to its link of five minutes."""
    return to_file(finance.report_link(_session(), report_id))


@app.get("/payouts", **HTML)
@dashboard.page(app)
def payouts() -> Response[str]:
    """The account's payouts and payout batches, and the form sending a payout."""
    return show("finance_payouts.html", **_payouts())


@app.post("/payouts", **HTML)
@dashboard.action(app, form_page="finance_payouts.html", again=_payouts)
def create_payout() -> Response[str]:
    """Send a payout, as POST /payouts does (awaiting approval above the account's threshold)."""
    made = finance.create_payout(_session(), current().source_ip(), _payout_form(), _live_confirmed())
    return see_other(f"/payouts/{made.provider_payout_id}")


@app.get("/payouts/<payout_id>", **HTML)
@dashboard.page(app)
def payout(payout_id: str) -> Response[str]:
    return show("finance_payout.html", payout=finance.payout(_session(), payout_id).wire())


@app.get("/disputes", **HTML)
@dashboard.page(app)
def disputes() -> Response[str]:
    picked = chosen(finance.DISPUTE_FILTERS)
    return show("finance_disputes.html", listed=finance.dispute_list(_session(), picked).wire(), chosen=picked)


@app.get("/disputes/<dispute_id>", **HTML)
@dashboard.page(app)
def dispute(dispute_id: str) -> Response[str]:
    """A dispute, with the evidence and acceptance forms while it needs a response."""
    return show("finance_dispute.html", **_dispute())


@app.post("/disputes/<dispute_id>/evidence", **HTML)
@dashboard.action(app, form_page="finance_dispute.html", again=_dispute)
def submit_dispute_evidence(dispute_id: str) -> Response[str]:
    """Give the dispute's evidence (text and a file), as POST /v1/disputes/{id}/evidence does."""
    finance.submit_evidence(_session(), current().source_ip(), dispute_id, _evidence_form(), _live_confirmed())
    return see_other(f"/disputes/{dispute_id}")


@app.post("/disputes/<dispute_id>/accept", **HTML)
@dashboard.action(app, form_page="finance_dispute.html", again=_dispute)
def accept_dispute(dispute_id: str) -> Response[str]:
    """Concede the dispute, as POST /v1/disputes/{id}/accept does."""
    finance.accept_dispute(_session(), current().source_ip(), dispute_id, _live_confirmed())
    return see_other(f"/disputes/{dispute_id}")


def _live_confirmed() -> bool:
    return current().field("confirm_live") == "yes"


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


lambda_handler = handler_for(app)

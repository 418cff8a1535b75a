"""A merchant user in front of the local stack's dashboard over HTTP (docs/dashboard.md): its
cookies kept by hand (they are `__Host-` and Secure: an HTTP client library keeps Secure cookies
off plain HTTP, which the local stack speaks on loopback, as a browser allows), the sign-in
steps, the page's CSRF token, and users of other accounts made as `make run` makes the demo owner."""

from __future__ import annotations

import re
import secrets
import uuid
from email import message_from_string, policy
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any

import requests
import requests.adapters

from devstack.dashboard_demo import create_user, fresh_totp_code
from devstack.launcher import RunningStack
from tests.polling import eventually

if TYPE_CHECKING:
    from playwright.sync_api import Page, Response


def new_user(
    stack: RunningStack, account_id: str, email: str, role: str = "owner", region: str = "mz"
) -> dict[str, str]:
    """A dashboard user of `account_id` (TOTP set up): its e-mail, password and TOTP secret."""
    resources = stack.state["resources"][region]
    return create_user(
        endpoint=stack.state["aws_endpoint"],
        region=stack.state["aws_regions"][region],
        pool_id=resources["DashboardUserPool"],
        client_id=resources["DashboardUserPoolClient"],
        accounts_table=resources["AccountsTable"],
        account_id=account_id,
        email=email,
        role=role,
    )


class FromAddress(requests.adapters.HTTPAdapter):
    """Connections made from `address` (another loopback address than 127.0.0.1: the local stack
    sees it as the request's source IP, as API Gateway would a client's)."""

    def __init__(self, address: str) -> None:
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **{**kwargs, "source_address": (self.address, 0)})


class DashboardUser:
    def __init__(
        self, stack: RunningStack, region: str = "mz", lang: str | None = None, source: str | None = None
    ) -> None:
        """`source`: the loopback address the user's requests come from; unless named, one of its own
        (people sign in from their own addresses: the sign-in limit per address, 30 a minute,
        would otherwise count every user a test file signs in)."""
        self.url = stack.state["demo"][region]["dashboard"]["url"]
        self.cookies: dict[str, str] = {}
        self.totp_secret = ""  # set up through the dashboard (accept_invitation)
        self.headers = {"Accept-Language": lang} if lang else {}
        self.email = ""
        self.http = requests.Session()
        self.source = (
            source or f"127.{secrets.randbelow(254) + 1}.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}"
        )
        self.http.mount("http://", FromAddress(self.source))

    def call(
        self,
        method: str,
        path: str,
        form: dict[str, str] | None = None,
        files: dict[str, tuple[str, bytes]] | None = None,
    ) -> requests.Response:
        """`files`: a multipart form's files by field name, (file name, bytes) each."""
        jar = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        answer = self.http.request(
            method,
            self.url + path,
            data=form,
            files=files,
            headers={**self.headers, **({"Cookie": jar} if jar else {})},
            allow_redirects=False,
            timeout=30,
        )
        for line in answer.raw.headers.getlist("Set-Cookie"):
            name, _, value = line.split(";", 1)[0].partition("=")
            if value:
                self.cookies[name] = value
            else:
                self.cookies.pop(name, None)
        return answer

    def post(self, path: str, form: dict[str, str], page: str) -> requests.Response:
        """A form of the page at `page` posted with the page's CSRF token."""
        return self.call("POST", path, {**form, "csrf_token": csrf(self.call("GET", page))})

    def upload(
        self, path: str, form: dict[str, str], files: dict[str, tuple[str, bytes]], page: str
    ) -> requests.Response:
        """A multipart form of the page at `page` (fields and files) posted with its CSRF token."""
        return self.call("POST", path, {**form, "csrf_token": csrf(self.call("GET", page))}, files)

    def sign_in(self, user: dict[str, Any], code: str | None = None) -> requests.Response:
        """E-mail and password, then the code (the authenticator's now unless given)."""
        first = self.post("/sign-in", {"email": user["email"], "password": user["password"]}, "/sign-in")
        if first.status_code != 303 or first.headers["Location"] != "/sign-in/code":
            return first
        return self.post("/sign-in/code", {"code": code or fresh_totp_code(user["totp_secret"])}, "/sign-in/code")


def csrf(page: requests.Response) -> str:
    return re.findall(r'name="csrf_token" value="([^"]+)"', page.text)[0]


def balances_shown(page: requests.Response) -> list[dict[str, str]]:
    """The home page's balance rows as GET /v1/balance's items (currency, available, held)."""
    rows = re.findall(
        r'<tr data-currency="([A-Z]{3})">.*?data-available="([^"]+)".*?data-pending="([^"]+)"', page.text, re.S
    )
    return [{"currency": c, "available": a, "held": h} for c, a, h in rows]


def page_marks(page: requests.Response) -> dict[str, str]:
    """What a dashboard page says of itself: its `data-page` and, when refused, the refusal's
    `data-code` (and the page's language, from Content-Language)."""
    marks = {"page": re.findall(r'<main data-page="([^"]+)"', page.text)[0], "lang": page.headers["Content-Language"]}
    code = re.findall(r'role="alert" data-code="([^"]+)"', page.text)
    return {**marks, **({"code": code[0]} if code else {})}


def audit_records(stack: RunningStack, **filters: str) -> list[dict[str, Any]]:
    """The audit trail's records by `filters` (GET /v1/audit-records of the mz management API)."""
    answer = requests.get(
        stack.state["regions"]["mz"]["management"] + "/v1/audit-records",
        params=filters,
        headers={"Authorization": f"Bearer {stack.state['operator_token']}"},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]  # type: ignore[no-any-return]


def who_did_what(record: dict[str, Any]) -> tuple[str, str, str, str, int]:
    """An audit record as (actor kind, actor id, surface, action, status)."""
    actor, outcome = record["actor"], record["outcome"]
    return actor["kind"], actor["id"], record["surface"], record["action"], outcome["status"]


def signed_in_user(
    stack: RunningStack, account_id: str, role: str, lang: str | None = None, region: str = "mz"
) -> DashboardUser:
    """A fresh user of `account_id` with `role`, signed in (TOTP) in a client of its own."""
    member = new_user(stack, account_id, f"{role}-{uuid.uuid4().hex[:10]}@example.co.mz", role, region)
    user = DashboardUser(stack, region, lang)
    answer = user.sign_in(member)
    assert (answer.status_code, answer.headers.get("Location")) == (303, "/"), answer.text
    user.email = member["email"]
    return user


def refusal_shown(page: requests.Response) -> tuple[int, str, list[tuple[str, str]]]:
    """A refused page's status, its refusal's code (X-Error-Code and the alert's data-code, which
    must agree) and the fields it names [(field, field code)]."""
    (code,) = re.findall(r'role="alert" data-code="([^"]+)"', page.text)
    assert page.headers.get("X-Error-Code") == code
    return page.status_code, code, re.findall(r'data-field="([^"]+)" data-field-code="([^"]+)"', page.text)


SIGN_IN_WORDS = {
    "pt": {
        "email": "Endereço de e-mail",
        "password": "Palavra-passe",
        "continue": "Continuar",
        "code": "Código",
        "sign_in": "Iniciar sessão",
    },
    "en": {
        "email": "E-mail address",
        "password": "Password",
        "continue": "Continue",
        "code": "Code",
        "sign_in": "Sign in",
    },
}
SIGN_IN_BUTTON = {lang: words["sign_in"] for lang, words in SIGN_IN_WORDS.items()}


def sign_in_in_browser(page: Page, url: str, user: dict[str, Any], lang: str) -> Response:
    """`user` signs in on the dashboard at `url` in a browser's `page` in `lang` (chosen by the
    page's switch, so its cookie keeps it): the e-mail and password, then the authenticator's code
    when it has TOTP set up; the home page's answer."""
    words = SIGN_IN_WORDS[lang]
    page.goto(f"{url}/sign-in?lang={lang}")
    page.get_by_label(words["email"]).fill(user["email"])
    page.get_by_label(words["password"]).fill(user["password"])
    with page.expect_navigation() as first:
        page.locator("main").get_by_role("button", name=words["continue"], exact=True).click()
    answer = first.value
    if page.locator("main").get_attribute("data-page") == "code":  # TOTP set up (a finance user may have none)
        page.get_by_label(words["code"]).fill(fresh_totp_code(user["totp_secret"]))
        with page.expect_navigation() as home:
            page.locator("main").get_by_role("button", name=words["sign_in"], exact=True).click()
        answer = home.value
    assert page.locator("main").get_attribute("data-page") == "home", page.content()
    return answer


browser_sign_in = sign_in_in_browser  # the money pages' browser tests' name for it


def emails_sent_to(stack: RunningStack, address: str, count: int = 1) -> list[EmailMessage]:
    """The e-mails moto's SES "sent" to `address` (devstack's /__devstack__/sent), oldest first,
    once there are `count` of them (the notification sender sends them from its queue)."""

    def read() -> list[EmailMessage]:
        answer = requests.get(f"{stack.state['aws_endpoint']}/__devstack__/sent", timeout=30)
        assert answer.status_code == 200, answer.text
        return [
            mail
            for m in answer.json()["emails"]
            if m["raw_data"] and any(address in d for d in m["destinations"])
            for mail in [message_from_string(m["raw_data"], policy=policy.default)]
            if isinstance(mail, EmailMessage)
        ]

    found = eventually(read, lambda mails: len(mails) >= count, timeout=90, interval=0.5)
    assert len(found) == count, [m["Subject"] for m in found]
    return found


def email_text(mail: EmailMessage) -> str:
    body = mail.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content())


def dashboard_link(mail: EmailMessage, kind: str) -> str:
    """The path of the dashboard link (`kind`: invitations or password-reset) the e-mail carries,
    the same in its text and HTML parts."""
    found = re.findall(rf"https?://[^\s/]+(/{kind}/[A-Za-z0-9_-]+)", email_text(mail))
    html = mail.get_body(preferencelist=("html",))
    assert len(found) == 1 and html is not None and found[0] in str(html.get_content()), found
    return str(found[0])


def accept_invitation(stack: RunningStack, path: str, password: str, lang: str | None = None) -> DashboardUser:
    """The invitee opens the link, chooses `password` and sets TOTP up (its role needs it); signed in."""
    invitee = DashboardUser(stack, lang=lang)
    accepted = invitee.post(path, {"password": password}, path)
    assert (accepted.status_code, accepted.headers.get("Location")) == (303, "/sign-in/setup"), accepted.text
    setup = invitee.call("GET", "/sign-in/setup")
    secret = re.findall(r"<code data-secret>([^<]+)</code>", setup.text)[0]
    invitee.totp_secret = secret
    done = invitee.post("/sign-in/setup", {"code": fresh_totp_code(secret)}, "/sign-in/setup")
    assert (done.status_code, done.headers["Location"]) == (303, "/"), done.text
    return invitee


def team_shown(page: requests.Response) -> dict[str, dict[str, str]]:
    """The team page's rows by e-mail: role, status, totp, last sign-in (its data-* markers)."""
    rows = re.findall(
        r'<tr data-member="([^"]+)" data-role="([^"]+)" data-status="([^"]+)" data-totp="([^"]+)" '
        r'data-last-sign-in="([^"]*)">',
        page.text,
    )
    return {e: {"role": r, "status": s, "totp": t, "last_sign_in": last} for e, r, s, t, last in rows}


def volume_shown(page: requests.Response) -> dict[str, dict[tuple[str, str], dict[str, str]]]:
    """The home page's volume tables: per period (`today`, `30_days`), per (method, currency), the
    row's numbers (payments, succeeded, decided, volume, rate: '' when nothing reached an outcome)."""
    shown: dict[str, dict[tuple[str, str], dict[str, str]]] = {}
    for period, section in re.findall(r'data-period="([^"]+)"(.*?)</section>', page.text, re.S):
        rows = re.findall(r"<tr (data-method=[^>]*)>", section)
        shown[period] = {}
        for row in rows:
            values = dict(re.findall(r'data-([a-z]+)="([^"]*)"', row))
            shown[period][(values.pop("method"), values.pop("currency"))] = values
    return shown

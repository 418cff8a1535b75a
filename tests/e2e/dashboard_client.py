"""A merchant user in front of the local stack's dashboard over HTTP (docs/dashboard.md): its
cookies kept by hand (they are `__Host-` and Secure: an HTTP client library keeps Secure cookies
off plain HTTP, which the local stack speaks on loopback, as a browser allows), the sign-in
steps, the page's CSRF token, and users of other accounts made as `make run` makes the demo owner."""

from __future__ import annotations

import re
from typing import Any

import requests
import requests.adapters

from devstack.dashboard_demo import create_user, fresh_totp_code
from devstack.launcher import RunningStack


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
        """`source`: the loopback address the user's requests come from (127.0.0.1 unless named)."""
        self.url = stack.state["demo"][region]["dashboard"]["url"]
        self.cookies: dict[str, str] = {}
        self.headers = {"Accept-Language": lang} if lang else {}
        self.http = requests.Session()
        if source is not None:
            self.http.mount("http://", FromAddress(source))

    def call(self, method: str, path: str, form: dict[str, str] | None = None) -> requests.Response:
        jar = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        answer = self.http.request(
            method,
            self.url + path,
            data=form,
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

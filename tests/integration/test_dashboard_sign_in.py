"""Signing in to the merchant dashboard, in process against moto's Cognito with its TOTP check on
(docs/dashboard.md): the password then the code, a wrong code refused, the TOTP setup of a role
that needs one, the idle and absolute limits by a controlled clock, sign-out ending a copied
cookie's session, the attempts' rate limit, the audit trail naming the user, the cookies'
attributes and the pages' headers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import boto3
import pytest

from devstack.dashboard_demo import create_user, fresh_totp_code
from devstack.moto_server import ENABLE_TOTP
from mzpay.dashboard.sign_in import ATTEMPTS_PER_ADDRESS, ATTEMPTS_PER_USER
from mzpay.domain.common import clock
from mzpay.domain.dashboard.sessions import ABSOLUTE_SECONDS, COOKIE, IDLE_SECONDS
from mzpay.operators import audit as trail
from tests.events import rest_event
from tests.integration.support import REGION, function_app, function_stack

HOST = "127.0.0.1:3003"
ACCOUNT, OTHER = "acc_01JD8Z5K3M2N4P6Q7R8S9T0VWX", "acc_01JD8Z5K3M2N4P6Q7R8S9T0VWY"


class Dashboard:
    def __init__(self, app: Any, refs: dict[str, Any]) -> None:
        self.app = app
        self.refs = refs

    def user(self, email: str, role: str, with_totp: bool = True, account_id: str = ACCOUNT) -> dict[str, str]:
        return create_user(
            endpoint=None,
            region=REGION,
            pool_id=self.refs["DashboardUserPool"],
            client_id=self.refs["DashboardUserPoolClient"],
            accounts_table=self.refs["AccountsTable"],
            account_id=account_id,
            email=email,
            role=role,
            with_totp=with_totp,
        )

    def call(self, method: str, path: str, cookies: str = "", form: Any = None, ip: str = "198.51.100.7") -> Any:
        headers = {"Host": HOST, **({"Cookie": cookies} if cookies else {})}
        if form is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        event = rest_event(
            method,
            path,
            headers=headers,
            body=urlencode(form) if form is not None else None,
            resource="/{proxy+}" if path != "/" else "/",
            path_parameters={"proxy": path.lstrip("/")} if path != "/" else None,
            context={"identity": {"sourceIp": ip}, "requestId": "r-1", "stage": "prod", "domainName": HOST},
        )
        return self.app.lambda_handler(event, None)

    def password(self, email: str, password: str, ip: str = "198.51.100.7") -> tuple[Any, str]:
        form = self.call("GET", "/sign-in")
        cookies = jar(form)
        answer = self.call(
            "POST", "/sign-in", cookies, {"email": email, "password": password, "csrf_token": csrf(form)}, ip=ip
        )
        return answer, merged(cookies, answer)

    def code(self, cookies: str, code: str, step: str = "code") -> tuple[Any, str]:
        page = self.call("GET", f"/sign-in/{step}", cookies)
        answer = self.call("POST", f"/sign-in/{step}", cookies, {"code": code, "csrf_token": csrf(page)})
        return answer, merged(cookies, answer)

    def signed_in(self, user: dict[str, str]) -> str:
        answer, cookies = self.password(user["email"], user["password"])
        assert location(answer) == "/sign-in/code"
        answer, cookies = self.code(cookies, fresh_totp_code(user["totp_secret"]))
        assert location(answer) == "/"
        return cookies


def set_cookies(answer: Any) -> dict[str, str]:
    return {line.split("=", 1)[0]: line for line in answer["multiValueHeaders"].get("Set-Cookie", [])}


def jar(answer: Any) -> str:
    return "; ".join(line.split(";", 1)[0] for line in set_cookies(answer).values())


def merged(cookies: str, answer: Any) -> str:
    held = dict(part.split("=", 1) for part in cookies.split("; ") if part)
    for line in set_cookies(answer).values():
        name, value = line.split(";", 1)[0].split("=", 1)
        held[name] = value
    return "; ".join(f"{name}={value}" for name, value in held.items() if value)


def csrf(page: Any) -> str:
    return re.findall(r'name="csrf_token" value="([^"]+)"', page["body"])[0]


def location(answer: Any) -> str | None:
    return (answer["multiValueHeaders"].get("Location") or [None])[0]


@pytest.fixture
def dashboard(monkeypatch: pytest.MonkeyPatch) -> Iterator[Dashboard]:
    monkeypatch.setenv(ENABLE_TOTP, "true")
    with function_stack("DashboardFunction", monkeypatch) as stack:
        yield Dashboard(function_app("dashboard", "dashboard_app"), stack.intrinsics.refs)


def audit_records(dashboard: Dashboard) -> list[dict[str, Any]]:
    table = boto3.resource("dynamodb", region_name=REGION).Table(dashboard.refs["AuditTable"])
    return sorted(table.scan()["Items"], key=lambda item: item["at"])  # type: ignore[no-any-return]


class Clock:
    """The dashboard's clock, moved by the test (mzpay.domain.common.clock.now)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.at = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
        monkeypatch.setattr(clock, "now", lambda: self.at)

    def advance(self, seconds: int) -> None:
        self.at += timedelta(seconds=seconds)


def test_an_owner_signs_in_with_password_and_totp_and_the_session_cookie_is_host_only(dashboard: Dashboard) -> None:
    owner = dashboard.user("Owner@Example.co.mz", "owner")
    answer, cookies = dashboard.password(owner["email"], owner["password"])
    assert (answer["statusCode"], location(answer)) == (303, "/sign-in/code")
    assert dashboard.call("GET", "/", cookies)["statusCode"] == 303  # not signed in before the code
    pending_id = dict(part.split("=", 1) for part in cookies.split("; "))[COOKIE]
    answer, cookies = dashboard.code(cookies, fresh_totp_code(owner["totp_secret"]))
    assert (answer["statusCode"], location(answer)) == (303, "/")
    line = set_cookies(answer)[COOKIE]
    assert f"Max-Age={ABSOLUTE_SECONDS}" in line and "Path=/" in line and "Domain" not in line
    assert {"Secure", "HttpOnly", "SameSite=Strict"} <= {part.strip() for part in line.split(";")}
    session_id = dict(part.split("=", 1) for part in cookies.split("; "))[COOKIE]
    assert session_id != pending_id  # a new id once the second factor is given
    home = dashboard.call("GET", "/", cookies)
    assert home["statusCode"] == 200 and 'data-page="home"' in home["body"]
    assert 'data-mode="test"' in home["body"] and 'data-user="owner@example.co.mz"' in home["body"]
    policy = home["multiValueHeaders"]["Content-Security-Policy"][0]
    assert "frame-ancestors 'none'" in policy and "script-src" not in policy and "default-src 'none'" in policy
    assert "<script" not in home["body"]
    old = dashboard.call("GET", "/", f"{COOKIE}={pending_id}")
    assert (old["statusCode"], location(old)) == (303, "/sign-in")  # the pending id is worth nothing now
    records = [(r["action"], r["status"], r["actor_kind"], r["actor_id"]) for r in audit_records(dashboard)]
    assert records == [
        ("sign_in", 303, "merchant_user", "owner@example.co.mz"),
        ("sign_in_code", 303, "merchant_user", "owner@example.co.mz"),
    ]
    assert all(r["account_id"] == ACCOUNT and r["surface"] == "dashboard" for r in audit_records(dashboard))
    shown = trail.read_record(str(audit_records(dashboard)[0]["audit_id"])).wire()  # as operators read it
    assert shown["actor"]["kind"] == "merchant_user" and shown["actor"]["id"] == "owner@example.co.mz"
    assert shown["request"]["password"] != owner["password"]  # masked


def test_a_wrong_code_is_refused_and_a_wrong_password_too_each_in_the_pages_language(dashboard: Dashboard) -> None:
    owner = dashboard.user("owner@example.co.mz", "owner")
    answer, cookies = dashboard.password(owner["email"], owner["password"] + "x")
    assert answer["statusCode"] == 401 and 'data-code="sign_in_failed"' in answer["body"]
    assert "O e-mail ou a palavra-passe não estão certos." in answer["body"]  # Portuguese by default
    assert COOKIE not in set_cookies(answer)
    answer, cookies = dashboard.password(owner["email"], owner["password"])
    right = fresh_totp_code(owner["totp_secret"])
    wrong = f"{(int(right) + 1) % 1_000_000:06d}"
    answer, cookies = dashboard.code(cookies, wrong)
    assert answer["statusCode"] == 401 and 'data-code="invalid_code"' in answer["body"]
    assert dashboard.call("GET", "/", cookies)["statusCode"] == 303
    answer, cookies = dashboard.code(cookies, right)  # the pending sign-in stays: the right code passes
    assert location(answer) == "/"
    outcomes = [(r["action"], r["status"], r.get("code")) for r in audit_records(dashboard)]
    assert outcomes == [
        ("sign_in", 401, "sign_in_failed"),
        ("sign_in", 303, None),
        ("sign_in_code", 401, "invalid_code"),
        ("sign_in_code", 303, None),
    ]


def test_a_role_that_needs_totp_and_has_none_sets_it_up_before_it_is_signed_in(dashboard: Dashboard) -> None:
    developer = dashboard.user("dev@example.co.mz", "developer", with_totp=False)
    answer, cookies = dashboard.password(developer["email"], developer["password"])
    assert location(answer) == "/sign-in/setup"
    page = dashboard.call("GET", "/sign-in/setup", cookies)
    secret = re.findall(r"<code data-secret>([A-Za-z0-9]+)</code>", page["body"])[0]
    assert dashboard.call("GET", "/", cookies)["statusCode"] == 303
    answer, _ = dashboard.code(cookies, "000000" if fresh_totp_code(secret) != "000000" else "111111", "setup")
    assert answer["statusCode"] == 401 and secret in answer["body"]  # the form again, the secret still shown
    answer, cookies = dashboard.code(cookies, fresh_totp_code(secret), "setup")
    assert location(answer) == "/"
    assert dashboard.call("GET", "/", cookies)["statusCode"] == 200
    again, cookies = dashboard.password(developer["email"], developer["password"])
    assert location(again) == "/sign-in/code"  # from now on the code is asked for


def test_a_finance_user_without_totp_is_signed_in_by_its_password(dashboard: Dashboard) -> None:
    finance = dashboard.user("finance@example.co.mz", "finance", with_totp=False)
    answer, cookies = dashboard.password(finance["email"], finance["password"])
    assert location(answer) == "/"
    assert dashboard.call("GET", "/", cookies)["statusCode"] == 200


def test_a_session_ends_after_30_idle_minutes_and_after_12_hours_in_any_case(
    dashboard: Dashboard, monkeypatch: pytest.MonkeyPatch
) -> None:
    moved = Clock(monkeypatch)
    owner = dashboard.user("owner@example.co.mz", "owner")
    cookies = dashboard.signed_in(owner)
    moved.advance(IDLE_SECONDS - 1)
    assert dashboard.call("GET", "/", cookies)["statusCode"] == 200  # used at 29:59: kept
    moved.advance(IDLE_SECONDS)
    assert location(dashboard.call("GET", "/", cookies)) == "/sign-in"  # 30:00 unused: ended
    moved.advance(-IDLE_SECONDS)
    assert location(dashboard.call("GET", "/", cookies)) == "/sign-in"  # and its record is gone
    cookies = dashboard.signed_in(owner)
    elapsed, step = 0, IDLE_SECONDS - 60
    while elapsed + step < ABSOLUTE_SECONDS:  # used every 29 minutes: never idle
        moved.advance(step)
        elapsed += step
        assert dashboard.call("GET", "/", cookies)["statusCode"] == 200, elapsed
    moved.advance(ABSOLUTE_SECONDS - elapsed)  # 12 hours after sign-in: ended however used
    assert location(dashboard.call("GET", "/", cookies)) == "/sign-in"


def test_sign_out_makes_a_copy_of_the_cookie_worthless_and_a_post_without_session_does_nothing(
    dashboard: Dashboard,
) -> None:
    owner = dashboard.user("owner@example.co.mz", "owner")
    cookies = dashboard.signed_in(owner)
    home = dashboard.call("GET", "/", cookies)
    answer = dashboard.call("POST", "/sign-out", cookies, {"csrf_token": csrf(home)})
    assert (answer["statusCode"], location(answer)) == (303, "/sign-in")
    assert "Max-Age=0" in set_cookies(answer)[COOKIE]
    assert location(dashboard.call("GET", "/", cookies)) == "/sign-in"  # the copy
    refused = dashboard.call("POST", "/mode", cookies, {"csrf_token": csrf(home), "mode": "live"})
    assert refused["statusCode"] == 401 and 'data-code="unauthorized"' in refused["body"]
    records = [(r["action"], r["status"], r["actor_kind"], r["actor_id"]) for r in audit_records(dashboard)][-2:]
    assert records == [
        ("sign_out", 303, "merchant_user", "owner@example.co.mz"),
        ("switch_mode", 401, "anonymous", "anonymous"),
    ]


def test_signing_in_again_in_the_same_browser_ends_the_session_it_held(dashboard: Dashboard) -> None:
    owner = dashboard.user("owner@example.co.mz", "owner")
    first = dashboard.signed_in(owner)
    form = dashboard.call("GET", "/sign-in", first)  # the browser's session cookie goes along
    fields = {"email": owner["email"], "password": owner["password"], "csrf_token": csrf(form)}
    again = dashboard.call("POST", "/sign-in", merged(first, form), fields)
    assert location(again) == "/sign-in/code"
    assert location(dashboard.call("GET", "/", first)) == "/sign-in"  # the first session ended


def test_a_post_without_its_csrf_token_changes_nothing(dashboard: Dashboard) -> None:
    owner = dashboard.user("owner@example.co.mz", "owner")
    cookies = dashboard.signed_in(owner)
    refused = dashboard.call("POST", "/mode", cookies, {"mode": "live"})
    assert refused["statusCode"] == 403 and 'data-code="csrf_invalid"' in refused["body"]
    assert 'data-mode="test"' in dashboard.call("GET", "/", cookies)["body"]
    home = dashboard.call("GET", "/", cookies)
    switched = dashboard.call("POST", "/mode", cookies, {"mode": "live", "csrf_token": csrf(home)})
    assert location(switched) == "/"
    assert 'data-mode="live"' in dashboard.call("GET", "/", cookies)["body"]


def test_a_sign_in_form_without_its_csrf_cookie_is_refused_and_the_page_gives_a_fresh_token(
    dashboard: Dashboard,
) -> None:
    owner = dashboard.user("owner@example.co.mz", "owner")
    refused = dashboard.call("POST", "/sign-in", "", {"email": owner["email"], "password": owner["password"]})
    assert refused["statusCode"] == 403 and 'data-code="csrf_invalid"' in refused["body"]
    assert COOKIE not in set_cookies(refused) and csrf(refused)
    fields = {"email": owner["email"], "password": owner["password"], "csrf_token": csrf(refused)}
    again = dashboard.call("POST", "/sign-in", jar(refused), fields)
    assert location(again) == "/sign-in/code"


def test_sign_in_attempts_are_limited_per_user_and_per_address(dashboard: Dashboard) -> None:
    owner = dashboard.user("owner@example.co.mz", "owner")
    tries = ATTEMPTS_PER_USER + 1
    statuses = [dashboard.password(owner["email"], "wrong-password")[0]["statusCode"] for _ in range(tries)]
    assert statuses == [401] * ATTEMPTS_PER_USER + [429]
    refused, _ = dashboard.password(owner["email"], owner["password"])  # even the right password, this minute
    assert refused["statusCode"] == 429 and 'data-code="rate_limited"' in refused["body"]
    assert "Demasiadas tentativas" in refused["body"] and refused["multiValueHeaders"]["Retry-After"] == ["60"]
    others = [
        dashboard.password(f"nobody{n}@example.co.mz", "wrong", ip="203.0.113.5")[0]["statusCode"]
        for n in range(ATTEMPTS_PER_ADDRESS + 1)
    ]
    assert others == [401] * ATTEMPTS_PER_ADDRESS + [429]

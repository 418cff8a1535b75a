"""Who may use the operator console, in process against Secrets Manager (moto): the operators' IP
allowlist before anything (even sign-in), a named operator's session and the audit trail's
actor, a new operator secret ending every session, sign-out and idleness ending a session where the
service holds it (the clock injected, no sleeping), and the cookies' path and Secure flag on the
execute-api address (/<stage>/console)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import boto3
import pytest
from moto import mock_aws

from devstack.modules import load_module
from mzpay.domain.common import clock
from mzpay.domain.operators.console_sessions import IDLE_SECONDS
from mzpay.steps import audit
from tests.events import rest_event
from tests.integration.support import REGION, create_directory_table, reset_mzpay_caches

ROOT = Path(__file__).resolve().parents[2]
OPERATORS = '{"ana.macuacua": "token-of-ana-0123456789", "rui": "token-of-rui-9876543210"}'
LOCAL = "127.0.0.1:3002"
EXECUTE_API = "abc123.execute-api.af-south-1.amazonaws.com"


@pytest.fixture
def console(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("OPERATOR_IP_ALLOWLIST", "198.51.100.0/24")
    with mock_aws():
        secrets = boto3.client("secretsmanager", region_name=REGION)
        arn = secrets.create_secret(Name="operator", SecretString=OPERATORS)["ARN"]
        monkeypatch.setenv("OPERATOR_TOKEN_SECRET_ARN", arn)
        create_directory_table("accounts")  # the sessions' records: pk/sk, as AccountsTable
        monkeypatch.setenv("ACCOUNTS_TABLE", "accounts")
        reset_mzpay_caches()
        yield load_module(ROOT / "functions" / "management_console" / "app.py", "management_console_app")
        reset_mzpay_caches()


def event(
    method: str, path: str, *, ip: str = "198.51.100.7", host: str = LOCAL, cookies: str = "", form: Any = None
) -> dict[str, Any]:
    headers = {"Host": host, **({"Cookie": cookies} if cookies else {})}
    if form is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    return rest_event(
        method,
        path,
        headers=headers,
        body=urlencode(form) if form is not None else None,
        resource="/console/{proxy+}",
        path_parameters={"proxy": path.removeprefix("/console/")},
        context={
            "identity": {"sourceIp": ip},
            "requestId": "r-1",
            "stage": "Prod",
            "domainName": host,
            "path": f"/Prod{path}",
            "httpMethod": method,
        },
    )


def cookies_of(answer: dict[str, Any]) -> dict[str, str]:
    """name -> the whole Set-Cookie line."""
    lines = answer["multiValueHeaders"].get("Set-Cookie", [])
    return {line.split("=", 1)[0]: line for line in lines}


def jar(answer: dict[str, Any]) -> str:
    return "; ".join(line.split(";", 1)[0] for line in cookies_of(answer).values())


def signed_in(app: Any, token: str, host: str = LOCAL) -> dict[str, Any]:
    form = app.lambda_handler(event("GET", "/console/sign-in", host=host), None)
    csrf = re.findall(r'name="csrf_token" value="([^"]+)"', form["body"])[0]
    return app.lambda_handler(  # type: ignore[no-any-return]
        event("POST", "/console/sign-in", host=host, cookies=jar(form), form={"token": token, "csrf_token": csrf}),
        None,
    )


def test_an_address_outside_the_allowlist_gets_no_page_not_even_sign_in(console: Any) -> None:
    for method, path in [("GET", "/console/sign-in"), ("POST", "/console/sign-in"), ("GET", "/console/payouts")]:
        answer = console.lambda_handler(event(method, path, ip="203.0.113.9", form={}), None)
        assert answer["statusCode"] == 403, (method, path)
        assert 'data-code="ip_not_allowed"' in answer["body"]
        assert "Set-Cookie" not in answer["multiValueHeaders"]


def test_a_named_operator_signs_in_and_each_request_names_them_for_the_audit_trail(console: Any) -> None:
    named: list[tuple[str, str, str]] = []
    console.console.identify_with(lambda *actor: named.append(actor))  # the app wires steps.audit.identify
    try:
        answer = signed_in(console, "token-of-ana-0123456789")
        assert (answer["statusCode"], answer["multiValueHeaders"]["Location"]) == (303, ["/console/accounts"])
        assert named == [("operator", "ana.macuacua", "198.51.100.7")]
        home = console.lambda_handler(event("GET", "/console", cookies=jar(answer)), None)
        assert (home["statusCode"], home["multiValueHeaders"]["Location"]) == (303, ["/console/accounts"])
        assert named == [("operator", "ana.macuacua", "198.51.100.7")] * 2
        stranger = console.lambda_handler(event("GET", "/console"), None)  # no session: nobody is named
        assert (stranger["statusCode"], len(named)) == (303, 2)
    finally:
        console.console.identify_with(audit.identify)


def test_a_new_operator_secret_ends_every_session(console: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    answer = signed_in(console, "token-of-rui-9876543210")
    assert answer["statusCode"] == 303
    boto3.client("secretsmanager", region_name=REGION).put_secret_value(
        SecretId="operator", SecretString='{"rui": "a-new-token-for-rui-000000"}'
    )
    reset_mzpay_caches()  # the secret's cache (5 minutes) has run out
    after = console.lambda_handler(event("GET", "/console/accounts", cookies=jar(answer)), None)
    assert (after["statusCode"], after["multiValueHeaders"]["Location"]) == (303, ["/console/sign-in"])


def test_on_the_execute_api_address_the_console_lives_under_the_stage_with_secure_cookies(console: Any) -> None:
    answer = signed_in(console, "token-of-ana-0123456789", host=EXECUTE_API)
    assert answer["multiValueHeaders"]["Location"] == ["/Prod/console/accounts"]
    attributes = {
        name: sorted(part.strip() for part in cookie.split(";")[1:]) for name, cookie in cookies_of(answer).items()
    }
    secure = ["HttpOnly", "Path=/Prod/console", "SameSite=Strict", "Secure"]
    assert attributes["mzpay_console"] == sorted([*secure, "Max-Age=28800"])
    assert attributes["mzpay_console_csrf"] == secure


class Clock:
    """The console's clock, moved by the test (mzpay.domain.common.clock.now)."""

    def __init__(self) -> None:
        self.at = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: int) -> None:
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def moved(monkeypatch: pytest.MonkeyPatch) -> Clock:
    now = Clock()
    monkeypatch.setattr(clock, "now", now)
    return now


def sessions_held() -> list[dict[str, Any]]:
    items = boto3.resource("dynamodb", region_name=REGION).Table("accounts").scan()["Items"]
    return [item for item in items if str(item["pk"]).startswith("CONSOLE_SESSION#")]


def test_sign_out_ends_the_session_even_for_a_copy_of_its_cookie(console: Any) -> None:
    answer = signed_in(console, "token-of-ana-0123456789")
    kept = jar(answer)  # what an attacker copied before the operator signed out
    assert [(i["operator"], i["issued_at"] == i["last_used"]) for i in sessions_held()] == [("ana.macuacua", True)]
    page = console.lambda_handler(event("GET", "/console/accounts", cookies=kept), None)
    csrf = re.findall(r'name="csrf_token" value="([^"]+)"', page["body"])[0]
    out = console.lambda_handler(event("POST", "/console/sign-out", cookies=kept, form={"csrf_token": csrf}), None)
    assert (out["statusCode"], out["multiValueHeaders"]["Location"]) == (303, ["/console/sign-in?done=signed_out"])
    assert sessions_held() == []

    again = console.lambda_handler(event("GET", "/console/accounts", cookies=kept), None)
    assert (again["statusCode"], again["multiValueHeaders"]["Location"]) == (303, ["/console/sign-in"])
    named: list[tuple[str, str, str]] = []
    console.console.identify_with(lambda *actor: named.append(actor))
    try:
        post = console.lambda_handler(
            event("POST", "/console/accounts/acct_X/suspend", cookies=kept, form={"reason": "x", "csrf_token": csrf}),
            None,
        )
    finally:
        console.console.identify_with(audit.identify)
    assert post["statusCode"] == 401
    assert post["multiValueHeaders"]["X-Error-Code"] == ["unauthorized"]
    assert 'data-page="sign-in"' in post["body"] and 'data-code="unauthorized"' in post["body"]
    assert "Location" not in post["multiValueHeaders"]
    assert named == []  # nobody is named: the post ran as no operator


def test_a_session_unused_for_thirty_minutes_has_ended(console: Any, moved: Clock) -> None:
    answer = signed_in(console, "token-of-rui-9876543210")
    cookies = jar(answer)
    moved.advance(IDLE_SECONDS - 1)  # used just in time: the idle limit starts again
    used = console.lambda_handler(event("GET", "/console/accounts", cookies=cookies), None)
    assert (used["statusCode"], 'data-operator="rui"' in used["body"]) == (200, True)
    assert [int(i["last_used"]) for i in sessions_held()] == [int(moved.at.timestamp())]
    moved.advance(IDLE_SECONDS - 1)
    still = console.lambda_handler(event("GET", "/console/accounts", cookies=cookies), None)
    assert still["statusCode"] == 200
    moved.advance(IDLE_SECONDS)
    idle = console.lambda_handler(event("GET", "/console/accounts", cookies=cookies), None)
    assert (idle["statusCode"], idle["multiValueHeaders"]["Location"]) == (303, ["/console/sign-in"])
    assert sessions_held() == []  # ended where the service holds it
    moved.advance(-IDLE_SECONDS)  # even were the clock to go back, the session stays ended
    assert console.lambda_handler(event("GET", "/console/accounts", cookies=cookies), None)["statusCode"] == 303


def test_a_session_is_touched_at_most_once_a_minute(console: Any, moved: Clock) -> None:
    answer = signed_in(console, "token-of-ana-0123456789")
    signed_at = int(moved.at.timestamp())
    moved.advance(59)
    assert console.lambda_handler(event("GET", "/console/accounts", cookies=jar(answer)), None)["statusCode"] == 200
    assert [int(i["last_used"]) for i in sessions_held()] == [signed_at]
    moved.advance(1)
    assert console.lambda_handler(event("GET", "/console/accounts", cookies=jar(answer)), None)["statusCode"] == 200
    assert [int(i["last_used"]) for i in sessions_held()] == [signed_at + 60]


def test_two_requests_touching_the_session_at_once_both_pass_and_a_touch_after_sign_out_fails(console: Any) -> None:
    from mzpay import deps
    from mzpay.domain.operators.console_sessions import new_session

    store = deps.console_sessions()
    session = new_session("ana.macuacua", 1_000)
    store.open(session)
    assert (store.touch(session, 1_100), store.touch(session, 1_100)) == (True, True)  # the loser sees it held
    assert store.last_used(session) == 1_100
    store.end(session.session_id)
    assert (store.touch(session, 1_200), store.last_used(session)) == (False, None)

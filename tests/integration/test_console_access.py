"""Who may use the operator console, in process against Secrets Manager (moto): the operators' IP
allowlist before anything (even sign-in), a named operator's session and the audit trail's
actor, a new operator secret ending every session, and the cookies' path and Secure flag on the
execute-api address (/<stage>/console)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import boto3
import pytest
from moto import mock_aws

from devstack.modules import load_module
from mzpay.steps import audit
from tests.integration.support import REGION, reset_mzpay_caches

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
        reset_mzpay_caches()
        yield load_module(ROOT / "functions" / "management_console" / "app.py", "management_console_app")
        reset_mzpay_caches()


def event(
    method: str, path: str, *, ip: str = "198.51.100.7", host: str = LOCAL, cookies: str = "", form: Any = None
) -> dict[str, Any]:
    headers = {"Host": host, **({"Cookie": cookies} if cookies else {})}
    if form is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    return {
        "resource": "/console/{proxy+}",
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": {"proxy": path.removeprefix("/console/")},
        "requestContext": {
            "identity": {"sourceIp": ip},
            "requestId": "r-1",
            "stage": "Prod",
            "domainName": host,
            "path": f"/Prod{path}",
            "httpMethod": method,
        },
        "body": urlencode(form) if form is not None else None,
        "isBase64Encoded": False,
    }


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
    session = cookies_of(answer)["mzpay_console"]
    assert sorted(part.strip() for part in session.split(";")[1:]) == [
        "HttpOnly",
        "Max-Age=28800",
        "Path=/Prod/console",
        "SameSite=Strict",
        "Secure",
    ]
    csrf = cookies_of(answer)["mzpay_console_csrf"]
    assert sorted(part.strip() for part in csrf.split(";")[1:]) == [
        "HttpOnly",
        "Path=/Prod/console",
        "SameSite=Strict",
        "Secure",
    ]

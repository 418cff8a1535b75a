"""The management API's authorizer against Secrets Manager (in-process moto)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from tests.events import authorizer_event
from tests.expected import policy, problem
from tests.integration.support import function_app, reset_mzpay_caches

TOKEN = "op-token-0123456789abcdef"


def load_authorizer() -> Any:
    return function_app("management_authorizer", "management_authorizer_app").lambda_handler


@pytest.fixture
def authorizer(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("OPERATOR_IP_ALLOWLIST", "")
    with mock_aws():
        arn = boto3.client("secretsmanager", region_name="af-south-1").create_secret(
            Name="operator", SecretString=TOKEN
        )["ARN"]
        monkeypatch.setenv("OPERATOR_TOKEN_SECRET_ARN", arn)
        reset_mzpay_caches()
        yield load_authorizer()
        reset_mzpay_caches()


def auth_event(authorization: str | None, source_ip: str = "198.51.100.7") -> dict[str, Any]:
    return authorizer_event("GET", "/v1/system/info", authorization, source_ip)


def test_the_operator_token_is_allowed_on_the_whole_api(authorizer: Any) -> None:
    answer = authorizer(auth_event(f"Bearer {TOKEN}"), None)
    assert answer == {
        "principalId": "operator",
        "policyDocument": policy("Allow"),
        "context": {"role": "operator", "operator": "operator", "source_ip": "198.51.100.7"},
    }


def test_a_named_operators_token_names_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPERATOR_IP_ALLOWLIST", "")
    with mock_aws():
        stored = json.dumps({"ana.macuacua": "tok-ana-0123456789", "joao": "tok-joao-0123456789"})
        arn = boto3.client("secretsmanager", region_name="af-south-1").create_secret(
            Name="operators", SecretString=stored
        )["ARN"]
        monkeypatch.setenv("OPERATOR_TOKEN_SECRET_ARN", arn)
        reset_mzpay_caches()
        authorize = load_authorizer()
        assert authorize(auth_event("Bearer tok-joao-0123456789"), None)["context"]["operator"] == "joao"
        assert authorize(auth_event("Bearer tok-ana-0123456789"), None)["context"]["operator"] == "ana.macuacua"
        with pytest.raises(Exception, match=r"^Unauthorized$"):
            authorize(auth_event(f"Bearer {stored}"), None)
        reset_mzpay_caches()


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Basic b3A6dG9rZW4=", f"Bearer {TOKEN}x", f"bearer {TOKEN[:-1]}", "Bearer another-token"],
)
def test_missing_or_wrong_tokens_are_unauthorized(authorizer: Any, authorization: str | None) -> None:
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorizer(auth_event(authorization), None)


def test_bearer_scheme_is_case_insensitive(authorizer: Any) -> None:
    assert authorizer(auth_event(f"bearer {TOKEN}"), None)["principalId"] == "operator"


@pytest.mark.parametrize(
    ("source_ip", "allowed"), [("10.1.2.3", True), ("2001:db8::5", True), ("198.51.100.7", False), ("not-an-ip", False)]
)
def test_ip_allowlist_is_enforced_before_the_token(
    authorizer: Any, monkeypatch: pytest.MonkeyPatch, source_ip: str, allowed: bool
) -> None:
    monkeypatch.setenv("OPERATOR_IP_ALLOWLIST", "10.0.0.0/8, 2001:db8::/32")
    reset_mzpay_caches()
    answer = authorizer(auth_event(f"Bearer {TOKEN}", source_ip), None)
    statement = answer["policyDocument"]["Statement"][0]
    if allowed:
        assert statement["Effect"] == "Allow"
    else:
        assert statement["Effect"] == "Deny"
        assert json.loads(answer["context"]["problem"]) == problem(
            403, "Forbidden", "ip_not_allowed", "The source address is not in the management allowlist."
        )

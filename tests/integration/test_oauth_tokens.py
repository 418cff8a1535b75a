"""OAuth client credentials against in-process moto: the token use case, the authorizer's token
path, a client assertion's jti raced by concurrent requests, and the token endpoint with its
store unreachable (503 temporarily_unavailable, never a 500)."""

from __future__ import annotations

import base64
import json
import time
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jwt
import pytest
from botocore.exceptions import ReadTimeoutError
from cryptography.hazmat.primitives.asymmetric import ec

from devstack.modules import load_module
from devstack.moto_server import atomic_dynamodb
from mzpay import deps
from mzpay.cases import oauth
from mzpay.domain.access.client_certs import (
    CertStatus,
    ClientCertificate,
    described,
    fingerprint_of,
    new_ca,
    thumbprint,
)
from mzpay.domain.access.keys import generate_key, key_hash
from mzpay.domain.access.oauth import JWT_BEARER, TokenRequest
from mzpay.http import merchant_auth
from mzpay.http.authorizers import Unauthorized
from mzpay.store.secrets import key_pepper
from tests.integration import test_merchant_authorizer as merchant_tests
from tests.integration.races import race
from tests.integration.test_merchant_authorizer import ACCOUNT_ID, auth_event, policy, refusal

ROOT = Path(__file__).resolve().parents[2]
TOKEN_URL = "https://gw.mz.example/prod/oauth/token"
authorizer = merchant_tests.authorizer  # the fixture: directory, pepper and accounts in moto, and the authorizer


def secret_client(**options: Any) -> dict[str, Any]:
    made = oauth.create_client(ACCOUNT_ID, "test", ["payments:read", "payments:write"], None, None, [], **options)
    return made.wire()


def token_for(client: dict[str, Any], scope: str | None = None) -> str:
    request = TokenRequest("client_credentials", scope, client["client_id"], client["client_secret"])
    return oauth.issue_token(request, TOKEN_URL).access_token


def test_a_token_is_allowed_like_a_key_of_its_client(authorizer: Any) -> None:
    client = secret_client()
    token = token_for(client, "payments:read")
    answer = authorizer(auth_event(f"Bearer {token}"), None)
    stored = deps.oauth().token_by_hash(key_hash(token, key_pepper()))
    assert stored is not None
    assert answer == {
        "principalId": client["client_id"],
        "policyDocument": policy("Allow"),
        "context": {
            "account_id": ACCOUNT_ID,
            "mode": "test",
            "scopes": "payments:read",
            "key_id": client["client_id"],
            "allowed_customers": "",
            "expires_at": stored.expires_at,
        },
    }
    assert token not in json.dumps(deps.oauth().table.scan()["Items"], default=str)  # only its keyed hash is kept


def test_a_mistyped_an_unknown_and_a_revoked_clients_token_are_unauthorized(authorizer: Any) -> None:
    client = secret_client()
    token = token_for(client)
    with pytest.raises(Unauthorized):
        authorizer(auth_event(f"Bearer {token[:-1]}{'A' if token[-1] != 'A' else 'B'}"), None)
    with pytest.raises(Unauthorized):
        authorizer(auth_event(f"Bearer {generate_key('test', 'mzt')}"), None)
    oauth.revoke_client(client["client_id"])
    with pytest.raises(Unauthorized):
        authorizer(auth_event(f"Bearer {token}"), None)
    (event,) = deps.events().table.scan()["Items"]  # the audit trail, written with the revocation
    assert (event["type"], event["resource"], event["resource_id"]) == (
        "oauth_client.revoked",
        "oauth_client",
        client["client_id"],
    )
    assert (event["data"]["reason"], event["data"]["object"]["status"]) == ("operator", "revoked")
    assert "callback_url" not in event  # the account set no endpoint for its own events


def test_an_expired_token_is_refused_saying_so(authorizer: Any) -> None:
    token = token_for(secret_client())
    stored = deps.oauth().token_by_hash(key_hash(token, key_pepper()))
    assert stored is not None
    expiry = datetime.fromisoformat(stored.expires_at.replace("Z", "+00:00"))
    event = auth_event(f"Bearer {token}")
    before = merchant_auth.authorize_merchant(event, now=expiry - timedelta(seconds=1))
    assert before["policyDocument"] == policy("Allow")
    assert refusal(merchant_auth.authorize_merchant(event, now=expiry)) == {
        "status": 401,
        "code": "unauthorized",
        "message": "The access token has expired; get a new one at POST /oauth/token.",
        "headers": {"WWW-Authenticate": 'Bearer realm="mzpay"'},
        "extensions": {},
    }


def test_a_clients_ip_allowlist_holds_for_its_tokens(authorizer: Any) -> None:
    client = oauth.create_client(ACCOUNT_ID, "test", ["payments:read"], None, None, ["203.0.113.0/24"]).wire()
    token = token_for(client)
    assert authorizer(auth_event(f"Bearer {token}", "203.0.113.9"), None)["policyDocument"] == policy("Allow")
    denied = authorizer(auth_event(f"Bearer {token}", "198.51.100.7"), None)
    assert denied["policyDocument"] == policy("Deny")
    assert json.loads(denied["context"]["problem"])["code"] == "ip_not_allowed"


def test_racing_uses_of_one_assertion_get_one_token(authorizer: Any) -> None:
    private = ec.generate_private_key(ec.SECP256R1())
    public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(private.public_key()))
    client = oauth.create_client(ACCOUNT_ID, "test", ["payments:read"], None, {"keys": [public]}, []).wire()
    now = int(time.time())
    claims = {"iss": client["client_id"], "sub": client["client_id"], "aud": TOKEN_URL, "exp": now + 60}
    signed = jwt.encode({**claims, "jti": str(uuid.uuid4())}, private, algorithm="ES256")
    request = TokenRequest("client_credentials", assertion_type=JWT_BEARER, assertion=signed)
    with atomic_dynamodb():
        results = race(4, lambda _: oauth.issue_token(request, TOKEN_URL))
    tokens = [value for kind, value in results if kind == "ok"]
    refusals = [value for kind, value in results if kind == "error"]
    assert len(tokens) == 1 and tokens[0].access_token.startswith("mzt_test_")
    assert [(r.status, r.code, r.message) for r in refusals] == [
        (401, "invalid_client", "This assertion was used before (its jti): sign a new one for each request.")
    ] * 3


class Unreachable:
    """The OAuth store with DynamoDB timing out on every call."""

    def __getattr__(self, _name: str) -> Any:
        def fail(*_args: Any, **_kwargs: Any) -> Any:
            raise ReadTimeoutError(endpoint_url="https://dynamodb.af-south-1.amazonaws.com")

        return fail


def test_the_token_endpoint_without_its_store_is_503_temporarily_unavailable(authorizer: Any) -> None:
    handler = load_module(ROOT / "functions" / "gateway_oauth" / "app.py", "gateway_oauth_under_test").lambda_handler
    client = secret_client()
    basic = base64.b64encode(f"{client['client_id']}:{client['client_secret']}".encode()).decode()
    event = {
        "resource": "/oauth/token",
        "path": "/oauth/token",
        "httpMethod": "POST",
        "headers": {"Content-Type": "application/x-www-form-urlencoded", "Authorization": f"Basic {basic}"},
        "multiValueHeaders": {},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "requestId": "rid-oauth",
            "stage": "prod",
            "domainName": "gw.mz.example",
            "identity": {"sourceIp": "198.51.100.7"},
        },
        "body": "grant_type=client_credentials",
        "isBase64Encoded": False,
    }
    assert json.loads(handler(event, None)["body"])["token_type"] == "Bearer"  # the same request, store reachable
    with deps.substitute(oauth=Unreachable()):
        response = handler(event, None)
    assert response["statusCode"] == 503
    assert json.loads(response["body"]) == {
        "error": "temporarily_unavailable",
        "error_description": "A dependency of the service is unavailable; retry.",
    }
    headers = response["multiValueHeaders"]
    assert (headers["Retry-After"], headers["WWW-Authenticate"], headers["Cache-Control"]) == (
        ["1"],
        ['Basic realm="mzpay"'],
        ["no-store"],
    )


def test_a_bound_token_stops_with_its_certificate(authorizer: Any) -> None:
    """A token bound to a certificate (RFC 8705) is served with it while the certificate counts;
    once the certificate is revoked or past its validity, the token is refused with it too."""
    _key, pem = new_ca("mz", datetime.now(UTC))  # any certificate: the authorizer only fingerprints it
    fingerprint = fingerprint_of(pem)
    assert fingerprint is not None
    shown = described(pem)
    record = ClientCertificate(
        fingerprint=fingerprint,
        account_id=ACCOUNT_ID,
        home_region="mz",
        serial_number=shown["serial_number"],
        subject=shown["subject"],
        not_before="2026-01-01T00:00:00Z",
        not_after="2099-01-01T00:00:00Z",
        status=CertStatus.ACTIVE,
        created_at="2026-01-01T00:00:00Z",
    )
    deps.client_certs().add(record)
    client = secret_client()
    request = TokenRequest("client_credentials", "payments:read", client["client_id"], client["client_secret"])
    answer = oauth.issue_token(request, TOKEN_URL, pem)
    assert answer.cnf == {"x5t#S256": thumbprint(fingerprint)}
    stored = deps.oauth().token_by_hash(key_hash(answer.access_token, key_pepper()))
    assert stored is not None and stored.cnf == answer.cnf  # the token's record carries it
    event = auth_event(f"Bearer {answer.access_token}")
    event["requestContext"]["identity"]["clientCert"] = {"clientCertPem": pem}
    assert authorizer(event, None)["policyDocument"] == policy("Allow")
    gone = "The client certificate this access token is bound to is no longer valid for this account."
    for changed in (replace(record, status=CertStatus.REVOKED), replace(record, not_after="2026-02-01T00:00:00Z")):
        deps.client_certs().table.put_item(Item={"pk": f"CERT#{fingerprint}", "sk": "CERT", **changed.item()})
        assert refusal(authorizer(event, None)) == {
            "status": 401,
            "code": "client_certificate_required",
            "message": gone,
            "headers": {},
            "extensions": {},
        }

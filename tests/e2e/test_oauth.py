"""OAuth 2.0 client credentials over the local stack: an operator creates clients on the
management API, a client gets a token at POST /oauth/token with its secret (HTTP Basic or the
form) or a private-key JWT, and the gateway takes the token like an API key; every refusal in
OAuth's own format with WWW-Authenticate."""

from __future__ import annotations

import base64
import json
import time
import uuid
from typing import Any

import jwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from ulid import ULID

from devstack.launcher import RunningStack
from tests.e2e import test_access as access_tests
from tests.e2e.management_client import Operator
from tests.e2e.test_access import assert_bad_request, assert_problem, gateway
from tests.polling import eventually

pytestmark = pytest.mark.e2e
WALLET = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}}
CHARGE_SCOPES = ["payments:read", "payments:write"]


mz, sa = access_tests.mz, access_tests.sa  # the fixtures: each region's management API as an operator


def token_url(stack: RunningStack, region: str = "mz") -> str:
    return str(stack.state["regions"][region]["gateway"]) + "/oauth/token"


def client_of(operator: Operator, account_id: str, **options: Any) -> dict[str, Any]:
    body = {"mode": "test", "scopes": CHARGE_SCOPES, **options}
    response = operator.call("POST", f"/v1/accounts/{account_id}/oauth-clients", body)
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def ask(
    stack: RunningStack, form: dict[str, str] | str, basic: tuple[str, str] | None = None, region: str = "mz"
) -> requests.Response:
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if basic is not None:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{basic[0]}:{basic[1]}".encode()).decode()
    return requests.post(token_url(stack, region), data=form, headers=headers, timeout=30)


def assert_oauth_error(response: requests.Response, status: int, error: str, description: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"] == "application/json"
    assert response.headers["WWW-Authenticate"].startswith('Basic realm="mzpay"')
    assert response.headers["Cache-Control"] == "no-store"
    assert response.json() == {"error": error, "error_description": description}


def issued(response: requests.Response, scope: str) -> str:
    assert response.status_code == 200, response.text
    assert (response.headers["Cache-Control"], response.headers["Pragma"]) == ("no-store", "no-cache")
    body = response.json()
    assert body == {"access_token": body["access_token"], "token_type": "Bearer", "expires_in": 3600, "scope": scope}
    assert body["access_token"].startswith("mzt_test_")
    return str(body["access_token"])


def charge(stack: RunningStack, token: str) -> requests.Response:
    body = {"payment_id": str(ULID()), "money": {"amount": "25.00", "currency": "MZN"}, "source": WALLET}
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": str(uuid.uuid4())}
    url = stack.state["regions"]["mz"]["gateway"] + "/charges"
    return requests.post(url, json={**body, "country": "MZ"}, headers=headers, timeout=30)


def ec_key() -> tuple[Any, dict[str, Any]]:
    private = ec.generate_private_key(ec.SECP256R1())
    public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(private.public_key()))
    return private, {**public, "kid": "k1"}


def assertion(stack: RunningStack, client_id: str, key: Any, algorithm: str = "ES256", **claims: Any) -> str:
    now = int(time.time())
    body = {"iss": client_id, "sub": client_id, "aud": token_url(stack), "exp": now + 120, "jti": str(uuid.uuid4())}
    return jwt.encode({**body, **claims}, key, algorithm=algorithm, headers={"kid": "k1"})


def jwt_form(signed: str) -> dict[str, str]:
    return {
        "grant_type": "client_credentials",
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": signed,
    }


# ---------------------------------------------------------------- client secret
def test_a_client_secret_gets_a_token_that_charges_like_an_api_key(stack: RunningStack, mz: Operator) -> None:
    account = mz.account()
    client = client_of(mz, account["id"], name="ERP")
    secret = client.pop("client_secret")
    assert secret.startswith("mzs_test_") and client == {
        "client_id": client["client_id"],
        "account_id": account["id"],
        "name": "ERP",
        "mode": "test",
        "scopes": CHARGE_SCOPES,
        "status": "active",
        "token_endpoint_auth_method": "client_secret",
        "secret_hint": secret[:9] + "..." + secret[-4:],
        "jwks": None,
        "jwks_uri": None,
        "ip_allowlist": [],
        "created_at": client["created_at"],
        "revoked_at": None,
    }
    listed = mz.call("GET", f"/v1/accounts/{account['id']}/oauth-clients")
    assert listed.status_code == 200 and listed.json() == {"data": [client]}
    token = issued(
        ask(stack, {"grant_type": "client_credentials"}, (client["client_id"], secret)), "payments:read payments:write"
    )
    charged = charge(stack, token)
    assert charged.status_code == 200, charged.text
    paid = charged.json()
    assert (paid["status"], paid["money"]) == ("succeeded", {"amount": "25.00", "currency": "MZN"})
    read = gateway(stack, "mz", token, f"/payments/{paid['provider_payment_id']}")
    assert read.status_code == 200 and read.json()["provider_payment_id"] == paid["provider_payment_id"]
    # the form's credentials work as well, and a narrower scope gives a narrower token
    form = {"grant_type": "client_credentials", "client_id": client["client_id"], "client_secret": secret}
    reader = issued(ask(stack, {**form, "scope": "payments:read"}), "payments:read")
    assert_problem(
        charge(stack, reader),
        403,
        "Forbidden",
        "insufficient_scope",
        "This API key lacks the scope payments:write.",
        missing_scope="payments:write",
    )
    # what describes API keys is not for tokens
    assert_problem(gateway(stack, "mz", token), 404, "Not Found", "not_found", "No such API key.")
    # another account's payment is 404 to the token, as to a key
    other = mz.key(mz.account("Outra Loja")["id"])["key"]
    assert_problem(
        gateway(stack, "mz", other, f"/payments/{paid['provider_payment_id']}"),
        404,
        "Not Found",
        "not_found",
        "No such payment.",
    )


def test_the_token_endpoint_refuses_in_oauths_own_words(stack: RunningStack, mz: Operator) -> None:
    account = mz.account()
    client = client_of(mz, account["id"])
    basic = (client["client_id"], client["client_secret"])
    assert_oauth_error(
        ask(stack, {"grant_type": "password", "username": "u", "password": "p"}, basic),
        400,
        "unsupported_grant_type",
        "Only grant_type=client_credentials is supported.",
    )
    assert_oauth_error(ask(stack, {}, basic), 400, "invalid_request", "grant_type is required (client_credentials).")
    assert_oauth_error(
        ask(stack, {"grant_type": "client_credentials", "scope": "payments:read accounts:write"}, basic),
        400,
        "invalid_scope",
        "The scope accounts:write is not granted to this client.",
    )
    failed = "Client authentication failed: unknown or revoked client, or another method."
    assert_oauth_error(
        ask(stack, {"grant_type": "client_credentials"}, (basic[0], "mzs_test_wrong")), 401, "invalid_client", failed
    )
    assert_oauth_error(
        ask(stack, {"grant_type": "client_credentials"}, (str(ULID()), basic[1])), 401, "invalid_client", failed
    )
    assert_oauth_error(
        ask(stack, {"grant_type": "client_credentials"}),
        401,
        "invalid_client",
        "Client authentication is required: HTTP Basic, client_id and client_secret, or a private_key_jwt assertion.",
    )
    assert_oauth_error(
        ask(stack, "grant_type=client_credentials&grant_type=client_credentials", basic),
        400,
        "invalid_request",
        "The parameter grant_type is sent more than once.",
    )
    as_json = requests.post(
        token_url(stack),
        json={"grant_type": "client_credentials"},
        auth=basic,
        timeout=30,
    )
    assert_oauth_error(
        as_json, 400, "invalid_request", "The token request is a form: Content-Type: application/x-www-form-urlencoded."
    )


def test_a_revoked_client_and_a_suspended_account_are_seen_by_the_next_request(
    stack: RunningStack, mz: Operator
) -> None:
    account = mz.account()
    client = client_of(mz, account["id"])
    basic = (client["client_id"], client["client_secret"])
    first = issued(ask(stack, {"grant_type": "client_credentials"}, basic), "payments:read payments:write")
    second = issued(ask(stack, {"grant_type": "client_credentials"}, basic), "payments:read payments:write")
    assert charge(stack, first).status_code == 200
    mz.call("POST", f"/v1/accounts/{account['id']}/suspend", {"reason": "KYC review"})
    assert_problem(charge(stack, first), 403, "Forbidden", "account_suspended", "This account is suspended: KYC review")
    assert_oauth_error(
        ask(stack, {"grant_type": "client_credentials"}, basic),
        401,
        "invalid_client",
        "The client's account is suspended.",
    )
    mz.call("POST", f"/v1/accounts/{account['id']}/reactivate")
    assert charge(stack, second).status_code == 200
    revoked = mz.call("POST", f"/v1/oauth-clients/{client['client_id']}/revoke")
    assert revoked.status_code == 200 and revoked.json()["status"] == "revoked" and revoked.json()["revoked_at"]
    for token in (first, second):
        unauthorized = charge(stack, token)
        assert unauthorized.status_code == 401 and unauthorized.json()["code"] == "unauthorized", unauthorized.text
    assert_oauth_error(
        ask(stack, {"grant_type": "client_credentials"}, basic),
        401,
        "invalid_client",
        "Client authentication failed: unknown or revoked client, or another method.",
    )
    again = mz.call("POST", f"/v1/oauth-clients/{client['client_id']}/revoke")
    assert_problem(again, 409, "Conflict", "invalid_state", "This OAuth client is already revoked.")


def test_a_client_of_another_region_is_sent_there(stack: RunningStack, sa: Operator) -> None:
    client = client_of(sa, sa.account("Loja Joanesburgo")["id"])
    basic = (client["client_id"], client["client_secret"])
    # the directory is a global table: the client reaches the mz replica a moment later
    refused = eventually(
        lambda: ask(stack, {"grant_type": "client_credentials"}, basic), lambda r: r.status_code != 401
    )
    assert refused.status_code == 421, refused.text
    assert refused.json()["error"] == "wrong_region"
    assert refused.headers["Service-Region"] == "regional-sa"
    assert issued(
        ask(stack, {"grant_type": "client_credentials"}, (client["client_id"], client["client_secret"]), "regional-sa"),
        "payments:read payments:write",
    )


# ---------------------------------------------------------------- private-key JWT
def test_a_private_key_jwt_gets_a_token_once_per_assertion(stack: RunningStack, mz: Operator) -> None:
    private, public = ec_key()
    client = client_of(mz, mz.account()["id"], jwks={"keys": [public]})
    assert "client_secret" not in client and client["token_endpoint_auth_method"] == "private_key_jwt"
    assert client["jwks"] == {"keys": [{k: public[k] for k in ("kty", "crv", "x", "y", "kid")}]}
    client_id = client["client_id"]
    signed = assertion(stack, client_id, private)
    token = issued(ask(stack, jwt_form(signed)), "payments:read payments:write")
    assert charge(stack, token).status_code == 200
    assert_oauth_error(
        ask(stack, jwt_form(signed)),
        401,
        "invalid_client",
        "This assertion was used before (its jti): sign a new one for each request.",
    )
    now = int(time.time())
    refusals = {
        "The assertion has expired.": assertion(stack, client_id, private, exp=now - 120),
        "The assertion's exp is more than 300 seconds ahead.": assertion(stack, client_id, private, exp=now + 600),
        f"The assertion's aud must be the token endpoint, {token_url(stack)}.": assertion(
            stack, client_id, private, aud="https://elsewhere.example/oauth/token"
        ),
        "The assertion lacks the claim jti.": jwt.encode(
            {"iss": client_id, "sub": client_id, "aud": token_url(stack), "exp": now + 60}, private, algorithm="ES256"
        ),
        "The assertion's signature does not verify with the client's registered keys.": assertion(
            stack, client_id, ec_key()[0]
        ),
        "The assertion's iss and sub must both be the client_id.": assertion(
            stack, client_id, private, iss="someone-else"
        ),
    }
    for description, signed in refusals.items():
        assert_oauth_error(ask(stack, jwt_form(signed)), 401, "invalid_client", description)
    unknown = assertion(stack, str(ULID()), private)
    assert_oauth_error(
        ask(stack, jwt_form(unknown)),
        401,
        "invalid_client",
        "Client authentication failed: unknown or revoked client, or another method.",
    )


def test_an_rsa_client_signs_with_rs256(stack: RunningStack, mz: Operator) -> None:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key()))
    client = client_of(mz, mz.account()["id"], jwks={"keys": [public]}, scopes=["payments:read"])
    signed = assertion(stack, client["client_id"], private, algorithm="RS256")
    assert issued(ask(stack, jwt_form(signed)), "payments:read")
    private_jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private))
    leaked = mz.call(
        "POST", f"/v1/accounts/{client['account_id']}/oauth-clients", {"mode": "test", "jwks": {"keys": [private_jwk]}}
    )
    message = "a private key; register the public key only"
    assert_bad_request(leaked, "invalid_request", f"jwks.keys.0: {message}.", ("jwks.keys.0", "invalid_value", message))


def test_a_client_may_publish_its_keys_at_a_jwks_uri(stack: RunningStack, mz: Operator) -> None:
    """The local OIDC issuer's realm `partner` plays a client that publishes its keys."""
    realm = stack.state["oidc"]["realms"]["partner"]
    jwks_uri = f"{realm['issuer']}/jwks"
    client = client_of(mz, mz.account()["id"], jwks_uri=jwks_uri, scopes=["payments:read"])
    assert (client["token_endpoint_auth_method"], client["jwks_uri"], client["jwks"]) == (
        "private_key_jwt",
        jwks_uri,
        None,
    )
    assert "client_secret" not in client
    signing_key = serialization.load_pem_private_key(realm["signing_key"].encode(), password=None)
    now = int(time.time())
    claims = {"iss": client["client_id"], "sub": client["client_id"], "aud": token_url(stack), "exp": now + 60}
    signed = jwt.encode(
        {**claims, "jti": str(uuid.uuid4())}, signing_key, algorithm="RS256", headers={"kid": realm["kid"]}
    )
    assert issued(ask(stack, jwt_form(signed)), "payments:read")
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    forged = jwt.encode(
        {**claims, "jti": str(uuid.uuid4())}, stranger, algorithm="RS256", headers={"kid": realm["kid"]}
    )
    assert_oauth_error(
        ask(stack, jwt_form(forged)),
        401,
        "invalid_client",
        "The assertion's signature does not verify with the client's registered keys.",
    )
    nowhere = mz.call(
        "POST",
        f"/v1/accounts/{client['account_id']}/oauth-clients",
        {"mode": "test", "jwks_uri": f"{realm['issuer']}/no-such-document"},
    )
    message = "it must serve a JWK set with an RSA (RS256) or EC P-256 (ES256) public key"
    assert_bad_request(nowhere, "invalid_request", f"jwks_uri: {message}.", ("jwks_uri", "invalid_value", message))

"""OAuth rules (mzpay.domain.access.oauth) and the token request as read off the wire
(mzpay.http.oauth_form): scopes, assertion claims, registered keys, the form and HTTP Basic."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mzpay.domain.access.keys import credential, generate_key, key_mode, token_mode
from mzpay.domain.access.oauth import (
    OAuthClient,
    TokenRequest,
    check_assertion,
    granted_scopes,
    published_keys,
    registered_jwks,
)
from mzpay.domain.common.errors import ServiceError
from mzpay.http.oauth_form import token_request

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
CLIENT = OAuthClient(
    client_id="01JCLI000000000000000000A1",
    account_id="01JACC0000000000000000000A",
    home_region="mz",
    mode="test",
    scopes=["payments:read", "payments:write"],
    status="active",
    auth_method="client_secret",
    name="ERP",
    created_at="2026-11-25T11:00:00Z",
)
EC = {
    "kty": "EC",
    "crv": "P-256",
    "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
    "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
}
RSA_N = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc" * 5  # 2,070 bits


def test_credentials_of_each_kind_carry_their_own_checksum() -> None:
    for prefix in ("mzp", "mzs", "mzt"):
        secret = generate_key("live", prefix)
        assert credential(secret) == (prefix, "live")
        assert credential(secret[:-1] + ("0" if secret[-1] != "0" else "1")) is None
    assert key_mode(generate_key("test", "mzt")) is None and token_mode(generate_key("test", "mzt")) == "test"
    assert token_mode(generate_key("test")) is None and key_mode(generate_key("test")) == "test"
    assert credential("mzx_test_" + "A" * 38) is None


def test_scopes_are_the_clients_or_a_subset_of_them() -> None:
    assert granted_scopes(None, CLIENT) == ["payments:read", "payments:write"]
    assert granted_scopes("  ", CLIENT) == ["payments:read", "payments:write"]
    assert granted_scopes("payments:read payments:read", CLIENT) == ["payments:read"]
    with pytest.raises(ServiceError) as refused:
        granted_scopes("payments:read refunds:write", CLIENT)
    assert (refused.value.status, refused.value.code, refused.value.message) == (
        400,
        "invalid_scope",
        "The scope refunds:write is not granted to this client.",
    )
    with pytest.raises(ServiceError) as unknown:
        granted_scopes("everything", CLIENT)
    assert unknown.value.message == "The scope everything is not a scope of this API."


def claims(**changes: Any) -> dict[str, Any]:
    base = {"iss": CLIENT.client_id, "sub": CLIENT.client_id, "exp": int((NOW + timedelta(seconds=60)).timestamp())}
    return {**base, "jti": "a-1", **changes}


def test_an_assertion_is_the_clients_short_lived_and_names_a_jti() -> None:
    assert check_assertion(claims(), CLIENT.client_id, NOW) == NOW + timedelta(seconds=60)
    assert check_assertion(claims(exp=int((NOW + timedelta(seconds=300)).timestamp())), CLIENT.client_id, NOW)
    refusals = {
        "The assertion's iss and sub must both be the client_id.": claims(sub="other"),
        "The assertion's exp is more than 300 seconds ahead.": claims(
            exp=int((NOW + timedelta(seconds=301)).timestamp())
        ),
        "The assertion needs a jti (a string of at most 255 characters).": claims(jti="j" * 256),
    }
    for message, given in refusals.items():
        with pytest.raises(ServiceError) as refused:
            check_assertion(given, CLIENT.client_id, NOW)
        assert (refused.value.status, refused.value.code, refused.value.message) == (401, "invalid_client", message)
        assert refused.value.headers["WWW-Authenticate"] == 'Basic realm="mzpay", error="invalid_client"'


def test_registered_keys_are_public_rsa_or_p256_and_keep_only_their_public_members() -> None:
    assert registered_jwks({"keys": [{**EC, "kid": "k1", "use": "sig"}]}) == {"keys": [{**EC, "kid": "k1"}]}
    assert registered_jwks({"keys": [{"kty": "RSA", "n": RSA_N, "e": "AQAB"}]}) == {
        "keys": [{"kty": "RSA", "n": RSA_N, "e": "AQAB"}]
    }
    wrong = {
        "jwks: a JWK set with 1 to 5 keys": {"keys": []},
        "jwks.keys.0: a private key; register the public key only": {"keys": [{**EC, "d": "secret"}]},
        "jwks.keys.0: an RSA (RS256) or EC P-256 (ES256) public key": {"keys": [{**EC, "crv": "P-384"}]},
        "jwks.keys.0: an RSA key of at least 2048 bits": {"keys": [{"kty": "RSA", "n": RSA_N[:100], "e": "AQAB"}]},
    }
    for message, jwks in wrong.items():
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            registered_jwks(jwks)


def form_event(body: str, content_type: str = "application/x-www-form-urlencoded", **headers: str) -> dict[str, Any]:
    return {"headers": {"Content-Type": content_type, **headers}, "body": body, "isBase64Encoded": False}


def basic(client_id: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()


def test_the_form_and_basic_credentials_make_one_token_request() -> None:
    assert token_request(form_event("grant_type=client_credentials&scope=payments%3Aread")) == TokenRequest(
        "client_credentials", "payments:read"
    )
    # RFC 6749 2.3.1: Basic credentials are form-encoded before base64
    with_basic = form_event("grant_type=client_credentials", Authorization=basic("my%20id", "s%3Acret"))
    assert token_request(with_basic) == TokenRequest("client_credentials", None, "my id", "s:cret", basic=True)


@pytest.mark.parametrize(
    ("event", "status", "error", "description"),
    [
        (
            form_event('{"grant_type":"client_credentials"}', "application/json"),
            400,
            "invalid_request",
            "The token request is a form: Content-Type: application/x-www-form-urlencoded.",
        ),
        (
            form_event("grant_type=a&grant_type=b"),
            400,
            "invalid_request",
            "The parameter grant_type is sent more than once.",
        ),
        (form_event("scope=" + "s" * 1025), 400, "invalid_request", "The parameter scope is too long."),
        (form_event("a=1&" * 17), 400, "invalid_request", "The form body cannot be read."),
        (
            form_event("grant_type=client_credentials&client_secret=x", Authorization=basic("id", "s")),
            400,
            "invalid_request",
            "Send the client's credentials once: HTTP Basic or the form, not both.",
        ),
        (
            form_event("grant_type=client_credentials", Authorization="Bearer mzp_test_x"),
            401,
            "invalid_client",
            "Authorization must be HTTP Basic with client_id:client_secret.",
        ),
        (
            form_event("grant_type=client_credentials", Authorization="Basic !!!"),
            401,
            "invalid_client",
            "Authorization must be HTTP Basic with client_id:client_secret.",
        ),
    ],
)
def test_a_form_that_cannot_be_read_is_refused_in_oauths_words(
    event: dict[str, Any], status: int, error: str, description: str
) -> None:
    with pytest.raises(ServiceError) as refused:
        token_request(event)
    assert (refused.value.status, refused.value.code, refused.value.message) == (status, error, description)


def test_keys_published_at_a_jwks_uri_keep_the_usable_ones_only() -> None:
    rsa = {"kty": "RSA", "n": RSA_N, "e": "AQAB", "kid": "r1", "use": "sig", "alg": "RS256"}
    published = {"keys": [rsa, {**EC, "d": "private"}, {"kty": "oct", "k": "secret"}, "junk", {**EC, "kid": "e1"}]}
    assert published_keys(published) == [
        {"kty": "RSA", "n": RSA_N, "e": "AQAB", "kid": "r1"},
        {**EC, "kid": "e1"},
    ]
    assert published_keys({"keys": "none"}) == [] and published_keys(["not", "a", "set"]) == []
    assert len(published_keys({"keys": [EC] * 12})) == 10

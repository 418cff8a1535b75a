"""The local OIDC issuer (devstack/oidc.py) and token validation against it in-process: the
token endpoint, JWKS caching, refetch on an unknown key id, and the fetch rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from devstack.oidc import OidcIssuer
from mzpay.connectors import oidc as signin
from mzpay.connectors.fetch import FetchError, fetch_json, vetted_addresses
from mzpay.domain.common.errors import ServiceError

AUDIENCE = "mzpay-collection"


@pytest.fixture(scope="module")
def issuer() -> Iterator[OidcIssuer]:
    running = OidcIssuer("127.0.0.1", 0, AUDIENCE).start()
    running.register_client("mzpay", "svc", ("device:read", "kyc:read"), {"account_id": "acc_1"})
    yield running
    running.stop()


@pytest.fixture
def fetches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """URLs signin fetched (JWKS), with loopback allowed as the local stack allows it."""
    monkeypatch.setenv("OIDC_ALLOW_LOOPBACK", "true")
    seen: list[str] = []

    def counting(url: str, **options: Any) -> dict[str, Any]:
        seen.append(url)
        return fetch_json(url, **options)

    monkeypatch.setattr(signin, "fetch_json", counting)
    return seen


def providers(issuer: OidcIssuer) -> Any:
    realm = issuer.realms["mzpay"]
    return lambda iss: (
        signin.Provider(realm.issuer, f"{realm.issuer}/jwks", "configured") if iss == realm.issuer else None
    )


def test_discovery_names_every_endpoint_of_the_realm(issuer: OidcIssuer) -> None:
    realm = issuer.realms["partner"].issuer
    document = requests.get(f"{realm}/.well-known/openid-configuration", timeout=5).json()
    assert document["issuer"] == realm and document["jwks_uri"] == f"{realm}/jwks"
    assert document["token_endpoint"] == f"{realm}/token"
    keys = requests.get(document["jwks_uri"], timeout=5).json()["keys"]
    assert [(k["kty"], k["alg"], k["use"], k["kid"]) for k in keys] == [
        ("RSA", "RS256", "sig", issuer.realms["partner"].kid)
    ]


def test_the_token_endpoint_speaks_client_credentials(issuer: OidcIssuer) -> None:
    client = issuer.realms["mzpay"].clients["svc"]
    url = f"{issuer.realms['mzpay'].issuer}/token"
    basic = requests.post(url, data={"grant_type": "client_credentials"}, auth=("svc", client.client_secret), timeout=5)
    assert basic.status_code == 200 and basic.headers["Cache-Control"] == "no-store"
    assert basic.json()["scope"] == "device:read kyc:read" and basic.json()["token_type"] == "Bearer"
    form = {"grant_type": "client_credentials", "client_id": "svc", "client_secret": client.client_secret}
    wider = requests.post(url, data={**form, "scope": "license:write"}, timeout=5)
    assert (wider.status_code, wider.json()["error"]) == (400, "invalid_scope")
    unknown = requests.post(url, data={**form, "client_id": "nobody"}, timeout=5)
    assert (unknown.status_code, unknown.json()["error"]) == (401, "invalid_client")
    assert unknown.headers["WWW-Authenticate"] == 'Basic realm="local-oidc"'


def test_a_token_of_the_endpoint_validates_and_the_jwks_is_fetched_once(issuer: OidcIssuer, fetches: list[str]) -> None:
    keys = signin.KeySets()
    token = issuer.token_for("mzpay", "svc")
    for _ in range(5):
        identity = signin.verify_access_token(token, providers(issuer), api_audience=AUDIENCE, key_sets=keys)
    assert (identity.subject, identity.account_id, identity.permissions) == (
        "svc",
        "acc_1",
        frozenset({"device:read", "kyc:read"}),
    )
    assert fetches == [f"{issuer.realms['mzpay'].issuer}/jwks"]


def test_an_unknown_key_id_refetches_at_most_once_per_cooldown(issuer: OidcIssuer, fetches: list[str]) -> None:
    keys = signin.KeySets()
    realm = issuer.realms["mzpay"]
    good = issuer.token_for("mzpay", "svc")
    signin.verify_access_token(good, providers(issuer), api_audience=AUDIENCE, key_sets=keys)
    import jwt

    stranger = jwt.encode(
        {"iss": realm.issuer, "sub": "x", "aud": AUDIENCE, "exp": 2**31},
        realm.key,
        algorithm="RS256",
        headers={"kid": "unknown"},
    )
    for _ in range(3):
        with pytest.raises(ServiceError) as refused:
            signin.verify_access_token(stranger, providers(issuer), api_audience=AUDIENCE, key_sets=keys)
        assert refused.value.extensions == {"reason": "unknown_key"}
    assert len(fetches) == 1  # the first fetch started the cooldown: no refetch storm


def test_unreachable_keys_are_a_502_provider_error(fetches: list[str]) -> None:
    """(HS256 is refused before any fetch; an RS256 token of a provider that is down is not 401.)"""
    import jwt

    token = jwt.encode({"iss": "https://down", "sub": "x", "aud": AUDIENCE, "exp": 2**31}, "k" * 32, algorithm="HS256")
    with pytest.raises(ServiceError) as refused:
        signin.verify_access_token(token, lambda iss: None, api_audience=AUDIENCE, key_sets=signin.KeySets())
    assert refused.value.extensions == {"reason": "unsupported_algorithm"}
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = jwt.encode(
        {"iss": "https://down", "sub": "x", "aud": AUDIENCE, "exp": 2**31}, key, algorithm="RS256", headers={"kid": "k"}
    )
    down = lambda iss: signin.Provider(iss, "http://127.0.0.1:1/jwks", "idp_x")  # noqa: E731
    with pytest.raises(ServiceError) as failed:
        signin.verify_access_token(token, down, api_audience=AUDIENCE, key_sets=signin.KeySets())
    assert (failed.value.status, failed.value.code, failed.value.headers) == (
        502,
        "provider_error",
        {"Retry-After": "1"},
    )
    assert failed.value.extensions == {"issuer": "https://down"}


@pytest.mark.parametrize(
    ("url", "allow", "reason"),
    [
        ("http://127.0.0.1:9/x", False, "invalid_url"),
        ("https://127.0.0.1:9/x", False, "address_not_allowed"),
        ("https://10.0.0.8/x", True, "address_not_allowed"),
        ("https://169.254.169.254/latest", True, "address_not_allowed"),
        ("file:///etc/passwd", True, "invalid_url"),
        ("https://nonexistent.invalid/x", False, "dns_error"),
    ],
)
def test_fetches_refuse_what_must_not_be_reached(url: str, allow: bool, reason: str) -> None:
    with pytest.raises(FetchError) as refused:
        vetted_addresses(url, allow)
    assert refused.value.reason == reason


def test_loopback_is_reached_only_when_the_local_stack_allows_it(issuer: OidcIssuer) -> None:
    url = f"{issuer.realms['mzpay'].issuer}/.well-known/openid-configuration"
    assert fetch_json(url, allow_loopback=True)["issuer"] == issuer.realms["mzpay"].issuer
    with pytest.raises(FetchError):
        fetch_json(url, allow_loopback=False)


def test_a_registered_providers_token_must_name_an_account_bound_to_it(issuer: OidcIssuer, fetches: list[str]) -> None:
    realm = issuer.realms["partner"]
    bound = signin.Provider(realm.issuer, f"{realm.issuer}/jwks", "idp_partner", frozenset({"acc_1"}))
    keys = signin.KeySets()

    def token(**claims: Any) -> str:
        return realm.mint({"sub": "ana", "scope": "account:review", **claims}, audience=AUDIENCE)

    identity = signin.verify_access_token(
        token(account_id="acc_1"), lambda _: bound, api_audience=AUDIENCE, key_sets=keys
    )
    assert (identity.account_id, identity.provider, identity.kind) == ("acc_1", "idp_partner", "business")
    assert not identity.holds("account:review")
    for claims in ({"account_id": "acc_2"}, {}):  # another account, or none (never the administrator)
        with pytest.raises(ServiceError) as refused:
            signin.verify_access_token(token(**claims), lambda _: bound, api_audience=AUDIENCE, key_sets=keys)
        assert (refused.value.status, refused.value.code, refused.value.extensions) == (
            401,
            "unauthorized",
            {"reason": "unbound_account"},
        )
    nobody = signin.Provider(realm.issuer, f"{realm.issuer}/jwks", "idp_partner", frozenset())
    with pytest.raises(ServiceError):
        signin.verify_access_token(token(account_id="acc_1"), lambda _: nobody, api_audience=AUDIENCE, key_sets=keys)

"""Mutual TLS binds every credential (issue 30, item 3), over the local stack's TLS listener: once
an account requires mTLS, POST /oauth/token hands out tokens only over TLS with one of the
account's certificates and binds them to it (RFC 8705, `cnf.x5t#S256`); a token issued before, or
bound to another certificate, is refused, as is a key without a certificate; and nobody, the
account's token or a connected platform, switches mTLS off without a certificate of the account."""

from __future__ import annotations

import base64
import hashlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from ulid import ULID

from devstack.launcher import RunningStack
from tests.e2e import test_access as access_tests
from tests.e2e.management_client import Operator
from tests.e2e.test_access import assert_problem
from tests.e2e.test_mtls import REQUIRED, Merchant
from tests.e2e.test_oauth import assert_oauth_error

pytestmark = pytest.mark.e2e
mz = access_tests.mz  # the fixture: the mz management API as an operator
Cert = tuple[Path, Path]
SCOPES = ["api_keys:write", "balance:read", "payments:read", "payments:write"]  # as clients hold them: sorted
NOT_BOUND = (
    "This access token is not bound to a client certificate and this account requires mutual TLS: get a new "
    "token at POST /oauth/token presenting one of the account's certificates."
)
BOUND = "This access token is bound to a client certificate: present that certificate (mutual TLS)."
TOKEN_NEEDS_CERT = (
    "This client's account requires mutual TLS: request the token over TLS presenting one of the account's "
    "client certificates; the token is bound to it."
)
NOT_THE_ACCOUNTS = "The client certificate presented is not a valid certificate of this client's account."
SWITCH_OFF_NEEDS_CERT = (
    "This account requires mutual TLS: only a request presenting one of its client certificates may stop requiring it."
)


def x5t_s256(cert_file: Path) -> str:
    """RFC 8705's thumbprint, computed here from the certificate itself."""
    der = x509.load_pem_x509_certificate(cert_file.read_bytes()).public_bytes(serialization.Encoding.DER)
    return base64.urlsafe_b64encode(hashlib.sha256(der).digest()).rstrip(b"=").decode()


class Client:
    """An OAuth client of the merchant's account, asking for tokens over plain HTTP or over TLS."""

    def __init__(self, merchant: Merchant, operator: Operator, scopes: list[str]) -> None:
        self.merchant = merchant
        created = operator.call(
            "POST", f"/v1/accounts/{merchant.account_id}/oauth-clients", {"mode": "test", "scopes": scopes}
        )
        assert created.status_code == 201, created.text
        self.id, self.secret = created.json()["client_id"], created.json()["client_secret"]

    def ask(self, tls: bool = False, cert: Cert | None = None) -> requests.Response:
        base = self.merchant.https if tls else self.merchant.http
        return requests.post(
            base + "/oauth/token",
            data={"grant_type": "client_credentials"},
            auth=(self.id, self.secret),
            cert=(str(cert[0]), str(cert[1])) if cert else None,
            verify=str(self.merchant.server_ca) if tls else True,
            timeout=30,
        )


def token_of(response: requests.Response, bound: Path | None) -> str:
    """The whole answer of a granted token request: bound to `bound`'s certificate, or unbound."""
    assert response.status_code == 200, response.text
    body = response.json()
    expected = {"access_token": body["access_token"], "token_type": "Bearer", "expires_in": 3600}
    expected["scope"] = " ".join(SCOPES)
    if bound is not None:
        expected["cnf"] = {"x5t#S256": x5t_s256(bound)}
    assert body == expected
    assert body["access_token"].startswith("mzt_test_")
    return str(body["access_token"])


def using(
    merchant: Merchant, credential: str, method: str, path: str, body: Any = None, cert: Cert | None = None
) -> requests.Response:
    """A gateway call with `credential` (a key or a token): over TLS when presenting `cert`, else plain HTTP."""
    return requests.request(
        method,
        (merchant.https if cert else merchant.http) + path,
        json=body,
        headers={"Authorization": f"Bearer {credential}", "Idempotency-Key": str(uuid.uuid4())},
        cert=(str(cert[0]), str(cert[1])) if cert else None,
        verify=str(merchant.server_ca) if cert else True,
        timeout=30,
    )


def charge_body() -> dict[str, Any]:
    wallet = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}}
    return {
        "payment_id": str(ULID()),
        "money": {"amount": "25.00", "currency": "MZN"},
        "source": wallet,
        "country": "MZ",
    }


@pytest.fixture
def merchant(stack: RunningStack, mz: Operator, tmp_path: Path) -> Iterator[Merchant]:
    shop = Merchant(stack, mz, tmp_path)
    shop.key = mz.key(shop.account_id, scopes=SCOPES)["key"]
    yield shop


def test_an_oauth_token_needs_the_certificate_it_is_bound_to(
    stack: RunningStack, mz: Operator, merchant: Merchant
) -> None:
    mine: Cert = merchant.certificate("mine")[:2]  # type: ignore[assignment]
    spare: Cert = merchant.certificate("spare")[:2]  # type: ignore[assignment]
    theirs: Cert = Merchant(stack, mz, merchant.folder).certificate("theirs")[:2]  # type: ignore[assignment]
    client = Client(merchant, mz, SCOPES)
    early = token_of(client.ask(), bound=None)  # before mTLS, over plain HTTP: unbound
    # over TLS with a certificate of the account, a token is bound to it (mTLS required or not) ...
    bound = token_of(client.ask(tls=True, cert=mine), bound=mine[0])
    bound_to_spare = token_of(client.ask(tls=True, cert=spare), bound=spare[0])
    # ... and works only with that certificate, even while the account does not require mTLS
    assert_problem(
        using(merchant, bound, "GET", "/v1/balance"), 401, "Unauthorized", "client_certificate_required", BOUND
    )
    assert using(merchant, bound, "GET", "/v1/balance", cert=mine).status_code == 200
    # a certificate of another account is refused at the token endpoint, never bound
    assert_oauth_error(client.ask(tls=True, cert=theirs), 401, "client_certificate_required", NOT_THE_ACCOUNTS)

    enabled = merchant.call("PUT", "/v1/mtls", {"required": True}, tls=True, cert=mine)
    assert enabled.status_code == 200 and enabled.json() == {"account_id": merchant.account_id, "required": True}

    # the token endpoint: no certificate (plain HTTP, or TLS without one), or another account's: no token
    assert_oauth_error(client.ask(), 401, "client_certificate_required", TOKEN_NEEDS_CERT)
    assert_oauth_error(client.ask(tls=True), 401, "client_certificate_required", TOKEN_NEEDS_CERT)
    assert_oauth_error(client.ask(tls=True, cert=theirs), 401, "client_certificate_required", NOT_THE_ACCOUNTS)
    # the token issued before mTLS was required: refused without and with a certificate
    for cert in (None, mine):
        for method, path, body in (
            ("GET", "/v1/balance", None),
            ("POST", "/charges", charge_body()),
            ("PUT", "/v1/mtls", {"required": False}),
        ):
            answer = using(merchant, early, method, path, body, cert=cert)
            assert_problem(answer, 401, "Unauthorized", "client_certificate_required", NOT_BOUND)
    # a token bound to another certificate of the account: refused with this one, served with its own
    for answer in (
        using(merchant, bound_to_spare, "GET", "/v1/balance", cert=mine),
        using(merchant, bound, "GET", "/v1/balance", cert=spare),
        using(merchant, bound, "GET", "/v1/balance"),
        using(merchant, bound, "PUT", "/v1/mtls", {"required": False}),
    ):
        assert_problem(answer, 401, "Unauthorized", "client_certificate_required", BOUND)
    assert using(merchant, bound_to_spare, "GET", "/v1/balance", cert=spare).status_code == 200
    charged = using(merchant, bound, "POST", "/charges", charge_body(), cert=mine)
    assert charged.status_code == 200 and charged.json()["status"] == "succeeded", charged.text
    # keys too: without a certificate, refused
    assert_problem(
        using(merchant, merchant.key, "POST", "/charges", charge_body()),
        401,
        "Unauthorized",
        "client_certificate_required",
        REQUIRED,
    )
    # nothing above switched it off
    assert using(merchant, bound, "GET", "/v1/mtls", cert=mine).json() == {
        "account_id": merchant.account_id,
        "required": True,
    }
    # a token requested now, over TLS with the certificate, is bound and served with it only
    fresh = token_of(client.ask(tls=True, cert=mine), bound=mine[0])
    assert using(merchant, fresh, "GET", "/v1/balance", cert=mine).status_code == 200
    assert_problem(
        using(merchant, fresh, "GET", "/v1/balance"), 401, "Unauthorized", "client_certificate_required", BOUND
    )


def test_a_platform_cannot_switch_a_connected_accounts_mtls_off_without_its_certificate(
    stack: RunningStack, mz: Operator, tmp_path: Path
) -> None:
    shop = Merchant(stack, mz, tmp_path)
    platform = Merchant(stack, mz, tmp_path)
    platform.key = mz.key(platform.account_id, scopes=["accounts:write", "api_keys:write", "payments:read"])["key"]
    connected = mz.call(
        "POST", f"/v1/accounts/{platform.account_id}/connected-accounts", {"account_id": shop.account_id}
    )
    assert connected.status_code == 201, connected.text
    shops: Cert = shop.certificate("shop")[:2]  # type: ignore[assignment]
    platforms: Cert = platform.certificate("platform")[:2]  # type: ignore[assignment]
    assert shop.call("PUT", "/v1/mtls", {"required": True}, tls=True, cert=shops).json()["required"] is True
    acting = f"/v1/mtls?account_id={shop.account_id}"
    # the platform's accounts:write reaches the shop's settings, but not past its certificate
    for cert in (None, platforms):
        answer = using(platform, platform.key, "PUT", acting, {"required": False}, cert=cert)
        assert_problem(answer, 401, "Unauthorized", "client_certificate_required", SWITCH_OFF_NEEDS_CERT)
        assert using(platform, platform.key, "GET", acting, cert=cert).json() == {
            "account_id": shop.account_id,
            "required": True,
        }
    # nor can it mint a certificate of the shop to present (certificates are not reached through a connection)
    minted = using(platform, platform.key, "POST", f"/v1/client-certificates?account_id={shop.account_id}", {})
    assert_problem(minted, 404, "Not Found", "not_found", "No such account.")
    # the shop's own key still needs its certificate, and is served with it
    assert_problem(shop.call("GET", "/v1/mtls"), 401, "Unauthorized", "client_certificate_required", REQUIRED)
    assert shop.call("GET", "/v1/mtls", tls=True, cert=shops).json()["required"] is True
    # presenting the shop's certificate (which the shop gave it), the platform may
    off = using(platform, platform.key, "PUT", acting, {"required": False}, cert=shops)
    assert off.status_code == 200 and off.json() == {"account_id": shop.account_id, "required": False}
    assert shop.call("GET", "/v1/mtls").json() == {"account_id": shop.account_id, "required": False}

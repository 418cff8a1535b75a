"""The collection surface as a client meets it over HTTP: tokens of the local OIDC issuer,
licences of the local licence issuer, and the full error shape asserted in one place."""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

import jwt
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

from devstack.launcher import RunningStack
from devstack.licence import issue_licence
from tests.e2e.management_client import Operator
from tests.expected import field_errors

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# A business token's permissions (the demo business's); the installation's are ADMIN_SCOPES,
# held by an administrator's token (no account_id, the bootstrap realm).
ALL_SCOPES = (
    "license:read customer:read customer:write kyc:read kyc:write transaction:create "
    "device:read device:write "
    "collection_request:read collection_request:write collection_method:read collection_method:write"
)
ADMIN_SCOPES = "license:read license:write identity_provider:read identity_provider:write account:review"
CHALLENGE = 'Bearer realm="mzpay-collection"'
INVALID_TOKEN = 'Bearer realm="mzpay-collection", error="invalid_token"'


class Collection:
    """One region's collection API and the local issuers that serve it."""

    def __init__(self, stack: RunningStack, region: str) -> None:
        self.stack = stack
        self.region = region
        self.url = stack.state["regions"][region]["collection"]
        self.oidc = stack.state["oidc"]
        self.demo = stack.state["demo"][region]
        self.token = self.demo["collection_token"]
        self.admin = self.demo["collection_admin_token"]

    # ---------------------------------------------------------------- tokens
    def mint(
        self,
        realm: str = "mzpay",
        *,
        key: Any = None,
        kid: str | None = None,
        lifetime: int = 3600,
        algorithm: str = "RS256",
        **claims: Any,
    ) -> str:
        """An access token of `realm` (signed with its key unless `key` is given)."""
        spec = self.oidc["realms"][realm]
        now = int(time.time())
        body = {
            "iss": spec["issuer"],
            "sub": "tester",
            "aud": self.oidc["audience"],
            "iat": now,
            "exp": now + lifetime,
            "jti": str(uuid.uuid4()),
            "scope": ALL_SCOPES,
            "account_id": self.demo["account_id"],
        }
        body.update(claims)
        body = {k: v for k, v in body.items() if v is not None}
        signing_key = key if key is not None else spec["signing_key"]
        return jwt.encode(body, signing_key, algorithm=algorithm, headers={"kid": kid or spec["kid"]})

    def mint_admin(self, **claims: Any) -> str:
        """An installation administrator's token: the bootstrap realm, no account_id."""
        return self.mint(**{"sub": "admin-tester", "scope": ADMIN_SCOPES, **claims, "account_id": None})

    def new_account(self, name: str, sub: str) -> tuple[str, str]:
        """A fresh gateway account, not onboarded as a business: (its account id, a token acting
        for it)."""
        account_id = str(Operator(self.stack, self.region).created(name)["id"])
        return account_id, self.mint(account_id=account_id, sub=sub)

    def active_business(self, name: str = "Outra Loja", sub: str = "other-business") -> tuple[str, str]:
        """A fresh gateway account, onboarded and approved as a business (only an active business
        writes: docs/onboarding.md): (its account id, a token acting for it)."""
        from devstack.collection_demo import DEMO_DETAILS

        account_id, token = self.new_account(name, sub)
        reviewer = self.mint(account_id=None, sub="reviewer-1", scope="account:review")
        for method, path, body, who in (
            ("POST", "/v1/account/onboarding/initialize", None, token),
            ("PUT", "/v1/account/onboarding/details", DEMO_DETAILS, token),
            ("POST", "/v1/account/onboarding/finish", None, token),
            ("POST", f"/v1/accounts/{account_id}/approve", None, reviewer),
        ):
            answer = self.call(method, path, body, token=who)
            assert answer.status_code == 200, answer.text
        return account_id, token

    def licence(self, **options: Any) -> str:
        """A licence key signed by the local stack's licence issuer."""
        options.setdefault("issued_to", "Banco Teste")
        return issue_licence(self.stack.state["licence_issuer"]["signing_key"], **options)

    # ---------------------------------------------------------------- HTTP
    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = "demo",
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> requests.Response:
        headers = dict(headers or {})
        if token is not None:
            headers["Authorization"] = f"Bearer {self.token if token == 'demo' else token}"
        return requests.request(method, self.url + path, json=body, headers=headers, params=params, timeout=30)

    def ensure_licence(self) -> None:
        """The region's demo licence active again (tests that change it restore it)."""
        if self.call("GET", "/v1/license").status_code == 404:
            answer = self.call(
                "POST", "/v1/license/activate", {"license_key": self.demo["license_key"]}, token=self.admin
            )
            assert answer.status_code == 200, answer.text

    # ---------------------------------------------------------------- an administrator, as recorded
    def administrator(self, subject: str) -> dict[str, Any]:
        """An administrator `subject` of the bootstrap issuer as the collection surface's own records
        name them (a reviewer's decision, a change of an identity provider)."""
        return {"kind": "administrator", "subject": subject, "issuer": self.oidc["issuer"], "account_id": None}

    def audited_administrator(self, subject: str) -> dict[str, Any]:
        """An administrator `subject` of the bootstrap issuer, calling from this machine, as the
        audit trail records the actor."""
        actor = {"kind": "administrator", "id": subject, "source_ip": "127.0.0.1"}
        return {**actor, "issuer": self.oidc["issuer"], "account_id": None}


def licensed(stack: RunningStack, region: str = "mz") -> Collection:
    """The region's collection API as the demo business meets it, its demo licence active."""
    client = Collection(stack, region)
    client.ensure_licence()
    return client


def random_rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def assert_error(
    response: requests.Response,
    status: int,
    code: str,
    message: str,
    metadata: dict[str, Any] | None = None,
    www_authenticate: str | None = None,
) -> None:
    """The collection surface's whole error answer."""
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"] == "application/json"
    request_id = response.headers["X-Request-ID"]
    assert UUID.match(request_id)
    assert response.json() == {
        "code": code,
        "message": message,
        "request_id": f"req_{request_id}",
        "metadata": metadata or {},
    }
    assert response.headers.get("WWW-Authenticate") == www_authenticate


def validation(*errors: tuple[str, str, str]) -> dict[str, Any]:
    """The metadata of a refusal naming each refused field as (field, code, message)."""
    return {"errors": field_errors(*errors)}


def assert_invalid(response: requests.Response, *errors: tuple[str, str, str]) -> None:
    """The collection surface's 400 validation_error for the fields refused as (field, code, message)."""
    fields = ", ".join(field for field, _, _ in errors)
    assert_error(response, 400, "validation_error", f"The request has invalid fields: {fields}.", validation(*errors))


def assert_ok(response: requests.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"] == "application/json"
    assert UUID.match(response.headers["X-Request-ID"])
    return response.json()  # type: ignore[no-any-return]


def partner_provider(mz: Collection, account_ids: list[str]) -> dict[str, Any]:
    """The body of an oidc provider for the local issuer's `partner` realm, bound to `account_ids`."""
    return {
        "name": "Partner SSO",
        "type": "oidc",
        "client_id": "mzpay",
        "client_secret": "partner-client-secret-value",
        "encryption_key": "partner-encryption-key-value",
        "provider_url": "https://partner.example",
        "scopes": "openid profile",
        "redirect_uris": "https://portal.example/callback",
        "well_known_url": f"{mz.oidc['realms']['partner']['issuer']}/.well-known/openid-configuration",
        "account_ids": account_ids,
    }

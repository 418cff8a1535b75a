"""Demo material of the collection surface for `make run`: per region, the installation's
administrator (a client of the local OIDC issuer's bootstrap realm acting for no account, holding
the installation permissions: licence, identity providers, reviews) and its token, which activates
a licence through the region's collection API; a client acting for the region's demo account with
business permissions only, and its token; access tokens of three fresh business accounts whose
onboarding has just been initialized (pending); a reviewer's token (an administrator holding only
account:review); three customers of the demo account with a KYC verification each, awaiting
review; the demo account onboarded and approved by the reviewer, with test collection methods
(collection_method_ids)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from ulid import ULID

from devstack.licence import issue_licence
from devstack.oidc import OidcIssuer
from mzpay.domain.collection.access import (
    ACCOUNT_REVIEW,
    INSTALLATION_PERMISSIONS,
    KNOWN_CAPABILITIES,
    LICENCE_READ,
    LICENCE_WRITE,
)

LICENCE_ROUTE = ("POST", "/v1/license/activate")  # a region whose collection API has it gets a licence
BOOTSTRAP_REALM = "mzpay"
# A business token carries business permissions only; the installation's are its administrator's.
DEMO_SCOPES = (LICENCE_READ, *(name for name in KNOWN_CAPABILITIES if name not in INSTALLATION_PERMISSIONS))
ADMIN_SCOPES = (LICENCE_READ, *sorted(INSTALLATION_PERMISSIONS))
assert LICENCE_WRITE in ADMIN_SCOPES and not INSTALLATION_PERMISSIONS & set(DEMO_SCOPES)
DEMO_TOKEN_LIFETIME_SECONDS = 24 * 3600  # `make run` sessions last; fresh ones: the token endpoint
ONBOARDING_ACCOUNTS = 3  # the happy path, one to reject, one to suspend


def seed_collection(
    region: str, collection_url: str, issuer: OidcIssuer, licence_signing_key: str, account_id: str | None
) -> dict[str, object]:
    """Register the region's demo client, activate a licence; what stack.json's demo block says."""
    claims = {"account_id": account_id} if account_id else {}
    client = issuer.register_client(BOOTSTRAP_REALM, f"mzpay-demo-{region}", DEMO_SCOPES, claims)
    token = issuer.token_for(BOOTSTRAP_REALM, client.client_id, lifetime=DEMO_TOKEN_LIFETIME_SECONDS)
    admin = issuer.register_client(BOOTSTRAP_REALM, f"mzpay-admin-{region}", ADMIN_SCOPES)  # no account_id
    admin_token = issuer.token_for(BOOTSTRAP_REALM, admin.client_id, lifetime=DEMO_TOKEN_LIFETIME_SECONDS)
    licence_key = issue_licence(
        licence_signing_key, issued_to=f"Demo installation ({region})", metadata={"region": region}
    )
    _post(f"{collection_url}/v1/license/activate", admin_token, {"license_key": licence_key}, "licence activation")
    onboarding_tokens = []
    for index in range(1, ONBOARDING_ACCOUNTS + 1):
        business = issuer.register_client(
            BOOTSTRAP_REALM, f"mzpay-onboarding-{region}-{index}", DEMO_SCOPES, {"account_id": str(ULID())}
        )
        business_token = issuer.token_for(BOOTSTRAP_REALM, business.client_id, lifetime=DEMO_TOKEN_LIFETIME_SECONDS)
        _post(f"{collection_url}/v1/account/onboarding/initialize", business_token, None, "onboarding")
        onboarding_tokens.append(business_token)
    reviewer = issuer.register_client(BOOTSTRAP_REALM, f"mzpay-reviewer-{region}", (ACCOUNT_REVIEW,))
    reviewer_token = issuer.token_for(BOOTSTRAP_REALM, reviewer.client_id, lifetime=DEMO_TOKEN_LIFETIME_SECONDS)
    method_ids = _collecting(collection_url, token, reviewer_token, account_id) if account_id else []
    verifications = []  # customers once the demo business is active (only an active one registers them)
    for name, document in (("Ana Machava", "bi"), ("Carlos Nhantumbo", "passport"), ("Rita Sitoe", "dire")):
        customer = _post(
            f"{collection_url}/v1/customers", token, {"name": name, "document_type": document}, "customers"
        )
        verifications.append({"customer_id": customer["id"], "kyc_id": customer["kyc"]["kyc_id"]})
    return {
        "collection_token": token,
        "collection_client_id": client.client_id,
        "collection_client_secret": client.client_secret,
        "collection_admin_token": admin_token,
        "collection_admin_client_id": admin.client_id,
        "collection_admin_client_secret": admin.client_secret,
        "license_key": licence_key,
        "onboarding_tokens": onboarding_tokens,
        "customer_id": verifications[0]["customer_id"],
        "kyc_verifications": verifications,
        "collection_reviewer_token": reviewer_token,
        "collection_method_ids": method_ids,
    }


# The demo business: details that pass every onboarding rule (a NIB whose check digits hold, a
# NUIT whose check digit holds).
DEMO_DETAILS = {
    "object": "account",
    "bank_details": {
        "nuib": "123456",
        "nib": "000301080016367102371",
        "account_number": "1636710237",
        "bank_name": "BCI",
        "account_holder_name": "Demo Comercial Lda",
    },
    "person_of_contact": {
        "first_name": "Ana",
        "last_name": "Machava",
        "phone_number": "+258841234567",
        "email": "financas@demo.co.mz",
    },
    "business_details": {
        "legal_name": "Demo Comercial Lda",
        "country": "MZ",
        "state_province": "Maputo",
        "city": "Maputo",
        "registration_number": "100234567",
        "vat_number": "400339910",
    },
    "tax_details": {"tax_id": "400339910", "vat_number": "400339910"},
}
DEMO_METHODS = (("mpesa", "test"), ("emola", "test"), ("mkesh", "test"), ("bank_transfer", "test"))


def _collecting(collection_url: str, token: str, reviewer_token: str, account_id: str) -> list[str]:
    """Onboard the demo account as a business, approve it as the reviewer, and give it test
    collection methods (M-Pesa, e-Mola, mKesh, bank transfer); their ids."""
    _post(f"{collection_url}/v1/account/onboarding/initialize", token, None, "onboarding")
    _send("PUT", f"{collection_url}/v1/account/onboarding/details", token, DEMO_DETAILS, "onboarding details")
    _post(f"{collection_url}/v1/account/onboarding/finish", token, None, "onboarding finish")
    _post(f"{collection_url}/v1/accounts/{account_id}/approve", reviewer_token, None, "approval")
    return [
        _post(f"{collection_url}/v1/collection-methods", token, {"type": kind, "mode": mode}, "collection method")["id"]
        for kind, mode in DEMO_METHODS
    ]


def _post(url: str, token: str, body: dict[str, Any] | None, what: str) -> Any:
    """POST `body` as JSON; the answer's JSON (None for an empty body)."""
    return _send("POST", url, token, body, what)


def _send(method: str, url: str, token: str, body: dict[str, Any] | None, what: str) -> Any:
    request = urllib.request.Request(
        url,
        data=json.dumps(body or {}).encode(),
        method=method,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            text = answer.read()
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"{what} failed: {error.code}: {error.read().decode()}") from error
    return json.loads(text) if text else None

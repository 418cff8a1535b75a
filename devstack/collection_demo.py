"""Demo material of the collection surface for `make run`: per region, a client of the local
OIDC issuer's bootstrap realm acting for the region's demo account, an access token of it, and
a licence activated through the region's collection API as an administrator would."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from devstack.licence import issue_licence
from devstack.oidc import OidcIssuer
from mzpay.domain.collection_access import KNOWN_CAPABILITIES, LICENSE_READ, LICENSE_WRITE

LICENCE_ROUTE = ("POST", "/v1/license/activate")  # a region whose collection API has it gets a licence
BOOTSTRAP_REALM = "mzpay"
DEMO_SCOPES = (LICENSE_READ, LICENSE_WRITE, *KNOWN_CAPABILITIES)
DEMO_TOKEN_LIFETIME_SECONDS = 24 * 3600  # `make run` sessions last; fresh ones: the token endpoint


def seed_collection(
    region: str, collection_url: str, issuer: OidcIssuer, licence_signing_key: str, account_id: str | None
) -> dict[str, str]:
    """Register the region's demo client, activate a licence; what stack.json's demo block says."""
    claims = {"account_id": account_id} if account_id else {}
    client = issuer.register_client(BOOTSTRAP_REALM, f"mzpay-demo-{region}", DEMO_SCOPES, claims)
    token = issuer.token_for(BOOTSTRAP_REALM, client.client_id, lifetime=DEMO_TOKEN_LIFETIME_SECONDS)
    licence_key = issue_licence(
        licence_signing_key, issued_to=f"Demo installation ({region})", metadata={"region": region}
    )
    request = urllib.request.Request(
        f"{collection_url}/v1/license/activate",
        data=json.dumps({"license_key": licence_key}).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30):
            pass
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"licence activation failed: {error.code}: {error.read().decode()}") from error
    return {
        "collection_token": token,
        "collection_client_id": client.client_id,
        "collection_client_secret": client.client_secret,
        "license_key": licence_key,
    }

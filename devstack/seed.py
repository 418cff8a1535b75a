"""Demo material for `make run`: one account per region with test and live keys and webhook
secrets, created through each region's management API as an operator would."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

BILLERS = Path(__file__).resolve().parents[1] / "layers/core/python/mzpay/domain/data/billers.json"


def _post(url: str, token: str, body: dict[str, Any], method: str = "POST") -> dict[str, Any]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method=method,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())  # type: ignore[no-any-return]
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"seeding failed: {method} {url} answered {error.code}: {error.read().decode()}") from error


def seed_region(region: str, management_url: str, operator_token: str, partner: bool = False) -> dict[str, str]:
    """Create the demo account of `region` (`partner`: made a partner agent network, so that it
    may take cash deposits: docs/deposits.md); what stack.json's demo block says about it."""
    account = _post(
        f"{management_url}/v1/accounts", operator_token, {"name": f"Demo merchant ({region})", "region": region}
    )
    if partner:
        _post(f"{management_url}/v1/accounts/{account['id']}/partner", operator_token, {"partner": True}, "PUT")
    keys = f"{management_url}/v1/accounts/{account['id']}/api-keys"
    return {
        "account_id": account["id"],
        "test_key": _post(keys, operator_token, {"mode": "test"})["key"],
        "live_key": _post(keys, operator_token, {"mode": "live"})["key"],
        "webhook_secret_test": account["webhook_secrets"]["test"]["secret"],  # made with the account
        "webhook_secret_live": account["webhook_secrets"]["live"]["secret"],
    }


ORGANISATION_OF = "water"  # the simulated biller whose own account is the demo account's (docs/bills.md)


def seed_billers(management_url: str, operator_token: str, demo_account_id: str | None = None) -> list[str]:
    """Register the simulated billers and their products (domain/data/billers.json, docs/bills.md)
    as an operator would; their ids are the data's. The water utility's own account is the demo
    account (it may use the billers' API). The ids of the billers registered."""
    billers = json.loads(BILLERS.read_text(encoding="utf-8"))["billers"]
    for biller in billers:
        fields = {name: value for name, value in biller.items() if name != "products"}
        if biller["category"] == ORGANISATION_OF and demo_account_id:
            fields["account_id"] = demo_account_id
        _post(f"{management_url}/v1/billers", operator_token, fields)
        for product in biller["products"]:
            _post(f"{management_url}/v1/billers/{biller['biller_id']}/products", operator_token, product)
    return [biller["biller_id"] for biller in billers]

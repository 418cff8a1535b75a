"""A bounded load test on loopback: a flood from one tenant is throttled (429 rate_limited with
Retry-After) while another tenant's requests keep succeeding; nothing answers 5xx."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from devstack.launcher import RunningStack

pytestmark = pytest.mark.e2e


def management(stack: RunningStack, method: str, path: str, body: dict[str, object]) -> dict[str, object]:
    answer = requests.request(
        method,
        stack.state["regions"]["mz"]["management"] + path,
        json=body,
        headers={"Authorization": f"Bearer {stack.state['operator_token']}"},
        timeout=10,
    )
    assert answer.status_code in (200, 201), answer.text
    return answer.json()  # type: ignore[no-any-return]


def test_a_flood_from_one_tenant_is_throttled_while_another_keeps_succeeding(stack: RunningStack) -> None:
    account = management(stack, "POST", "/v1/accounts", {"name": "Flooder Lda", "region": "mz"})
    key = management(stack, "POST", f"/v1/accounts/{account['id']}/api-keys", {"mode": "test"})["key"]
    limits = management(stack, "PUT", f"/v1/accounts/{account['id']}/rate-limits", {"per_key": 3, "per_account": 3})
    assert limits == {"account_id": account["id"], "per_key": 3, "per_account": 3}
    gateway = stack.state["regions"]["mz"]["gateway"]
    neighbour = stack.state["demo"]["mz"]["test_key"]

    def balance(secret: str) -> requests.Response:
        return requests.get(gateway + "/v1/balance", headers={"Authorization": f"Bearer {secret}"}, timeout=60)

    with ThreadPoolExecutor(max_workers=8) as pool:
        flood = [pool.submit(balance, key) for _ in range(60)]
        calm = [balance(neighbour) for _ in range(10)]
        answers = [future.result() for future in flood]
    statuses = [answer.status_code for answer in answers]
    assert set(statuses) <= {200, 429}, statuses
    assert statuses.count(429) >= 10 and statuses.count(200) >= 3
    refused = next(answer for answer in answers if answer.status_code == 429)
    assert refused.headers["Retry-After"] == "1"
    assert refused.headers["Content-Type"].startswith("application/problem+json")
    assert refused.headers["X-Request-ID"]
    document = refused.json()
    assert document == {
        "type": "about:blank",
        "title": "Too Many Requests",
        "status": 429,
        "code": "rate_limited",
        "detail": document["detail"],
        "rule": document["rule"],
        "limit": 3,
        "error": {"code": "rate_limited", "message": document["detail"]},
    }
    assert document["rule"] in ("rate_per_key", "rate_per_account")
    assert [answer.status_code for answer in calm] == [200] * 10

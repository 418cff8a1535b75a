"""The management API of one region as an operator calls it, for the e2e tests."""

from __future__ import annotations

from typing import Any

import requests

from devstack.launcher import RunningStack


def operator_headers(stack: RunningStack) -> dict[str, str]:
    """The operator's bearer token (the local stack's)."""
    return {"Authorization": f"Bearer {stack.state['operator_token']}"}


class Operator:
    """The management API of one region, as an operator calls it."""

    def __init__(self, stack: RunningStack, region: str) -> None:
        self.url = stack.state["regions"][region]["management"]
        self.headers = operator_headers(stack)
        self.region = region

    def call(
        self, method: str, path: str, body: dict[str, Any] | None = None, params: dict[str, str] | None = None
    ) -> requests.Response:
        return requests.request(method, self.url + path, json=body, params=params, headers=self.headers, timeout=30)

    def ok(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """The answer of a call that must succeed (200 or 201)."""
        response = self.call(method, path, body)
        assert response.status_code in (200, 201), response.text
        return response.json()  # type: ignore[no-any-return]

    def created(self, name: str = "Loja Maputo") -> dict[str, Any]:
        """The creation's whole answer: the account and its first webhook secrets."""
        response = self.call("POST", "/v1/accounts", {"name": name, "region": self.region})
        assert response.status_code == 201, response.text
        return response.json()  # type: ignore[no-any-return]

    def account(self, name: str = "Loja Maputo") -> dict[str, Any]:
        """A new account as GET /v1/accounts/{id} shows it (the secrets are answered once)."""
        return {k: v for k, v in self.created(name).items() if k != "webhook_secrets"}

    def key(self, account_id: str, **options: Any) -> dict[str, Any]:
        response = self.call("POST", f"/v1/accounts/{account_id}/api-keys", {"mode": "test", **options})
        assert response.status_code == 201, response.text
        return response.json()  # type: ignore[no-any-return]

"""A small client of the management API over urllib: JSON in, JSON out, problem documents as ApiError."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from http import HTTPStatus
from http.client import HTTPException
from typing import Any

from mzpay_admin import __version__

DEFAULT_TIMEOUT_SECONDS = 30.0


class ApiError(Exception):
    """The API answered with an error status; `problem` is its problem document (or what could be made
    of a body that is not one)."""

    def __init__(self, status: int, problem: dict[str, Any], raw: str) -> None:
        self.status = status
        self.problem = problem
        self.raw = raw
        self.code = str(problem.get("code") or _phrase(status).lower().replace(" ", "_") or "http_error")
        self.detail = str(problem.get("detail") or problem.get("title") or _snippet(raw) or _phrase(status))
        super().__init__(f"{status} {self.code}: {self.detail}")

    @property
    def field_errors(self) -> list[dict[str, Any]]:
        errors = self.problem.get("errors")
        return [item for item in errors if isinstance(item, dict)] if isinstance(errors, list) else []


class ConnectionFailure(Exception):
    """The API could not be reached (refused, unknown host, timeout, connection dropped)."""

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        self.reason = reason
        super().__init__(f"cannot reach {url}: {reason}")


class Response:
    """A successful answer: status, parsed JSON body and the body as sent."""

    def __init__(self, status: int, body: Any, raw: str) -> None:
        self.status = status
        self.body = body
        self.raw = raw


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _snippet(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _reason(error: BaseException) -> str:
    reason: Any = error.reason if isinstance(error, urllib.error.URLError) else error
    if isinstance(reason, TimeoutError):
        return "timed out"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason) or type(reason).__name__


class ManagementClient:
    def __init__(self, base_url: str, token: str, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Response:
        url = self.base_url + path
        headers = {
            "Authorization": f"Bearer {self.token}",
            "Accept": "application/json, application/problem+json",
            "User-Agent": f"mzpay-admin/{__version__}",
        }
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                raw = answer.read().decode("utf-8", errors="replace")
                status = answer.status
        except urllib.error.HTTPError as error:
            raw = error.read().decode("utf-8", errors="replace")
            try:
                problem = json.loads(raw)
            except ValueError:
                problem = {}
            raise ApiError(error.code, problem if isinstance(problem, dict) else {}, raw) from None
        except (urllib.error.URLError, HTTPException, OSError) as error:
            raise ConnectionFailure(self.base_url, _reason(error)) from None
        try:
            parsed = json.loads(raw) if raw.strip() else {}
        except ValueError:
            raise ApiError(status, {"code": "invalid_response", "detail": "the answer is not JSON"}, raw) from None
        return Response(status, parsed, raw)

    # ------------------------------------------------------------------ the management routes
    def system_info(self) -> Response:
        return self.request("GET", "/v1/system/info")

    def create_account(self, name: str, region: str) -> Response:
        return self.request("POST", "/v1/accounts", {"name": name, "region": region})

    def get_account(self, account_id: str) -> Response:
        return self.request("GET", f"/v1/accounts/{_segment(account_id)}")

    def suspend_account(self, account_id: str, reason: str) -> Response:
        return self.request("POST", f"/v1/accounts/{_segment(account_id)}/suspend", {"reason": reason})

    def reactivate_account(self, account_id: str) -> Response:
        return self.request("POST", f"/v1/accounts/{_segment(account_id)}/reactivate")

    def connect_account(self, platform_account_id: str, account_id: str) -> Response:
        path = f"/v1/accounts/{_segment(platform_account_id)}/connected-accounts"
        return self.request("POST", path, {"account_id": account_id})

    def set_rate_limits(self, account_id: str, per_key: int, per_account: int) -> Response:
        path = f"/v1/accounts/{_segment(account_id)}/rate-limits"
        return self.request("PUT", path, {"per_key": per_key, "per_account": per_account})

    def fee_schedule(self, account_id: str) -> Response:
        return self.request("GET", f"/v1/accounts/{_segment(account_id)}/pricing")

    def set_fee_schedule(self, account_id: str, body: dict[str, Any]) -> Response:
        return self.request("PUT", f"/v1/accounts/{_segment(account_id)}/pricing", body)

    def business_gateway_account(self, business_account_id: str) -> Response:
        return self.request("GET", f"/v1/accounts/{_segment(business_account_id)}/gateway-account")

    def link_gateway_account(self, business_account_id: str, gateway_account_id: str) -> Response:
        path = f"/v1/accounts/{_segment(business_account_id)}/gateway-account"
        return self.request("PUT", path, {"gateway_account_id": gateway_account_id})

    def import_bank_statement(self, business_account_id: str, body: dict[str, Any]) -> Response:
        return self.request("POST", f"/v1/accounts/{_segment(business_account_id)}/bank-statements", body)

    def connected_accounts(self, platform_account_id: str) -> Response:
        return self.request("GET", f"/v1/accounts/{_segment(platform_account_id)}/connected-accounts")

    def disconnect_account(self, platform_account_id: str, account_id: str) -> Response:
        path = f"/v1/accounts/{_segment(platform_account_id)}/connected-accounts/{_segment(account_id)}"
        return self.request("DELETE", path)

    def create_api_key(self, account_id: str, body: dict[str, Any]) -> Response:
        return self.request("POST", f"/v1/accounts/{_segment(account_id)}/api-keys", body)

    def revoke_api_key(self, key_id: str) -> Response:
        return self.request("POST", f"/v1/api-keys/{_segment(key_id)}/revoke")

    def create_oauth_client(self, account_id: str, body: dict[str, Any]) -> Response:
        return self.request("POST", f"/v1/accounts/{_segment(account_id)}/oauth-clients", body)

    def oauth_clients(self, account_id: str) -> Response:
        return self.request("GET", f"/v1/accounts/{_segment(account_id)}/oauth-clients")

    def revoke_oauth_client(self, client_id: str) -> Response:
        return self.request("POST", f"/v1/oauth-clients/{_segment(client_id)}/revoke")

    def roll_webhook_secret(self, account_id: str, mode: str) -> Response:
        return self.request("POST", f"/v1/accounts/{_segment(account_id)}/webhook-secrets/roll", {"mode": mode})

    def dispatch_failures(self, limit: int) -> Response:
        return self.request("GET", f"/v1/webhook-dispatch-failures?limit={int(limit)}")

    def replay_dispatch_failure(self, message_id: str) -> Response:
        return self.request("POST", f"/v1/webhook-dispatch-failures/{_segment(message_id)}/replay")

    def replay_notification_dead_letters(self, limit: int) -> Response:
        return self.request("POST", f"/v1/notification-dead-letters/replay?limit={int(limit)}")

    def message_suppression(self, channel: str, address: str) -> Response:
        return self.request("GET", f"/v1/message-suppressions/{_segment(channel)}/{_segment(address)}")

    def remove_message_suppression(self, channel: str, address: str) -> Response:
        return self.request("DELETE", f"/v1/message-suppressions/{_segment(channel)}/{_segment(address)}")

    def create_biller(self, body: dict[str, Any]) -> Response:
        return self.request("POST", "/v1/billers", body)

    def billers(self) -> Response:
        return self.request("GET", "/v1/billers")

    def get_biller(self, biller_id: str) -> Response:
        return self.request("GET", f"/v1/billers/{_segment(biller_id)}")

    def change_biller(self, biller_id: str, body: dict[str, Any]) -> Response:
        return self.request("PATCH", f"/v1/billers/{_segment(biller_id)}", body)

    def retire_biller(self, biller_id: str) -> Response:
        return self.request("POST", f"/v1/billers/{_segment(biller_id)}/retire")

    def add_bill_product(self, biller_id: str, body: dict[str, Any]) -> Response:
        return self.request("POST", f"/v1/billers/{_segment(biller_id)}/products", body)

    def retire_bill_product(self, biller_id: str, product_id: str) -> Response:
        return self.request("POST", f"/v1/billers/{_segment(biller_id)}/products/{_segment(product_id)}/retire")

    def set_sms_channel(self, account_id: str, sender_id: str | None) -> Response:
        path = f"/v1/accounts/{_segment(account_id)}/sms-channel"
        if sender_id is None:
            return self.request("DELETE", path)
        return self.request("PUT", path, {"sender_id": sender_id})

    def fiscal_details(self, account_id: str) -> Response:
        return self.request("GET", f"/v1/accounts/{_segment(account_id)}/fiscal-details")

    def set_fiscal_details(self, account_id: str, body: dict[str, Any]) -> Response:
        return self.request("PUT", f"/v1/accounts/{_segment(account_id)}/fiscal-details", body)


def _segment(value: str) -> str:
    """An id as one path segment (an id with '/' or '?' must not reach another route)."""
    return urllib.parse.quote(value, safe="")

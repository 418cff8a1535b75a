"""Connector bindings over HTTP: operators bind a live PSP's credentials per (account, mode,
method); live charges go through the bound connector (here the M-Pesa sandbox on loopback);
test traffic never reaches live credentials."""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.test_charges import Merchant, wallet
from tests.expected import problem
from tests.providers.mpesa_sandbox import MpesaSandbox

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def sandbox() -> Iterator[MpesaSandbox]:
    with MpesaSandbox(api_key="live-api-key-of-the-merchant") as provider:
        yield provider


def operator(stack: RunningStack) -> dict[str, str]:
    return {"Authorization": f"Bearer {stack.state['operator_token']}"}


def bindings_url(stack: RunningStack, merchant: Merchant) -> str:
    management = stack.state["regions"]["mz"]["management"]
    return f"{management}/v1/accounts/{merchant.account['id']}/connector-bindings"


def bind(
    stack: RunningStack, merchant: Merchant, body: dict[str, Any], mode: str = "live", method: str = "mpesa"
) -> requests.Response:
    url = f"{bindings_url(stack, merchant)}/{mode}/{method}"
    return requests.put(url, json=body, headers=operator(stack), timeout=30)


def binding_item(stack: RunningStack, merchant: Merchant) -> dict[str, Any]:
    return stack.aws("dynamodb").get_item(  # type: ignore[no-any-return]
        TableName=stack.state["resources"]["mz"]["AccountsTable"],
        Key={"pk": {"S": f"ACCOUNT#{merchant.account['id']}"}, "sk": {"S": "BINDING#live#mpesa"}},
    )["Item"]


def test_a_bound_live_connector_carries_live_charges_and_keeps_its_credentials_encrypted(
    stack: RunningStack, sandbox: MpesaSandbox
) -> None:
    shop = Merchant(stack)
    bound = bind(stack, shop, {"psp_id": "vodacom-mpesa", "credentials": sandbox.credentials()})
    assert bound.status_code == 200
    assert bound.json() == {
        "account_id": shop.account["id"],
        "mode": "live",
        "method": "mpesa",
        "psp_id": "vodacom-mpesa",
        "credential_fields": [
            "api_key",
            "base_url",
            "initiator_identifier",
            "origin",
            "public_key",
            "security_credential",
            "service_provider_code",
        ],
        "created_at": bound.json()["created_at"],
        "updated_at": bound.json()["created_at"],
    }
    listed = requests.get(bindings_url(stack, shop), headers=operator(stack), timeout=30)
    assert listed.json() == {"bindings": [bound.json()]}

    item = binding_item(stack, shop)
    assert sandbox.api_key not in str(item) and sandbox.security_credential not in str(item)  # KMS ciphertext only
    kms = stack.aws("kms")
    blob = base64.b64decode(item["ciphertext"]["S"])
    context = {"account_id": shop.account["id"], "mode": "live", "binding_method": "mpesa"}
    assert sandbox.api_key in kms.decrypt(CiphertextBlob=blob, EncryptionContext=context)["Plaintext"].decode()
    with pytest.raises(kms.exceptions.InvalidCiphertextException):  # never opens for test traffic
        kms.decrypt(CiphertextBlob=blob, EncryptionContext={**context, "mode": "test"})

    before = len(sandbox.requests)
    paid = shop.charge(wallet("+258840000000"), amount="250.50", key=shop.live_key)
    assert paid.status_code == 200
    assert (paid.json()["status"], paid.json()["captured_amount"], paid.json()["failure_code"]) == (
        "succeeded",
        "250.50",
        None,
    )
    declined = shop.charge(wallet("+258840000001"), key=shop.live_key).json()
    assert (declined["status"], declined["failure_code"], declined["failure_message"]) == (
        "failed",
        "insufficient_funds",
        "The payer's wallet balance is too low.",
    )
    calls = sandbox.requests[before:]
    assert [(c.method, c.path, c.api_key) for c in calls] == [
        ("POST", "/ipg/v1x/c2bPayment/singleStage/", sandbox.api_key)
    ] * 2
    body = calls[0].body or {}
    assert (body["input_CustomerMSISDN"], body["input_Amount"], body["input_ServiceProviderCode"]) == (
        "258840000000",
        "250.50",
        "171717",
    )
    assert body["input_TransactionReference"] == paid.json()["provider_payment_id"][-20:]


def test_test_traffic_never_reaches_live_credentials(stack: RunningStack, sandbox: MpesaSandbox) -> None:
    shop = Merchant(stack)
    assert bind(stack, shop, {"psp_id": "vodacom-mpesa", "credentials": sandbox.credentials()}).status_code == 200
    before = len(sandbox.requests)
    outcomes = [shop.charge(wallet(f"+25884000000{n}")).json()["status"] for n in range(3)]
    assert outcomes == ["succeeded", "failed", "failed"]  # the simulator's table, not the sandbox's
    assert len(sandbox.requests) == before
    refused = bind(stack, shop, {"psp_id": "vodacom-mpesa", "credentials": sandbox.credentials()}, mode="test")
    assert refused.json() == problem(
        400,
        "Bad Request",
        "invalid_request",
        "Test traffic always goes to the simulator; bind live connectors only.",
        errors=[
            {
                "field": "mode",
                "code": "invalid_value",
                "message": "Test traffic always goes to the simulator; bind live connectors only.",
            }
        ],
    )


def test_unbinding_stops_live_charges(stack: RunningStack, sandbox: MpesaSandbox) -> None:
    shop = Merchant(stack)
    assert bind(stack, shop, {"psp_id": "vodacom-mpesa", "credentials": sandbox.credentials()}).status_code == 200
    url = f"{bindings_url(stack, shop)}/live/mpesa"
    gone = requests.delete(url, headers=operator(stack), timeout=30)
    assert gone.json() == {"account_id": shop.account["id"], "mode": "live", "method": "mpesa", "bound": False}
    assert requests.delete(url, headers=operator(stack), timeout=30).json() == problem(
        404, "Not Found", "not_found", "Nothing is bound for this mode and method."
    )
    assert shop.charge(wallet("+258840000000"), key=shop.live_key).json() == problem(
        409,
        "Conflict",
        "no_connector_binding",
        "No live connector is bound to this account for this method; ask your operator to bind one.",
    )


def test_a_binding_with_wrong_credentials_fails_the_charge_as_the_provider_says(
    stack: RunningStack, sandbox: MpesaSandbox
) -> None:
    shop = Merchant(stack)
    credentials = sandbox.credentials(api_key="not-the-key")
    assert bind(stack, shop, {"psp_id": "vodacom-mpesa", "credentials": credentials}).status_code == 200
    answer = shop.charge(wallet("+258840000000"), key=shop.live_key).json()
    assert (answer["status"], answer["failure_code"]) == ("failed", "provider_auth_failed")


@pytest.mark.parametrize(
    ("method", "body", "status", "code", "detail", "errors"),
    [
        (
            "mpesa",
            {"psp_id": "vodacom-mpesa", "credentials": {"api_key": "k", "surprise": "x"}},
            400,
            "invalid_request",
            "The credentials of vodacom-mpesa are incomplete or wrong.",
            [
                {"field": "credentials.public_key", "code": "missing", "message": "required"},
                {"field": "credentials.service_provider_code", "code": "missing", "message": "required"},
                {"field": "credentials.surprise", "code": "unknown", "message": "not a credential of this connector"},
            ],
        ),
        (
            "mpesa",
            {"psp_id": "movitel-emola", "credentials": {}},
            400,
            "invalid_request",
            "movitel-emola is not a live PSP that carries mpesa.",
            [
                {
                    "field": "psp_id",
                    "code": "invalid_value",
                    "message": "movitel-emola is not a live PSP that carries mpesa.",
                }
            ],
        ),
        (
            "emola",
            {"psp_id": "movitel-emola", "credentials": {}},
            400,
            "invalid_request",
            "There is no live connector for movitel-emola yet.",
            [
                {
                    "field": "psp_id",
                    "code": "invalid_value",
                    "message": "There is no live connector for movitel-emola yet.",
                }
            ],
        ),
        (
            "cheques",
            {"psp_id": "vodacom-mpesa", "credentials": {}},
            404,
            "not_found",
            "No such method: cheques (one of emola, mkesh, mpesa, card, bank_transfer, reference, ussd, qr, bnpl).",
            None,
        ),
    ],
)
def test_bindings_are_validated(
    stack: RunningStack,
    method: str,
    body: dict[str, Any],
    status: int,
    code: str,
    detail: str,
    errors: list[dict[str, str]] | None,
) -> None:
    shop = Merchant(stack)
    response = bind(stack, shop, body, method=method)
    title = {400: "Bad Request", 404: "Not Found"}[status]
    expected = problem(status, title, code, detail, **({"errors": errors} if errors else {}))
    assert response.json() == expected
    assert requests.get(bindings_url(stack, shop), headers=operator(stack), timeout=30).json() == {"bindings": []}


def test_a_live_payment_left_pending_is_reconciled_with_the_provider(stack: RunningStack) -> None:
    from mzpay.connectors.mpesa import third_party_reference

    with MpesaSandbox() as provider:  # its own: status queries must not mix with other tests' requests
        shop = Merchant(stack)
        assert bind(stack, shop, {"psp_id": "vodacom-mpesa", "credentials": provider.credentials()}).status_code == 200
        completed = shop.charge(wallet("+258840010004"), key=shop.live_key).json()  # 503: outcome unknown
        never_seen = shop.charge(wallet("+258840020004"), key=shop.live_key).json()
        assert (completed["status"], never_seen["status"]) == ("pending", "pending")
        assert (completed["expires_at"], never_seen["expires_at"]) == (None, None)  # live pending never expires
        provider.statuses[third_party_reference(completed["provider_payment_id"])] = "Completed"

        def status(payment: dict[str, Any]) -> dict[str, Any]:
            return shop.call("GET", f"/v1/payments/{payment['provider_payment_id']}", key=shop.live_key).json()  # type: ignore[no-any-return]

        deadline = time.monotonic() + 30  # first question after 1 s locally, the sweep every 5 s
        while time.monotonic() < deadline and "pending" in (status(completed)["status"], status(never_seen)["status"]):
            time.sleep(0.5)
        done, missing = status(completed), status(never_seen)
    assert (done["status"], done["captured_amount"], done["failure_code"]) == ("succeeded", "150.00", None)
    assert (missing["status"], missing["failure_code"], missing["failure_message"]) == (
        "failed",
        "not_received",
        "The provider never received the payment.",
    )
    queries = [r for r in provider.requests if r.path == "/ipg/v1x/queryTransactionStatus/"]
    assert {q.query["input_QueryReference"] for q in queries} == {
        third_party_reference(completed["provider_payment_id"]),
        third_party_reference(never_seen["provider_payment_id"]),
    }
    assert all(q.api_key == provider.api_key for q in queries)
    balance = shop.call("GET", "/v1/balance", key=shop.live_key).json()["balances"]
    # the ledger saw the capture
    assert balance == [{"currency": "MZN", "available": "150.00", "held": "0.00", "fees": "0.00"}]

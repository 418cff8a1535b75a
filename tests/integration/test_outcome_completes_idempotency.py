"""A charge's or capture's idempotency record is completed in the same transaction as the payment's
outcome (mzpay.store.idempotency.Completion): no separate write, the exact answer kept for
replays, and a record whose lock was lost never blocks the outcome. Through the gateway payments
function's handler, in-process moto with the stack of template.yaml."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from ulid import ULID

from devstack.modules import load_module
from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.connectors.base import ProviderCall, ProviderResult
from mzpay.connectors.simulated import SimulatedConnector
from mzpay.domain.payments.rules import Status
from mzpay.store import aws
from mzpay.store.idempotency import Completion, completing
from tests.integration.races import race
from tests.integration.support import ROOT, function_stack

ACCOUNT = "01JACCOUNT0000000000000000"
AUTHORIZER = {
    "principalId": ACCOUNT,
    "account_id": ACCOUNT,
    "mode": "test",
    "scopes": "payments:read payments:write",
    "key_id": "01JKEY00000000000000000000",
    "allowed_customers": "",
    "expires_at": "",
}
CARD_AUTHORIZE = {"type": "card", "card": {"token": "tok_test_authorize"}}
WALLET_OK = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}}


class Requests:
    """DynamoDB requests made through mzpay's session: (operation, table) pairs."""

    def __init__(self) -> None:
        self.seen: Counter[tuple[str, str]] = Counter()

    def __call__(self, request: Any, **_: Any) -> None:
        operation = request.headers.get("X-Amz-Target", b"").decode().split(".")[-1]
        body = json.loads(request.body or b"{}")
        tables = {body.get("TableName", "")} | set(body.get("RequestItems") or {})
        for item in body.get("TransactItems") or []:
            tables |= {part["TableName"] for part in item.values()}
        for name in tables - {""}:
            self.seen[(operation, name)] += 1


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with function_stack("GatewayPaymentsFunction", monkeypatch) as provisioned:
        yield provisioned


@pytest.fixture
def handler(stack: ProvisionedStack) -> Callable[..., dict[str, Any]]:
    module = load_module(ROOT / "functions" / "gateway_payments" / "app.py", f"payments_{uuid.uuid4().hex}")

    def call(method: str, path: str, resource: str, body: Any = None, key: str | None = None) -> dict[str, Any]:
        event = {
            "httpMethod": method,
            "path": path,
            "resource": resource,
            "headers": {"Idempotency-Key": key or str(uuid.uuid4()), "Content-Type": "application/json"},
            "multiValueHeaders": {},
            "queryStringParameters": None,
            "pathParameters": None,
            "body": json.dumps(body) if body is not None else None,
            "isBase64Encoded": False,
            "requestContext": {"requestId": str(uuid.uuid4()), "authorizer": dict(AUTHORIZER), "stage": "v1"},
        }
        answer: dict[str, Any] = module.lambda_handler(event, None)
        return answer

    return call


@pytest.fixture
def requests_made() -> Requests:
    recorder = Requests()
    session, _ = aws.session_and_config()
    session.events.register("before-send.dynamodb", recorder)
    return recorder


def record(key: str) -> dict[str, Any]:
    item = aws.table(deps.idempotency().name).get_item(Key={"pk": f"{ACCOUNT}#test#{key}"}, ConsistentRead=True)
    return dict(item["Item"])


def header(answer: dict[str, Any], name: str) -> str | None:
    for key, values in (answer.get("multiValueHeaders") or {}).items():
        if key.lower() == name.lower():
            return str(values[-1])
    return next((str(v) for k, v in (answer.get("headers") or {}).items() if k.lower() == name.lower()), None)


def charge_body(source: dict[str, Any]) -> dict[str, Any]:
    return {
        "payment_id": str(ULID()),
        "money": {"amount": "150.00", "currency": "MZN"},
        "source": source,
        "country": "MZ",
    }


def test_a_charge_completes_its_record_in_the_outcome_transaction(
    handler: Callable[..., dict[str, Any]], requests_made: Requests
) -> None:
    key = "order-1"
    first = handler("POST", "/charges", "/charges", charge_body(WALLET_OK), key=key)
    assert first["statusCode"] == 200, first["body"]
    assert json.loads(first["body"])["status"] == Status.SUCCEEDED
    idempotency_table = deps.idempotency().name
    writes = {op: n for (op, table), n in requests_made.seen.items() if table == idempotency_table}
    assert writes == {"PutItem": 1, "TransactWriteItems": 1}  # the claim, then the outcome's transaction
    kept = record(key)
    assert (kept["status"], int(kept["response_status"]), kept["response_body"]) == ("completed", 200, first["body"])
    assert kept["response_headers"] == {"Content-Type": "application/json"}
    assert "lock_expires_at" not in kept
    again = handler("POST", "/charges", "/charges", charge_body(WALLET_OK), key=key)  # another payment_id
    assert (again["statusCode"], json.loads(again["body"])["code"]) == (409, "idempotency_key_reused")


def test_a_replay_answers_the_kept_outcome_byte_for_byte(handler: Callable[..., dict[str, Any]]) -> None:
    body = charge_body(CARD_AUTHORIZE)
    held = handler("POST", "/charges", "/charges", body, key="hold-1")
    assert held["statusCode"] == 200 and json.loads(held["body"])["status"] == Status.AUTHORIZED
    replay = handler("POST", "/charges", "/charges", body, key="hold-1")
    assert (replay["statusCode"], replay["body"], header(replay, "Idempotent-Replayed")) == (200, held["body"], "true")
    pid = json.loads(held["body"])["provider_payment_id"]
    captured = handler("POST", f"/charges/{pid}/capture", "/charges/{payment_id}/capture", key="cap-1")
    assert captured["statusCode"] == 200 and json.loads(captured["body"])["status"] == Status.SUCCEEDED
    assert record("cap-1")["response_body"] == captured["body"]
    replay = handler("POST", f"/charges/{pid}/capture", "/charges/{payment_id}/capture", key="cap-1")
    assert (replay["statusCode"], replay["body"], header(replay, "Idempotent-Replayed")) == (
        200,
        captured["body"],
        "true",
    )


def test_a_record_whose_lock_was_lost_never_blocks_the_outcome(handler: Callable[..., dict[str, Any]]) -> None:
    held = json.loads(handler("POST", "/charges", "/charges", charge_body(CARD_AUTHORIZE))["body"])
    payment = deps.payments().get(held["provider_payment_id"])
    assert payment is not None
    table = aws.table(deps.idempotency().name)
    table.put_item(Item={"pk": "lost", "status": "in_progress", "fingerprint": "f", "owner": "someone-else"})
    completion = Completion(deps.idempotency().name, "lost", "my-token", lambda result: (200, {}, json.dumps(result)))
    with completing(completion):
        after = deps.payments().transition(payment, {"status": Status.CANCELED}, [], answer=lambda p: p.status)
    assert after.status == Status.CANCELED
    stored = deps.payments().get(held["provider_payment_id"])
    assert stored is not None and stored.status == Status.CANCELED
    assert completion.written is None  # not completed: the http layer's own write then finds the lock lost
    assert table.get_item(Key={"pk": "lost"})["Item"]["owner"] == "someone-else"


def test_concurrent_captures_with_one_key_capture_once_and_answer_alike(
    handler: Callable[..., dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    held = json.loads(handler("POST", "/charges", "/charges", charge_body(CARD_AUTHORIZE))["body"])
    pid = held["provider_payment_id"]
    captures = []
    capture = SimulatedConnector.capture

    def counted(connector: SimulatedConnector, call: ProviderCall, amount: Any) -> ProviderResult:
        captures.append(call.provider_payment_id)
        return capture(connector, call, amount)

    monkeypatch.setattr(SimulatedConnector, "capture", counted)
    with atomic_dynamodb():
        outcomes = race(
            6, lambda _: handler("POST", f"/charges/{pid}/capture", "/charges/{payment_id}/capture", key="race-1")
        )
    answers = [value for kind, value in outcomes if kind == "ok"]
    assert len(answers) == 6
    assert captures == [pid]
    done = [a for a in answers if a["statusCode"] == 200]
    waited = [a for a in answers if a["statusCode"] == 409]
    assert len(done) + len(waited) == 6 and done
    assert {a["body"] for a in done} == {record("race-1")["response_body"]}
    assert all(json.loads(a["body"])["code"] == "request_in_progress" for a in waited)

"""Payments: charge creation, capture and snapshot reads through the local stack over HTTP,
and the DynamoDB round trips each operation makes (counted in-process against moto)."""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import requests

from bench.common import ROOT
from bench.events import LambdaContext, rest_event
from bench.stats import latency_summary
from devstack import launcher

ENV = "mz"
ITERATIONS = 100
WALLET_OK = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}}
CARD_AUTHORIZE = {"type": "card", "card": {"token": "tok_test_authorize"}}


def _charge_body(source: dict[str, Any]) -> dict[str, Any]:
    from ulid import ULID

    return {
        "payment_id": str(ULID()),
        "money": {"amount": "150.00", "currency": "MZN"},
        "source": source,
        "country": "MZ",
    }


def run_http() -> list[dict[str, Any]]:
    """p50/p99 of create, capture and read, one request at a time through the stack."""
    samples: dict[str, list[float]] = {"POST /charges": [], "POST /charges/{id}/capture": [], "GET /payments/{id}": []}
    with launcher.running(envs=ENV) as stack, requests.Session() as session:
        session.trust_env = False
        gateway = stack.state["regions"][ENV]["gateway"]
        key = stack.state["demo"][ENV]["test_key"]

        def call(name: str, method: str, path: str, body: Any = None) -> dict[str, Any]:
            headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": str(uuid.uuid4())}
            started = time.perf_counter_ns()
            response = session.request(method, gateway + path, json=body, headers=headers, timeout=10)
            elapsed = (time.perf_counter_ns() - started) / 1e6
            if response.status_code != 200:
                raise RuntimeError(f"{name}: {response.status_code} {response.text}")
            samples[name].append(elapsed)
            return response.json()  # type: ignore[no-any-return]

        for index in range(ITERATIONS + 10):
            call("POST /charges", "POST", "/charges", _charge_body(WALLET_OK))
            held = call("POST /charges", "POST", "/charges", _charge_body(CARD_AUTHORIZE))
            pid = held["provider_payment_id"]
            call("POST /charges/{id}/capture", "POST", f"/charges/{pid}/capture")
            call("GET /payments/{id}", "GET", f"/payments/{pid}")
            if index == 9:  # warm-up done
                for values in samples.values():
                    values.clear()
    return [{"name": name, **latency_summary(values, "ms")} for name, values in samples.items()]


def run_round_trips() -> list[dict[str, Any]]:
    """DynamoDB requests per operation end to end, warm: the gateway authorizer's (every request
    runs it: no result cache, so access changes reach the next request), the rate limiter's and
    the operation's own in the gateway payments function, counted on mzpay's boto3 session
    against in-process moto. Each operation is made BURST times in a row and its counts are the
    mean per request (the rate limiter's leases are amortised over the requests they admit)."""
    with _bench_stack() as stack:
        os.environ.update(stack.functions["GatewayPaymentsFunction"].environment)  # what the set-up writes with
        os.environ.update(stack.functions["GatewayAuthorizerFunction"].environment)
        authorizer = _authorizer_rows()
        os.environ.update(stack.functions["GatewayPaymentsFunction"].environment)
        per_request = authorizer[0]["total"]  # an API key's, as the operations below are made with
        rows = [
            {**row, "authorizer": per_request, "total": row["total"] + per_request}
            for row in _count(_gateway_handler())
        ]
        return rows + [{**row, "authorizer": row["total"], "total": row["total"]} for row in authorizer]


@contextlib.contextmanager
def _bench_stack() -> Iterator[Any]:
    """The mz stack of template.yaml provisioned in in-process moto, the environment restored after."""
    from moto import mock_aws

    from devstack.provision import provision
    from devstack.template import Intrinsics, load_samconfig, load_template, parameter_values

    saved = dict(os.environ)
    os.environ.update(AWS_DEFAULT_REGION="af-south-1", AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing")
    os.environ.pop("AWS_ENDPOINT_URL", None)
    try:
        with mock_aws():
            template = load_template(ROOT / "template.yaml")
            config = load_samconfig(ROOT / "samconfig.toml", ENV)
            intrinsics = Intrinsics(
                parameters=parameter_values(template, config["parameter_overrides"]),
                pseudo={
                    "AWS::Region": "af-south-1",
                    "AWS::AccountId": "123456789012",
                    "AWS::StackName": "bench",
                    "AWS::Partition": "aws",
                    "AWS::URLSuffix": "amazonaws.com",
                },
                conditions=template["Conditions"],
            )
            yield provision(template, intrinsics, region="af-south-1", stack_name="bench", endpoint=None, root=ROOT)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _gateway_handler() -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    from bench.common import template_functions
    from bench.warm import load_module

    gateway = next(f for f in template_functions() if f.logical_id == "GatewayPaymentsFunction")
    return getattr(load_module(gateway), gateway.attribute)  # type: ignore[no-any-return]


RATE_LIMITER = ("RATE#", "RATELIMITS")  # the keys of the rate counters and overrides


class _Requests:
    """DynamoDB requests on mzpay's session, as (phase, operation): phase `rate limiter` for the
    counters and overrides, else `operation`."""

    def __init__(self) -> None:
        from mzpay import deps
        from mzpay.store import aws

        deps.reset()
        self.counts: Counter[tuple[str, str]] = Counter()
        session, _ = aws.session_and_config()
        session.events.register("before-send.dynamodb", self._seen)

    def _seen(self, request: Any, **_: Any) -> None:
        operation = request.headers.get("X-Amz-Target", b"").decode().split(".")[-1]
        body = (request.body or b"").decode() if isinstance(request.body, bytes) else str(request.body or "")
        phase = "rate limiter" if any(marker in body for marker in RATE_LIMITER) else "operation"
        self.counts[(phase, operation)] += 1

    def row(self, requests: int = 1) -> dict[str, Any]:
        """The counts per request, over `requests` requests."""
        own = {op: n / requests for (phase, op), n in self.counts.items() if phase == "operation"}
        limiter = sum(n for (phase, _), n in self.counts.items() if phase == "rate limiter") / requests
        return {
            "round_trips": sum(own.values()),
            "rate_limiter": limiter,
            "total": sum(own.values()) + limiter,
            "by_operation": ", ".join(f"{k} {v:g}" for k, v in sorted(own.items())),
        }


BURST = 20  # requests of each operation counted, one after the other (their counts' mean is reported)


def _count(handler: Callable[[dict[str, Any], Any], dict[str, Any]]) -> list[dict[str, Any]]:
    requests = _Requests()
    context = LambdaContext("bench-gateway", 10)

    def burst(name: str, make: Callable[[int], tuple[str, str, str, Any]]) -> dict[str, Any]:
        requests.counts.clear()
        for index in range(BURST):
            _request(handler, context, *make(index))
        return {"name": name, **requests.row(BURST)}

    def charge(_: int) -> tuple[str, str, str, Any]:
        return "POST", "/charges", "/charges", _charge_body(WALLET_OK)

    def card(_: int) -> tuple[str, str, str, Any]:
        return "POST", "/charges", "/charges", _charge_body(CARD_AUTHORIZE)

    _request(handler, context, *charge(0))  # warm: clients made, overrides cached
    held = [_request(handler, context, *card(index))["provider_payment_id"] for index in range(BURST)]
    rows = [burst("POST /charges (immediate success)", charge), burst("POST /charges (card, authorized)", card)]
    rows.append(
        burst(
            "POST /charges/{id}/capture",
            lambda i: ("POST", f"/charges/{held[i]}/capture", "/charges/{payment_id}/capture", None),
        )
    )
    rows.append(burst("GET /payments/{id}", lambda i: ("GET", f"/payments/{held[i]}", "/payments/{payment_id}", None)))
    return rows


def _authorizer_rows() -> list[dict[str, Any]]:
    """The gateway authorizer, which runs on every request (no result cache: access changes
    reach the next request): the lookups of a real key, of a real OAuth access token, and of a key
    of an account that requires mutual TLS presenting its certificate."""
    from mzpay import deps
    from mzpay.cases import access, client_certs, oauth
    from mzpay.domain.access.oauth import TokenRequest
    from mzpay.domain.access.principal import Principal

    account = access.create_account("Bench", "mz").wire()
    key = access.create_api_key(account["id"], "test", ["payments:read"], None, [], []).key
    client = oauth.create_client(account["id"], "test", ["payments:read"], None, None, []).wire()
    request = TokenRequest("client_credentials", None, client["client_id"], client["client_secret"])
    token = oauth.issue_token(request, "https://bench.example/oauth/token").access_token
    strict = access.create_account("Bench mTLS", "mz").wire()
    strict_key = access.create_api_key(strict["id"], "test", ["payments:read"], None, [], []).key
    os.environ.setdefault("CLIENT_CA_SECRET", "mzpay/mz/client-ca")
    deps.reset()  # the certificate store is made again, with the CA secret's name
    certificate = client_certs.issue(Principal.of_account(strict["id"], "test"), None).certificate
    stored = deps.directory().get_account(strict["id"])
    assert stored is not None
    deps.client_certs().set_mtls(strict["id"], True, stored.version)
    module = load_module_file(ROOT / "functions" / "gateway_authorizer" / "app.py")
    rows = []
    cases = (
        ("an API key", key, None),
        ("an OAuth access token", token, None),
        ("an API key, mutual TLS", strict_key, {"clientCertPem": certificate}),
    )
    for name, credential, presented in cases:
        requests = _Requests()
        event = {
            "type": "REQUEST",
            "methodArn": "arn:aws:execute-api:af-south-1:123456789012:bench/v1/GET/payments/x",
            "resource": "/payments/{payment_id}",
            "path": "/payments/x",
            "httpMethod": "GET",
            "headers": {"Authorization": f"Bearer {credential}"},
            "requestContext": {
                "identity": {"sourceIp": "198.51.100.7", **({"clientCert": presented} if presented else {})},
                "stage": "v1",
            },
        }
        module.lambda_handler(event, None)  # warm: the pepper secret is read once per environment
        requests.counts.clear()
        answer = module.lambda_handler(event, None)
        if (answer.get("context") or {}).get("refusal") or answer["policyDocument"]["Statement"][0][
            "Effect"
        ] != "Allow":
            raise RuntimeError(f"the authorizer refused the bench credential: {answer}")
        rows.append({"name": f"gateway authorizer, {name} (every request)", **requests.row()})
    return rows


def load_module_file(path: Any) -> Any:
    from devstack.modules import load_module

    return load_module(path, f"bench_{uuid.uuid4().hex}")


THROUGHPUT_ITERATIONS = 60
THROUGHPUT_WARMUP = 10


@contextlib.contextmanager
def _emulator_cpu() -> Iterator[list[float]]:
    """The CPU seconds spent inside moto answering requests, accumulated in the one-element list
    it yields. Moto's TransactWriteItems deep-copies every table to roll back on failure, so its
    cost grows with the table; the gateway's own cost is the process CPU minus this."""
    from moto.core.botocore_stubber import BotocoreStubber

    spent = [0.0]
    original = BotocoreStubber.__call__

    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return original(self, *args, **kwargs)
        finally:
            spent[0] += time.process_time() - started

    BotocoreStubber.__call__ = timed  # type: ignore[method-assign]
    try:
        yield spent
    finally:
        BotocoreStubber.__call__ = original  # type: ignore[method-assign]


def run_throughput() -> list[dict[str, Any]]:
    """Charge creations and captures per core-second of the gateway's own CPU: one process, warm,
    the test connector, in-process moto whose CPU is measured apart and subtracted (it is the
    emulator, not the product, and grows with the table). Each request is the gateway payments
    function's handler with a fresh Idempotency-Key. Reported, not asserted."""
    with _bench_stack() as stack, _emulator_cpu() as emulator:
        os.environ.update(stack.functions["GatewayPaymentsFunction"].environment)
        from mzpay import deps

        deps.reset()
        handler = _gateway_handler()
        context = LambdaContext("bench-gateway", 10)

        def call(method: str, path: str, resource: str, body: Any = None) -> dict[str, Any]:
            return _request(handler, context, method, path, resource, body)

        def measure(
            name: str, work: Callable[[int], None], prepare: Callable[[int], None] | None = None
        ) -> dict[str, Any]:
            for index in range(THROUGHPUT_WARMUP):
                if prepare:
                    prepare(-1 - index)
                work(-1 - index)
            own: list[float] = []
            moto_ms = 0.0
            for index in range(THROUGHPUT_ITERATIONS):
                if prepare:
                    prepare(index)
                started_cpu, started_moto = time.process_time(), emulator[0]
                work(index)
                in_moto = emulator[0] - started_moto
                own.append((time.process_time() - started_cpu - in_moto) * 1000)
                moto_ms += in_moto * 1000
            summary = latency_summary(own, "ms")
            return {
                "name": name,
                "per_core_second": 1000 * THROUGHPUT_ITERATIONS / sum(own),
                "cpu_ms_each": sum(own) / THROUGHPUT_ITERATIONS,
                "p50_ms": summary["p50_ms"],
                "p99_ms": summary["p99_ms"],
                "moto_ms_each": moto_ms / THROUGHPUT_ITERATIONS,
                "n": THROUGHPUT_ITERATIONS,
            }

        held: dict[int, str] = {}

        def charge() -> None:
            call("POST", "/charges", "/charges", _charge_body(WALLET_OK))

        def authorize(index: int) -> None:
            held[index] = call("POST", "/charges", "/charges", _charge_body(CARD_AUTHORIZE))["provider_payment_id"]

        def capture(index: int) -> None:
            pid = held.pop(index)
            call("POST", f"/charges/{pid}/capture", "/charges/{payment_id}/capture")

        return [
            measure("POST /charges (immediate success)", lambda _: charge()),
            measure("POST /charges/{id}/capture", capture, prepare=authorize),
        ]


_BENCH_PRINCIPAL = {
    "principalId": "bench",
    "account_id": "01BENCHACCOUNT0000000000000",
    "mode": "test",
    "scopes": "payments:read payments:write",
    "key_id": "01BENCHKEY000000000000000000",
    "allowed_customers": "",
    "expires_at": "",
}


def _request(
    handler: Callable[[dict[str, Any], Any], dict[str, Any]],
    context: Any,
    method: str,
    path: str,
    resource: str,
    body: Any = None,
) -> dict[str, Any]:
    """One gateway request as API Gateway hands it over after the authorizer (the bench
    principal, a fresh Idempotency-Key); its JSON answer, or RuntimeError unless 200."""
    event = rest_event(
        method,
        path,
        request_id=str(uuid.uuid4()),
        resource=resource,
        headers={"Idempotency-Key": str(uuid.uuid4()), "Content-Type": "application/json"},
        body=json.dumps(body) if body is not None else None,
    )
    event["requestContext"]["authorizer"] = _BENCH_PRINCIPAL
    response = handler(event, context)
    if response["statusCode"] != 200:
        raise RuntimeError(f"{method} {path}: {response['statusCode']} {response['body']}")
    return json.loads(response["body"])  # type: ignore[no-any-return]

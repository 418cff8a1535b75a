"""`make run` as a newcomer meets it: both regions answer over HTTP in the documented shapes."""

from __future__ import annotations

import json
import platform
import re
import subprocess
import sys
import uuid
from typing import Any

import boto3
import pytest
import requests

import mzpay
from devstack.launcher import ROOT, RunningStack, free_ports, start
from tests.expected import problem

pytestmark = pytest.mark.e2e
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
REGIONS = ("mz", "regional-sa")
APIS = ("gateway", "collection", "management")


def url(stack: RunningStack, region: str, api: str, path: str) -> str:
    return stack.state["regions"][region][api] + path


def test_stack_json_has_the_documented_shape(stack: RunningStack) -> None:
    state = stack.state
    assert set(state) == {
        "aws_endpoint",
        "operator_token",
        "regions",
        "aws_regions",
        "resources",
        "demo",
        "oidc",
        "secret_scanning",
        "tls",
        "lambda",
        "licence_issuer",
    }
    assert state["aws_endpoint"].startswith("http://127.0.0.1:")
    assert len(state["operator_token"]) >= 32
    assert set(state["regions"]) == set(REGIONS)
    for region in REGIONS:
        assert set(state["regions"][region]) == set(APIS)
        assert state["resources"][region]["PaymentsTable"] == f"mzpay-{region}-PaymentsTable"
    assert state["aws_regions"] == {"mz": "af-south-1", "regional-sa": "eu-west-1"}
    assert set(state["tls"]) == {"ca_certificate", "gateway"}
    assert state["tls"]["ca_certificate"].startswith("-----BEGIN CERTIFICATE-----")
    assert set(state["tls"]["gateway"]) == set(REGIONS)
    assert all(url.startswith("https://127.0.0.1:") for url in state["tls"]["gateway"].values())
    assert set(state["lambda"]) == set(REGIONS)
    scanning = state["secret_scanning"]
    assert set(scanning) == {"provider", "keys_url", "key_identifier", "signing_key"}
    assert scanning["provider"] == "github" and scanning["keys_url"].startswith("http://127.0.0.1:")
    assert scanning["signing_key"].startswith("-----BEGIN PRIVATE KEY-----")
    for region in REGIONS:
        demo = state["demo"][region]
        assert set(demo) == {
            "account_id",
            "test_key",
            "live_key",
            "webhook_secret_test",
            "webhook_secret_live",
            "collection_token",
            "collection_client_id",
            "collection_client_secret",
            "collection_admin_token",
            "collection_admin_client_id",
            "collection_admin_client_secret",
            "license_key",
            "onboarding_tokens",
            "collection_reviewer_token",
            "customer_id",
            "kyc_verifications",
            "collection_method_ids",
            "dashboard",
        }
        assert set(demo["dashboard"]) == {"url", "owner"} and demo["dashboard"]["url"].startswith("http://127.0.0.1:")
        assert set(demo["dashboard"]["owner"]) == {"email", "password", "totp_secret"}
        assert demo["dashboard"]["owner"]["email"] == f"owner@{region}.demo.mzpay.test"
        assert len(demo["collection_method_ids"]) == 4
        assert all(re.fullmatch(r"cm_[0-9A-HJKMNP-TV-Z]{26}", mid) for mid in demo["collection_method_ids"])
        assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{26}", demo["account_id"])
        assert re.fullmatch(r"mzp_test_[0-9A-Za-z]{38}", demo["test_key"])
        assert re.fullmatch(r"mzp_live_[0-9A-Za-z]{38}", demo["live_key"])
        assert demo["webhook_secret_test"].startswith("whsec_") and demo["webhook_secret_live"].startswith("whsec_")


def test_stack_json_is_readable_by_its_owner_only(stack: RunningStack) -> None:
    """It holds the operator token, the demo keys and the local issuers' private keys."""
    assert stack.state_file.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("region", REGIONS)
@pytest.mark.parametrize("api", APIS)
def test_health_answers_on_every_api_of_every_region(stack: RunningStack, region: str, api: str) -> None:
    response = requests.get(url(stack, region, api, "/health"), timeout=10)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/json"
    assert UUID.match(response.headers["X-Request-ID"])
    assert response.json() == {"status": "ok", "api": api, "service_region": region, "version": mzpay.__version__}


@pytest.mark.parametrize("region", REGIONS)
def test_version_reports_the_build_and_the_python_runtime(stack: RunningStack, region: str) -> None:
    response = requests.get(url(stack, region, "collection", "/v1/version"), timeout=10)
    assert response.status_code == 200
    body = response.json()
    runtime = "python" + platform.python_version()
    assert body["object"] == "version"
    assert body["version"] == mzpay.__version__
    assert body["go_version"] == runtime and body["runtime_version"] == runtime
    assert body["platform"].startswith(sys.platform + "/")
    assert re.fullmatch(r"[0-9a-f]{7,40}|unknown", body["git_commit"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", body["build_date"])


@pytest.mark.parametrize("api", ["gateway", "management"])
@pytest.mark.parametrize(("method", "path"), [("GET", "/v1/nothing-here"), ("POST", "/health"), ("DELETE", "/")])
def test_undeclared_routes_are_not_found_problem_documents(
    stack: RunningStack, api: str, method: str, path: str
) -> None:
    response = requests.request(method, url(stack, "mz", api, path), timeout=10)
    assert response.status_code == 404
    assert response.headers["Content-Type"] == "application/problem+json"
    assert UUID.match(response.headers["X-Request-ID"])
    assert response.json() == problem(404, "Not Found", "not_found", "No route for this method and path.")


def test_undeclared_collection_route_is_a_collection_error(stack: RunningStack) -> None:
    response = requests.get(url(stack, "regional-sa", "collection", "/v1/nothing"), timeout=10)
    request_id = response.headers["X-Request-ID"]
    assert response.status_code == 404
    assert response.json() == {
        "code": "not_found",
        "message": "No route for this method and path.",
        "request_id": f"req_{request_id}",
        "metadata": {},
    }


def test_a_well_formed_request_id_is_kept_and_a_malformed_one_replaced(stack: RunningStack) -> None:
    kept = requests.get(
        url(stack, "mz", "gateway", "/health"), headers={"X-Request-ID": "merchant-trace-42"}, timeout=10
    )
    assert kept.headers["X-Request-ID"] == "merchant-trace-42"
    replaced = requests.get(url(stack, "mz", "gateway", "/health"), headers={"X-Request-ID": "bad id!"}, timeout=10)
    assert UUID.match(replaced.headers["X-Request-ID"])
    assert replaced.headers["X-Request-ID"] == replaced.headers["x-amzn-RequestId"]


def test_management_without_a_token_is_401_with_www_authenticate(stack: RunningStack) -> None:
    response = requests.get(url(stack, "mz", "management", "/v1/system/info"), timeout=10)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="mzpay-management"'
    assert UUID.match(response.headers["X-Request-ID"])
    assert response.json() == problem(401, "Unauthorized", "unauthorized", "A valid operator bearer token is required.")


def test_management_with_a_wrong_token_is_401(stack: RunningStack) -> None:
    response = requests.get(
        url(stack, "mz", "management", "/v1/system/info"), headers={"Authorization": "Bearer not-the-token"}, timeout=10
    )
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"


@pytest.mark.parametrize("region", REGIONS)
def test_operator_reads_system_info_with_the_demo_token(stack: RunningStack, region: str) -> None:
    response = requests.get(
        url(stack, region, "management", "/v1/system/info"),
        headers={"Authorization": f"Bearer {stack.state['operator_token']}"},
        timeout=10,
    )
    assert response.status_code == 200
    body = response.json()
    other = next(r for r in REGIONS if r != region)
    assert body["service_region"] == region
    assert body["stage"] == "prod"
    assert body["peer_regions"] == {other: stack.state["regions"][other]}
    assert body["build"]["version"] == mzpay.__version__


def test_undeclared_management_route_with_a_token_is_still_404(stack: RunningStack) -> None:
    response = requests.get(
        url(stack, "mz", "management", "/v1/unknown"),
        headers={"Authorization": f"Bearer {stack.state['operator_token']}"},
        timeout=10,
    )
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_ctrl_c_stops_the_stack_cleanly(tmp_path: Any) -> None:
    running = start(tmp_path, envs="mz", warm=False)
    gateway = running.state["regions"]["mz"]["gateway"]
    assert requests.get(gateway + "/health", timeout=30).status_code == 200
    assert running.interrupt() == 0
    assert not running.state_file.exists()
    assert "stopped" in running.log()
    assert "Traceback" not in running.log()
    with pytest.raises(requests.ConnectionError):
        requests.get(gateway + "/health", timeout=2)
    with pytest.raises(requests.ConnectionError):
        requests.get(running.state["aws_endpoint"] + "/moto-api/", timeout=2)


def test_make_wait_returns_once_every_api_answers(stack: RunningStack, tmp_path: Any, capsys: Any) -> None:
    """make wait (the README's quick start): ready at once for a running stack; a stack that never
    comes is reported after the timeout, naming what is missing."""
    from devstack.wait import main as wait

    assert wait(["--stack-file", str(stack.state_file), "--timeout", "10"]) == 0
    assert capsys.readouterr().out == "local stack ready\n"
    absent = tmp_path / "stack.json"
    assert wait(["--stack-file", str(absent), "--timeout", "1"]) == 1
    assert capsys.readouterr().err == f"devstack.wait: not ready after 1 s: {absent}\n"


def local_lambda(stack: RunningStack) -> Any:
    """A Lambda client of the mz region's local Invoke API (the functions in their environments)."""
    import boto3

    return boto3.client(
        "lambda",
        endpoint_url=stack.state["lambda"]["mz"],
        region_name="af-south-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def test_make_invoke_runs_one_function_on_an_event_file_without_docker(stack: RunningStack, capsys: Any) -> None:
    """devstack.invoke (make invoke): the region's Lambda Invoke API runs the function in the local
    stack's own environments; the sample charge acts for the demo account."""
    from devstack.invoke import main as invoke

    assert invoke(["GatewayAccessFunction", "events/gateway_health.json", "--stack-file", str(stack.state_file)]) == 0
    health = json.loads(capsys.readouterr().out)
    assert health["statusCode"] == 200 and json.loads(health["body"])["status"] == "ok"
    assert invoke(["GatewayPaymentsFunction", "events/gateway_charge.json", "--stack-file", str(stack.state_file)]) == 0
    charged = json.loads(capsys.readouterr().out)
    assert charged["statusCode"] == 200, charged
    payment = json.loads(charged["body"])
    assert (payment["status"], payment["money"]) == ("succeeded", {"amount": "150.00", "currency": "MZN"})
    key = stack.state["demo"]["mz"]["test_key"]
    read = requests.get(
        url(stack, "mz", "gateway", f"/payments/{payment['provider_payment_id']}"),
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )
    assert read.status_code == 200 and read.json()["status"] == "succeeded"  # the demo account's own payment
    lambda_api = local_lambda(stack)
    with pytest.raises(lambda_api.exceptions.ResourceNotFoundException):
        lambda_api.invoke(FunctionName="NoSuchFunction", Payload=b"{}")


def test_make_invoke_plays_a_capture_a_stream_record_and_queue_batches(stack: RunningStack, capsys: Any) -> None:
    """The other samples of events/: a capture of a payment given by --set; an events-table stream
    record whose webhook reaches a local receiver, signed with the demo account's secret; the
    webhook sender and the payout settlement on their queue messages."""

    from ulid import ULID

    from devstack.invoke import main as invoke
    from mzpay.domain.webhooks.rules import delivery_id_for
    from mzpay.webhooks import verify
    from tests.e2e.test_webhooks import Receiver
    from tests.receivers import serving

    def run(function: str, event: str, *given: str) -> Any:
        sets = [arg for pair in given for arg in ("--set", pair)]
        assert invoke([function, f"events/{event}", "--stack-file", str(stack.state_file), *sets]) == 0
        return json.loads(capsys.readouterr().out)

    demo = stack.state["demo"]["mz"]
    headers = {"Authorization": f"Bearer {demo['test_key']}", "Idempotency-Key": str(uuid.uuid4())}
    source = {"type": "card", "card": {"token": "tok_test_authorize"}}
    body = {
        "payment_id": str(uuid.uuid4()),
        "money": {"amount": "150.00", "currency": "MZN"},
        "source": source,
        "country": "MZ",
    }
    gateway = stack.state["regions"]["mz"]["gateway"]
    authorized = requests.post(f"{gateway}/charges", json=body, headers=headers, timeout=30).json()
    assert authorized["status"] == "authorized", authorized
    captured = run("GatewayPaymentsFunction", "gateway_capture.json", f"payment_id={authorized['provider_payment_id']}")
    assert captured["statusCode"] == 200, captured
    assert {k: json.loads(captured["body"])[k] for k in ("status", "captured_amount")} == {
        "status": "succeeded",
        "captured_amount": "60.00",
    }

    with serving(Receiver()) as receiver:
        hook = receiver.endpoint(200)
        assert run("WebhookDispatcherFunction", "events_stream_insert.json", f"callback_url={hook}") == {
            "batchItemFailures": []
        }
        (arrival,) = receiver.wait_for(hook, 1)
        envelope = json.loads(arrival.body)
        assert (envelope["type"], envelope["account_id"], envelope["mode"]) == (
            "payment.succeeded",
            demo["account_id"],
            "test",
        )
        assert str(ULID.from_str(envelope["id"])) == envelope["id"] == arrival.headers["Service-Event-Id"]
        verify(arrival.body, arrival.headers["Service-Signature"], [demo["webhook_secret_test"]])  # raises if not
        delivery_id = delivery_id_for(envelope["id"], hook)
        assert run("WebhookSenderFunction", "webhook_sender_batch.json", f"delivery_id={delivery_id}") == {
            "batchItemFailures": []
        }

    payout = {
        "payout_id": str(ULID()),
        "money": {"amount": "10.00", "currency": "MZN"},
        "destination": {
            "type": "mobile_wallet",
            "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"},
        },
    }
    headers["Idempotency-Key"] = str(uuid.uuid4())
    created = requests.post(f"{gateway}/payouts", json=payout, headers=headers, timeout=30).json()
    assert created["status"] == "pending", created
    answer = run(
        "PayoutSettlementFunction",
        "payout_settlement_batch.json",
        f"provider_payout_id={created['provider_payout_id']}",
    )
    assert answer == {"batchItemFailures": []}
    read = requests.get(f"{gateway}/v1/payouts/{created['provider_payout_id']}", headers=headers, timeout=30).json()
    assert read["status"] in ("in_transit", "paid"), read  # settled by this message or the queue's own
    # The functions' own logs are JSON lines in functions.log, not in the stack's output.
    settling = [json.loads(line) for line in stack.function_log().splitlines() if created["provider_payout_id"] in line]
    assert any(
        (r["level"], r["message"], r["provider_payout_id"]) == ("INFO", "settle", created["provider_payout_id"])
        for r in settling
    ), settling
    assert [line for line in stack.log().splitlines() if line.startswith("{")] == []


def test_the_stack_log_has_one_plain_line_per_request(stack: RunningStack) -> None:
    """make run's output: API, method, path, status, milliseconds and request id, no colour codes,
    and an ordinary refusal (an unknown key) without a traceback."""
    import time
    import uuid

    request_id = str(uuid.uuid4())
    assert requests.get(url(stack, "mz", "gateway", "/health"), headers={"X-Request-ID": request_id}, timeout=30).ok
    refused = str(uuid.uuid4())
    headers = {"X-Request-ID": refused, "Authorization": "Bearer mzp_test_unknown"}
    assert requests.get(url(stack, "mz", "gateway", "/v1/balance"), headers=headers, timeout=30).status_code == 401
    deadline = time.monotonic() + 10
    while refused not in stack.log() and time.monotonic() < deadline:
        time.sleep(0.2)
    lines = [line for line in stack.log().splitlines() if request_id in line or refused in line]
    assert len(lines) == 2, lines
    assert re.search(rf"mz:gateway GET /health 200 \d+ ms {request_id}$", lines[0]), lines[0]
    assert re.search(rf"mz:gateway GET /v1/balance 401 \d+ ms {refused}$", lines[1]), lines[1]
    coloured = [line for line in stack.log().splitlines() if "\x1b[" in line]
    assert coloured == []


def _second_stack(tmp_path: Any, *ports: str) -> subprocess.CompletedProcess[str]:
    """`python -m devstack` started beside the session's stack, its files in tmp_path."""
    return subprocess.run(
        [
            *(sys.executable, "-m", "devstack", *ports),
            *("--stack-file", str(tmp_path / "stack.json"), "--moto-log", str(tmp_path / "moto.log")),
            *("--function-log", str(tmp_path / "functions.log")),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )


def test_a_second_stack_on_a_taken_port_starts_nothing_and_names_the_port(stack: RunningStack, tmp_path: Any) -> None:
    moto_port = int(stack.state["aws_endpoint"].rsplit(":", 1)[1])
    port_base = int(stack.state["regions"]["mz"]["gateway"].rsplit(":", 1)[1])
    free_moto, free_base = free_ports(2)
    dynamodb = boto3.client(
        "dynamodb",
        endpoint_url=stack.state["aws_endpoint"],
        region_name=stack.state["aws_regions"]["mz"],
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    tables = dynamodb.list_tables()["TableNames"]
    kept = stack.state_file.read_bytes()
    for ports, named in (
        (("--moto-port", str(moto_port), "--port-base", str(free_base)), f"port {moto_port} (moto)"),
        (("--moto-port", str(free_moto), "--port-base", str(port_base)), f"{port_base} (region 1's gateway)"),
    ):
        refused = _second_stack(tmp_path, *ports)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert refused.stderr.startswith("Address already in use: port "), refused.stderr
        assert named in refused.stderr
        assert "make run PORT_BASE=4000 MOTO_PORT=5100" in refused.stderr
        assert "Traceback" not in refused.stdout + refused.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == []  # it wrote nothing
    assert stack.state_file.read_bytes() == kept
    assert dynamodb.list_tables()["TableNames"] == tables
    assert requests.get(url(stack, "mz", "gateway", "/health"), timeout=30).status_code == 200

"""Each API serves its OpenAPI document and interactive docs, and the gateway's document is good
enough to generate a client from: openapi-python-client (a well-kept generator) builds one,
and that client makes a charge and reads it back against the local stack over HTTP."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.expected import problem

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
APIS = ("gateway", "collection", "management")


def credentials(stack: RunningStack, api: str) -> dict[str, str]:
    """What the API's documentation needs: nothing, but the management API's operator token."""
    return {"Authorization": f"Bearer {stack.state['operator_token']}"} if api == "management" else {}


PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


@pytest.mark.parametrize("api", APIS)
def test_each_api_serves_its_document_and_interactive_docs(stack: RunningStack, api: str) -> None:
    base = stack.state["regions"]["mz"][api]
    headers = credentials(stack, api)
    document = requests.get(f"{base}/openapi.json", headers=headers, timeout=30)
    assert document.status_code == 200 and document.headers["Content-Type"].startswith("application/json")
    assert document.headers["X-Content-Type-Options"] == "nosniff"
    committed = json.loads((ROOT / "docs" / "openapi" / f"{api}.json").read_text(encoding="utf-8"))
    assert document.json() == committed
    page = requests.get(f"{base}/docs", headers=headers, timeout=30)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert {
        name: page.headers[name] for name in ("Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options")
    } == {
        "Content-Security-Policy": PAGE_POLICY,
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
    }
    for linked in ('href="docs/swagger-ui.css"', 'src="docs/swagger-ui-bundle.js"', 'src="docs/swagger-init.js"'):
        assert linked in page.text
    assert "https://" not in page.text  # nothing from a CDN
    assert "<script>" not in page.text  # no inline script: the policy allows none
    script = requests.get(f"{base}/docs/swagger-ui-bundle.js", headers=headers, timeout=30)
    assert script.status_code == 200 and script.headers["Content-Type"].startswith("text/javascript")
    assert "SwaggerUIBundle" in script.text and len(script.content) > 100_000
    start = requests.get(f"{base}/docs/swagger-init.js", headers=headers, timeout=30)
    assert (start.status_code, start.headers["X-Content-Type-Options"]) == (200, "nosniff")
    assert 'url: "openapi.json"' in start.text
    style = requests.get(f"{base}/docs/swagger-ui.css", headers=headers, timeout=30)
    assert style.status_code == 200 and style.headers["Content-Type"].startswith("text/css")
    missing = requests.get(f"{base}/docs/other.js", headers=headers, timeout=30)
    assert missing.status_code == 404
    assert missing.json()["code"] == "not_found"


@pytest.mark.parametrize("path", ["/openapi.json", "/docs", "/docs/swagger-ui-bundle.js"])
def test_the_management_documentation_needs_an_operator_token(stack: RunningStack, path: str) -> None:
    base = stack.state["regions"]["mz"]["management"]
    nobody = requests.get(f"{base}{path}", timeout=30)
    detail = "A valid operator bearer token is required."
    assert (nobody.status_code, nobody.json()) == (401, problem(401, "Unauthorized", "unauthorized", detail))
    assert nobody.headers["WWW-Authenticate"] == 'Bearer realm="mzpay-management"'
    wrong = requests.get(f"{base}{path}", headers={"Authorization": "Bearer not-an-operator"}, timeout=30)
    assert (wrong.status_code, wrong.json()) == (401, problem(401, "Unauthorized", "unauthorized", detail))


def test_the_gateway_document_needs_no_key_and_answers_a_problem_for_a_stranger_path(stack: RunningStack) -> None:
    base = stack.state["regions"]["mz"]["gateway"]
    assert requests.get(f"{base}/openapi.json", headers={"Authorization": "Bearer nonsense"}, timeout=30).ok
    missing = requests.get(f"{base}/docs/x", timeout=30)
    assert missing.json() == problem(404, "Not Found", "not_found", "No documentation file x.")


@pytest.fixture(scope="module")
def client_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The gateway client openapi-python-client generates from the committed document."""
    out = tmp_path_factory.mktemp("client") / "mzpay_gateway_client"
    generator = Path(sys.executable).with_name("openapi-python-client")
    document = ROOT / "docs" / "openapi" / "gateway.json"
    subprocess.run(
        [str(generator), "generate", "--path", str(document), "--output-path", str(out), "--meta", "none"],
        check=True,
        capture_output=True,
        timeout=300,
        env={**os.environ, "PATH": f"{generator.parent}{os.pathsep}{os.environ.get('PATH', '')}"},  # its ruff
    )
    sys.path.insert(0, str(out.parent))
    try:
        yield importlib.import_module("mzpay_gateway_client")
    finally:
        sys.path.remove(str(out.parent))


def test_a_generated_client_makes_a_charge_and_reads_it(stack: RunningStack, client_package: Any) -> None:
    create_charge = importlib.import_module("mzpay_gateway_client.api.payments.create_charge")
    read_payment = importlib.import_module("mzpay_gateway_client.api.payments.read_payment")
    models = importlib.import_module("mzpay_gateway_client.models")
    client = client_package.AuthenticatedClient(
        base_url=stack.state["regions"]["mz"]["gateway"], token=stack.state["demo"]["mz"]["test_key"]
    )
    payment_id = str(uuid.uuid4())
    request = models.ChargeRequest.from_dict(
        {
            "payment_id": payment_id,
            "money": {"amount": "150.00", "currency": "MZN"},
            "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}},
            "country": "MZ",
        }
    )
    answer = create_charge.sync_detailed(client=client, body=request, idempotency_key=str(uuid.uuid4()))
    assert answer.status_code == 200, answer.content
    charge = answer.parsed
    assert isinstance(charge, models.ChargeResult)
    assert (str(charge.status), charge.payment_id, charge.money.amount) == ("succeeded", payment_id, "150.00")
    read = read_payment.sync(client=client, payment_id=charge.provider_payment_id)
    assert isinstance(read, models.PaymentSnapshot)
    assert (str(read.status), read.provider_payment_id) == ("succeeded", charge.provider_payment_id)
    refused = create_charge.sync_detailed(client=client, body=request, idempotency_key="k" * 256)
    assert refused.status_code == 400
    assert isinstance(refused.parsed, models.Problem) and refused.parsed.code == "invalid_idempotency_key"

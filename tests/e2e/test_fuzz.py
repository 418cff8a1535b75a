"""The fuzz harness (`make fuzz`; a bounded run is part of `make test`): schemathesis generates
requests from the three committed OpenAPI documents and sends them to the local stack over HTTP,
with real credentials; then raw bytes no schema describes go to every POST and PUT route.

Fails on any 5xx, and on a response that contradicts the document: a status the operation does
not list (each lists its error statuses with their codes), or a body or content type other than
the document's for that status. The documented request examples are sent too (explicit phase),
so the success answers are checked against their models.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from devstack.launcher import RunningStack

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "5"))
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance, status_code_conformance]
# Operations that would change what the other tests of the session rely on (the demo licence).
DESTRUCTIVE = {("collection", "POST", "/v1/license/deactivate"), ("collection", "POST", "/v1/license/activate")}
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)


def schema(api: str) -> Any:
    return schemathesis.openapi.from_path(ROOT / "docs" / "openapi" / f"{api}.json")


GATEWAY, COLLECTION, MANAGEMENT = schema("gateway"), schema("collection"), schema("management")


# Collection routes that need an installation permission (identity providers, the licence,
# reviews of business accounts): fuzzed with the administrator's token, so that their inputs are
# reached (a business token is refused before them, 403).
INSTALLATION_PATHS = ("/v1/identity_providers", "/v1/license/", "/v1/accounts/")


def credentials(stack: RunningStack, api: str, path: str = "") -> tuple[str, dict[str, str]]:
    region, demo = stack.state["regions"]["mz"], stack.state["demo"]["mz"]
    collection = demo["collection_admin_token" if path.startswith(INSTALLATION_PATHS) else "collection_token"]
    token = {
        "gateway": demo["test_key"],
        "collection": collection,
        "management": stack.state["operator_token"],
    }[api]
    return region[api], {"Authorization": f"Bearer {token}", "Idempotency-Key": str(uuid.uuid4())}


def fuzz(stack: RunningStack, api: str, case: Any) -> None:
    if (api, case.method.upper(), case.path) in DESTRUCTIVE:
        pytest.skip("keeps the session's demo licence active")
    base_url, headers = credentials(stack, api, case.path)
    case.call_and_validate(base_url=base_url, headers=headers, checks=CHECKS, timeout=30)


@GATEWAY.parametrize()
@FUZZ_SETTINGS
def test_fuzz_gateway(case: Any, stack: RunningStack) -> None:
    fuzz(stack, "gateway", case)


@COLLECTION.parametrize()
@FUZZ_SETTINGS
def test_fuzz_collection(case: Any, stack: RunningStack) -> None:
    fuzz(stack, "collection", case)


@MANAGEMENT.parametrize()
@FUZZ_SETTINGS
def test_fuzz_management(case: Any, stack: RunningStack) -> None:
    fuzz(stack, "management", case)


# ---------------------------------------------------------------- raw bytes
BYTES: dict[str, tuple[bytes, str]] = {
    "not utf-8": (b'{"a":"\xff\xfe"}', "application/json"),
    "latin-1 text": ('{"name":"S\u00e3o"}'.encode("latin-1"), "application/json"),
    "escaped lone surrogate": (b'{"a":"\\udc00"}', "application/json"),
    "deep nesting": (("[" * 3000 + "]" * 3000).encode(), "application/json"),
    "multipart without boundary": (b"--b\r\n\r\nx\r\n--b--", "multipart/form-data"),
    "binary as text": (bytes(range(256)), "text/plain"),
    "truncated json": (b'{"a": [1, 2', "application/json"),
    "an integer of 4,301 digits": (b'{"a":' + b"9" * 4301 + b"}", "application/json"),
    "multipart cut before its closing boundary": (
        b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n\x89PNG',
        "multipart/form-data; boundary=b",
    ),
}


def write_routes(api: str) -> list[str]:
    document = json.loads((ROOT / "docs" / "openapi" / f"{api}.json").read_text())
    routes = []
    for path, item in document["paths"].items():
        for method in ("post", "put", "patch"):
            if method in item and (api, method.upper(), path) not in DESTRUCTIVE:
                concrete = path
                for name in [p for p in path.split("/") if p.startswith("{")]:
                    concrete = concrete.replace(name, "01JFUZZ0000000000000000000")
                routes.append(f"{method.upper()} {concrete}")
    return routes


@pytest.mark.parametrize("api", ["gateway", "collection", "management"])
def test_raw_bytes_never_answer_5xx(stack: RunningStack, api: str) -> None:
    failures = []
    for route in write_routes(api):
        method, path = route.split(" ", 1)
        base_url, headers = credentials(stack, api, path)
        for name, (body, content_type) in BYTES.items():
            answer = requests.request(
                method,
                base_url + path,
                data=body,
                headers={**headers, "Idempotency-Key": str(uuid.uuid4()), "Content-Type": content_type},
                timeout=30,
            )
            if answer.status_code >= 500 or "X-Request-ID" not in answer.headers:
                failures.append(f"{route} {name}: {answer.status_code} {answer.text[:120]}")
    assert failures == []

"""The three OpenAPI documents (make openapi) are valid OpenAPI 3.1 by a well-kept validator and
usable by a client generator: every operation has a summary, an operationId, its security, the
Idempotency-Key where money moves, and every error status in the API's error shape listing its
catalogued codes; no FastAPI-style 422 the service never answers."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from openapi_spec_validator import validate

from mzpay.domain.common import error_codes

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "openapi"
APIS = ("gateway", "collection", "management")
IDEMPOTENT = {  # the spec's money-moving POSTs that exist (Endpoints, "Idempotency" codes)
    ("post", "/charges"),
    ("post", "/v1/manual-payments"),
    ("post", "/charges/{payment_id}/capture"),
    ("post", "/charges/{payment_id}/void"),
    ("post", "/refunds"),
    ("post", "/payouts"),
    ("post", "/v1/payouts"),
    ("post", "/v1/payments/{payment_id}/refund"),
    ("post", "/v1/payments/{payment_id}/cancel"),
    ("post", "/v1/payments"),  # a hosted checkout: a retry after a fault must not open two
    ("post", "/v1/payouts/{payout_id}/cancel"),
    ("post", "/v1/psp/transactions"),
    ("post", "/v1/cash-deposits"),
    ("post", "/v1/bill-payments"),
    ("post", "/v1/payout-batches"),  # a retry after a fault must not upload two batches
    ("post", "/v1/payout-batches/{batch_id}/close"),
    ("post", "/v1/payout-batches/{batch_id}/release"),
    ("post", "/v1/reports"),  # a retry after a fault must not ask for two reports
}
SHAPES = {  # an error response's schema -> the catalogue its codes come from
    "Problem": error_codes.GATEWAY,
    "CollectionError": error_codes.COLLECTION,
    "OAuthError": error_codes.OAUTH,
    "SignatureRefusal": error_codes.GATEWAY,
}


def document(api: str) -> dict[str, Any]:
    return json.loads((DOCS / f"{api}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def operations(api: str) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, item in document(api)["paths"].items()
        for method, operation in item.items()
        if method in ("get", "put", "post", "delete", "patch")
    ]


@pytest.mark.parametrize("api", APIS)
def test_the_document_is_valid_openapi_3_1(api: str) -> None:
    spec = document(api)
    assert spec["openapi"].startswith("3.1")
    validate(spec)  # raises on the first violation


@pytest.mark.parametrize("api", APIS)
def test_every_operation_is_described_secured_and_answers_only_its_real_errors(api: str) -> None:
    spec = document(api)
    schemes = set(spec["components"]["securitySchemes"])
    ids = [operation["operationId"] for _m, _p, operation in operations(api)]
    assert len(ids) == len(set(ids))
    assert not {"HTTPValidationError", "ValidationError"} & set(spec["components"]["schemas"])
    for method, path, operation in operations(api):
        where = f"{api} {method.upper()} {path}"
        assert operation["summary"] and not operation["summary"].startswith(method.upper()), where
        assert operation["tags"], where
        assert all(set(requirement) <= schemes for requirement in operation["security"]), where
        responses = operation["responses"]
        assert "422" not in responses or responses["422"]["x-error-codes"], where
        assert any(status.startswith("2") for status in responses), where
        for status, response in responses.items():
            if status[0] in "23":  # a success, or a page's redirect
                continue
            codes = response["x-error-codes"]
            assert codes, where
            shapes = {
                c["schema"]["$ref"].rsplit("/", 1)[1] for c in response["content"].values() if "$ref" in c["schema"]
            }
            assert shapes, where  # the API's error shape, beside a page's HTML where the route has one
            expected = {"collection": "CollectionError"}.get(api, "Problem")
            assert shapes <= {expected, "OAuthError", "SignatureRefusal"}, where
            for code in codes:
                assert any(int(status) in SHAPES[shape][code].statuses for shape in shapes if code in SHAPES[shape]), (
                    f"{where}: {code} is not a catalogued {status}"
                )
        documentation = path in ("/openapi.json", "/docs", "/docs/{asset}")
        public = path == "/health" or (documentation and api != "management")  # an operator's docs need the token
        assert (operation["security"] == []) == (public or _public_by_design(api, method, path)), where


def _public_by_design(api: str, method: str, path: str) -> bool:
    """The routes no credential guards: the payer's pages and reads, the token endpoint, the
    secret-scanning receiver (signed by its provider), the collection API's licence and version."""
    if api == "gateway":
        return path.startswith("/checkout/") or path in ("/oauth/token", "/secret-scanning/{provider}")
    if api == "collection":
        return path in ("/v1/version", "/pay/{request_id}", "/pay/assets/copy.js") or path.startswith("/v1/kulpay/")
    return False


def test_money_moving_posts_document_their_idempotency_key() -> None:
    documented = set()
    for method, path, operation in operations("gateway"):
        parameters = {(p["in"], p["name"]): p for p in operation.get("parameters", [])}
        key = parameters.get(("header", "Idempotency-Key"))
        if key is not None:
            assert key["required"] is True and key["schema"]["maxLength"] == 255
            assert set(operation["responses"]["409"]["x-error-codes"]) >= {"idempotency_key_reused"}
            documented.add((method, path))
    assert documented == IDEMPOTENT


def test_a_charge_documents_the_specs_refusals() -> None:
    """Endpoints / POST /charges: its 400, 401, 409, 422, 429, 500 and 503 codes."""
    responses = document("gateway")["paths"]["/charges"]["post"]["responses"]
    expected = {
        "400": {
            "gateway.raw_card_data_not_accepted",
            "invalid_amount",
            "invalid_currency",
            "invalid_phone",
            "missing_phone",
        },
        "401": {"unauthorized", "invalid_api_key", "key_expired", "wrong_environment"},
        "409": {"idempotency_key_reused", "request_in_progress"},
        "422": {"not_supported", "limit_exceeded", "risk_declined", "pilot_limit"},
        "429": {"rate_limited"},
        "503": {"no_route", "service_unavailable"},
    }
    for status, codes in expected.items():
        assert codes <= set(responses[status]["x-error-codes"]), status
    assert "Retry-After" in responses["503"]["headers"]


def _raised_codes() -> set[str]:
    """Every code the layer raises literally: ServiceError(status, "code", ...)."""
    found = set()
    for path in (ROOT / "layers" / "core" / "python" / "mzpay").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = getattr(node, "func", None) and getattr(node.func, "id", getattr(node.func, "attr", None))
            if name == "ServiceError" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):  # type: ignore[attr-defined]
                found.add(str(node.args[1].value))  # type: ignore[attr-defined]
    return found


def test_every_code_the_service_raises_is_catalogued() -> None:
    catalogued = set(error_codes.GATEWAY) | set(error_codes.COLLECTION)
    assert _raised_codes() - catalogued == set()

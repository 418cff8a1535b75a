"""Billers and bill products over HTTP through the local stack (issue 17, item 1): operators
register, read, change, pause and retire billers and add products on the management API and with
mzpay-admin; a contradictory fee configuration is 422 fee_bearer_conflict; a biller owned by its
origin keeps its commercial fields (409 owned_by_origin); the simulated billers are seeded."""

from __future__ import annotations

import io
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests

from devstack.launcher import ROOT, RunningStack

sys.path.insert(0, str(ROOT / "tools"))

from mzpay_admin.cli import run

pytestmark = pytest.mark.e2e

DATA = json.loads((ROOT / "layers/core/python/mzpay/domain/data/billers.json").read_text(encoding="utf-8"))
NIB = "000301080016367102371"


def operator(stack: RunningStack) -> dict[str, str]:
    return {"Authorization": f"Bearer {stack.state['operator_token']}"}


def manage(stack: RunningStack, method: str, path: str, body: Any = None) -> requests.Response:
    url = stack.state["regions"]["mz"]["management"] + path
    return requests.request(method, url, json=body, headers=operator(stack), timeout=30)


def biller_body(**extra: Any) -> dict[str, Any]:
    return {"name": "Municipio de Matola", "category": "municipal", "credit_account": NIB, **extra}


def new_biller(stack: RunningStack, **extra: Any) -> dict[str, Any]:
    answer = manage(stack, "POST", "/v1/billers", biller_body(**extra))
    assert answer.status_code == 201, answer.text
    return answer.json()  # type: ignore[no-any-return]


def open_product(**extra: Any) -> dict[str, Any]:
    return {
        "name": "Prepaid",
        "kind": "open",
        "min_amount": "10",
        "max_amount": "5000.00",
        "yields": "token",
        "supplier_product": "sim-electricity",
        **extra,
    }


def test_an_operator_registers_a_biller_and_its_products(stack: RunningStack) -> None:
    created = manage(stack, "POST", "/v1/billers", biller_body(logo_url="https://cdn.example/m.png"))
    assert created.status_code == 201, created.text
    biller = created.json()
    assert biller == {
        "object": "biller",
        "biller_id": biller["biller_id"],
        "name": "Municipio de Matola",
        "category": "municipal",
        "logo_url": "https://cdn.example/m.png",
        "credit_account": NIB,
        "owned_by_origin": False,
        "origin_system": None,
        "supplier": "simulator",
        "account_id": None,
        "psp_id": None,
        "status": "active",
        "created_at": biller["created_at"],
        "updated_at": biller["created_at"],
        "products": [],
    }
    added = manage(stack, "POST", f"/v1/billers/{biller['biller_id']}/products", open_product())
    assert added.status_code == 201, added.text
    product = added.json()
    assert product == {
        "object": "bill_product",
        "product_id": product["product_id"],
        "biller_id": biller["biller_id"],
        "name": "Prepaid",
        "kind": "open",
        "currency": "MZN",
        "price": None,
        "denominations": None,
        "min_amount": "10.00",
        "max_amount": "5000.00",
        "invoice": None,
        "yields": "token",
        "supplier_product": "sim-electricity",
        "fee": None,
        "discount": None,
        "daily_limit_per_reference": None,
        "daily_limit_per_channel": None,
        "status": "active",
        "created_at": product["created_at"],
        "updated_at": product["created_at"],
    }
    read = manage(stack, "GET", f"/v1/billers/{biller['biller_id']}").json()
    assert read["products"] == [product]
    listed = manage(stack, "GET", "/v1/billers").json()
    assert read in listed["data"]
    retired = manage(stack, "POST", f"/v1/billers/{biller['biller_id']}/products/{product['product_id']}/retire")
    assert retired.status_code == 200 and retired.json()["status"] == "retired"
    again = manage(stack, "POST", f"/v1/billers/{biller['biller_id']}/products/{product['product_id']}/retire")
    assert again.status_code == 409 and again.json()["code"] == "invalid_state"


@pytest.mark.parametrize(
    ("fee", "discount", "detail"),
    [
        ({"amount": "5.00"}, None, "The fee of 5.00 has no bearer."),
        ({"bearer": "payer"}, None, "The fee names a bearer (payer) but no amount."),
        (None, {"amount": "5.00", "bearer": "payer"}, "A discount is borne by biller or channel, not payer."),
        (
            {"amount": "5.00", "bearer": "payer"},
            {"amount": "2.00", "bearer": "biller"},
            "The payer cannot be charged a fee and given a discount on the same product.",
        ),
    ],
)
def test_a_contradictory_fee_configuration_is_fee_bearer_conflict(
    stack: RunningStack, fee: Any, discount: Any, detail: str
) -> None:
    biller = new_biller(stack)
    body = open_product(**{k: v for k, v in {"fee": fee, "discount": discount}.items() if v is not None})
    answer = manage(stack, "POST", f"/v1/billers/{biller['biller_id']}/products", body)
    assert answer.status_code == 422
    assert (answer.json()["code"], answer.json()["detail"]) == ("fee_bearer_conflict", detail)
    assert manage(stack, "GET", f"/v1/billers/{biller['biller_id']}").json()["products"] == []


def test_a_product_needs_the_fields_of_its_kind(stack: RunningStack) -> None:
    biller = new_biller(stack)
    body = {"name": "Pack", "kind": "fixed", "supplier_product": "sim-tv", "min_amount": "1.00"}
    answer = manage(stack, "POST", f"/v1/billers/{biller['biller_id']}/products", body)
    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid_request"
    assert answer.json()["errors"] == [
        {"field": "price", "code": "required", "message": "a fixed product needs price"},
        {"field": "min_amount", "code": "invalid_value", "message": "only a open product has min_amount"},
    ]
    bad_nib = manage(stack, "POST", "/v1/billers", biller_body(credit_account="000301080016367102372"))
    assert bad_nib.status_code == 400 and bad_nib.json()["errors"][0]["field"] == "credit_account"


def test_a_biller_owned_by_its_origin_keeps_its_commercial_fields(stack: RunningStack) -> None:
    biller = new_biller(stack, owned_by_origin=True, origin_system="matola-erp")
    path = f"/v1/billers/{biller['biller_id']}"
    for change in ({"name": "Outro"}, {"category": "water"}, {"logo_url": "https://x.example/l.png"}):
        refused = manage(stack, "PATCH", path, change)
        assert refused.status_code == 409 and refused.json()["code"] == "owned_by_origin", refused.text
    nib = manage(stack, "PATCH", path, {"credit_account": "000100001234567890194"})
    assert nib.status_code == 409 and nib.json()["code"] == "owned_by_origin"
    same = manage(stack, "PATCH", path, {"name": biller["name"], "status": "paused"})
    assert same.status_code == 200 and same.json()["status"] == "paused"  # its own name again is no change
    retire = manage(stack, "POST", f"{path}/retire")
    assert retire.status_code == 409 and retire.json()["code"] == "owned_by_origin"
    assert manage(stack, "GET", path).json()["name"] == "Municipio de Matola"


def test_a_biller_of_no_origin_changes_and_retires(stack: RunningStack) -> None:
    biller = new_biller(stack)
    path = f"/v1/billers/{biller['biller_id']}"
    changed = manage(stack, "PATCH", path, {"name": "Municipio da Matola", "category": "other"})
    assert changed.status_code == 200
    assert (changed.json()["name"], changed.json()["category"]) == ("Municipio da Matola", "other")
    assert manage(stack, "POST", f"{path}/retire").json()["status"] == "retired"
    again = manage(stack, "PATCH", path, {"name": "X"})
    assert again.status_code == 409 and again.json()["code"] == "invalid_state"
    unknown = manage(stack, "GET", "/v1/billers/01JD8Z5K3M2N4P6Q7R8S9T0VWX")
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"


def test_racing_changes_of_one_biller_never_overwrite_silently(stack: RunningStack) -> None:
    biller = new_biller(stack)
    path = f"/v1/billers/{biller['biller_id']}"
    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(lambda i: manage(stack, "PATCH", path, {"name": f"Nome {i}"}), range(6)))
    won = [a for a in answers if a.status_code == 200]
    assert won and all(a.status_code == 409 and a.json()["code"] == "invalid_state" for a in answers if a not in won)
    final = manage(stack, "GET", path).json()
    assert final["name"] in {a.json()["name"] for a in won}


def test_the_simulated_billers_are_seeded(stack: RunningStack) -> None:
    listed = {b["biller_id"]: b for b in manage(stack, "GET", "/v1/billers").json()["data"]}
    for biller in DATA["billers"]:
        seeded = listed[biller["biller_id"]]
        assert (seeded["name"], seeded["category"], seeded["status"]) == (biller["name"], biller["category"], "active")
        assert [p["product_id"] for p in seeded["products"]] == sorted(p["product_id"] for p in biller["products"])
    kinds = {p["kind"] for b in listed.values() for p in b["products"]}
    assert kinds == {"open", "invoice", "fixed", "denominations"}


def test_mzpay_admin_manages_billers(stack: RunningStack, tmp_path: Path) -> None:
    def admin(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        code = run(["--region", "mz", "--stack-file", str(stack.state_file), *argv], out, err, {})
        return code, out.getvalue(), err.getvalue()

    biller_file = tmp_path / "biller.json"
    biller_file.write_text(json.dumps(biller_body(owned_by_origin=True, origin_system="erp")), encoding="utf-8")
    code, out, _ = admin("billers", "create", "--file", str(biller_file), "--json")
    assert code == 0
    biller_id = json.loads(out)["biller_id"]
    product_file = tmp_path / "product.json"
    product_file.write_text(json.dumps(open_product(fee={"amount": "1.00"})), encoding="utf-8")
    code, _, err = admin("billers", "add-product", biller_id, "--file", str(product_file))
    assert (code, err) == (1, "error 422 fee_bearer_conflict: The fee of 1.00 has no bearer.\n")
    code, _, err = admin("billers", "update", biller_id, "--name", "Outro")
    assert code == 1 and err.startswith("error 409 owned_by_origin: ")
    code, out, _ = admin("billers", "update", biller_id, "--status", "paused")
    assert code == 0 and "status:           paused\n" in out
    code, _, err = admin("billers", "retire", biller_id)
    assert code == 1 and err.startswith("error 409 owned_by_origin: ")
    code, out, _ = admin("billers", "show", biller_id, "--json")
    assert code == 0 and json.loads(out)["status"] == "paused"

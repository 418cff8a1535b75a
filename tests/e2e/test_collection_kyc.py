"""KYC over HTTP (mz): a business registers a customer, whose verification goes initiated ->
pending (with checklist items) -> the expiry date of a document saved -> ready -> verified, each
step a versioned message of its log; refusals name the field; another business's customer is
customer_not_found and its verification not_found; the capabilities gate the routes."""

from __future__ import annotations

from typing import Any

import pytest
from ulid import ULID

from devstack.launcher import RunningStack
from tests.e2e.collection_client import Collection, assert_error, assert_ok, licensed

pytestmark = pytest.mark.e2e
NOTHING = {"additional_request": {"comment": "", "checklist_items": []}}  # a review that asks for nothing


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return licensed(stack)


def registered(mz: Collection, token: str = "demo") -> tuple[str, str]:
    answer = assert_ok(mz.call("POST", "/v1/customers", {"name": "Ana Machava", "document_type": "bi"}, token=token))
    return answer["id"], answer["kyc"]["kyc_id"]


def log_of(mz: Collection, kyc_id: str) -> list[dict[str, Any]]:
    return assert_ok(mz.call("GET", f"/v1/kyc/{kyc_id}/logs"))["kyclog"]["messages"]  # type: ignore[no-any-return]


def test_a_verification_goes_pending_ready_verified_with_its_log(mz: Collection) -> None:
    answer = assert_ok(mz.call("POST", "/v1/customers", {"name": "Ana Machava", "document_type": "bi"}))
    customer_id, kyc = answer["id"], answer["kyc"]
    kyc_id = kyc["kyc_id"]
    assert customer_id.startswith("usr_") and kyc_id.startswith("kyc_")
    assert (answer["object"], answer["name"], kyc["status"], kyc["customer_id"], kyc["document_type"]) == (
        "customer",
        "Ana Machava",
        "initiated",
        customer_id,
        "bi",
    )
    base = f"/v1/customers/{customer_id}/kyc/{kyc_id}"
    pending = assert_ok(
        mz.call(
            "PUT",
            f"{base}/reviews",
            {
                "status": "pending",
                "reviewer_id": "rev-1",
                "additional_request": {
                    "comment": "Add the NUIT certificate and a proof of address.",
                    "checklist_items": ["item_nuit_certificate", "item_proof_of_address"],
                },
            },
        )
    )
    assert pending["object"] == "kyc" and pending["kyc"]["status"] == "pending"
    assert pending["kyc"]["additional_request"] == {
        "comment": "Add the NUIT certificate and a proof of address.",
        "checklist_items": ["item_nuit_certificate", "item_proof_of_address"],
    }
    assert assert_ok(
        mz.call("POST", f"/v1/kyc/{kyc_id}/logs/save-date", {"expiry_date": "2027-03-31", "reference": "PA-7"})
    ) == {"object": "bool", "saved_date": True}
    assert assert_ok(mz.call("POST", f"/v1/kyc/{kyc_id}/logs", {"comment": "Documents received by e-mail."})) == {
        "object": "bool",
        "status": True,
    }
    assert assert_ok(mz.call("POST", f"{base}/reviews/ready")) == {"object": "ready", "submit": True}
    verified = assert_ok(mz.call("PUT", f"{base}/reviews", {"status": "verified", "reviewer_id": "rev-1", **NOTHING}))
    assert verified["kyc"]["status"] == "verified"
    assert assert_ok(mz.call("GET", base)) == verified

    log = assert_ok(mz.call("GET", f"/v1/customers/{customer_id}/kyc/logs"))
    assert log["object"] == "kyc_log" and log["kyclog"]["id"].startswith("klg_")
    assert (log["kyclog"]["kyc_id"], log["kyclog"]["customer_id"]) == (kyc_id, customer_id)
    assert [(m["version"], m["kyc_status"], m["reviewer_id"], m["message"]) for m in log["kyclog"]["messages"]] == [
        (1, "initiated", None, "KYC verification initiated."),
        (
            2,
            "pending",
            "rev-1",
            "More needed: Add the NUIT certificate and a proof of address. "
            "(item_nuit_certificate, item_proof_of_address)",
        ),
        (3, "pending", None, "Documents received by e-mail."),
        (4, "pending", None, "The customer submitted the documents."),
        (5, "verified", "rev-1", "Verified."),
    ]
    assert log["kyclog"]["additional_documents"][0]["reference"] == "PA-7"
    assert assert_ok(mz.call("GET", f"/v1/kyc/{kyc_id}/logs")) == log
    assert_error(
        mz.call(
            "PUT",
            f"{base}/reviews",
            {"status": "rejected", "reviewer_id": "rev-2", "rejection_reason": "x", **NOTHING},
        ),
        400,
        "invalid_request",
        "A verification that is verified cannot be reviewed again.",
        {"kyc_status": "verified"},
    )


@pytest.mark.parametrize(
    ("body", "status", "code", "field", "field_code"),
    [
        ({"status": "verified"}, 400, "missing_field", "reviewer_id", "REQUIRED"),
        ({"status": "rejected", "reviewer_id": "r"}, 400, "missing_field", "rejection_reason", "REQUIRED"),
        ({"status": "pending", "reviewer_id": "r"}, 400, "missing_field", "additional_request", "REQUIRED"),
        ({"status": "done", "reviewer_id": "r"}, 400, "validation_error", "status", "INVALID_FORMAT"),
        (
            {
                "status": "pending",
                "reviewer_id": "r",
                "additional_request": {"comment": "more", "checklist_items": ["item_unicorn"]},
            },
            400,
            "validation_error",
            "additional_request.checklist_items.0",
            "NOT_FOUND",
        ),
    ],
)
def test_an_incomplete_review_is_refused_and_changes_nothing(
    mz: Collection, body: dict[str, Any], status: int, code: str, field: str, field_code: str
) -> None:
    customer_id, kyc_id = registered(mz)
    answer = mz.call("PUT", f"/v1/customers/{customer_id}/kyc/{kyc_id}/reviews", body)
    assert answer.status_code == status, answer.text
    payload = answer.json()
    assert (payload["code"], [(e["field"], e["code"]) for e in payload["metadata"]["errors"]]) == (
        code,
        [(field, field_code)],
    )
    assert len(log_of(mz, kyc_id)) == 1


def test_another_business_never_reaches_a_customer(mz: Collection) -> None:
    customer_id, kyc_id = registered(mz)
    other = mz.active_business()[1]  # an active business: its writes pass the gate, reach nothing of ours
    base = f"/v1/customers/{customer_id}/kyc/{kyc_id}"
    for method, path, body in (
        ("GET", base, None),
        ("GET", f"/v1/customers/{customer_id}/kyc/logs", None),
        ("PUT", f"{base}/reviews", {"status": "verified", "reviewer_id": "r"}),
        ("POST", f"{base}/reviews/ready", None),
    ):
        assert_error(mz.call(method, path, body, token=other), 404, "customer_not_found", "No such customer.")
    for method, path, body in (
        ("GET", f"/v1/kyc/{kyc_id}/logs", None),
        ("POST", f"/v1/kyc/{kyc_id}/logs", {"comment": "hello"}),
        ("POST", f"/v1/kyc/{kyc_id}/logs/save-date", {"expiry_date": "2027-01-01", "reference": "R"}),
    ):
        assert_error(mz.call(method, path, body, token=other), 404, "not_found", "No such KYC verification.")
    own_customer, _ = registered(mz, other)
    assert_error(  # a verification of another customer through one's own customer
        mz.call("GET", f"/v1/customers/{own_customer}/kyc/{kyc_id}", token=other),
        404,
        "not_found",
        "No such KYC verification.",
    )
    assert len(log_of(mz, kyc_id)) == 1


def test_the_capabilities_and_permissions_gate_kyc(mz: Collection) -> None:
    customer_id, kyc_id = registered(mz)
    reader = mz.mint(scope="kyc:read")
    assert assert_ok(mz.call("GET", f"/v1/kyc/{kyc_id}/logs", token=reader))["object"] == "kyc_log"
    assert_error(
        mz.call("POST", f"/v1/kyc/{kyc_id}/logs", {"comment": "x"}, token=reader),
        403,
        "forbidden",
        "The access token lacks the permission kyc:write.",
        {"permission": "kyc:write"},
    )
    assert_error(
        mz.call("POST", "/v1/customers", {"name": "B", "document_type": "bi"}, token=reader),
        403,
        "forbidden",
        "The access token lacks the permission customer:write.",
        {"permission": "customer:write"},
    )
    assert_error(
        mz.call("GET", f"/v1/customers/usr_{ULID()}/kyc/{kyc_id}"),
        404,
        "customer_not_found",
        "No such customer.",
    )
    assert_error(
        mz.call("GET", f"/v1/customers/{customer_id}/kyc/kyc_{ULID()}"), 404, "not_found", "No such KYC verification."
    )


@pytest.mark.parametrize("region", ["mz", "regional-sa"])
def test_the_demo_block_has_a_customer_and_verifications_awaiting_review(stack: RunningStack, region: str) -> None:
    client = Collection(stack, region)
    demo = stack.state["demo"][region]
    assert len(demo["kyc_verifications"]) >= 3
    assert demo["customer_id"] == demo["kyc_verifications"][0]["customer_id"]
    for pair in demo["kyc_verifications"]:  # no test reviews these: they are the newcomer's
        kyc = assert_ok(client.call("GET", f"/v1/customers/{pair['customer_id']}/kyc/{pair['kyc_id']}"))["kyc"]
        assert (kyc["status"], kyc["customer_id"]) == ("initiated", pair["customer_id"])


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def save(mz: Collection, kyc_id: str, token: str | None = None, **fields: str) -> Any:
    import requests

    form = {"reference": "BI-1", "document_name": "BI of Ana", "type": "bi", **fields}
    return requests.post(
        f"{mz.url}/v1/kyc/{kyc_id}/logs/save",
        headers={"Authorization": f"Bearer {token or mz.token}"},
        data={k: v for k, v in form.items() if v},
        files={"attachment": ("side.png", PNG, "image/png")},
        timeout=30,
    )


def test_documents_are_saved_and_a_two_sided_one_needs_both_sides(mz: Collection) -> None:
    customer_id, kyc_id = registered(mz)
    assert assert_ok(save(mz, kyc_id)) == {"object": "bool", "status": True}
    ready = f"/v1/customers/{customer_id}/kyc/{kyc_id}/reviews/ready"
    assert_error(
        mz.call("POST", ready),
        400,
        "missing_field",
        "Documents still need a side: documents.BI-1.",
        {"errors": [{"field": "documents.BI-1", "code": "REQUIRED", "message": "the back of this bi is missing"}]},
    )
    assert assert_ok(save(mz, kyc_id, side="back")) == {"object": "bool", "status": True}
    assert assert_ok(mz.call("POST", ready)) == {"object": "ready", "submit": True}
    log = assert_ok(mz.call("GET", f"/v1/kyc/{kyc_id}/logs"))["kyclog"]
    documents = log["additional_documents"]
    assert [(d["reference"], d["type"], d["side"]) for d in documents] == [
        ("BI-1", "bi", "front"),
        ("BI-1", "bi", "back"),
    ]
    assert all(d["file"]["file_id"].startswith("file_") for d in documents)
    assert [m["message"] for m in log["messages"][1:]] == [
        "Document saved: BI of Ana (bi, front).",
        "Document saved: BI of Ana (bi, back).",
        "The customer submitted the documents.",
    ]


@pytest.mark.parametrize(
    ("fields", "code", "field", "field_code"),
    [
        ({"type": "selfie"}, "validation_error", "type", "INVALID_FORMAT"),
        ({"reference": ""}, "missing_field", "reference", "REQUIRED"),
        ({"side": "top"}, "validation_error", "side", "INVALID_FORMAT"),
        ({"file_type": "pdf"}, "validation_error", "attachment", "VERIFICATION_FAILED"),
    ],
)
def test_a_bad_document_is_refused_and_nothing_is_recorded(
    mz: Collection, fields: dict[str, str], code: str, field: str, field_code: str
) -> None:
    _, kyc_id = registered(mz)
    answer = save(mz, kyc_id, **fields)
    assert answer.status_code == 400, answer.text
    payload = answer.json()
    assert (payload["code"], [(e["field"], e["code"]) for e in payload["metadata"]["errors"]]) == (
        code,
        [(field, field_code)],
    )
    assert assert_ok(mz.call("GET", f"/v1/kyc/{kyc_id}/logs"))["kyclog"]["additional_documents"] == []


def test_another_business_cannot_save_to_a_verification(mz: Collection) -> None:
    _, kyc_id = registered(mz)
    other = mz.active_business()[1]  # an active business: its writes pass the gate, reach nothing of ours
    assert_error(save(mz, kyc_id, token=other), 404, "not_found", "No such KYC verification.")
    assert assert_ok(mz.call("GET", f"/v1/kyc/{kyc_id}/logs"))["kyclog"]["additional_documents"] == []

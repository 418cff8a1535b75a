"""Business onboarding over HTTP (mz): a business signs in, initializes, gives details (refused
once with field errors, then accepted), finishes; a reviewer rejects, the business corrects and
resubmits, the reviewer approves, suspends and reactivates. Every answer whole; refusals store
nothing; another business never sees or moves this one; the demo block's onboarding tokens work."""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay.domain.access.rate_limits import UPLOADS_PER_MINUTE
from tests.e2e.collection_client import (
    Collection,
    assert_error,
    assert_invalid,
    assert_ok,
    licensed,
    validation,
)
from tests.unit.test_business_rules import details

pytestmark = pytest.mark.e2e

DETAILS: dict[str, Any] = {"object": "account", **details()}
del DETAILS["tax_details"]  # the optional section: left out here
DETAILS["business_details"]["country"] = "MZ"
STORED_DETAILS = {
    "bank_details": {**DETAILS["bank_details"], "nib": "000301080016367102371"},
    "person_of_contact": DETAILS["person_of_contact"],
    "business_details": DETAILS["business_details"],
    "tax_details": None,
}


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return licensed(stack)


def business(mz: Collection) -> str:
    """An access token of a fresh business account (nothing stored for it yet)."""
    return mz.mint(account_id=str(ULID()), sub=f"owner-{ULID()}")


def reviewer(mz: Collection) -> str:
    return mz.mint(account_id=None, sub="reviewer-1", scope="account:review")


def account_view(account_id: str, status: str, reason: str = "", errors: Any = None) -> dict[str, Any]:
    return {
        "object": "account",
        "id": account_id,
        "name": "Loja Machava Lda",
        "status": status,
        "reason": reason,
        "details": STORED_DETAILS,
        "errors": errors or [],
        "logo": None,
    }


def claims_account(mz: Collection, token: str) -> str:
    import jwt

    return str(jwt.decode(token, options={"verify_signature": False})["account_id"])


def test_a_business_walks_onboarding_to_approval_and_back(mz: Collection) -> None:
    token = business(mz)
    account_id = claims_account(mz, token)
    assert_error(
        mz.call("GET", "/v1/account", token=token),
        404,
        "not_found",
        "This account has not started onboarding: POST /v1/account/onboarding/initialize first.",
    )
    first = mz.call("POST", "/v1/account/onboarding/initialize", token=token)
    assert (first.status_code, first.text) == (200, "")
    assert mz.call("POST", "/v1/account/onboarding/initialize", token=token).status_code == 200  # harmless
    assert assert_ok(mz.call("GET", "/v1/account/onboarding", token=token)) == {"status": "pending", "reason": ""}

    broken = copy.deepcopy(DETAILS)
    broken["bank_details"]["nib"] = "000301080016367102372"
    broken["business_details"]["country"] = "ZZ"
    assert_error(
        mz.call("PUT", "/v1/account/onboarding/details", broken, token=token),
        400,
        "validation_error",
        "The onboarding details have problems: bank_details.nib, business_details.country.",
        {
            "errors": [
                {
                    "field": "bank_details.nib",
                    "code": "VERIFICATION_FAILED",
                    "message": "a NIB has 21 digits whose MOD 97-10 check digits hold",
                },
                {
                    "field": "business_details.country",
                    "code": "NOT_FOUND",
                    "message": "an ISO 3166-1 alpha-2 country code, e.g. MZ",
                },
            ]
        },
    )
    assert assert_ok(mz.call("GET", "/v1/account/onboarding/details", token=token)) == {
        "object": "onboarding",
        "bank_details": None,
        "person_of_contact": None,
        "business_details": None,
        "tax_details": None,
    }  # nothing stored
    assert_error(
        mz.call("POST", "/v1/account/onboarding/finish", token=token),
        400,
        "missing_field",
        "Onboarding still needs: bank_details.nuib, bank_details.nib, bank_details.account_number, "
        "bank_details.bank_name, bank_details.account_holder_name, person_of_contact.first_name, "
        "person_of_contact.last_name, business_details.legal_name, business_details.country, "
        "business_details.state_province, business_details.registration_number, business_details.vat_number.",
        {
            "errors": [
                {"field": field, "code": "REQUIRED", "message": "required before finishing onboarding"}
                for field in (
                    "bank_details.nuib",
                    "bank_details.nib",
                    "bank_details.account_number",
                    "bank_details.bank_name",
                    "bank_details.account_holder_name",
                    "person_of_contact.first_name",
                    "person_of_contact.last_name",
                    "business_details.legal_name",
                    "business_details.country",
                    "business_details.state_province",
                    "business_details.registration_number",
                    "business_details.vat_number",
                )
            ]
        },
    )

    saved = assert_ok(mz.call("PUT", "/v1/account/onboarding/details", DETAILS, token=token))
    assert saved == {"object": "onboarding", **STORED_DETAILS}
    submitted = assert_ok(mz.call("POST", "/v1/account/onboarding/finish", token=token))
    assert submitted == account_view(account_id, "pending_review")
    assert_error(
        mz.call("PUT", "/v1/account/onboarding/details", DETAILS, token=token),
        400,
        "invalid_request",
        "The details of an account that is pending_review cannot change.",
        {"account_status": "pending_review"},
    )

    review = reviewer(mz)
    problems = [{"field": "bank_details.nib", "message": "The bank does not know this NIB.", "code": "NOT_FOUND"}]
    rejected = assert_ok(
        mz.call(
            "POST",
            f"/v1/accounts/{account_id}/reject",
            {"reason": "The NIB is not the business's.", "errors": problems},
            token=review,
        )
    )
    assert rejected == account_view(account_id, "rejected", "The NIB is not the business's.", problems)
    assert assert_ok(mz.call("GET", "/v1/account/onboarding", token=token)) == {
        "status": "rejected",
        "reason": "The NIB is not the business's.",
    }
    assert_ok(mz.call("PUT", "/v1/account/onboarding/details", DETAILS, token=token))  # corrected
    assert assert_ok(mz.call("POST", "/v1/account/onboarding/finish", token=token))["status"] == "pending_review"

    approved = assert_ok(mz.call("POST", f"/v1/accounts/{account_id}/approve", token=review))
    assert approved == account_view(account_id, "active")
    suspended = assert_ok(
        mz.call("POST", f"/v1/accounts/{account_id}/suspend", {"reason": "Chargebacks."}, token=review)
    )
    assert suspended == account_view(account_id, "suspended", "Chargebacks.")
    assert_error(
        mz.call("POST", f"/v1/accounts/{account_id}/approve", token=review),
        400,
        "invalid_request",
        "Cannot approve an account that is suspended.",
        {"account_status": "suspended", "action": "approve"},
    )
    reactivated = assert_ok(mz.call("POST", f"/v1/accounts/{account_id}/reactivate", token=review))
    assert reactivated == account_view(account_id, "active")
    assert assert_ok(mz.call("GET", "/v1/account", token=token)) == account_view(account_id, "active")

    audit = requests.get(
        f"{mz.stack.state['regions']['mz']['management']}/v1/accounts/{account_id}/onboarding-reviews",
        headers={"Authorization": f"Bearer {mz.stack.state['operator_token']}"},
        timeout=30,
    )
    assert audit.status_code == 200, audit.text
    records = audit.json()["data"]
    assert [(r["action"], r["from_status"], r["to_status"]) for r in records] == [
        ("reactivate", "suspended", "active"),
        ("suspend", "active", "suspended"),
        ("approve", "pending_review", "active"),
        ("reject", "pending_review", "rejected"),
    ]
    assert records[3]["reason"] == "The NIB is not the business's." and records[3]["errors"] == problems
    assert all(r["reviewer"]["subject"] == "reviewer-1" and r["source_ip"] for r in records)
    assert all(r["id"].startswith("rev_") and r["account_id"] == account_id for r in records)


REVIEW_IS_INSTALLATIONS = (
    "The permission account:review is the installation administrator's: a token acting for a business "
    "account (account_id) never holds it."
)


def test_reviewer_routes_need_an_administrator_with_the_reviewer_permission(mz: Collection) -> None:
    token = business(mz)
    account_id = claims_account(mz, token)
    mz.call("POST", "/v1/account/onboarding/initialize", token=token)
    mz.call("PUT", "/v1/account/onboarding/details", DETAILS, token=token)
    mz.call("POST", "/v1/account/onboarding/finish", token=token)
    assert_error(  # the business itself
        mz.call("POST", f"/v1/accounts/{account_id}/approve", token=token),
        403,
        "forbidden",
        REVIEW_IS_INSTALLATIONS,
        {"permission": "account:review"},
    )
    own = mz.mint(account_id=account_id, sub="insider", scope="account:review")  # claiming it changes nothing
    assert_error(
        mz.call("POST", f"/v1/accounts/{account_id}/approve", token=own),
        403,
        "forbidden",
        REVIEW_IS_INSTALLATIONS,
        {"permission": "account:review"},
    )
    assert_error(  # an administrator without the permission
        mz.call("POST", f"/v1/accounts/{account_id}/approve", token=mz.mint_admin(scope="license:read")),
        403,
        "forbidden",
        "The access token lacks the permission account:review.",
        {"permission": "account:review"},
    )
    assert_error(
        mz.call("POST", f"/v1/accounts/{account_id}/reject", {"errors": []}, token=reviewer(mz)),
        400,
        "missing_field",
        "The request has missing fields: reason.",
        {"errors": [{"field": "reason", "code": "REQUIRED", "message": "a rejection says why"}]},
    )
    assert_error(
        mz.call("POST", f"/v1/accounts/{'x' * 300}/approve", token=reviewer(mz)),
        404,
        "not_found",
        "This account has not started onboarding: POST /v1/account/onboarding/initialize first.",
    )
    unknown = str(ULID())
    assert_error(
        mz.call("POST", f"/v1/accounts/{unknown}/approve", token=reviewer(mz)),
        404,
        "not_found",
        "This account has not started onboarding: POST /v1/account/onboarding/initialize first.",
    )
    assert assert_ok(mz.call("GET", "/v1/account/onboarding", token=token))["status"] == "pending_review"


def test_another_business_sees_and_moves_only_its_own_account(mz: Collection) -> None:
    mine, theirs = business(mz), business(mz)
    mz.call("POST", "/v1/account/onboarding/initialize", token=mine)
    assert_ok(mz.call("PUT", "/v1/account/onboarding/details", DETAILS, token=mine))
    # the other business has no account of its own yet: every route answers for its own (none)
    for method, path, body in (
        ("GET", "/v1/account", None),
        ("GET", "/v1/account/onboarding", None),
        ("GET", "/v1/account/onboarding/details", None),
        ("PUT", "/v1/account/onboarding/details", DETAILS),
        ("POST", "/v1/account/onboarding/finish", None),
    ):
        assert mz.call(method, path, body, token=theirs).status_code == 404, path
    assert assert_ok(mz.call("GET", "/v1/account/onboarding", token=mine)) == {"status": "pending", "reason": ""}
    no_account = mz.mint(account_id=None)
    assert_error(
        mz.call("GET", "/v1/account", token=no_account),
        403,
        "forbidden",
        "The access token names no account (claim account_id).",
    )


BAD_DETAILS = [  # (body, code, message, the refused field)
    (
        {k: v for k, v in DETAILS.items() if k != "object"},
        "missing_field",
        "The request has missing fields: object.",
        ("object", "REQUIRED", "required: account"),
    ),
    (
        {**DETAILS, "object": "onboarding"},
        "validation_error",
        "The request has invalid fields: object.",
        ("object", "INVALID_FORMAT", "the constant account"),
    ),
    (
        {k: v for k, v in DETAILS.items() if k != "person_of_contact"},
        "missing_field",
        "The onboarding details have problems: person_of_contact.",
        ("person_of_contact", "REQUIRED", "this section is required"),
    ),
]


def test_bad_bodies_are_refused_and_store_nothing(mz: Collection) -> None:
    token = business(mz)
    mz.call("POST", "/v1/account/onboarding/initialize", token=token)
    for body, code, message, field in BAD_DETAILS:
        refused = mz.call("PUT", "/v1/account/onboarding/details", body, token=token)
        assert_error(refused, 400, code, message, validation(field))
    assert assert_ok(mz.call("GET", "/v1/account/onboarding/details", token=token))["bank_details"] is None


@pytest.mark.parametrize("region", ["mz", "regional-sa"])
def test_the_demo_block_has_three_pending_businesses_and_a_reviewer(stack: RunningStack, region: str) -> None:
    client = Collection(stack, region)
    demo = stack.state["demo"][region]
    assert len(demo["onboarding_tokens"]) >= 3
    for token in demo["onboarding_tokens"]:  # no test moves these: they are the newcomer's
        assert assert_ok(client.call("GET", "/v1/account/onboarding", token=token)) == {
            "status": "pending",
            "reason": "",
        }
    for admin in ("collection_reviewer_token", "collection_admin_token"):
        answer = client.call(
            "POST", f"/v1/accounts/{ULID()}/approve", token=demo[admin]
        )  # an administrator passes the permission check: an unknown account is then 404
        assert answer.status_code == 404 and answer.json()["code"] == "not_found"
    assert_error(  # the demo business's own token reviews nothing
        client.call("POST", f"/v1/accounts/{ULID()}/approve", token=demo["collection_token"]),
        403,
        "forbidden",
        REVIEW_IS_INSTALLATIONS,
        {"permission": "account:review"},
    )


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
PDF = b"%PDF-1.7\n" + b"0" * 64


def upload(mz: Collection, token: str, content: bytes, file_type: str | None, name: str = "f") -> requests.Response:
    data = {"file_type": file_type} if file_type is not None else {}
    return requests.post(
        mz.url + "/v1/files",
        headers={"Authorization": f"Bearer {token}"},
        files={"file": (name, content, "application/octet-stream")},
        data=data,
        timeout=30,
    )


def s3_of(mz: Collection) -> Any:
    import boto3

    state = mz.stack.state
    return boto3.client(
        "s3",
        endpoint_url=state["aws_endpoint"],
        region_name=state["aws_regions"]["mz"],
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def stored_objects(mz: Collection, account_id: str) -> list[str]:
    bucket = mz.stack.state["resources"]["mz"]["UploadsBucket"]
    listed = s3_of(mz).list_objects_v2(Bucket=bucket, Prefix=f"accounts/{account_id}/")
    return [item["Key"] for item in listed.get("Contents", [])]


def test_files_are_checked_kept_per_account_and_a_logo_is_one_of_them(mz: Collection) -> None:
    token = business(mz)
    account_id = claims_account(mz, token)
    mz.call("POST", "/v1/account/onboarding/initialize", token=token)
    answer = upload(mz, token, PNG, "png", "logo.png")
    uploaded = assert_ok(answer)
    bucket = mz.stack.state["resources"]["mz"]["UploadsBucket"]
    assert uploaded == {
        "object": "uploaded_file",
        "id": uploaded["id"],
        "file_type": "png",
        "file_size": len(PNG),
        "file": {"file_id": uploaded["id"], "bucket": bucket},
    }
    assert uploaded["id"].startswith("file_")
    assert stored_objects(mz, account_id) == [f"accounts/{account_id}/files/{uploaded['id']}"]
    kept = s3_of(mz).get_object(Bucket=bucket, Key=f"accounts/{account_id}/files/{uploaded['id']}")
    assert kept["Body"].read() == PNG  # byte for byte through API Gateway's base64
    assert kept["Metadata"]["sha256"] == hashlib.sha256(PNG).hexdigest()
    assert assert_ok(upload(mz, token, PDF, "pdf"))["file_type"] == "pdf"

    for content, file_type, field, code, message in (
        (PDF, "png", "file", "VERIFICATION_FAILED", "the content is not a png file"),
        (PNG, "gif", "file_type", "INVALID_FORMAT", "one of png, jpg, jpeg, pdf"),
        (b"", "png", "file", "INVALID_FORMAT", "the file is empty"),
        (PNG + b"\x00" * (4 * 1024 * 1024), "png", "file", "INVALID_FORMAT", "at most 4194304 bytes"),
    ):
        refused = upload(mz, token, content, file_type)
        metadata: dict[str, Any] = {"errors": [{"field": field, "code": code, "message": message}]}
        if "at most" in message:
            metadata["max_bytes"] = 4 * 1024 * 1024
        assert_error(refused, 400, "validation_error", f"{field}: {message}", metadata)
    assert_error(
        upload(mz, token, PNG, None),
        400,
        "missing_field",
        "file_type: the file's extension: png, jpg, jpeg or pdf",
        {
            "errors": [
                {"field": "file_type", "code": "REQUIRED", "message": "the file's extension: png, jpg, jpeg or pdf"}
            ]
        },
    )
    assert_error(
        mz.call("POST", "/v1/files", {"file_type": "png"}, token=token),
        400,
        "invalid_request",
        "The body must be multipart/form-data.",
    )
    assert len(stored_objects(mz, account_id)) == 2  # the refusals stored nothing

    other = business(mz)
    theirs = assert_ok(upload(mz, other, PNG, "png"))
    saved = assert_ok(
        mz.call("PUT", "/v1/account/onboarding/details", {**DETAILS, "logo": {"file_id": uploaded["id"]}}, token=token)
    )
    assert saved == {"object": "onboarding", **STORED_DETAILS}
    assert assert_ok(mz.call("GET", "/v1/account", token=token))["logo"] == {
        "file_id": uploaded["id"],
        "bucket": bucket,
    }
    for file_id in (theirs["id"], "file_nope"):
        assert_invalid(
            mz.call("PUT", "/v1/account/onboarding/details", {**DETAILS, "logo": {"file_id": file_id}}, token=token),
            ("logo.file_id", "NOT_FOUND", "no image (png, jpg) of this account has this id"),
        )
    assert assert_ok(mz.call("GET", "/v1/account", token=token))["logo"]["file_id"] == uploaded["id"]


def test_uploads_over_the_accounts_limit_are_429_rate_limited_and_store_nothing(mz: Collection) -> None:
    token = business(mz)
    account_id = claims_account(mz, token)
    mz.call("POST", "/v1/account/onboarding/initialize", token=token)
    accepted: list[str] = []
    answer = upload(mz, token, PNG, "png", "logo.png")
    # a minute's window is fixed: the limit is met within two windows at most, whatever the clock
    while answer.status_code == 200 and len(accepted) <= 2 * UPLOADS_PER_MINUTE:
        accepted.append(answer.json()["id"])
        answer = upload(mz, token, PNG, "png", "logo.png")
    retry = int(answer.headers["Retry-After"])
    assert 1 <= retry <= 60
    limit = f"at most {UPLOADS_PER_MINUTE} uploads a minute"
    message = f"Too many uploads for this account: {limit}. Retry after {retry} s."
    assert_error(answer, 429, "rate_limited", message, {"rule": "uploads_per_minute", "limit": UPLOADS_PER_MINUTE})
    assert UPLOADS_PER_MINUTE <= len(accepted) <= 2 * UPLOADS_PER_MINUTE
    assert sorted(stored_objects(mz, account_id)) == sorted(f"accounts/{account_id}/files/{i}" for i in accepted)
    other = business(mz)  # another account's uploads are its own
    assert assert_ok(upload(mz, other, PNG, "png", "logo.png"))["file_size"] == len(PNG)


def test_a_truncated_multipart_upload_is_400_and_stores_nothing(mz: Collection) -> None:
    token = business(mz)
    account_id = claims_account(mz, token)
    mz.call("POST", "/v1/account/onboarding/initialize", token=token)
    whole = (
        b'--cut\r\nContent-Disposition: form-data; name="file_type"\r\n\r\npng\r\n'
        b'--cut\r\nContent-Disposition: form-data; name="file"; filename="logo.png"\r\n'
        b"Content-Type: image/png\r\n\r\n" + PNG + b"\r\n--cut--\r\n"
    )
    truncated = whole[: whole.index(b"\r\n--cut--")]  # the connection dropped before the end
    answer = requests.post(
        mz.url + "/v1/files",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "multipart/form-data; boundary=cut"},
        data=truncated,
        timeout=30,
    )
    message = "The multipart body is truncated: it does not end with its closing boundary (--<boundary>--)."
    assert_error(answer, 400, "invalid_request", message)
    assert stored_objects(mz, account_id) == []
    done = requests.post(
        mz.url + "/v1/files",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "multipart/form-data; boundary=cut"},
        data=whole,
        timeout=30,
    )
    assert assert_ok(done)["file_size"] == len(PNG)  # the whole body is a file

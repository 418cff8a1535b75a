"""PSP onboarding over real HTTP (docs/psp-onboarding.md): applications drafted, edited and submitted
(already_submitted, application_incomplete), KYB documents kept with their SHA-256 and refused
once tampered with in S3 (document_tampered), the logo checked and reviewed (invalid_logo),
certification runs one at a time (certification_running), approval making the PSP routable, and
races on every conditional write (threads over HTTP)."""

from __future__ import annotations

import hashlib
import io
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from PIL import Image

from devstack.launcher import RunningStack
from tests.expected import pilot_settings, problem_for

pytestmark = pytest.mark.e2e

PSP = "movitel-emola"  # graduated at the module's end; tests of a live e-Mola graduate it first
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
REQUIRED_DOCUMENTS = ("central_bank_licence", "commercial_registration", "tax_certificate")
PILOT = pilot_settings(["loja-01"], "5000.00", "50000.00", "500000.00")
FIELDS: dict[str, Any] = {
    "legal_name": "Movitel, S.A.",
    "nuit": "400339910",
    "licence_number": "BM/IME/2026/021",
    "contact_email": "onboarding@movitel.co.mz",
    "psp_id": PSP,
    "methods": ["emola"],
    "currencies": ["MZN"],
    "settlement_account": "0001 0000 0000 0002 8000 2",
    "pilot": PILOT,
}
EVERYTHING_MISSING = [  # the order submission names them in
    *("legal_name", "nuit", "licence_number", "contact_email", "psp_id", "methods", "currencies"),
    *("settlement_account", "pilot", "documents.commercial_registration", "documents.central_bank_licence"),
    *("documents.tax_certificate", "logo"),
]


def image(size: tuple[int, int], kind: str = "PNG", noise: bool = False) -> bytes:
    if noise:  # random pixels do not compress
        picture = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))
    else:
        picture = Image.new("RGB", size, (200, 30, 40))
    out = io.BytesIO()
    picture.save(out, kind)
    return out.getvalue()


LOGO = image((256, 256))


class Operator:
    def __init__(self, stack: RunningStack, region: str = "mz") -> None:
        self.stack = stack
        self.url = stack.state["regions"][region]["management"]
        self.token = stack.state["operator_token"]

    def call(
        self, method: str, path: str, body: Any = None, raw: bytes | None = None, media: str = ""
    ) -> requests.Response:
        headers = {"Authorization": f"Bearer {self.token}"}
        if raw is not None:
            headers["Content-Type"] = media
            return requests.request(method, self.url + path, data=raw, headers=headers, timeout=30)
        return requests.request(method, self.url + path, json=body, headers=headers, timeout=30)

    def ok(self, method: str, path: str, body: Any = None, status: int = 200, **upload: Any) -> dict[str, Any]:
        answer = self.call(method, path, body, **upload)
        assert answer.status_code == status, answer.text
        return answer.json()  # type: ignore[no-any-return]

    def s3(self) -> Any:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.stack.state["aws_endpoint"],
            region_name=self.stack.state["aws_regions"]["mz"],
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def overwrite(self, application_id: str, folder: str, content: bytes) -> None:
        """Every object under the application's `folder` replaced behind the service's back."""
        bucket = self.stack.state["resources"]["mz"]["UploadsBucket"]
        prefix = f"psp-applications/{application_id}/{folder}/"
        listed = self.s3().list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", [])
        assert listed, prefix
        for item in listed:
            self.s3().put_object(Bucket=bucket, Key=item["Key"], Body=content)


@pytest.fixture(scope="module")
def ops(stack: RunningStack) -> Iterator[Operator]:
    operator = Operator(stack)
    yield operator
    operator.call("PUT", f"/v1/psps/{PSP}/pilot", {"in_pilot": False})  # what the matrix says of it


def draft(ops: Operator, **fields: Any) -> dict[str, Any]:
    return ops.ok("POST", "/v1/admin/psps", fields, status=201)


def complete(ops: Operator, **overrides: Any) -> str:
    """A draft with every field, the required documents and an approved logo."""
    application_id = str(draft(ops, **{**FIELDS, **overrides})["application_id"])
    for kind in REQUIRED_DOCUMENTS:
        ops.ok(
            "PUT", f"/v1/admin/psps/{application_id}/documents/{kind}", raw=PDF + kind.encode(), media="application/pdf"
        )
    ops.ok("PUT", f"/v1/admin/psps/{application_id}/logo", raw=LOGO, media="image/png")
    ops.ok("POST", f"/v1/admin/psps/{application_id}/logo/review", {"decision": "approve", "reason": "ok"})
    return application_id


def submitted(ops: Operator, **overrides: Any) -> str:
    application_id = complete(ops, **overrides)
    assert ops.ok("POST", f"/v1/admin/psps/{application_id}/submit")["status"] == "submitted"
    return application_id


def certified(ops: Operator, application_id: str) -> dict[str, Any]:
    run = ops.ok("POST", f"/v1/admin/psps/{application_id}/certification-runs", status=201)
    time.sleep(3.2)  # the simulated payer answers 3 s after the prompt
    return ops.ok("GET", f"/v1/admin/psps/{application_id}/certification-runs/{run['run_id']}")


def race(count: int, call: Callable[[], requests.Response]) -> list[requests.Response]:
    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(lambda _: call(), range(count)))


def assert_problem(answer: requests.Response, status: int, code: str, detail: str, **more: Any) -> None:
    assert (answer.status_code, answer.json()) == (status, problem_for(status, code, detail, **more)), answer.text


# ---------------------------------------------------------------- drafts
def test_a_draft_takes_any_fields_and_says_what_submission_needs(ops: Operator) -> None:
    oldest = draft(ops)
    made = draft(ops)
    assert made == {
        "object": "psp_application",
        "application_id": made["application_id"],
        "status": "draft",
        "legal_name": None,
        "nuit": None,
        "licence_number": None,
        "contact_email": None,
        "psp_id": None,
        "methods": None,
        "currencies": None,
        "settlement_account": None,
        "pilot": None,
        "documents": {},
        "logo": None,
        "certification": None,
        "certification_running": None,
        "decision": None,
        "missing": EVERYTHING_MISSING,
        "submitted_at": None,
        "created_at": made["created_at"],
        "updated_at": made["created_at"],
    }
    path = f"/v1/admin/psps/{made['application_id']}"
    edited = ops.ok("PATCH", path, {"legal_name": "Movitel, S.A.", "methods": ["emola", "emola"], "nuit": "400339910"})
    assert (edited["legal_name"], edited["methods"], edited["nuit"]) == ("Movitel, S.A.", ["emola"], "400339910")
    assert edited["missing"] == EVERYTHING_MISSING[2:4] + EVERYTHING_MISSING[4:5] + EVERYTHING_MISSING[6:]
    cleared = ops.ok("PATCH", path, {"nuit": None})
    assert cleared["nuit"] is None and cleared["missing"][:2] == ["nuit", "licence_number"]
    assert ops.ok("GET", path) == cleared
    newer = draft(ops)
    listed = ops.ok("GET", "/v1/admin/psps?limit=2")
    assert [a["application_id"] for a in listed["data"]] == [newer["application_id"], made["application_id"]]
    assert listed["has_more"] is True and listed["object"] == "list"
    following = ops.ok("GET", f"/v1/admin/psps?limit=2&page_token={listed['next_page_token']}")
    assert following["data"][0] == oldest


def test_bad_fields_are_refused_and_nothing_changes(ops: Operator) -> None:
    made = draft(ops, legal_name="Movitel, S.A.")
    path = f"/v1/admin/psps/{made['application_id']}"
    answer = ops.call("PATCH", path, {"nuit": "400339911", "legal_name": "x" * 201})
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_request", answer.text
    assert {e["field"]: e["code"] for e in answer.json()["errors"]} == {
        "nuit": "invalid_value",
        "legal_name": "invalid_value",
    }
    answer = ops.call("PATCH", path, {"psp_id": "simulator"})
    assert (answer.status_code, answer.json()["errors"][0]["field"]) == (400, "psp_id"), answer.text
    answer = ops.call("PATCH", path, {"settlement_account": "0001 0000 0000 0002 8000 3"})
    assert (answer.status_code, answer.json()["errors"][0]["field"]) == (400, "settlement_account")
    assert ops.ok("GET", path) == made  # nothing stored
    assert_problem(
        ops.call("GET", "/v1/admin/psps/01JDPSPAPP00000000000000AA"), 404, "not_found", "No such PSP application."
    )
    assert_problem(ops.call("GET", "/v1/admin/psps/nope"), 404, "not_found", "No such PSP application.")


# ---------------------------------------------------------------- submission
def test_submission_names_what_is_missing_then_nothing_changes_after_it(ops: Operator) -> None:
    made = draft(ops, legal_name="Movitel, S.A.")
    path = f"/v1/admin/psps/{made['application_id']}"
    assert_problem(
        ops.call("POST", f"{path}/submit"),
        422,
        "application_incomplete",
        "The application lacks: " + ", ".join(EVERYTHING_MISSING[1:]) + ".",
        missing=EVERYTHING_MISSING[1:],
    )
    assert ops.ok("GET", path) == made
    application_id = complete(ops)
    path = f"/v1/admin/psps/{application_id}"
    done = ops.ok("POST", f"{path}/submit")
    assert (done["status"], done["missing"], done["submitted_at"]) == ("submitted", [], done["updated_at"])
    again = "The application is submitted: it cannot be submitted again."
    assert_problem(ops.call("POST", f"{path}/submit"), 409, "already_submitted", again)
    edit = "The application is submitted: it cannot be edited."
    assert_problem(ops.call("PATCH", path, {"legal_name": "Other"}), 409, "already_submitted", edit)
    other = ops.call("PUT", f"{path}/documents/aml_policy", raw=PDF, media="application/pdf")
    assert_problem(other, 409, "already_submitted", edit)
    assert_problem(ops.call("PUT", f"{path}/logo", raw=LOGO, media="image/png"), 409, "already_submitted", edit)
    assert ops.ok("GET", path) == done


def test_racing_submissions_submit_once(ops: Operator) -> None:
    application_id = complete(ops)
    answers = race(6, lambda: ops.call("POST", f"/v1/admin/psps/{application_id}/submit"))
    assert Counter(a.status_code for a in answers) == {200: 1, 409: 5}, [a.text for a in answers]
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"already_submitted"}


# ---------------------------------------------------------------- documents
def test_documents_are_kept_with_their_checksum_and_a_tampered_one_is_refused(ops: Operator) -> None:
    application_id = str(draft(ops)["application_id"])
    path = f"/v1/admin/psps/{application_id}/documents/commercial_registration"
    kept = ops.ok("PUT", path, raw=PDF, media="application/pdf")["documents"]["commercial_registration"]
    assert kept == {
        "media_type": "application/pdf",
        "size": len(PDF),
        "sha256": hashlib.sha256(PDF).hexdigest(),
        "uploaded_at": kept["uploaded_at"],
    }
    got = ops.call("GET", path)
    assert (got.status_code, got.headers["Content-Type"], got.content) == (200, "application/pdf", PDF)
    assert {name: got.headers[name] for name in ("Content-Disposition", "X-Content-Type-Options", "Cache-Control")} == {
        "Content-Disposition": 'attachment; filename="commercial_registration.pdf"',
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-store",
    }  # saved by the browser, never shown in the management API's origin nor sniffed as another type
    bad = ops.call("PUT", path, raw=b"not a pdf", media="application/pdf")
    assert (bad.status_code, bad.json()["code"], bad.json()["errors"][0]["code"]) == (
        400,
        "invalid_request",
        "invalid_value",
    )
    gif = ops.call("PUT", path, raw=b"GIF89a", media="image/gif")
    assert (gif.status_code, gif.json()["errors"][0]["code"]) == (400, "unsupported_type")
    assert_problem(
        ops.call("PUT", f"/v1/admin/psps/{application_id}/documents/passport", raw=PDF, media="application/pdf"),
        404,
        "not_found",
        "No such document kind; one of commercial_registration, central_bank_licence, tax_certificate, aml_policy.",
    )
    ops.overwrite(application_id, "documents/commercial_registration", PDF + b"forged")
    tampered = (
        "The stored commercial_registration document no longer matches its recorded SHA-256; upload the original again."
    )
    assert_problem(ops.call("GET", path), 409, "document_tampered", tampered, document="commercial_registration")
    ops.ok("PUT", path, raw=PDF, media="application/pdf")  # the original again
    assert ops.call("GET", path).content == PDF


def test_a_tampered_document_stops_approval_until_the_original_is_restored(ops: Operator) -> None:
    application_id = submitted(ops)
    assert certified(ops, application_id)["status"] == "passed"
    path = f"/v1/admin/psps/{application_id}"
    before = ops.ok("GET", path)
    ops.overwrite(application_id, "documents/tax_certificate", PDF)
    assert_problem(
        ops.call("POST", f"{path}/approve", {"reason": "ok"}),
        409,
        "document_tampered",
        "The stored tax_certificate document no longer matches its recorded SHA-256; upload the original again.",
        document="tax_certificate",
    )
    assert ops.ok("GET", path) == before
    restored = ops.ok("PUT", f"{path}/documents/tax_certificate", raw=PDF + b"tax_certificate", media="application/pdf")
    assert restored == before  # the record is unchanged: only the object is written again
    approved = ops.ok("POST", f"{path}/approve", {"reason": "KYB complete"})
    assert approved["status"] == "approved"


# ---------------------------------------------------------------- logo
@pytest.mark.parametrize(
    ("content", "media", "code"),
    [
        (b"GIF89a\x01\x00", "image/gif", "unsupported_type"),
        (image((600, 600), noise=True), "image/png", "too_large"),
        (image((100, 100)), "image/png", "dimensions"),
        (image((256, 128)), "image/png", "not_square"),
        (LOGO[:200], "image/png", "undecodable"),
        (image((256, 256), "JPEG"), "image/png", "type_mismatch"),
    ],
)
def test_a_logo_that_is_not_one_is_invalid_logo(ops: Operator, content: bytes, media: str, code: str) -> None:
    application_id = str(draft(ops)["application_id"])
    answer = ops.call("PUT", f"/v1/admin/psps/{application_id}/logo", raw=content, media=media)
    assert (answer.status_code, answer.json()["code"]) == (400, "invalid_logo"), answer.text
    assert [e["code"] for e in answer.json()["errors"]] == [code]
    assert answer.json()["errors"][0]["field"] == "logo"
    assert ops.ok("GET", f"/v1/admin/psps/{application_id}")["logo"] is None


def test_a_logo_is_reviewed_and_a_tampered_one_cannot_be_approved(ops: Operator) -> None:
    application_id = str(draft(ops)["application_id"])
    path = f"/v1/admin/psps/{application_id}/logo"
    no_logo = ops.call("POST", f"{path}/review", {"decision": "approve"})
    assert (no_logo.status_code, no_logo.json()["code"], no_logo.json()["errors"][0]["code"]) == (
        400,
        "invalid_logo",
        "missing",
    )
    jpeg = image((300, 310), "JPEG")
    logo = ops.ok("PUT", path, raw=jpeg, media="image/jpeg")["logo"]
    assert logo == {
        "media_type": "image/jpeg",
        "size": len(jpeg),
        "sha256": hashlib.sha256(jpeg).hexdigest(),
        "width": 300,
        "height": 310,
        "status": "pending_review",
        "review": None,
        "uploaded_at": logo["uploaded_at"],
    }
    rejected = ops.ok("POST", f"{path}/review", {"decision": "reject", "reason": "blurry"})["logo"]
    assert (rejected["status"], rejected["review"]["reason"]) == ("rejected", "blurry")
    ops.overwrite(application_id, "logo", LOGO)
    before = ops.ok("GET", f"/v1/admin/psps/{application_id}")
    answer = ops.call("POST", f"{path}/review", {"decision": "approve"})
    assert (answer.status_code, answer.json()["code"], answer.json()["errors"][0]["code"]) == (
        400,
        "invalid_logo",
        "tampered",
    )
    assert ops.ok("GET", f"/v1/admin/psps/{application_id}") == before
    ops.ok("PUT", path, raw=LOGO, media="image/png")
    approved = ops.ok("POST", f"{path}/review", {"decision": "approve", "reason": "clear"})
    assert (approved["logo"]["status"], approved["missing"][-1:]) == ("approved", ["documents.tax_certificate"])


# ---------------------------------------------------------------- certification and approval
def test_one_certification_at_a_time_then_approval_makes_the_psp_routable(ops: Operator) -> None:
    application_id = submitted(ops)
    path = f"/v1/admin/psps/{application_id}"
    not_yet = "The application needs a passed certification run first."
    assert_problem(ops.call("POST", f"{path}/approve", {"reason": "ok"}), 409, "invalid_state", not_yet)
    run = ops.ok("POST", f"{path}/certification-runs", status=201)
    assert (run["status"], run["psp_id"], run["finished_at"]) == ("running", PSP, None)
    assert [(s["name"], s["passed"]) for s in run["steps"]] == [
        ("charge_succeeds", True),
        ("charge_fails", True),
        ("refund", True),
        ("payout", True),
        ("payer_confirms", None),
    ]
    assert run["steps"][1]["observed"] == {"status": "failed", "failure_code": "insufficient_funds"}
    busy = "A certification run of this application is in progress; read it, and start another once it ends."
    second = ops.call("POST", f"{path}/certification-runs")
    assert_problem(second, 409, "certification_running", busy)
    assert second.headers["Retry-After"] == "3"
    waiting = "A certification run is in progress; wait for its outcome."
    assert_problem(ops.call("POST", f"{path}/approve", {"reason": "ok"}), 409, "certification_running", waiting)
    assert ops.ok("GET", path)["certification_running"] == run["run_id"]
    time.sleep(3.2)
    done = ops.ok("GET", f"{path}/certification-runs/{run['run_id']}")
    assert (done["status"], done["steps"][-1]["observed"]) == ("passed", {"status": "succeeded", "failure_code": None})
    assert ops.ok("GET", f"{path}/certification-runs/{run['run_id']}") == done
    application = ops.ok("GET", path)
    assert application["certification"] == {
        "run_id": run["run_id"],
        "status": "passed",
        "finished_at": done["finished_at"],
    }
    assert application["certification_running"] is None
    approved = ops.ok("POST", f"{path}/approve", {"reason": "KYB complete; certified"})
    assert (approved["status"], approved["decision"]["decision"], approved["decision"]["reason"]) == (
        "approved",
        "approve",
        "KYB complete; certified",
    )
    psp = next(p for p in ops.ok("GET", "/v1/psps")["psps"] if p["psp_id"] == PSP)
    assert (psp["available"], psp["reason"]) == (True, f"onboarded by application {application_id}")
    assert psp["pilot"] == {"psp_id": PSP, "in_pilot": True, "settings": PILOT, "updated_at": approved["updated_at"]}
    again = "Only a submitted application can be approved; this one is approved."
    assert_problem(ops.call("POST", f"{path}/approve", {"reason": "ok"}), 409, "invalid_state", again)
    assert_problem(
        ops.call("POST", f"{path}/certification-runs"),
        409,
        "invalid_state",
        "Only a submitted application is certified.",
    )
    assert_problem(
        ops.call("GET", f"{path}/certification-runs/01JDPSPRUN00000000000000AB"),
        404,
        "not_found",
        "No such certification run.",
    )


def test_a_run_for_what_the_psp_does_not_carry_fails(ops: Operator) -> None:
    application_id = submitted(ops, currencies=["MZN", "USD"])
    run = ops.ok("POST", f"/v1/admin/psps/{application_id}/certification-runs", status=201)
    capability = [s for s in run["steps"] if s["currency"] == "USD"]
    assert capability == [
        {
            "name": "capability",
            "method": "emola",
            "currency": "USD",
            "expected": {"status": "carried", "failure_code": None},
            "observed": {"status": "not_supported", "failure_code": None},
            "passed": False,
        }
    ]
    time.sleep(3.2)
    # a new run finishes the due one first
    second = ops.ok("POST", f"/v1/admin/psps/{application_id}/certification-runs", status=201)
    first = ops.ok("GET", f"/v1/admin/psps/{application_id}/certification-runs/{run['run_id']}")
    assert (first["status"], second["status"]) == ("failed", "running")
    rejected = ops.ok("POST", f"/v1/admin/psps/{application_id}/reject", {"reason": "USD not carried"})
    assert (rejected["status"], rejected["decision"]["decision"]) == ("rejected", "reject")


def test_racing_certification_starts_run_once(ops: Operator) -> None:
    application_id = submitted(ops)
    answers = race(6, lambda: ops.call("POST", f"/v1/admin/psps/{application_id}/certification-runs"))
    assert Counter(a.status_code for a in answers) == {201: 1, 409: 5}, [a.text for a in answers]
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"certification_running"}
    started = next(a.json() for a in answers if a.status_code == 201)
    assert ops.ok("GET", f"/v1/admin/psps/{application_id}")["certification_running"] == started["run_id"]


def test_racing_approvals_and_rejections_decide_once(ops: Operator) -> None:
    application_id = submitted(ops)
    assert certified(ops, application_id)["status"] == "passed"
    path = f"/v1/admin/psps/{application_id}"
    answers = race(6, lambda: ops.call("POST", f"{path}/approve", {"reason": "ok"}))
    assert Counter(a.status_code for a in answers) == {200: 1, 409: 5}, [a.text for a in answers]
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"invalid_state"}
    assert ops.ok("GET", path)["status"] == "approved"

"""Management API: PSP onboarding (docs/psp-onboarding.md): applications, KYB documents, the
logo and its review, certification runs, approval."""

from typing import Annotated

from mzpay.answers import psp_onboarding as answers
from mzpay.entry import management_app
from mzpay.http.body import content_type, raw_body
from mzpay.http.downloads import download_headers
from mzpay.http.marks import errors
from mzpay.http.params import Body, Query, Response
from mzpay.http.psp_schemas import ApplicationDecisionIn, LogoReviewIn, PspApplicationIn
from mzpay.http.resolver import created
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.operators import psp_applications, psp_certification

app = management_app()


def _upload() -> tuple[str, bytes]:
    event = app.current_event.raw_event
    return content_type(event).split(";")[0].strip().lower(), raw_body(event)


@app.post("/v1/admin/psps")
def create_psp_application(body: Annotated[PspApplicationIn, Body()]) -> Response[answers.PspApplication]:
    """Draft a PSP application

    Every field is optional on a draft; `missing` lists what submission still needs."""
    return created(psp_applications.create(body.fields()))


@app.get("/v1/admin/psps")
def list_psp_applications(
    limit: Annotated[str | None, Query(max_length=3)] = None,
    page_token: Annotated[str | None, Query(max_length=600)] = None,
) -> answers.PspApplicationList:
    """List PSP applications

    Newest first, `limit` (1 to 100, default 20) a page; `next_page_token` continues."""
    return psp_applications.listing(limit, page_token)


@app.get("/v1/admin/psps/<application_id>")
def read_psp_application(application_id: str) -> answers.PspApplication:
    """Read a PSP application"""
    return psp_applications.read(application_id)


@app.patch("/v1/admin/psps/<application_id>")
@errors("already_submitted", "invalid_currency", "invalid_amount", "missing_ceiling", "invalid_state")
def edit_psp_application(application_id: str, body: Annotated[PspApplicationIn, Body()]) -> answers.PspApplication:
    """Edit a draft PSP application

    The fields given change (null clears one); after submission, 409 `already_submitted`."""
    return psp_applications.edit(application_id, body.fields())


@app.post("/v1/admin/psps/<application_id>/submit")
@errors("already_submitted", "application_incomplete", "invalid_state")
def submit_psp_application(application_id: str) -> answers.PspApplication:
    """Submit a PSP application

    Every required field, required KYB document and an approved logo, else 422
    `application_incomplete` with `missing`; submitted already: 409 `already_submitted`."""
    return psp_applications.submit(application_id)


@app.put("/v1/admin/psps/<application_id>/documents/<kind>")
@errors("already_submitted", "invalid_state", "rate_limited")
def put_psp_document(application_id: str, kind: str) -> answers.PspApplication:
    """Attach a KYB document

    The body is the file (application/pdf, image/png or image/jpeg, at most 4 MiB), kept with
    its SHA-256. After submission only the recorded file itself may be put again (it restores
    a tampered object): else 409 `already_submitted`."""
    return psp_applications.put_document(application_id, kind, *_upload())


@app.get(
    "/v1/admin/psps/<application_id>/documents/<kind>",
    responses={
        200: {
            "description": "The document",
            "content": {
                m: {"schema": {"type": "string", "format": "binary"}}
                for m in ("application/pdf", "image/png", "image/jpeg")
            },
        }
    },
)
@errors("document_tampered")
def read_psp_document(application_id: str, kind: str) -> Response[bytes]:
    """Download a KYB document

    The stored file, checked against its recorded SHA-256 first: 409 `document_tampered` when
    it no longer matches. Always an attachment (`Content-Disposition: attachment`, never shown
    by the browser in the management API's origin) with `X-Content-Type-Options: nosniff`."""
    media_type, content = psp_applications.read_document(application_id, kind)
    return Response(200, media_type, content, headers=download_headers(f"{kind}", media_type))


@app.put("/v1/admin/psps/<application_id>/logo")
@errors("invalid_logo", "already_submitted", "invalid_state", "rate_limited")
def put_psp_logo(application_id: str) -> answers.PspApplication:
    """Upload the PSP's logo

    The body is a PNG or JPEG (image/png, image/jpeg) of at most 512 KiB, square within 10%,
    128 to 2048 pixels a side; else 400 `invalid_logo` with the reasons in `errors`."""
    return psp_applications.put_logo(application_id, *_upload())


@app.post("/v1/admin/psps/<application_id>/logo/review")
@errors("invalid_logo", "already_submitted", "invalid_state")
def review_psp_logo(application_id: str, body: Annotated[LogoReviewIn, Body()]) -> answers.PspApplication:
    """Review the PSP's logo

    approve checks the stored logo again (400 `invalid_logo` when it no longer matches its
    checksum or decodes); reject asks for another one."""
    return psp_applications.review_logo(application_id, body.decision, body.reason)


@app.post("/v1/admin/psps/<application_id>/certification-runs")
@errors("certification_running", "invalid_state")
def start_psp_certification(application_id: str) -> Response[answers.CertificationRun]:
    """Start a certification run

    The connector script against the simulator; `running` until the simulated payer answers
    (3 s), then the first read finishes it. One at a time: 409 `certification_running`."""
    return created(psp_certification.start(application_id))


@app.get("/v1/admin/psps/<application_id>/certification-runs/<run_id>")
def read_psp_certification(application_id: str, run_id: str) -> answers.CertificationRun:
    """Read a certification run

    Each step's expected and observed outcome; a run whose payer has answered is finished by
    this read."""
    return psp_certification.read(application_id, run_id)


@app.post("/v1/admin/psps/<application_id>/approve")
@errors("document_tampered", "certification_running", "invalid_state")
def approve_psp_application(
    application_id: str, body: Annotated[ApplicationDecisionIn, Body()]
) -> answers.PspApplication:
    """Approve a PSP application

    Needs a passed certification run and every KYB document matching its checksum (409
    `document_tampered`); the PSP becomes routable: available, in pilot with the settings."""
    return psp_applications.approve(application_id, body.reason)


@app.post("/v1/admin/psps/<application_id>/reject")
@errors("invalid_state")
def reject_psp_application(
    application_id: str, body: Annotated[ApplicationDecisionIn, Body()]
) -> answers.PspApplication:
    """Reject a PSP application

    For good; its PSP's routing is untouched."""
    return psp_applications.reject(application_id, body.reason)


lambda_handler = handler_for(app)

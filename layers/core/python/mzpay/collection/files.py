"""Uploaded files (POST /v1/files): a business's logo, later its KYC documents. A file is
checked (type, first bytes, size) before anything is stored, kept under its account, and found
only through that account (docs/onboarding.md, "Files")."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.answers.collection_accounts import FileRef, UploadedFile
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.files import check_upload, form_parts
from mzpay.domain.common.ids import new_prefixed_id
from mzpay.steps.uploads import admit_upload


def view(record: dict[str, Any]) -> UploadedFile:
    """The answer of a stored file's record."""
    return UploadedFile(
        object="uploaded_file",
        id=record["file_id"],
        file_type=record["file_type"],
        file_size=int(record["file_size"]),
        file=FileRef(file_id=record["file_id"], bucket=record["bucket"]),
    )


def upload(account_id: str, body: bytes, content_type: str) -> UploadedFile:
    """Store the multipart body's `file` part as a file of `file_type` of the account."""
    form = form_parts(body, content_type)
    checked = check_upload(form.fields.get("file_type"), form.files.get("file"))
    admit_upload(account_id, checked.size)  # 429 rate_limited over the account's upload limits
    return view(deps.files().save(account_id, new_prefixed_id("file"), checked, now_iso()))

"""Evidence a merchant gives (a dispute's answer, a manual payment's proof): text and a few files,
each checked to be what it says it is by its first bytes (docs/disputes.md, docs/payments.md)."""

from __future__ import annotations

import base64
import binascii
from typing import Literal

from pydantic import Field

from mzpay.domain.common.errors import invalid_field
from mzpay.domain.common.files import SIGNATURES, Upload
from mzpay.domain.common.model import Strict, StrictText, examples

MAX_TEXT_LENGTH = 20_000
MAX_FILES = 3
MAX_FILE_BYTES = 2 * 1024 * 1024  # each file, decoded


class EvidenceFile(Strict):
    """A file of evidence (a receipt, a delivery note, a conversation): PDF, PNG or JPEG."""

    file_type: Literal["pdf", "png", "jpg", "jpeg"] = Field(
        description="What the file is (checked by its first bytes)."
    )
    content_base64: str = Field(
        max_length=(MAX_FILE_BYTES + 2) // 3 * 4, description="The file's bytes, base64 (at most 2 MiB decoded)."
    )


class EvidenceRequest(StrictText):
    """Evidence: what the merchant says, and up to 3 files (a dispute's answer, a manual payment's proof)."""

    model_config = examples(
        {
            "text": "Collected in our Maputo shop on 2026-11-20; the signed delivery note is attached.",
            "files": [{"file_type": "pdf", "content_base64": "JVBERi0xLjQK..."}],
        }
    )

    text: str = Field(
        min_length=1, max_length=MAX_TEXT_LENGTH, description="What the merchant says, at most 20000 characters."
    )
    files: list[EvidenceFile] = Field(default_factory=list, max_length=MAX_FILES, description="At most 3 files.")


def uploads(request: EvidenceRequest, prefix: str = "") -> list[Upload]:
    """The request's files, decoded and checked; 400 invalid_request naming the first bad one
    (`prefix`: where the evidence sits in the body, e.g. "evidence.")."""
    return [
        _upload(f"{prefix}files[{i}].content_base64", f.file_type, f.content_base64)
        for i, f in enumerate(request.files)
    ]


def _upload(field: str, file_type: str, content_base64: str) -> Upload:
    try:
        content = base64.b64decode(content_base64, validate=True)
    except (binascii.Error, ValueError):
        content = None
    if not content:
        raise invalid_field(field, "the file's bytes in base64")
    if len(content) > MAX_FILE_BYTES:
        raise invalid_field(field, f"at most {MAX_FILE_BYTES} bytes once decoded")
    if not content.startswith(SIGNATURES[file_type][0]):
        raise invalid_field(field, f"the content is not a {file_type} file")
    return Upload(file_type, content)

"""Uploaded files of the collection surface (POST /v1/files; docs/onboarding.md, "Files"): which
types are taken, how a file proves it is one (its first bytes), how big it may be, and the
multipart/form-data body that carries it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from typing import Any

from mzpay.domain.common.errors import FieldError, ServiceError

# API Gateway hands a Lambda at most 6 MB of event, and a binary body arrives base64 (4/3 of
# its size) with the rest of the event: 4 MiB of file is what always fits.
MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_FIELD_BYTES = 200  # every text part (file_type, reference, ...)

# file_type -> the magic bytes the content must start with, and its media type.
SIGNATURES: dict[str, tuple[bytes, str]] = {
    "png": (b"\x89PNG\r\n\x1a\n", "image/png"),
    "jpg": (b"\xff\xd8\xff", "image/jpeg"),
    "jpeg": (b"\xff\xd8\xff", "image/jpeg"),
    "pdf": (b"%PDF-", "application/pdf"),
}
IMAGE_TYPES = frozenset({"png", "jpg", "jpeg"})


class Checked:
    """A checked file's bytes (`content`, a field of the dataclass it is mixed into): their size
    and SHA-256."""

    content: bytes

    @property
    def size(self) -> int:
        return len(self.content)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


@dataclass(frozen=True)
class Upload(Checked):
    """A checked file: its type, bytes, size and SHA-256."""

    file_type: str
    content: bytes

    @property
    def media_type(self) -> str:
        return SIGNATURES[self.file_type][1]


def _invalid(field: str, code: str, message: str, **metadata: Any) -> ServiceError:
    kind = "missing_field" if code == "REQUIRED" else "validation_error"
    return ServiceError(400, kind, f"{field}: {message}", errors=[FieldError(field, code, message)], **metadata)


@dataclass(frozen=True)
class Form:
    """A multipart/form-data body: text fields, and file contents and names by field name."""

    fields: dict[str, str]
    files: dict[str, bytes]
    filenames: dict[str, str]

    def extension(self, name: str) -> str | None:
        """The extension of the file part `name`'s filename (logo.PNG -> png), if it has one."""
        filename = self.filenames.get(name, "")
        return filename.rsplit(".", 1)[1].lower() if "." in filename else None


def form_parts(body: bytes, content_type: str, max_field_bytes: int = MAX_FIELD_BYTES) -> Form:
    """The parts of a multipart/form-data body; 400 invalid_request when it is not one, or when a
    text part is longer than `max_field_bytes`."""
    if not content_type.lower().startswith("multipart/form-data"):
        raise ServiceError(400, "invalid_request", "The body must be multipart/form-data.")
    message = BytesParser(policy=policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\nMIME-Version: 1.0\r\n\r\n" + body
    )
    if not message.is_multipart():
        raise ServiceError(400, "invalid_request", "The multipart body could not be read.")
    fields: dict[str, str] = {}
    files: dict[str, bytes] = {}
    filenames: dict[str, str] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str) or not name:
            continue
        payload = part.get_payload(decode=True)
        content = payload if isinstance(payload, bytes) else b""
        filename = part.get_filename()
        if filename is not None:
            files[name] = content
            filenames[name] = filename
        else:
            if len(content) > max_field_bytes:
                raise _invalid(name, "INVALID_FORMAT", f"at most {max_field_bytes} bytes")
            try:
                fields[name] = content.decode("utf-8").strip()
            except UnicodeDecodeError:
                raise _invalid(name, "INVALID_FORMAT", "UTF-8 text") from None
    return Form(fields, files, filenames)


def check_upload(file_type: str | None, content: bytes | None, field: str = "file") -> Upload:
    """The upload if `content` is a file of `file_type` (png, jpg, jpeg, pdf) within
    MAX_FILE_BYTES; else 400 naming the problem."""
    if content is None:
        raise _invalid(field, "REQUIRED", "a file part is required")
    if not file_type:
        raise _invalid("file_type", "REQUIRED", "the file's extension: png, jpg, jpeg or pdf")
    kind = file_type.lower().lstrip(".")
    if kind not in SIGNATURES:
        raise _invalid("file_type", "INVALID_FORMAT", "one of png, jpg, jpeg, pdf")
    if not content:
        raise _invalid(field, "INVALID_FORMAT", "the file is empty")
    if len(content) > MAX_FILE_BYTES:
        raise _invalid(field, "INVALID_FORMAT", f"at most {MAX_FILE_BYTES} bytes", max_bytes=MAX_FILE_BYTES)
    magic = SIGNATURES[kind][0]
    if not content.startswith(magic):
        raise _invalid(field, "VERIFICATION_FAILED", f"the content is not a {kind} file")
    return Upload(kind, content)

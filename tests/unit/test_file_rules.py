"""Uploaded files, the pure part (mzpay.domain.common.files): the multipart body, the type by its first
bytes, the size cap."""

from __future__ import annotations

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.files import MAX_FILE_BYTES, check_upload, form_parts

BOUNDARY = "----mzpay"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\xff" * 16
JPG = b"\xff\xd8\xff\xe0" + b"\x00" * 16


def multipart(*parts: tuple[str, bytes, str | None]) -> bytes:
    out = b""
    for name, content, filename in parts:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        out += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + content + b"\r\n"
    return out + f"--{BOUNDARY}--\r\n".encode()


def refusal(call: object) -> tuple[int, str, list[tuple[str, str]]]:
    with pytest.raises(ServiceError) as caught:
        call()  # type: ignore[operator]
    return caught.value.status, caught.value.code, [(e.field, e.code) for e in caught.value.errors]


def test_the_parts_come_back_byte_for_byte() -> None:
    body = multipart(("file_type", b" png ", None), ("file", PNG, "logo.png"))
    form = form_parts(body, f"multipart/form-data; boundary={BOUNDARY}")
    assert (form.fields, form.files, form.filenames) == ({"file_type": "png"}, {"file": PNG}, {"file": "logo.png"})
    assert (form.extension("file"), form.extension("other")) == ("png", None)


def test_a_body_that_is_not_multipart_is_refused() -> None:
    assert refusal(lambda: form_parts(b"{}", "application/json")) == (400, "invalid_request", [])


def test_a_long_text_part_is_refused() -> None:
    body = multipart(("file_type", b"p" * 201, None))
    assert refusal(lambda: form_parts(body, f"multipart/form-data; boundary={BOUNDARY}")) == (
        400,
        "validation_error",
        [("file_type", "INVALID_FORMAT")],
    )


@pytest.mark.parametrize(("file_type", "content"), [("png", PNG), ("jpg", JPG), ("JPEG", JPG), ("pdf", b"%PDF-1.4")])
def test_a_file_whose_first_bytes_match_its_type_is_taken(file_type: str, content: bytes) -> None:
    upload = check_upload(file_type, content)
    assert (upload.file_type, upload.size) == (file_type.lower(), len(content))
    assert len(upload.sha256) == 64


@pytest.mark.parametrize(
    ("file_type", "content", "expected"),
    [
        ("png", JPG, (400, "validation_error", [("file", "VERIFICATION_FAILED")])),
        ("pdf", PNG, (400, "validation_error", [("file", "VERIFICATION_FAILED")])),
        ("exe", PNG, (400, "validation_error", [("file_type", "INVALID_FORMAT")])),
        ("png", b"", (400, "validation_error", [("file", "INVALID_FORMAT")])),
        ("png", PNG + b"\x00" * MAX_FILE_BYTES, (400, "validation_error", [("file", "INVALID_FORMAT")])),
        (None, PNG, (400, "missing_field", [("file_type", "REQUIRED")])),
        ("png", None, (400, "missing_field", [("file", "REQUIRED")])),
    ],
)
def test_anything_else_is_refused_naming_the_field(
    file_type: str | None, content: bytes | None, expected: tuple[int, str, list[tuple[str, str]]]
) -> None:
    assert refusal(lambda: check_upload(file_type, content)) == expected

"""How a stored file (a document someone uploaded) is answered: always as an attachment with
`X-Content-Type-Options: nosniff`, so that a browser saves it rather than shows it in the API's
origin, and never guesses a type other than the one recorded (a PDF that is really HTML runs no
script here)."""

from __future__ import annotations

import re

_EXTENSIONS = {"application/pdf": "pdf", "image/png": "png", "image/jpeg": "jpg"}
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def download_headers(name: str, media_type: str) -> dict[str, str]:
    """The headers of a stored file's download, saved as `name` (letters, digits, `_`, `-` kept;
    the extension of `media_type` added)."""
    stem = _UNSAFE.sub("_", name)[:64] or "document"
    extension = _EXTENSIONS.get(media_type.split(";", 1)[0].strip().lower())
    filename = f"{stem}.{extension}" if extension else stem
    return {
        "Cache-Control": "no-store",
        "Content-Disposition": f'attachment; filename="{filename}"',
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
    }

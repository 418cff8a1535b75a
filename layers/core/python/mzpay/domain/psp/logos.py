"""A PSP's logo (docs/psp-onboarding.md, "Logo"): a PNG or JPEG of at most 512 KiB, square
(sides within 10% of each other) and 128 to 2048 pixels a side, decoded whole with Pillow so
that a file that only starts like an image is refused too. Every refusal is 400 invalid_logo with
its reasons in errors[]."""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.files import Checked

MEDIA_TYPES = {"image/png": "PNG", "image/jpeg": "JPEG"}
MAX_LOGO_BYTES = 512 * 1024
MIN_SIDE = 128
MAX_SIDE = 2048
MAX_ASPECT = 1.10  # the longer side at most 10% longer than the shorter


@dataclass(frozen=True)
class Logo(Checked):
    """A checked logo."""

    media_type: str
    content: bytes
    width: int
    height: int

    @property
    def extension(self) -> str:
        return "png" if self.media_type == "image/png" else "jpg"


def _problem(code: str, message: str) -> FieldError:
    return FieldError("logo", code, message)


def refusal(problems: list[FieldError]) -> ServiceError:
    words = "; ".join(problem.message for problem in problems)
    return ServiceError(400, "invalid_logo", f"The logo is refused: {words}.", errors=problems)


def checked_logo(media_type: str, content: bytes) -> Logo:
    """The logo if it is one, else 400 invalid_logo naming every reason found."""
    if media_type not in MEDIA_TYPES:
        raise refusal(
            [_problem("unsupported_type", f"a PNG or JPEG sent as image/png or image/jpeg, not {media_type!r}")]
        )
    if len(content) > MAX_LOGO_BYTES:
        raise refusal([_problem("too_large", f"at most {MAX_LOGO_BYTES} bytes, not {len(content)}")])
    width, height, decoded_as = _decode(content)
    problems = []
    if decoded_as != MEDIA_TYPES[media_type]:
        problems.append(_problem("type_mismatch", f"the content is {decoded_as}, not {MEDIA_TYPES[media_type]}"))
    if min(width, height) < MIN_SIDE or max(width, height) > MAX_SIDE:
        problems.append(_problem("dimensions", f"{MIN_SIDE} to {MAX_SIDE} pixels a side, not {width}x{height}"))
    if max(width, height) > MAX_ASPECT * min(width, height):
        problems.append(_problem("not_square", f"square (sides within 10%), not {width}x{height}"))
    if problems:
        raise refusal(problems)
    return Logo(media_type, content, width, height)


def _decode(content: bytes) -> tuple[int, int, str]:
    """(width, height, format) of an image Pillow decodes whole; 400 invalid_logo otherwise. The
    size is read from the header first, so an image too big to decode is refused undecoded."""
    from PIL import Image, UnidentifiedImageError

    undecodable = refusal([_problem("undecodable", "a PNG or JPEG image that decodes")])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(content), formats=list(MEDIA_TYPES.values())) as image:
                width, height = image.size
                if max(width, height) > MAX_SIDE:
                    return width, height, str(image.format)
                image.load()
                return width, height, str(image.format)
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise undecodable from exc
    except Image.DecompressionBombWarning as exc:
        raise undecodable from exc

"""Page tokens (mzpay.domain.common.page_tokens): a list's start key, opaque, and taken back only when
the list accepts it."""

from __future__ import annotations

import base64

import pytest

from mzpay.domain.common import page_tokens

KEY = {"pk": "CR#cr_1", "sk": "CR", "gsi1pk": "CRACC#a", "gsi1sk": "cr_1"}


def test_a_token_gives_back_the_key_it_was_made_of() -> None:
    token = page_tokens.encode(KEY)
    assert "=" not in token and "{" not in token
    assert page_tokens.decode(token, lambda key: key["gsi1pk"] == "CRACC#a") == KEY


@pytest.mark.parametrize(
    "token",
    [
        "not base64 !",
        base64.urlsafe_b64encode(b"[1, 2]").decode(),  # JSON, not an object
        base64.urlsafe_b64encode(b'{"pk": 1}').decode(),  # a value that is not a string
        base64.urlsafe_b64encode(b'{"pk": "x"}').decode(),  # the list's check raises KeyError
        base64.urlsafe_b64encode(b"\xff\xfe").decode(),  # not UTF-8
        page_tokens.encode({**KEY, "gsi1pk": "CRACC#another"}),  # another list's key
    ],
)
def test_anything_else_is_refused(token: str) -> None:
    assert page_tokens.decode(token, lambda key: key["gsi1pk"] == "CRACC#a") is None

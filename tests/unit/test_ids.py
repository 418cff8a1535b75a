"""Ids: canonical ULIDs, bare on the gateway and `<prefix>_<ULID>` on the collection surface."""

from __future__ import annotations

import re
import time

import pytest
from ulid import ULID

from mzpay.domain.common.ids import has_prefix, is_ulid, new_id, new_prefixed_id

CANONICAL_ULID = re.compile(r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$")
VALID = "01JD3M6Y8Q7T3Y5F0ZC9W3B2KX"


def test_new_id_is_a_canonical_26_character_ulid() -> None:
    value = new_id()
    assert isinstance(value, str)
    assert len(value) == 26
    assert CANONICAL_ULID.match(value)
    assert is_ulid(value) is True
    assert str(ULID.from_str(value)) == value


def test_new_id_carries_the_creation_time() -> None:
    before = time.time()
    value = new_id()
    after = time.time()
    assert int(before * 1000) <= ULID.from_str(value).milliseconds <= int(after * 1000)


def test_new_ids_sort_by_creation_time() -> None:
    first = new_id()
    time.sleep(0.005)
    second = new_id()
    time.sleep(0.005)
    third = new_id()
    assert sorted([third, first, second]) == [first, second, third]
    assert len({first, second, third}) == 3


def test_new_ids_are_unique() -> None:
    values = {new_id() for _ in range(1000)}
    assert len(values) == 1000


def test_new_prefixed_id_is_prefix_underscore_ulid() -> None:
    value = new_prefixed_id("cr")
    assert re.fullmatch(r"cr_[0-9A-Z]{26}", value)
    assert is_ulid(value[3:]) is True
    assert has_prefix(value, "cr") is True


@pytest.mark.parametrize("prefix", ["ba", "idp", "lic", "cust"])
def test_new_prefixed_id_accepts_two_to_four_lower_case_letters(prefix: str) -> None:
    value = new_prefixed_id(prefix)
    assert re.fullmatch(rf"{prefix}_[0-9A-Z]{{26}}", value)
    assert has_prefix(value, prefix) is True


@pytest.mark.parametrize("prefix", ["", "c", "CR", "Cr", "abcde", "c1", "cr_", "cr-", " cr", "cr\n", "çr"])
def test_new_prefixed_id_refuses_invalid_prefixes(prefix: str) -> None:
    with pytest.raises(ValueError, match="id prefix must be 2-4 lower-case letters"):
        new_prefixed_id(prefix)


@pytest.mark.parametrize(
    ("value", "prefix"),
    [
        (f"cr_{VALID}", "ba"),
        (f"crx_{VALID}", "cr"),
        (VALID, "cr"),
        (f"cr{VALID}", "cr"),
        (f"cr-{VALID}", "cr"),
        (f"cr_{VALID.lower()}", "cr"),
        (f"cr_{VALID}X", "cr"),
        (f"cr_{VALID}\n", "cr"),
        ("cr_", "cr"),
        (None, "cr"),
        (123, "cr"),
    ],
)
def test_has_prefix_refuses_other_prefixes_and_malformed_ids(value: object, prefix: str) -> None:
    assert has_prefix(value, prefix) is False


def test_is_ulid_accepts_the_canonical_form() -> None:
    assert is_ulid(VALID) is True
    assert is_ulid("0" * 26) is True
    assert is_ulid("7" + "Z" * 25) is True


@pytest.mark.parametrize(
    "value",
    [
        VALID.lower(),
        VALID[:-1],
        VALID + "0",
        "",
        "I" + VALID[1:],
        VALID[:-1] + "I",
        VALID[:-1] + "L",
        VALID[:-1] + "O",
        VALID[:-1] + "U",
        "8" + VALID[1:],  # above the largest ULID (48-bit timestamp overflow)
        VALID[:-1] + "-",
        " " + VALID[1:],
        VALID + "\n",
        None,
        123,
        VALID.encode(),
        ULID.from_str(VALID),
    ],
)
def test_is_ulid_refuses_non_canonical_values(value: object) -> None:
    assert is_ulid(value) is False

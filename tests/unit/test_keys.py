"""API keys: shape, checksum, redaction, keyed hash and when a stored key may be used."""

from __future__ import annotations

import random
import re
import types
from datetime import UTC, datetime, timedelta

import pytest

from mzpay.domain.access import keys
from mzpay.domain.access.keys import (
    DEFAULT_SCOPES,
    SCOPES,
    KeyStatus,
    KeyUse,
    checksum,
    generate_key,
    key_hash,
    key_mode,
    key_use,
    looks_like_key,
    redacted,
    unknown_scopes,
)

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
# A fixed key, built the way generate_key builds one, so that every run checks the same text.
FIXED_BODY = "mzp_test_" + "aZ09bY18cX27dW36eV45fU54gT63hS72"
FIXED_KEY = FIXED_BODY + checksum(FIXED_BODY)


@pytest.fixture
def seeded_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """A key from generate_key itself, with its randomness seeded (the same key every run)."""
    monkeypatch.setattr(keys, "secrets", types.SimpleNamespace(choice=random.Random(20260301).choice))
    return generate_key("live")


# ---------------------------------------------------------------- shape and mode
@pytest.mark.parametrize("mode", ["test", "live"])
def test_generated_keys_have_the_prefix_the_mode_and_38_base62_characters(mode: str) -> None:
    for _ in range(50):
        key = generate_key(mode)
        assert re.fullmatch(rf"mzp_{mode}_[0-9A-Za-z]{{38}}", key), key
        assert len(key) == len(f"mzp_{mode}_") + 38
        assert key[-6:] == checksum(key[:-6])
        assert key_mode(key) == mode


def test_generated_keys_differ() -> None:
    assert len({generate_key("test") for _ in range(200)}) == 200


def test_generate_key_refuses_an_unknown_mode() -> None:
    with pytest.raises(ValueError, match=r"^mode must be one of \('test', 'live'\)$"):
        generate_key("prod")


def test_the_checksum_is_six_base62_characters_of_crc32() -> None:
    assert checksum("") == "000000"  # crc32("") == 0
    # crc32("a") == 3904355907 == 4*62**5 + 16*62**4 + 14*62**3 + 17*62**2 + 20*62 + 23
    assert checksum("a") == "4GEHKN"
    assert re.fullmatch(r"[0-9A-Za-z]{6}", checksum(FIXED_BODY))
    assert key_mode(FIXED_KEY) == "test"


def test_the_seeded_key_is_a_live_key(seeded_key: str) -> None:
    assert re.fullmatch(r"mzp_live_[0-9A-Za-z]{38}", seeded_key)
    assert key_mode(seeded_key) == "live"


# ---------------------------------------------------------------- the checksum catches typos
def _substitutions(key: str) -> list[str]:
    """Every key that differs from `key` in exactly one character of its random+checksum part."""
    start = len("mzp_test_")
    variants = []
    for position in range(start, len(key)):
        for replacement in BASE62:
            if replacement != key[position]:
                variants.append(key[:position] + replacement + key[position + 1 :])
    return variants


def _adjacent_transpositions(key: str) -> list[str]:
    start = len("mzp_test_")
    return [key[:i] + key[i + 1] + key[i] + key[i + 2 :] for i in range(start, len(key) - 1) if key[i] != key[i + 1]]


@pytest.mark.parametrize("key_name", ["fixed", "seeded"])
def test_every_single_character_substitution_is_caught(key_name: str, seeded_key: str) -> None:
    key = FIXED_KEY if key_name == "fixed" else seeded_key
    variants = _substitutions(key)
    assert len(variants) == 38 * 61
    missed = [variant for variant in variants if key_mode(variant) is not None]
    assert missed == []


@pytest.mark.parametrize("key_name", ["fixed", "seeded"])
def test_every_transposition_of_adjacent_different_characters_is_caught(key_name: str, seeded_key: str) -> None:
    key = FIXED_KEY if key_name == "fixed" else seeded_key
    variants = _adjacent_transpositions(key)
    assert len(variants) >= 30  # both keys have few equal neighbours
    missed = [variant for variant in variants if key_mode(variant) is not None]
    assert missed == []


def test_substitutions_of_many_generated_keys_are_caught() -> None:
    for _ in range(20):
        key = generate_key("test")
        assert [variant for variant in _substitutions(key) if key_mode(variant) is not None] == []


@pytest.mark.parametrize(
    "token",
    [
        "",
        "mzp_",
        FIXED_KEY.replace("mzp_", "mzq_", 1),  # wrong prefix
        FIXED_KEY.replace("mzp_", "MZP_", 1),
        FIXED_KEY.replace("_test_", "_live_", 1),  # other mode: the checksum covers it
        FIXED_KEY.replace("_test_", "_prod_", 1),  # unknown mode
        FIXED_KEY.replace("mzp_test_", "mzp_test", 1),  # separator missing
        FIXED_KEY[:-1],  # one short
        FIXED_KEY + "0",  # one long
        FIXED_KEY[:-6],  # no checksum
        FIXED_BODY + "0" + checksum(FIXED_BODY + "0"),  # 33 random characters, valid crc of them
        FIXED_BODY[:-1] + checksum(FIXED_BODY[:-1]),  # 31 random characters, valid crc of them
        FIXED_KEY[:20] + "-" + FIXED_KEY[21:],  # not base62
        " " + FIXED_KEY,
        FIXED_KEY + "\n",
        f"Bearer {FIXED_KEY}",
    ],
)
def test_malformed_keys_have_no_mode(token: str) -> None:
    assert key_mode(token) is None


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        (FIXED_KEY, True),
        ("mzp_", True),
        ("mzp_anything", True),
        ("mzp", False),
        ("mzq_test_abc", False),
        ("MZP_test_abc", False),
        ("sk_live_abc", False),
        ("", False),
        (" mzp_test_abc", False),
    ],
)
def test_looks_like_key_checks_the_prefix_only(token: str, expected: bool) -> None:
    assert looks_like_key(token) is expected


# ---------------------------------------------------------------- redaction and hashing
def test_redacted_shows_only_the_prefix_mode_and_last_four_characters() -> None:
    assert redacted(FIXED_KEY) == f"mzp_test_...{FIXED_KEY[-4:]}"
    live = generate_key("live")
    assert redacted(live) == f"mzp_live_...{live[-4:]}"
    assert live[9:-4] not in redacted(live)
    assert len(redacted(live)) == len("mzp_live_...") + 4


def test_key_hash_is_hmac_sha256_hex_and_deterministic() -> None:
    first = key_hash(FIXED_KEY, "pepper-1")
    assert re.fullmatch(r"[0-9a-f]{64}", first)
    assert key_hash(FIXED_KEY, "pepper-1") == first
    assert key_hash(FIXED_KEY, "pepper-2") != first
    assert key_hash(generate_key("test"), "pepper-1") != first
    assert FIXED_KEY not in first
    import hashlib
    import hmac

    assert first == hmac.new(b"pepper-1", FIXED_KEY.encode(), hashlib.sha256).hexdigest()


# ---------------------------------------------------------------- when a stored key may be used
@pytest.mark.parametrize(
    ("status", "expires_at", "expected"),
    [
        (KeyStatus.ACTIVE, None, KeyUse(True, "")),
        (KeyStatus.ACTIVE, NOW + timedelta(seconds=1), KeyUse(True, "")),
        (KeyStatus.ACTIVE, NOW, KeyUse(False, "key_expired")),  # the boundary is expired
        (KeyStatus.ACTIVE, NOW - timedelta(seconds=1), KeyUse(False, "key_expired")),
        (KeyStatus.ROLLED, NOW + timedelta(hours=23), KeyUse(True, "")),  # inside its overlap
        (KeyStatus.ROLLED, NOW, KeyUse(False, "key_expired")),
        (KeyStatus.ROLLED, NOW - timedelta(days=1), KeyUse(False, "key_expired")),
        (KeyStatus.REVOKED, None, KeyUse(False, "unauthorized")),
        (KeyStatus.REVOKED, NOW + timedelta(days=1), KeyUse(False, "unauthorized")),
        (KeyStatus.REVOKED, NOW - timedelta(days=1), KeyUse(False, "unauthorized")),  # revoked wins
    ],
)
def test_key_use(status: str, expires_at: datetime | None, expected: KeyUse) -> None:
    assert key_use(status, expires_at, NOW) == expected


def test_scopes() -> None:
    assert unknown_scopes([]) == []
    assert unknown_scopes(list(SCOPES)) == []
    assert unknown_scopes(("payments:read", "payments:delete", "PAYMENTS:READ", "", "payments:read")) == [
        "payments:delete",
        "PAYMENTS:READ",
        "",
    ]
    assert "accounts:write" in SCOPES
    assert "accounts:write" not in DEFAULT_SCOPES
    assert set(DEFAULT_SCOPES) == set(SCOPES) - {"accounts:write"}

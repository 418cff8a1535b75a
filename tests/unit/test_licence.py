"""Licence rules: the issuer key from configuration, verifying a key, statuses, claims."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import jwt
import pytest

from devstack.licence import generate_issuer_key, issue_licence, one_line
from mzpay.domain.collection.licence import (
    IssuerKeyError,
    LicenceStatus,
    licence_from_claims,
    load_issuer_key,
    verify_licence_key,
)

PRIVATE, PUBLIC = generate_issuer_key()
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
ISSUER = "mzpay-licensing"


def key(**options: object) -> str:
    options.setdefault("issued_to", "Banco Teste")
    options.setdefault("issued_at", int(NOW.timestamp()) - 60)
    return issue_licence(PRIVATE, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [PUBLIC, one_line(PUBLIC), PUBLIC.replace("\n", "\\n"), "".join(PUBLIC.splitlines()[1:-1])],
    ids=["pem", "one-line", "escaped-newlines", "bare-base64"],
)
def test_the_issuer_key_reads_in_every_form_a_parameter_can_hold(text: str) -> None:
    assert load_issuer_key(text).algorithms == ("EdDSA",)
    assert load_issuer_key(text).fingerprint == load_issuer_key(PUBLIC).fingerprint


@pytest.mark.parametrize("text", ["", "   ", "-----BEGIN PUBLIC KEY----- !!! -----END PUBLIC KEY-----", "aGVsbG8="])
def test_a_missing_or_broken_issuer_key_is_an_error(text: str) -> None:
    with pytest.raises(IssuerKeyError):
        load_issuer_key(text)


def test_a_valid_key_is_active_with_its_claims() -> None:
    verdict = verify_licence_key(
        key(metadata={"tier": "gold"}, capabilities=["kyc:read"]), load_issuer_key(PUBLIC), ISSUER, NOW
    )
    assert (verdict.valid, verdict.status, verdict.reason) == (True, LicenceStatus.ACTIVE, None)
    assert verdict.licence is not None
    view = verdict.licence.view(verdict.status)
    assert view["status"] == "active" and view["capabilities"] == ["kyc:read"] and view["metadata"] == {"tier": "gold"}
    assert view["issued_to"] == "Banco Teste" and view["issuer"] == ISSUER and view["id"].startswith("lic_")
    assert verdict.licence.allows("kyc:read") and not verdict.licence.allows("kyc:write")


def test_expiry_is_exact_to_the_second() -> None:
    licence_key = key(lifetime_seconds=3600)
    issuer_key = load_issuer_key(PUBLIC)
    expires = NOW - timedelta(seconds=60) + timedelta(seconds=3600)
    assert verify_licence_key(licence_key, issuer_key, ISSUER, expires - timedelta(seconds=1)).valid
    late = verify_licence_key(licence_key, issuer_key, ISSUER, expires)
    assert (late.status, late.reason, late.licence is not None) == (LicenceStatus.EXPIRED, "expired", True)


@pytest.mark.parametrize(
    ("licence_key", "reason", "described"),
    [
        ("nope", "malformed", False),
        (issue_licence(generate_issuer_key()[0], issued_to="x"), "invalid_signature", True),
        (key(issuer="other"), "wrong_issuer", True),
        (key(extra_claims={"metadata": ["not", "a", "map"]}), "invalid_claims", False),
        (
            jwt.encode({"sub": "x"}, "secret-secret-secret-secret-32b!", algorithm="HS256"),
            "unsupported_algorithm",
            False,
        ),
    ],
    ids=["malformed", "signature", "issuer", "claims", "hmac"],
)
def test_what_makes_a_key_invalid(licence_key: str, reason: str, described: bool) -> None:
    verdict = verify_licence_key(licence_key, load_issuer_key(PUBLIC), ISSUER, NOW)
    assert (verdict.valid, verdict.status, verdict.reason) == (False, LicenceStatus.INVALID, reason)
    assert (verdict.licence is not None) is described


@pytest.mark.parametrize("missing", ["jti", "sub", "iss", "iat", "exp", "capabilities"])
def test_every_required_claim_is_required(missing: str) -> None:
    claims = {"jti": "lic_1", "sub": "x", "iss": ISSUER, "iat": 1, "exp": 2, "capabilities": []}
    assert licence_from_claims(claims) is not None
    del claims[missing]
    assert licence_from_claims(claims) is None


def test_claims_of_the_wrong_type_describe_no_licence() -> None:
    base = {"jti": "lic_1", "sub": "x", "iss": ISSUER, "iat": 1, "exp": 2, "capabilities": ["a"]}
    for bad in ({"iat": "yesterday"}, {"exp": True}, {"capabilities": [1]}, {"jti": ""}, {"metadata": "x"}):
        assert licence_from_claims({**base, **bad}) is None, bad

"""Webhook signatures: ``Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>``."""

from __future__ import annotations

import ast
import hashlib
import hmac
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mzpay.webhooks as webhooks
from mzpay.webhooks import DEFAULT_TOLERANCE, SignatureError, sign, verify
from mzpay.webhooks import signing as signing_module

T = 1_700_000_000
BODY = b'{"id":"evt_01JD3M6Y8Q7T3Y5F0ZC9W3B2KX","type":"payment.succeeded","data":{"amount":"150.00"}}'
OLD = "whsec_old_5hY2kQ9xVb3nLm8PzR1tWc4aE7dFg6jH"
NEW = "whsec_new_Aq1Sw2De3Fr4Gt5Hy6Ju7Ki8Lo9P0zXc"
OTHER = "whsec_other_not_configured_anywhere_000"


def independent_v1(secret: str, t: int, body: bytes) -> str:
    """The spec formula, written out without the module under test."""
    return hmac.new(secret.encode("utf-8"), f"{t}.".encode() + body, hashlib.sha256).hexdigest()


def assert_error(exc: pytest.ExceptionInfo[SignatureError], code: str, t: int | None) -> None:
    assert type(exc.value) is SignatureError
    assert (exc.value.code, exc.value.t) == (code, t)
    assert isinstance(exc.value.message, str) and exc.value.message
    assert str(exc.value) == exc.value.message


def refused(header: str, body: bytes = BODY, secret: str = OLD, **options: Any) -> pytest.ExceptionInfo[SignatureError]:
    """What verify raises for `body` under `header` with `secret` (at T unless `now` is given)."""
    with pytest.raises(SignatureError) as exc:
        verify(body, header, [secret], **{"now": T, **options})
    return exc


# ---------------------------------------------------------------- exports
def test_package_exports() -> None:
    assert set(webhooks.__all__) == {"sign", "verify", "SignatureError", "DEFAULT_TOLERANCE"}
    assert DEFAULT_TOLERANCE == 300
    assert issubclass(SignatureError, Exception)


# ---------------------------------------------------------------- independent implementation
def test_sign_matches_an_independent_implementation_of_the_formula() -> None:
    expected = f"t={T},v1={independent_v1(OLD, T, BODY)}"
    assert sign(BODY, [OLD], T) == expected
    # Known-answer vector, so the formula itself is pinned (not only self-consistency).
    assert independent_v1("whsec_test", 1700000000, b"{}") == (
        hmac.new(b"whsec_test", b"1700000000.{}", hashlib.sha256).hexdigest()
    )


def test_sign_with_two_secrets_matches_independent_header_in_order() -> None:
    expected = f"t={T},v1={independent_v1(NEW, T, BODY)},v1={independent_v1(OLD, T, BODY)}"
    assert sign(BODY, [NEW, OLD], T) == expected
    assert sign(BODY, iter([NEW, OLD]), T) == expected  # any iterable


def test_verify_accepts_a_header_built_independently() -> None:
    header = f"t={T},v1={independent_v1(NEW, T, BODY)}"
    assert verify(BODY, header, [NEW], now=T) == T


def test_the_whole_secret_string_including_prefix_is_the_key() -> None:
    stripped = OLD.removeprefix("whsec_")
    header = sign(BODY, [OLD], T)
    assert header != f"t={T},v1={independent_v1(stripped, T, BODY)}"
    assert_error(refused(header, secret=stripped), "signature_invalid", T)


def test_str_payload_is_utf8_encoded() -> None:
    text = '{"description":"Pagamento à Mcel — 150,00 MT"}'
    header = sign(text, [OLD], T)
    assert header == sign(text.encode("utf-8"), [OLD], T)
    assert header == f"t={T},v1={independent_v1(OLD, T, text.encode('utf-8'))}"
    assert verify(text.encode("utf-8"), header, [OLD], now=T) == T
    assert verify(text, header, [OLD], now=T) == T


# ---------------------------------------------------------------- round trips and rolls
def test_round_trip() -> None:
    assert verify(BODY, sign(BODY, [OLD], T), [OLD], now=T) == T


def test_round_trip_uses_the_clock_by_default() -> None:
    import time

    t = int(time.time())
    assert verify(BODY, sign(BODY, [OLD], t), [OLD]) == t


def test_two_signatures_each_verify_with_either_secret_alone() -> None:
    header = sign(BODY, [OLD, NEW], T)
    assert header.count("v1=") == 2
    assert verify(BODY, header, [OLD], now=T) == T
    assert verify(BODY, header, [NEW], now=T) == T
    assert verify(BODY, header, [OTHER, NEW], now=T) == T


def test_roll_receiver_knows_only_the_new_secret() -> None:
    # During the overlap we sign with the new and the previous secret; a receiver that has
    # already deployed the new secret (and dropped the old) still verifies.
    header = sign(BODY, [NEW, OLD], T)
    assert verify(BODY, header, [NEW], now=T + 10) == T
    # ... and one that still has only the old secret also verifies.
    assert verify(BODY, header, [OLD], now=T + 10) == T


# ---------------------------------------------------------------- rejections
def test_tampered_body_is_rejected() -> None:
    header = sign(BODY, [OLD], T)
    tampered = BODY.replace(b"150.00", b"950.00")
    assert_error(refused(header, body=tampered), "signature_invalid", T)


def test_tampered_timestamp_is_rejected() -> None:
    header = sign(BODY, [OLD], T).replace(f"t={T}", f"t={T + 1}")
    assert_error(refused(header), "signature_invalid", T + 1)


def test_wrong_secret_is_rejected() -> None:
    assert_error(refused(sign(BODY, [OLD], T), secret=OTHER), "signature_invalid", T)


def test_missing_t_is_invalid() -> None:
    header = f"v1={independent_v1(OLD, T, BODY)}"
    assert_error(refused(header), "signature_invalid", None)


def test_missing_v1_is_invalid_and_keeps_t() -> None:
    assert_error(refused(f"t={T}"), "signature_invalid", T)


def test_only_unknown_schemes_is_invalid() -> None:
    header = f"t={T},v0={independent_v1(OLD, T, BODY)}"
    assert_error(refused(header), "signature_invalid", T)


@pytest.mark.parametrize(
    "t", ["abc", "", "1700000000.5", "1e9", "0x10", "+1700000000", "\u0661\u0667" + "\u0660" * 8, "9" * 5000]
)
def test_non_integer_t_is_invalid(t: str) -> None:
    header = f"t={t},v1={independent_v1(OLD, T, BODY)}"
    assert_error(refused(header), "signature_invalid", None)


@pytest.mark.parametrize("header", ["", "   ", ",,,", "garbage"])
def test_empty_or_garbage_header_is_invalid(header: str) -> None:
    assert_error(refused(header), "signature_invalid", None)


def test_duplicate_t_is_invalid() -> None:
    header = f"t={T},t={T + 5},v1={independent_v1(OLD, T, BODY)}"
    assert_error(refused(header), "signature_invalid", None)


def test_non_hex_v1_does_not_crash_and_is_invalid() -> None:
    header = f"t={T},v1=ünïcødé,v1={'z' * 64}"
    assert_error(refused(header), "signature_invalid", T)


# ---------------------------------------------------------------- tolerance
def test_stale_timestamp_boundary() -> None:
    header = sign(BODY, [OLD], T)
    assert verify(BODY, header, [OLD], tolerance=300, now=T + 300) == T
    assert_error(refused(header, tolerance=300, now=T + 301), "signature_timestamp_outside_tolerance", T)


def test_default_tolerance_is_300_seconds() -> None:
    header = sign(BODY, [OLD], T)
    assert verify(BODY, header, [OLD], now=T + 300) == T
    assert_error(refused(header, now=T + 301), "signature_timestamp_outside_tolerance", T)


def test_future_timestamp_boundary() -> None:
    header = sign(BODY, [OLD], T)
    assert verify(BODY, header, [OLD], now=T - 300) == T
    assert_error(refused(header, now=T - 301), "signature_timestamp_outside_tolerance", T)


def test_zero_tolerance_requires_the_exact_second() -> None:
    header = sign(BODY, [OLD], T)
    assert verify(BODY, header, [OLD], tolerance=0, now=T) == T
    assert_error(refused(header, tolerance=0, now=T + 1), "signature_timestamp_outside_tolerance", T)


def test_tolerance_is_checked_before_matching() -> None:
    # Stale and signed with a secret the receiver does not have: the timestamp error wins.
    header = sign(BODY, [OTHER], T)
    assert_error(refused(header, now=T + 10_000), "signature_timestamp_outside_tolerance", T)


def test_negative_tolerance_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        verify(BODY, sign(BODY, [OLD], T), [OLD], tolerance=-1, now=T)


# ---------------------------------------------------------------- parsing leniency
def test_spaces_around_items_and_unknown_schemes_are_tolerated() -> None:
    v0 = "0" * 64
    v1 = independent_v1(OLD, T, BODY)
    header = f"  t = {T} , v0={v0},  v1 = {v1}  ,"
    assert verify(BODY, header, [OLD], now=T) == T


def test_order_of_items_does_not_matter() -> None:
    header = f"v1={independent_v1(NEW, T, BODY)},t={T}"
    assert verify(BODY, header, [NEW], now=T) == T


# ---------------------------------------------------------------- caller mistakes
def test_a_single_string_as_secrets_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        sign(BODY, OLD, T)
    with pytest.raises(TypeError):
        verify(BODY, sign(BODY, [OLD], T), OLD, now=T)


def test_no_secrets_or_empty_secret_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        sign(BODY, [], T)
    with pytest.raises(ValueError):
        sign(BODY, [""], T)
    with pytest.raises(ValueError):
        verify(BODY, sign(BODY, [OLD], T), [], now=T)


# ---------------------------------------------------------------- standalone (merchants copy the file)
MODULE_DIR = Path(signing_module.__file__).parent


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"relative import in {path.name}"
            names.add(node.module or "")
    return names


def test_signing_module_imports_only_the_standard_library() -> None:
    imported = _imported_modules(MODULE_DIR / "signing.py")
    assert imported  # sanity: the walk found the imports
    for name in imported:
        top = name.split(".")[0]
        assert top not in {"mzpay", "boto3", "botocore"}, name
        assert top in sys.stdlib_module_names or top == "__future__", name


def test_package_init_imports_only_the_signing_module() -> None:
    assert _imported_modules(MODULE_DIR / "__init__.py") == {"mzpay.webhooks.signing"}


def test_signing_file_works_as_a_standalone_copy_without_boto3_or_mzpay() -> None:
    script = f"""
import importlib.util, sys
sys.modules["boto3"] = None
sys.modules["botocore"] = None
sys.modules["mzpay"] = None
spec = importlib.util.spec_from_file_location("merchant_signing", {str(MODULE_DIR / "signing.py")!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
header = module.sign(b"{{}}", ["whsec_x"], 1700000000)
assert module.verify(b"{{}}", header, ["whsec_x"], now=1700000000) == 1700000000
print("ok")
"""
    result = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"

"""The operator console's session cookie and CSRF rules (mzpay.domain.operators.console_sessions)."""

from __future__ import annotations

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.operators import console_sessions as rules

KEY = rules.session_key("the-operator-secret")
NOW = 1_790_000_000


def refusal(key: bytes, binding: str, cookie: str | None, field: str | None) -> tuple[int, str]:
    with pytest.raises(ServiceError) as refused:
        rules.check_csrf(key, binding, cookie, field)
    return refused.value.status, refused.value.code


def test_a_sealed_session_opens_with_its_operator_time_and_id() -> None:
    session = rules.new_session("ana.macuacua", NOW)
    assert rules.opened(KEY, rules.seal(KEY, session), NOW + 60) == session
    assert (session.operator, session.issued_at, len(session.session_id)) == ("ana.macuacua", NOW, 24)


def test_a_session_lasts_eight_hours() -> None:
    sealed = rules.seal(KEY, rules.new_session("operator", NOW))
    assert rules.opened(KEY, sealed, NOW + 8 * 3600 - 1) is not None
    assert rules.opened(KEY, sealed, NOW + 8 * 3600) is None


def test_a_session_issued_in_the_future_beyond_clock_skew_is_refused() -> None:
    sealed = rules.seal(KEY, rules.new_session("operator", NOW + 120))
    assert rules.opened(KEY, sealed, NOW) is None
    assert rules.opened(KEY, sealed, NOW + 61) is not None


def test_a_new_operator_secret_ends_every_session() -> None:
    sealed = rules.seal(KEY, rules.new_session("operator", NOW))
    assert rules.opened(rules.session_key("the-next-secret"), sealed, NOW) is None


@pytest.mark.parametrize(
    "tamper",
    [
        lambda v: v.replace("v1.operator.", "v1.admin."),  # another operator's name
        lambda v: v.replace(f".{NOW}.", f".{NOW + 3600}."),  # a later issue time
        lambda v: v[:-2] + ("AA" if not v.endswith("AA") else "BB"),  # another mac
        lambda v: v.replace("v1.", "v2.", 1),
        lambda v: v.rpartition(".")[0],  # no mac
        lambda _v: "",
        lambda v: v + "x" * 600,
    ],
)
def test_a_tampered_session_is_refused(tamper: object) -> None:
    sealed = rules.seal(KEY, rules.new_session("operator", NOW))
    assert rules.opened(KEY, tamper(sealed), NOW) is None  # type: ignore[operator]


def test_an_operator_name_with_dots_round_trips() -> None:
    session = rules.new_session("ana.m@ops-1", NOW)
    assert rules.opened(KEY, rules.seal(KEY, session), NOW) == session


def test_a_token_issued_for_the_session_passes_when_cookie_and_field_carry_it() -> None:
    token = rules.csrf_token(KEY, "session-1")
    rules.check_csrf(KEY, "session-1", token, token)  # no refusal


def test_no_cookie_is_csrf_missing() -> None:
    token = rules.csrf_token(KEY, "session-1")
    assert refusal(KEY, "session-1", None, token) == (403, "csrf_missing")
    assert refusal(KEY, "session-1", "", None) == (403, "csrf_missing")


def test_a_missing_or_mismatched_field_is_csrf_invalid() -> None:
    token, other = rules.csrf_token(KEY, "session-1"), rules.csrf_token(KEY, "session-1")
    assert refusal(KEY, "session-1", token, None) == (403, "csrf_invalid")
    assert refusal(KEY, "session-1", token, "") == (403, "csrf_invalid")
    assert refusal(KEY, "session-1", token, other) == (403, "csrf_invalid")


def test_a_token_the_service_did_not_issue_is_csrf_invalid_even_when_cookie_and_field_agree() -> None:
    assert refusal(KEY, "session-1", "forged.value", "forged.value") == (403, "csrf_invalid")
    assert refusal(KEY, "session-1", "no-dot", "no-dot") == (403, "csrf_invalid")


def test_a_token_of_another_session_or_of_the_sign_in_form_is_csrf_invalid() -> None:
    theirs = rules.csrf_token(KEY, "session-2")
    before_sign_in = rules.csrf_token(KEY, rules.SIGN_IN_BINDING)
    assert refusal(KEY, "session-1", theirs, theirs) == (403, "csrf_invalid")
    assert refusal(KEY, "session-1", before_sign_in, before_sign_in) == (403, "csrf_invalid")


def test_a_token_signed_under_an_older_operator_secret_is_csrf_invalid() -> None:
    old = rules.csrf_token(rules.session_key("the-old-secret"), "session-1")
    assert refusal(KEY, "session-1", old, old) == (403, "csrf_invalid")

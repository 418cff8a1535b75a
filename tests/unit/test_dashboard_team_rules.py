"""The dashboard team's pure rules (docs/dashboard.md, "Team"): who may grant, change or remove
whom, the e-mail and password checks, the links' tokens (only their hash is kept)."""

from __future__ import annotations

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.dashboard import team


def code_of(call: object, *args: str) -> str | None:
    try:
        call(*args)  # type: ignore[operator]
    except ServiceError as refusal:
        return refusal.code
    return None


@pytest.mark.parametrize(
    ("actor", "role", "code"),
    [
        ("owner", "owner", None),
        ("owner", "support", None),
        ("administrator", "administrator", None),
        ("administrator", "owner", "forbidden"),  # only the owner hands ownership
        ("developer", "support", "forbidden"),
        ("support", "support", "forbidden"),
    ],
)
def test_who_may_grant_which_role(actor: str, role: str, code: str | None) -> None:
    assert code_of(team.may_grant, actor, role) == code


@pytest.mark.parametrize(
    ("actor", "target", "target_role", "code"),
    [
        ("a@x.mz", "b@x.mz", "support", None),
        ("a@x.mz", "a@x.mz", "owner", "forbidden"),  # nobody changes or removes themselves
        ("a@x.mz", "b@x.mz", "owner", None),  # an owner by an owner
    ],
)
def test_an_owner_may_change_others_but_not_itself(actor: str, target: str, target_role: str, code: str | None) -> None:
    assert code_of(team.may_change, actor, "owner", target, target_role) == code


def test_an_administrator_may_not_touch_an_owner() -> None:
    assert code_of(team.may_change, "a@x.mz", "administrator", "o@x.mz", "owner") == "forbidden"
    assert code_of(team.may_change, "a@x.mz", "administrator", "d@x.mz", "developer") is None
    assert code_of(team.may_change, "f@x.mz", "finance", "d@x.mz", "developer") == "forbidden"


@pytest.mark.parametrize(
    ("password", "code"),
    [
        ("Abcdefghijk1", None),
        ("Abcdefghij1", "weak_password"),  # 11 characters
        ("abcdefghijk1", "weak_password"),  # no upper case
        ("ABCDEFGHIJK1", "weak_password"),  # no lower case
        ("Abcdefghijkl", "weak_password"),  # no digit
        ("A1" + "b" * 255, "weak_password"),  # 257 characters
    ],
)
def test_the_pools_password_policy(password: str, code: str | None) -> None:
    assert code_of(team.check_password, password) == code


def test_an_email_is_lower_case_and_at_most_254_characters() -> None:
    assert team.address("  Ana@Loja.CO.MZ ") == "ana@loja.co.mz"
    for typed in ("", "ana", "ana@loja", "a b@loja.mz", "a" * 250 + "@x.mz", "4242424242424242"):
        assert code_of(team.address, typed) == "invalid_email", typed
    assert code_of(team.check_role, "boss") == "invalid_role" and team.check_role("finance") == "finance"


def test_a_links_token_is_random_and_only_its_hash_is_kept() -> None:
    first, second = team.new_token(), team.new_token()
    assert first != second and team.well_formed_token(first) and len(first) >= 43
    assert team.hashed(first) == team.hashed(first) != team.hashed(second) and len(team.hashed(first)) == 64
    assert not team.well_formed_token("short") and not team.well_formed_token("a/b" * 10)

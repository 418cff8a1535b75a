"""Business onboarding rules (mzpay.domain.collection.business): the details a Mozambican business gives,
with the spec's ValidationError codes, and the account's state machine."""

from __future__ import annotations

from typing import Any

import pytest

from mzpay.domain.collection.business import (
    AccountStatus,
    BusinessAccount,
    check_details,
    is_country,
    missing_for_finish,
    next_status,
)
from mzpay.domain.common.errors import ServiceError
from tests.unit.builders import moves, refused

REQUIRED = ("bank_details", "person_of_contact", "business_details")
NIB = "000301080016367102371"


def details(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "bank_details": {
            "nuib": "123456",
            "nib": "0003 0108 0016 3671 0237 1",
            "account_number": "1636710237",
            "bank_name": "Banco Exemplo",
            "account_holder_name": "Loja Machava Lda",
        },
        "person_of_contact": {"first_name": "Ana", "last_name": "Machava", "phone_number": "+258841234567"},
        "business_details": {
            "legal_name": "Loja Machava Lda",
            "country": "mz",
            "state_province": "Maputo",
            "registration_number": "100234567",
            "vat_number": "400339910",
        },
        "tax_details": {"tax_id": "400339910", "vat_number": "400339910"},
    }
    for path, value in overrides.items():
        section, name = path.split("__")
        if value is None:
            body[section].pop(name, None)
        else:
            body[section][name] = value
    return body


def refusal(body: dict[str, Any]) -> tuple[int, str, list[tuple[str, str]]]:
    with pytest.raises(ServiceError) as caught:
        check_details(body, REQUIRED)
    return caught.value.status, caught.value.code, [(e.field, e.code) for e in caught.value.errors]


def test_good_details_are_cleaned() -> None:
    cleaned = check_details(details(), REQUIRED)
    assert cleaned["bank_details"]["nib"] == NIB  # separators dropped
    assert cleaned["business_details"]["country"] == "MZ"
    assert "email" not in cleaned["person_of_contact"]
    assert cleaned["tax_details"] == {"tax_id": "400339910", "vat_number": "400339910"}


@pytest.mark.parametrize(
    ("override", "field", "code"),
    [
        ({"bank_details__nib": "000301080016367102372"}, "bank_details.nib", "VERIFICATION_FAILED"),
        ({"bank_details__nib": "12345"}, "bank_details.nib", "VERIFICATION_FAILED"),
        ({"bank_details__nuib": "12a45"}, "bank_details.nuib", "INVALID_FORMAT"),
        ({"tax_details__tax_id": "400339911"}, "tax_details.tax_id", "VERIFICATION_FAILED"),
        ({"tax_details__tax_id": "4003"}, "tax_details.tax_id", "INVALID_FORMAT"),
        ({"person_of_contact__phone_number": "841234567"}, "person_of_contact.phone_number", "INVALID_FORMAT"),
        ({"person_of_contact__phone_number": "+25884123"}, "person_of_contact.phone_number", "INVALID_FORMAT"),
        ({"person_of_contact__email": "ana.example"}, "person_of_contact.email", "INVALID_FORMAT"),
        ({"business_details__country": "ZZ"}, "business_details.country", "NOT_FOUND"),
        ({"business_details__legal_name": "x" * 201}, "business_details.legal_name", "INVALID_FORMAT"),
        ({"business_details__legal_name": 7}, "business_details.legal_name", "INVALID_FORMAT"),
        ({"business_details__colour": "blue"}, "business_details.colour", "INVALID_FORMAT"),
    ],
)
def test_a_broken_field_is_a_validation_error_naming_it(override: dict[str, Any], field: str, code: str) -> None:
    assert refusal(details(**override)) == (400, "validation_error", [(field, code)])


def test_absences_alone_are_missing_field() -> None:
    body = details(bank_details__nib=None, person_of_contact__last_name="  ")
    del body["business_details"]
    assert refusal(body) == (
        400,
        "missing_field",
        [
            ("bank_details.nib", "REQUIRED"),
            ("person_of_contact.last_name", "REQUIRED"),
            ("business_details", "REQUIRED"),
        ],
    )


def test_absences_with_a_broken_field_are_a_validation_error() -> None:
    status, code, fields = refusal(details(bank_details__nib=None, business_details__country="ZZ"))
    assert (status, code) == (400, "validation_error")
    assert sorted(fields) == [("bank_details.nib", "REQUIRED"), ("business_details.country", "NOT_FOUND")]


def test_an_unknown_section_is_refused() -> None:
    assert refusal({**details(), "owner": {}}) == (400, "validation_error", [("owner", "INVALID_FORMAT")])


def test_countries_are_iso_3166_alpha_2() -> None:
    assert all(is_country(code) for code in ("MZ", "ZA", "PT", "AQ", "BV", "PN"))
    assert not any(is_country(code) for code in ("AC", "TA", "XK", "ZZ", "mz", "MOZ"))


def test_finish_needs_every_required_field_of_the_three_sections() -> None:
    assert missing_for_finish(check_details(details(), REQUIRED)) == []
    missing = missing_for_finish({"bank_details": {"nib": NIB}})
    assert [m.field for m in missing][:4] == [
        "bank_details.nuib",
        "bank_details.account_number",
        "bank_details.bank_name",
        "bank_details.account_holder_name",
    ]
    assert "person_of_contact.first_name" in [m.field for m in missing]


MOVES = {
    AccountStatus.PENDING: {"finish": AccountStatus.PENDING_REVIEW},
    AccountStatus.REJECTED: {"finish": AccountStatus.PENDING_REVIEW},
    AccountStatus.PENDING_REVIEW: {"approve": AccountStatus.ACTIVE, "reject": AccountStatus.REJECTED},
    AccountStatus.ACTIVE: {"suspend": AccountStatus.SUSPENDED},
    AccountStatus.SUSPENDED: {"reactivate": AccountStatus.ACTIVE},
}


@pytest.mark.parametrize(("status", "action", "target"), moves(MOVES))
def test_the_moves_of_an_account(status: str, action: str, target: str) -> None:
    assert next_status(status, action) == target


@pytest.mark.parametrize(
    ("status", "action"),
    [
        *[(AccountStatus.PENDING, action) for action in ("approve", "suspend")],
        (AccountStatus.PENDING_REVIEW, "finish"),
        *[(AccountStatus.ACTIVE, action) for action in ("approve", "reject", "reactivate")],
        (AccountStatus.REJECTED, "approve"),
    ],
)
def test_any_other_move_is_refused_naming_the_status(status: str, action: str) -> None:
    error = refused(lambda: next_status(status, action))
    assert (error.status, error.code, error.extensions["account_status"]) == (400, "invalid_request", status)


def test_the_account_view() -> None:
    account = BusinessAccount(
        account_id="acct_1",
        status="pending",
        version=1,
        details=check_details(details(), REQUIRED),
        created_at="2026-11-24T10:00:00Z",
        updated_at="2026-11-24T10:00:00Z",
    )
    view = account.view()
    assert (view["object"], view["id"], view["name"], view["status"], view["reason"], view["errors"], view["logo"]) == (
        "account",
        "acct_1",
        "Loja Machava Lda",
        "pending",
        "",
        [],
        None,
    )
    assert set(view["details"]) == {"bank_details", "person_of_contact", "business_details", "tax_details"}
    assert account.onboarding()["object"] == "onboarding"

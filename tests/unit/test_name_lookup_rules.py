"""Name lookups, the pure part: the request's field codes as the gateway answers them, lookup
statuses, and the simulated provider's documented magic values."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from aws_lambda_powertools.event_handler.openapi.params import Body

from mzpay.domain.common import nib
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payouts.name_lookups import (
    LookupStatus,
    NameLookupRequest,
    ProviderUnavailable,
    candidates,
    ensure_transition,
    simulated_lookup,
    upstream_error,
)
from mzpay.http.errors import Surface
from mzpay.http.resolver import create_resolver, lambda_handler
from tests.events import json_post
from tests.expected import problem

NIB = "000301080016367102371"
NIB_MESSAGE = "account must be a NIB: 21 digits with valid ISO 7064 MOD 97-10 check digits"
# The example NIBs of the module's magic-value table.
AMBIGUOUS_NIB = "0001 0000 0000 0002 8000 2"
UNAVAILABLE_NIB = "0001 0000 0000 0003 8000 9"


def _gateway() -> Any:
    app = create_resolver(Surface.GATEWAY)

    @app.post("/v1/name-lookups")
    def look_up(body: Annotated[NameLookupRequest, Body()]) -> dict[str, Any]:
        try:
            status, names = simulated_lookup(body.type, body.identifier)
        except ProviderUnavailable as exc:
            raise upstream_error() from exc
        return {"status": status, "identifier": body.identifier, "candidates": candidates(names)}

    return lambda_handler(app)


HANDLER = _gateway()


def post(payload: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, Any]]:
    response = HANDLER(json_post("/v1/name-lookups", payload), None)
    headers_out = {k: v[-1] for k, v in (response.get("multiValueHeaders") or {}).items()}
    return response["statusCode"], json.loads(response["body"]), headers_out


def wallet(phone: str | None, network: str = "mpesa") -> dict[str, Any]:
    details: dict[str, Any] = {"network": network}
    if phone is not None:
        details["phone_number"] = phone
    return {"type": "mobile_wallet", "mobile_wallet": details}


def bank(account: Any) -> dict[str, Any]:
    return {"type": "bank_transfer", "bank_transfer": {} if account is None else {"account": account}}


# ---------------------------------------------------------------- the simulated provider


def test_a_wallet_resolves_to_the_default_name() -> None:
    status, body, _ = post(wallet("+258841234567"))
    assert (status, body) == (
        200,
        {
            "status": "resolved",
            "identifier": "+258841234567",
            "candidates": [{"candidate_id": "cand_1", "name": "Ana Machava"}],
        },
    )


def test_a_nib_resolves_to_the_default_name_and_is_normalized() -> None:
    status, body, _ = post(bank("0003 0108.0016-3671 0237 1"))
    assert (status, body) == (
        200,
        {"status": "resolved", "identifier": NIB, "candidates": [{"candidate_id": "cand_1", "name": "Ana Machava"}]},
    )


AMBIGUOUS = [
    {"candidate_id": "cand_1", "name": "Ana Machava"},
    {"candidate_id": "cand_2", "name": "Ana Maria Machava"},
    {"candidate_id": "cand_3", "name": "Anabela Machava"},
]


@pytest.mark.parametrize("payload", [wallet("+258840000002"), wallet("+258860000002", "emola"), bank(AMBIGUOUS_NIB)])
def test_an_identifier_ending_0002_is_ambiguous(payload: dict[str, Any]) -> None:
    status, body, _ = post(payload)
    assert (status, body["status"], body["candidates"]) == (200, "ambiguous", AMBIGUOUS)


@pytest.mark.parametrize("payload", [wallet("+258840000009"), wallet("+258820000009", "mkesh"), bank(UNAVAILABLE_NIB)])
def test_an_identifier_ending_0009_is_upstream_error(payload: dict[str, Any]) -> None:
    status, body, headers = post(payload)
    assert (status, body, headers["Retry-After"]) == (
        502,
        problem(502, "Bad Gateway", "upstream_error", "The provider could not answer the name lookup; retry later."),
        "10",
    )


def test_the_documented_example_nibs_are_valid_and_end_as_documented() -> None:
    assert nib.is_valid(AMBIGUOUS_NIB) and nib.normalize(AMBIGUOUS_NIB).endswith("0002")
    assert nib.is_valid(UNAVAILABLE_NIB) and nib.normalize(UNAVAILABLE_NIB).endswith("0009")


def test_the_simulated_lookup_is_a_pure_function_of_the_identifier() -> None:
    assert simulated_lookup("mobile_wallet", "+258841230000") == ("resolved", ["Ana Machava"])
    assert simulated_lookup("bank_transfer", "000100000000000280002") == (
        "ambiguous",
        ["Ana Machava", "Ana Maria Machava", "Anabela Machava"],
    )
    assert simulated_lookup("mobile_wallet", "+258840000002") == simulated_lookup("mobile_wallet", "+258840000002")
    with pytest.raises(ProviderUnavailable):
        simulated_lookup("bank_transfer", "000100000000000380009")
    with pytest.raises(ValueError, match="no name lookup"):
        simulated_lookup("card", "4242")


def test_candidate_ids_follow_the_order_of_names() -> None:
    assert candidates(["B", "A"]) == [{"candidate_id": "cand_1", "name": "B"}, {"candidate_id": "cand_2", "name": "A"}]
    assert candidates([]) == []


# ---------------------------------------------------------------- the request's rules


def test_another_type_is_invalid_method() -> None:
    status, body, _ = post({"type": "cheque", "cheque": {"payee_name": "Ana"}})
    assert (status, body) == (
        400,
        problem(
            400,
            "Bad Request",
            "invalid_method",
            "The request has invalid fields: type.",
            errors=[
                {
                    "field": "type",
                    "code": "invalid_method",
                    "message": "type must be one of mobile_wallet, bank_transfer",
                }
            ],
        ),
    )


def test_a_wallet_of_another_network_is_invalid_phone() -> None:
    status, body, _ = post(wallet("+258821234567", "mpesa"))
    assert (status, body["code"], body["errors"]) == (
        400,
        "invalid_phone",
        [
            {
                "field": "mobile_wallet.phone_number",
                "code": "invalid_phone",
                "message": "M-Pesa numbers start with +258 84 or 85",
            }
        ],
    )


def test_a_wallet_without_phone_is_missing_phone() -> None:
    status, body, _ = post(wallet(None))
    assert (status, body["code"], [e["field"] for e in body["errors"]]) == (
        400,
        "missing_phone",
        ["mobile_wallet.phone_number"],
    )


@pytest.mark.parametrize("account", [None, "000301080016367102372", "12345", 21])
def test_a_bank_account_that_is_no_nib_is_invalid_account(account: Any) -> None:
    status, body, _ = post(bank(account))
    assert (status, body) == (
        400,
        problem(
            400,
            "Bad Request",
            "invalid_account",
            "The request has invalid fields: bank_transfer.account.",
            errors=[{"field": "bank_transfer.account", "code": "invalid_account", "message": NIB_MESSAGE}],
        ),
    )


def test_a_lookup_without_its_details_is_invalid_request_naming_them() -> None:
    status, body, _ = post({"type": "bank_transfer"})
    assert (status, body["code"], body["errors"]) == (
        400,
        "invalid_request",
        [
            {
                "field": "bank_transfer",
                "code": "required",
                "message": "type bank_transfer needs its details in bank_transfer",
            }
        ],
    )


def test_a_bank_lookup_takes_no_name() -> None:
    status, body, _ = post({"type": "bank_transfer", "bank_transfer": {"account": NIB, "name": "Ana"}})
    assert (status, body["code"], [(e["field"], e["code"]) for e in body["errors"]]) == (
        400,
        "invalid_request",
        [("bank_transfer.name", "unknown_field")],
    )


def test_the_identifier_of_a_validated_request() -> None:
    assert NameLookupRequest.model_validate(wallet("+258851234567")).identifier == "+258851234567"
    assert NameLookupRequest.model_validate(bank("0003-0108-0016-3671-0237-1")).identifier == NIB


# ---------------------------------------------------------------- statuses


def test_an_ambiguous_lookup_may_be_selected_and_selected_again() -> None:
    assert ensure_transition(LookupStatus.AMBIGUOUS, "select") == LookupStatus.SELECTED
    assert ensure_transition(LookupStatus.SELECTED, "select") == LookupStatus.SELECTED  # until a deposit starts
    for current in (LookupStatus.RESOLVED,):
        with pytest.raises(ServiceError) as raised:
            ensure_transition(current, "select")
        assert (raised.value.status, raised.value.code, raised.value.message) == (
            409,
            "invalid_state",
            f"Cannot select a name lookup that is {current}.",
        )

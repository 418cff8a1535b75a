"""Payout rules: the lifecycle's transition table, the request models' field codes as the gateway
answers them (through the resolver), the rules across fields, and the payout as answered."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from aws_lambda_powertools.event_handler.openapi.params import Body

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payouts.rules import (
    EVENT_OF_STATUS,
    TERMINAL,
    BankPayoutRequest,
    Payout,
    PayoutRequest,
    Status,
    check_payout,
    ensure_transition,
    event_kind,
    mask_account,
    payout_view,
    stored_destination,
)
from mzpay.http.errors import Surface
from mzpay.http.resolver import create_resolver, lambda_handler
from tests.events import json_post
from tests.expected import problem
from tests.unit.builders import moves, refused

PAYOUT_ID = "01JD3M6Y8Q7T3Y5F0ZC9W3B2KX"
NIB = "000301080016367102371"  # the IBAN registry's example for Mozambique
NIB_WRITTEN = "0003 0108.0016-3671 0237 1"
NIB_MESSAGE = "account must be a NIB: 21 digits with valid ISO 7064 MOD 97-10 check digits"


# ---------------------------------------------------------------- the gateway's answers


def _gateway() -> Any:
    app = create_resolver(Surface.GATEWAY)

    @app.post("/payouts")
    def create_payout(body: Annotated[PayoutRequest, Body()]) -> dict[str, Any]:
        check_payout(body)
        return {"payout_id": body.payout_id, "destination": stored_destination(body.destination)}

    @app.post("/v1/payouts")
    def create_bank_payout(body: Annotated[BankPayoutRequest, Body()]) -> dict[str, Any]:
        check_payout(body)
        request = body.to_payout_request()
        return {"payout_id": request.payout_id, "destination": stored_destination(request.destination)}

    return lambda_handler(app)


HANDLER = _gateway()


def post(path: str, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = HANDLER(json_post(path, payload), None)
    return response["statusCode"], json.loads(response["body"])


def payout(destination: dict[str, Any], amount: str = "100.00", currency: str = "MZN", **extra: Any) -> dict[str, Any]:
    return {
        "payout_id": PAYOUT_ID,
        "money": {"amount": amount, "currency": currency},
        "destination": destination,
        **extra,
    }


def wallet(network: str | None = "mpesa", phone: str | None = "+258841234567") -> dict[str, Any]:
    details = {k: v for k, v in (("network", network), ("phone_number", phone)) if v is not None}
    return {"type": "mobile_wallet", "mobile_wallet": details}


def bank(name: str | None = "Ana Machava", account: str | None = NIB_WRITTEN) -> dict[str, Any]:
    details = {k: v for k, v in (("name", name), ("account", account)) if v is not None}
    return {"type": "bank_transfer", "bank_transfer": details}


def bank_payout(**fields: Any) -> dict[str, Any]:
    body = {
        "payout_id": PAYOUT_ID,
        "money": {"amount": "2500.00", "currency": "MZN"},
        "method": "bank",
        "beneficiary": {"name": "Ana Machava", "account": NIB_WRITTEN},
    }
    return {k: v for k, v in {**body, **fields}.items() if v is not None}


EXAMPLE = (
    ' A body of this request looks like {"payout_id": "01JDA6Q7K2M4N6P8R0T2V4W6X8", "money": {"amount": "10.00", '
    '"currency": "MZN"}, "destination": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", '
    '"phone_number": "+258840000000"}}, "description": "Weekly settlement"}.'
)


def invalid_fields(*fields: str) -> str:
    return f"The request has invalid fields: {', '.join(fields)}."


def one_field(field: str, code: str, message: str, detail: str | None = None) -> tuple[int, dict[str, Any]]:
    """The whole answer to a body refused for one field: 400, and the problem naming the field (its
    detail, by default, the invalid-fields sentence)."""
    errors = [{"field": field, "code": code, "message": message}]
    return 400, problem(400, "Bad Request", code, detail or invalid_fields(field), errors=errors)


def test_a_wallet_payout_passes_and_keeps_its_destination() -> None:
    assert post("/payouts", payout(wallet())) == (
        200,
        {
            "payout_id": PAYOUT_ID,
            "destination": {
                "type": "mobile_wallet",
                "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"},
            },
        },
    )


def test_a_bank_transfer_payout_keeps_the_nib_normalized_and_the_name_trimmed() -> None:
    status, body = post("/payouts", payout(bank(name="  Ana Machava "), amount="10000000.00"))
    assert (status, body["destination"]) == (
        200,
        {"type": "bank_transfer", "bank_transfer": {"name": "Ana Machava", "account": NIB}},
    )


@pytest.mark.parametrize(
    ("destination", "currency"),
    [
        ({"type": "manual"}, "MZN"),
        ({"type": "manual", "manual": {"reference": "INV-7"}}, "USD"),
        ({"type": "crypto", "crypto": {"address": "bc1qexample", "network": "bitcoin"}}, "USD"),
        ({"type": "cheque", "cheque": {"payee_name": "Ana Machava", "delivery_address": "Av. 24 de Julho"}}, "MZN"),
    ],
)
def test_the_other_destinations_take_mzn_and_usd(destination: dict[str, Any], currency: str) -> None:
    status, body = post("/payouts", payout(destination, amount="1000000.00", currency=currency))
    assert (status, body["destination"]) == (200, destination)


def test_an_unknown_destination_type_is_invalid_method() -> None:
    assert post("/payouts", payout({"type": "wire", "wire": {}})) == one_field(
        "destination.type", "invalid_method", "type must be one of mobile_wallet, bank_transfer, manual, crypto, cheque"
    )


def test_a_missing_destination_type_is_invalid_method() -> None:
    status, body = post("/payouts", payout({"manual": {}}))
    assert (status, body["code"], [e["field"] for e in body["errors"]]) == (400, "invalid_method", ["destination.type"])


def test_a_phone_of_another_network_is_invalid_phone() -> None:
    assert post("/payouts", payout(wallet("mpesa", "+258861234567"))) == one_field(
        "destination.mobile_wallet.phone_number", "invalid_phone", "M-Pesa numbers start with +258 84 or 85"
    )


@pytest.mark.parametrize(
    ("network", "phone"),
    [("emola", "+258871234567"), ("mkesh", "+258821234567"), ("mkesh", "+258831234567"), ("mpesa", "+258851234567")],
)
def test_each_network_takes_its_own_prefixes(network: str, phone: str) -> None:
    assert post("/payouts", payout(wallet(network, phone)))[0] == 200


@pytest.mark.parametrize("phone", ["841234567", "+25884123456", "+27821234567", "+258 84 123 4567"])
def test_a_phone_not_in_e164_mozambican_form_is_invalid_phone(phone: str) -> None:
    status, body = post("/payouts", payout(wallet("mpesa", phone)))
    assert (status, body["code"]) == (400, "invalid_phone")


@pytest.mark.parametrize("phone", [None, ""])
def test_a_wallet_without_phone_is_missing_phone(phone: str | None) -> None:
    status, body = post("/payouts", payout(wallet("mpesa", phone)))
    assert (status, body["code"], body["errors"]) == (
        400,
        "missing_phone",
        [
            {
                "field": "destination.mobile_wallet.phone_number",
                "code": "missing_phone",
                "message": "a mobile wallet needs its phone_number",
            }
        ],
    )


def test_an_unknown_network_and_no_phone_are_both_named() -> None:
    status, body = post("/payouts", payout(wallet("vodafone", None)))
    assert (status, body["code"]) == (400, "invalid_request")
    assert [(e["field"], e["code"]) for e in body["errors"]] == [
        ("destination.mobile_wallet.network", "invalid_value"),
        ("destination.mobile_wallet.phone_number", "missing_phone"),
    ]


@pytest.mark.parametrize("name", [None, "", "   "])
def test_a_bank_transfer_without_name_is_beneficiary_name_required(name: str | None) -> None:
    assert post("/payouts", payout(bank(name=name))) == one_field(
        "destination.bank_transfer.name", "beneficiary_name_required", "a bank payout needs the account holder's name"
    )


@pytest.mark.parametrize(
    "account", [None, "000301080016367102372", "0003010800163671023", "0003 0108 0016 3671 0237 X"]
)
def test_a_bank_transfer_to_anything_but_a_nib_is_invalid_account(account: str | None) -> None:
    assert post("/payouts", payout(bank(account=account))) == one_field(
        "destination.bank_transfer.account", "invalid_account", NIB_MESSAGE
    )


def test_a_number_as_account_is_invalid_account() -> None:
    status, body = post("/payouts", payout(bank(account=None) | {"bank_transfer": {"name": "A", "account": 3}}))
    assert (status, body["code"]) == (400, "invalid_account")


@pytest.mark.parametrize("kind", ["mobile_wallet", "bank_transfer", "crypto", "cheque"])
def test_a_destination_without_its_details_is_invalid_request_naming_them(kind: str) -> None:
    assert post("/payouts", payout({"type": kind})) == (
        400,
        problem(
            400,
            "Bad Request",
            "invalid_request",
            invalid_fields(f"destination.{kind}") + EXAMPLE,  # a missing part: the body's shape is shown
            errors=[
                {
                    "field": f"destination.{kind}",
                    "code": "required",
                    "message": f"type {kind} needs its details in {kind}",
                }
            ],
        ),
    )


def test_details_of_another_type_are_refused() -> None:
    destination = {**wallet(), "bank_transfer": {"name": "Ana", "account": NIB}}
    status, body = post("/payouts", payout(destination))
    assert (status, body["code"], body["errors"]) == (
        400,
        "invalid_request",
        [
            {
                "field": "destination.bank_transfer",
                "code": "invalid_value",
                "message": "bank_transfer does not go with type mobile_wallet",
            }
        ],
    )


def test_crypto_needs_address_and_network() -> None:
    status, body = post("/payouts", payout({"type": "crypto", "crypto": {}}, currency="USD"))
    assert (status, body["code"]) == (400, "invalid_request")
    assert [(e["field"], e["code"]) for e in body["errors"]] == [
        ("destination.crypto.address", "required"),
        ("destination.crypto.network", "required"),
    ]


def test_a_cheque_needs_its_payee() -> None:
    status, body = post("/payouts", payout({"type": "cheque", "cheque": {"delivery_address": "Maputo"}}))
    assert (status, [(e["field"], e["code"]) for e in body["errors"]]) == (
        400,
        [("destination.cheque.payee_name", "required")],
    )


def test_an_unknown_field_is_refused() -> None:
    status, body = post("/payouts", payout(wallet(), reason="salary"))
    assert (status, body["code"], [(e["field"], e["code"]) for e in body["errors"]]) == (
        400,
        "invalid_request",
        [("reason", "unknown_field")],
    )


@pytest.mark.parametrize("payout_id", ["payout-1", "01jd3m6y8q7t3y5f0zc9w3b2kx", ""])
def test_a_payout_id_that_is_no_ulid_or_uuid_is_refused(payout_id: str) -> None:
    status, body = post("/payouts", payout(wallet()) | {"payout_id": payout_id})
    assert (status, body["code"], body["errors"]) == (
        400,
        "invalid_request",
        [{"field": "payout_id", "code": "invalid_value", "message": "payout_id must be a ULID or a UUID"}],
    )


def test_a_uuid_payout_id_is_accepted() -> None:
    assert post("/payouts", payout(wallet()) | {"payout_id": "5f0c2f8e-3c0a-4b8e-9d3f-2a9a1c7b6e21"})[0] == 200


def test_callback_url_follows_the_charges_rule() -> None:
    status, body = post("/payouts", payout(wallet(), callback_url="ftp://merchant.example/hooks"))
    assert (status, body["code"], body["errors"]) == (
        400,
        "invalid_callback_url",
        [
            {
                "field": "callback_url",
                "code": "invalid_callback_url",
                "message": "callback_url must be an absolute http:// or https:// URL",
            }
        ],
    )
    assert post("/payouts", payout(wallet(), callback_url="https://merchant.example/hooks"))[0] == 200


def test_metadata_follows_the_charges_rules() -> None:
    status, body = post("/payouts", payout(wallet(), metadata={f"k{i}": "v" for i in range(51)}))
    assert (status, body["code"]) == (400, "metadata_too_large")
    status, body = post("/payouts", payout(wallet(), metadata={"k": "v" * 501}))
    assert (status, body["code"]) == (400, "metadata_value_too_large")
    status, body = post("/payouts", payout(wallet(), metadata={"{k}": 1}))
    assert (status, body["code"], body["errors"][0]["message"]) == (
        400,
        "invalid_request",
        "metadata values must be strings ('{k}' is not)",
    )
    status, body = post("/payouts", payout(wallet(), metadata=["a"]))
    assert (status, body["errors"][0]["code"]) == (400, "invalid_type")
    assert post("/payouts", payout(wallet(), metadata={"order": "A-1"}))[0] == 200


def test_a_description_is_at_most_140_characters() -> None:
    assert post("/payouts", payout(wallet(), description="d" * 140))[0] == 200
    status, body = post("/payouts", payout(wallet(), description="d" * 141))
    assert (status, [(e["field"], e["code"]) for e in body["errors"]]) == (400, [("description", "invalid_value")])


@pytest.mark.parametrize("amount", ["-1.00", "1e3", "abc"])
def test_an_amount_that_is_no_decimal_string_is_invalid_amount(amount: str) -> None:
    status, body = post("/payouts", payout(wallet(), amount=amount))
    assert (status, body["code"]) == (400, "invalid_amount")


# ---------------------------------------------------------------- rules across fields


def test_a_zero_amount_is_invalid_amount() -> None:
    assert post("/payouts", payout(wallet(), amount="0.00")) == one_field(
        "money.amount", "invalid_amount", "amount must be above zero", "money.amount: amount must be above zero."
    )


def test_more_fraction_digits_than_the_currency_has_is_invalid_amount() -> None:
    status, body = post("/payouts", payout(wallet(), amount="10.005"))
    assert (status, body["code"], body["detail"]) == (400, "invalid_amount", "money.amount: MZN has 2 fraction digits.")


@pytest.mark.parametrize(
    ("destination", "amount", "code", "detail"),
    [
        (wallet(), "0.99", "amount_too_low", "the minimum for mobile_wallet payouts in MZN is 1.00"),
        (wallet(), "125000.01", "amount_too_high", "the maximum for mobile_wallet payouts in MZN is 125000.00"),
        (bank(), "0.50", "amount_too_low", "the minimum for bank_transfer payouts in MZN is 1.00"),
        (bank(), "10000000.01", "amount_too_high", "the maximum for bank_transfer payouts in MZN is 10000000.00"),
    ],
)
def test_amounts_outside_the_destination_limits_name_the_limit(
    destination: dict[str, Any], amount: str, code: str, detail: str
) -> None:
    assert post("/payouts", payout(destination, amount=amount)) == one_field(
        "money.amount", code, detail, f"money.amount: {detail}."
    )


@pytest.mark.parametrize("amount", ["1.00", "125000.00"])
def test_wallet_limits_are_inclusive(amount: str) -> None:
    assert post("/payouts", payout(wallet(), amount=amount))[0] == 200


@pytest.mark.parametrize(
    ("destination", "currency", "takes"),
    [
        (wallet(), "USD", "MZN"),
        (bank(), "ZAR", "MZN"),
        ({"type": "manual"}, "EUR", "MZN, USD"),
    ],
)
def test_a_currency_the_destination_does_not_take_is_unsupported_currency(
    destination: dict[str, Any], currency: str, takes: str
) -> None:
    message = f"{destination['type']} payouts take {takes}, not {currency}"
    assert post("/payouts", payout(destination, currency=currency)) == one_field(
        "money.currency", "unsupported_currency", message, f"money.currency: {message}."
    )


def test_several_failures_across_fields_are_invalid_request() -> None:
    status, body = post("/payouts", payout(wallet(), amount="0.00", currency="USD"))
    assert (status, body["code"], body["detail"]) == (
        400,
        "invalid_request",
        "The payout has invalid fields: money.currency, money.amount.",
    )
    assert [(e["field"], e["code"]) for e in body["errors"]] == [
        ("money.currency", "unsupported_currency"),
        ("money.amount", "invalid_amount"),
    ]


def test_check_payout_raises_one_service_error() -> None:
    request = PayoutRequest.model_validate(payout(bank(), amount="0.10"))
    with pytest.raises(ServiceError) as raised:
        check_payout(request)
    assert (raised.value.status, raised.value.code, raised.value.message) == (
        400,
        "amount_too_low",
        "money.amount: the minimum for bank_transfer payouts in MZN is 1.00.",
    )


# ---------------------------------------------------------------- POST /v1/payouts (method bank)


def test_a_bank_payout_becomes_a_bank_transfer_payout() -> None:
    request = BankPayoutRequest.model_validate(
        bank_payout(callback_url="https://merchant.example/hooks", metadata={"run": "7"}, description="May salary")
    )
    assert request.to_payout_request().model_dump(exclude_none=True) == {
        "payout_id": PAYOUT_ID,
        "money": {"amount": "2500.00", "currency": "MZN"},
        "destination": {"type": "bank_transfer", "bank_transfer": {"name": "Ana Machava", "account": NIB}},
        "callback_url": "https://merchant.example/hooks",
        "metadata": {"run": "7"},
        "description": "May salary",
    }
    assert post("/v1/payouts", bank_payout()) == (
        200,
        {
            "payout_id": PAYOUT_ID,
            "destination": {"type": "bank_transfer", "bank_transfer": {"name": "Ana Machava", "account": NIB}},
        },
    )


@pytest.mark.parametrize("method", ["mobile_wallet", "bank_transfer", "BANK", None, 1])
def test_a_method_other_than_bank_is_invalid_method(method: Any) -> None:
    payload = bank_payout() | {"method": method} if method is not None else bank_payout(method=None)
    assert post("/v1/payouts", payload) == one_field("method", "invalid_method", "method must be one of bank")


def test_a_bank_payout_without_beneficiary_name_is_beneficiary_name_required() -> None:
    assert post("/v1/payouts", bank_payout(beneficiary={"account": NIB})) == one_field(
        "beneficiary.name", "beneficiary_name_required", "a bank payout needs the account holder's name"
    )


def test_a_bank_payout_to_an_invalid_nib_is_invalid_account() -> None:
    assert post(
        "/v1/payouts", bank_payout(beneficiary={"name": "Ana", "account": "0003 0108 0016 3671 0237 2"})
    ) == one_field("beneficiary.account", "invalid_account", NIB_MESSAGE)


def test_a_bank_payout_without_beneficiary_names_both_fields() -> None:
    status, body = post("/v1/payouts", bank_payout(beneficiary=None))
    assert (status, body["code"]) == (400, "invalid_request")
    assert [(e["field"], e["code"]) for e in body["errors"]] == [
        ("beneficiary.name", "beneficiary_name_required"),
        ("beneficiary.account", "invalid_account"),
    ]


def test_a_bank_payout_follows_the_bank_transfer_limits_and_currency() -> None:
    status, body = post("/v1/payouts", bank_payout(money={"amount": "10000000.01", "currency": "MZN"}))
    assert (status, body["code"], body["detail"]) == (
        400,
        "amount_too_high",
        "money.amount: the maximum for bank_transfer payouts in MZN is 10000000.00.",
    )
    status, body = post("/v1/payouts", bank_payout(money={"amount": "10.00", "currency": "USD"}))
    assert (status, body["code"]) == (400, "unsupported_currency")


def test_a_bank_payout_refuses_a_destination_field() -> None:
    status, body = post("/v1/payouts", bank_payout(destination=bank()))
    assert (status, [(e["field"], e["code"]) for e in body["errors"]]) == (400, [("destination", "unknown_field")])


# ---------------------------------------------------------------- statuses and transitions


@pytest.mark.parametrize(
    ("current", "action", "submitted", "reachable"),
    [
        (Status.WAITING_FOR_APPROVAL, "approve", False, {Status.PENDING}),
        (Status.WAITING_FOR_APPROVAL, "reject", False, {Status.REJECTED}),
        (Status.PENDING, "settle", False, {Status.IN_TRANSIT}),
        (Status.IN_TRANSIT, "submit", False, {Status.IN_TRANSIT}),
        (Status.IN_TRANSIT, "complete", True, {Status.PAID, Status.FAILED}),
        (Status.IN_TRANSIT, "complete", False, {Status.PAID, Status.FAILED}),
        (Status.PENDING, "cancel", False, {Status.CANCELED}),
        (Status.IN_TRANSIT, "cancel", False, {Status.CANCELED}),
    ],
)
def test_allowed_transitions(current: str, action: str, submitted: bool, reachable: set[str]) -> None:
    assert ensure_transition(current, action, submitted=submitted) == reachable


REFUSED_MOVES = {
    Status.PENDING: {
        "approve": "Cannot approve a payout that is pending.",
        "complete": "Cannot complete a payout that is pending.",
        "submit": "Cannot submit a payout that is pending.",
    },
    Status.IN_TRANSIT: {"reject": "Cannot reject a payout that is in_transit."},
    Status.WAITING_FOR_APPROVAL: {
        "cancel": "Cannot cancel a payout that is waiting_for_approval.",
        "settle": "Cannot settle a payout that is waiting_for_approval.",
    },
    Status.PAID: {"cancel": "Cannot cancel a payout that is paid."},
    Status.FAILED: {"complete": "Cannot complete a payout that is failed."},
    Status.CANCELED: {"settle": "Cannot settle a payout that is canceled."},
    Status.REJECTED: {"approve": "Cannot approve a payout that is rejected."},
}


@pytest.mark.parametrize(("current", "action", "detail"), moves(REFUSED_MOVES))
def test_other_transitions_are_invalid_state(current: str, action: str, detail: str) -> None:
    error = refused(lambda: ensure_transition(current, action))
    assert (error.status, error.code, error.message) == (409, "invalid_state", detail)


def test_a_submitted_payout_can_neither_be_canceled_nor_submitted_again() -> None:
    for action in ("cancel", "submit"):
        with pytest.raises(ServiceError) as raised:
            ensure_transition(Status.IN_TRANSIT, action, submitted=True)
        assert (raised.value.status, raised.value.code, raised.value.message) == (
            409,
            "invalid_state",
            f"Cannot {action} a payout that is in_transit and submitted to the provider.",
        )


def test_terminal_statuses_allow_no_action() -> None:
    assert {Status.PAID, Status.FAILED, Status.CANCELED, Status.REJECTED} == TERMINAL
    for status in TERMINAL:
        for action in ("approve", "reject", "settle", "submit", "complete", "cancel"):
            with pytest.raises(ServiceError):
                ensure_transition(status, action)


def test_events_of_each_change() -> None:
    assert event_kind("approve", Status.PENDING) == "payout.approved"
    assert event_kind("submit", Status.IN_TRANSIT) == "payout.submitted"
    assert event_kind("settle", Status.IN_TRANSIT) == "payout.in_transit"
    assert event_kind("reject", Status.REJECTED) == "payout.rejected"
    assert event_kind("complete", Status.PAID) == "payout.paid"
    assert event_kind("complete", Status.FAILED) == "payout.failed"
    assert event_kind("cancel", Status.CANCELED) == "payout.canceled"
    assert EVENT_OF_STATUS[Status.WAITING_FOR_APPROVAL] == "payout.waiting_for_approval"
    assert EVENT_OF_STATUS[Status.PENDING] == "payout.pending"


# ---------------------------------------------------------------- the payout as answered


def item(destination: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "payout_id": PAYOUT_ID,
        "provider_payout_id": "01JD3M7Z0000000000000000AA",
        "account_id": "acct",
        "mode": "test",
        "status": Status.PAID,
        "version": 4,
        "amount": "2500.00",
        "currency": "MZN",
        "destination": destination,
        "created_at": "2026-05-01T10:00:00Z",
        "updated_at": "2026-05-01T10:00:05Z",
        "fingerprint": "f",
        **fields,
    }


def test_the_view_masks_the_bank_account_but_its_last_four_digits() -> None:
    stored = stored_destination(PayoutRequest.model_validate(payout(bank())).destination)
    kept = item(stored)
    assert payout_view(Payout.model_validate(kept)) == {
        "payout_id": PAYOUT_ID,
        "provider_payout_id": "01JD3M7Z0000000000000000AA",
        "status": "paid",
        "money": {"amount": "2500.00", "currency": "MZN"},
        "destination": {
            "type": "bank_transfer",
            "bank_transfer": {"name": "Ana Machava", "account": "*****************2371"},
        },
        "failure_code": None,
        "failure_message": None,
        "created_at": "2026-05-01T10:00:00Z",
        "processed_at": "2026-05-01T10:00:05Z",
    }
    assert kept["destination"]["bank_transfer"]["account"] == NIB  # the stored item is left as it was


def test_the_view_shows_a_wallet_phone_in_full_and_the_failure() -> None:
    stored = stored_destination(PayoutRequest.model_validate(payout(wallet())).destination)
    view = payout_view(
        Payout.model_validate(
            item(
                stored,
                status=Status.FAILED,
                failure_code="invalid_phone",
                failure_message="The number is not registered.",
                amount=2500,  # a number read back from DynamoDB
            )
        )
    )
    assert (view["destination"], view["status"], view["failure_code"], view["failure_message"], view["money"]) == (
        {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"}},
        "failed",
        "invalid_phone",
        "The number is not registered.",
        {"amount": "2500.00", "currency": "MZN"},
    )


def test_mask_account() -> None:
    assert mask_account(NIB) == "*****************2371"
    assert mask_account("123") == "123"


def test_the_schema_lists_as_required_what_a_merchant_must_send() -> None:
    # Some fields default to None only so that their absence answers its own spec code.
    schema = BankPayoutRequest.model_json_schema()
    assert schema["required"] == ["payout_id", "money", "method", "beneficiary"]
    assert schema["$defs"]["BankAccount"]["required"] == ["name", "account"]
    assert "default" not in schema["properties"]["method"]
    definitions = PayoutRequest.model_json_schema()["$defs"]
    assert definitions["Destination"]["required"] == ["type"]
    assert definitions["MobileWalletDestination"]["required"] == ["network", "phone_number"]

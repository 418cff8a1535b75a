"""The live M-Pesa connector's money out and lookups against the loopback sandbox (real HTTP,
real RSA tokens): B2C payouts, reversals (refunds, whole and in part), their status queries,
and the customer's masked name."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from mzpay.connectors import mpesa
from mzpay.connectors.base import LookingUp, NameAnswer, Paying, PayoutCall, ProviderCall, ProviderResult, Refunding
from mzpay.connectors.mpesa import MpesaConnector, operation_base_url
from mzpay.domain.payouts.name_lookups import ProviderUnavailable
from tests.providers.mpesa_sandbox import (
    API_KEY,
    B2C_PATH,
    DEFAULT_MASKED_NAME,
    NAME_PATH,
    QUERY_PATH,
    REVERSAL_PATH,
    MpesaSandbox,
    conversation_id,
    transaction_id,
)
from tests.unit.test_mpesa_connector import recorded_logs

PAYMENT_ID = "01JD3M6Y8Q7T3Y5F0ZC9W3B2KX"
PAYOUT_ID = "01JD3M6Y8Q7T3Y5F0ZC9W3P0UT"
REFUND_ID = "01JD3M6Y8Q7T3Y5F0ZC9W3RFND"


@pytest.fixture
def mpesa_timing() -> tuple[float, float]:
    """Slow answers after 1 s, a connector that waits 0.5 s: the timeouts of money out."""
    return 1.0, 0.5


def payout(phone: str, amount: str = "300.00", currency: str = "MZN", payout_id: str = PAYOUT_ID) -> PayoutCall:
    destination = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": phone}}
    return PayoutCall(payout_id, Decimal(amount), currency, destination)


def paid_charge(connector: MpesaConnector, amount: str = "500.00") -> ProviderCall:
    """A C2B payment the sandbox completed, as the refund sees it (with M-Pesa's transaction ID)."""
    source = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841230000"}}
    call = ProviderCall(PAYMENT_ID, Decimal(amount), "MZN", source)
    result = connector.charge(call)
    assert result.status == "succeeded"
    return ProviderCall(
        PAYMENT_ID, Decimal(amount), "MZN", source, provider_reference=result.extra["provider_reference"]
    )


def test_it_pays_out_looks_up_and_refunds() -> None:
    connector = MpesaConnector({"api_key": "k", "public_key": "p", "service_provider_code": "171717"})
    assert isinstance(connector, Paying) and isinstance(connector, Refunding) and isinstance(connector, LookingUp)
    assert operation_base_url("https://api.vm.co.mz:18352", 18345) == "https://api.vm.co.mz:18345"
    assert operation_base_url("http://127.0.0.1:9999", 18354) == "http://127.0.0.1:9999"


def test_a_b2c_payout_is_paid_with_its_request_as_documented(sandbox: MpesaSandbox, connector: MpesaConnector) -> None:
    result = connector.payout(payout("+258841230000"))
    reference = PAYOUT_ID[-20:]
    assert result == ProviderResult(
        "succeeded",
        captured=True,
        extra={"provider_reference": transaction_id(reference), "conversation_id": conversation_id(reference)},
    )
    [received] = sandbox.requests
    assert (received.method, received.path, received.api_key) == ("POST", B2C_PATH, API_KEY)
    assert received.body == {
        "input_TransactionReference": reference,
        "input_CustomerMSISDN": "258841230000",
        "input_Amount": "300.00",
        "input_ThirdPartyReference": PAYOUT_ID[-12:],
        "input_ServiceProviderCode": "171717",
    }


@pytest.mark.parametrize(
    ("phone", "expected"),
    [
        (
            "+258841230001",
            ("failed", "insufficient_funds", "The M-Pesa business account's balance is too low to pay out."),
        ),
        ("+258841230005", ("failed", "invalid_recipient", "M-Pesa has no wallet for the recipient's number.")),
        ("+258841230004", ("pending", None, None)),  # the gateway's page: the money may have moved
        ("+258841230003", ("pending", None, None)),  # no answer in time
        ("+258841239999", ("failed", "provider_declined", "Transaction Failed")),
    ],
)
def test_what_a_payout_answer_means(connector: MpesaConnector, phone: str, expected: tuple[Any, ...]) -> None:
    result = connector.payout(payout(phone))
    assert (result.status, result.failure_code, result.failure_message) == expected


def test_a_payout_left_in_transit_is_settled_by_the_status_query(sandbox: MpesaSandbox) -> None:
    impatient = MpesaConnector(sandbox.credentials(), timeout=0.2)
    assert impatient.payout(payout("+258841230003")).status == "pending"
    sandbox.wait_for_answers(1, timeout=5)
    settled = impatient.payout_status(payout("+258841230003"))
    assert (settled.status, settled.extra["provider_reference"]) == ("succeeded", None)
    query = sandbox.requests[-1]
    assert (query.method, query.path, query.query["input_QueryReference"]) == ("GET", QUERY_PATH, PAYOUT_ID[-12:])
    never = impatient.payout_status(payout("+258841230000", payout_id="01JD3M6Y8Q7T3Y5F0ZC9W3NONE"))
    assert (never.status, never.failure_code) == ("failed", "not_received")
    sandbox.statuses[PAYOUT_ID[-12:]] = "Failed"
    failed = impatient.payout_status(payout("+258841230003"))
    assert (failed.status, failed.failure_code, failed.failure_message) == (
        "failed",
        "payout_declined",
        "M-Pesa says the payout failed.",
    )


def test_a_refund_reverses_the_payment_in_part_then_the_rest(sandbox: MpesaSandbox, connector: MpesaConnector) -> None:
    charge = paid_charge(connector)
    assert connector.refund_refusal(charge) is None
    part = connector.refund(charge, Decimal("200.00"), REFUND_ID)
    assert (part.status, part.captured) == ("succeeded", True)
    reversal = sandbox.requests[-1]
    assert (reversal.method, reversal.path) == ("PUT", REVERSAL_PATH)
    assert reversal.body == {
        "input_TransactionID": charge.provider_reference,
        "input_SecurityCredential": sandbox.security_credential,
        "input_InitiatorIdentifier": sandbox.initiator,
        "input_ThirdPartyReference": REFUND_ID[-12:],
        "input_ServiceProviderCode": "171717",
        "input_ReversalAmount": "200.00",
    }
    too_much = connector.refund(charge, Decimal("300.01"), "01JD3M6Y8Q7T3Y5F0ZC9W3RFN2")
    assert (too_much.status, too_much.failure_code, too_much.failure_message) == (
        "failed",
        "refund_declined",
        "M-Pesa refused the reversal amount (INS-15): more than is left to reverse.",
    )
    rest = connector.refund(charge, Decimal("300.00"), "01JD3M6Y8Q7T3Y5F0ZC9W3RFN3")
    assert rest.status == "succeeded" and sandbox.reversed[str(charge.provider_reference)] == Decimal("500.00")


def test_what_stops_a_refund_before_anything_is_sent(sandbox: MpesaSandbox, connector: MpesaConnector) -> None:
    charge = paid_charge(connector)
    bare = MpesaConnector(
        sandbox.credentials(initiator_identifier="", security_credential=""), timeout=0.5
    )  # a binding made before refunds
    assert bare.refund_refusal(charge) == mpesa.NO_INITIATOR
    assert bare.refund(charge, Decimal("1.00"), REFUND_ID) == ProviderResult(
        "failed", None, "not_supported", mpesa.NO_INITIATOR
    )
    unknown = ProviderCall(PAYMENT_ID, Decimal("1.00"), "MZN", charge.source)
    assert connector.refund_refusal(unknown) == mpesa.NO_TRANSACTION
    before = len(sandbox.requests)
    wrong = MpesaConnector(sandbox.credentials(security_credential="guess"), timeout=0.5)
    refused = wrong.refund(charge, Decimal("1.00"), REFUND_ID)
    assert (refused.status, refused.failure_code) == ("failed", "provider_auth_failed")
    assert len(sandbox.requests) == before + 1


def test_a_reversal_without_an_answer_is_pending_and_the_status_query_finishes_it(sandbox: MpesaSandbox) -> None:
    patient = MpesaConnector(sandbox.credentials(), timeout=5)
    charge = paid_charge(patient)
    impatient = MpesaConnector(sandbox.credentials(), timeout=0.2)
    assert impatient.refund(charge, Decimal("100.03"), REFUND_ID).status == "pending"
    assert impatient.refund(charge, Decimal("100.04"), "01JD3M6Y8Q7T3Y5F0ZC9W3RFN4").status == "pending"
    sandbox.wait_for_answers(3, timeout=5)
    done = impatient.refund_status(charge, REFUND_ID)
    assert (done.status, done.captured) == ("succeeded", True)
    assert sandbox.requests[-1].query["input_QueryReference"] == REFUND_ID[-12:]
    lost = impatient.refund_status(charge, "01JD3M6Y8Q7T3Y5F0ZC9W3RFN4")  # the gateway page: never reached M-Pesa
    assert (lost.status, lost.failure_code) == ("failed", "not_received")


def test_the_customers_masked_name(sandbox: MpesaSandbox, connector: MpesaConnector) -> None:
    assert connector.lookup_name("+258841230000", PAYOUT_ID) == NameAnswer(True, DEFAULT_MASKED_NAME)
    asked = sandbox.requests[-1]
    assert (asked.method, asked.path, asked.query) == (
        "GET",
        NAME_PATH,
        {
            "input_CustomerMSISDN": "258841230000",
            "input_ThirdPartyReference": PAYOUT_ID[-12:],
            "input_ServiceProviderCode": "171717",
        },
    )
    sandbox.names["258841231111"] = "Jo*o Mach**a"
    assert connector.lookup_name("+258841231111", PAYOUT_ID) == NameAnswer(True, "Jo*o Mach**a")
    assert connector.lookup_name("+258841230005", PAYOUT_ID) == NameAnswer(False)
    assert connector.lookup_name("+258861230000", PAYOUT_ID) == NameAnswer(False)  # not an M-Pesa number
    with pytest.raises(ProviderUnavailable):
        connector.lookup_name("+258841230004", PAYOUT_ID)
    with pytest.raises(ProviderUnavailable):
        MpesaConnector(sandbox.credentials(api_key="wrong"), timeout=0.5).lookup_name("+258841230000", PAYOUT_ID)


def test_no_log_line_carries_a_secret_or_a_number(
    sandbox: MpesaSandbox, connector: MpesaConnector, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = recorded_logs(monkeypatch)
    charge = paid_charge(connector)
    connector.payout(payout("+258841230000"))
    connector.refund(charge, Decimal("1.00"), REFUND_ID)
    connector.lookup_name("+258841230000", PAYOUT_ID)
    text = repr(lines) + repr(connector)
    assert [message for message, _ in lines] == [
        "M-Pesa C2B call answered",
        "M-Pesa B2C payout answered",
        "M-Pesa reversal answered",
        "M-Pesa customer name query answered",
    ]
    for secret in (API_KEY, sandbox.security_credential, sandbox.initiator, "841230000", DEFAULT_MASKED_NAME):
        assert secret not in text

"""The live M-Pesa connector against the loopback sandbox (real HTTP, real RSA tokens)."""

from __future__ import annotations

import textwrap
import time
from decimal import Decimal
from typing import Any

import pytest

from mzpay.connectors import mpesa
from mzpay.connectors.base import ProviderCall, ProviderResult, Reconciling
from mzpay.connectors.mpesa import MpesaConnector, amount_text, msisdn, outcome, query_base_url, status_outcome
from mzpay.domain.common.errors import ServiceError
from tests.providers.mpesa_sandbox import API_KEY, C2B_PATH, QUERY_PATH, MpesaSandbox, conversation_id, transaction_id

PAYMENT_ID = "01JD3M6Y8Q7T3Y5F0ZC9W3B2KX"
REFERENCE = "6Y8Q7T3Y5F0ZC9W3B2KX"  # its last 20 characters
THIRD_PARTY = "5F0ZC9W3B2KX"  # its last 12


def call(phone: str, amount: str = "150.00", currency: str = "MZN", payment_id: str = PAYMENT_ID) -> ProviderCall:
    source = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": phone}}
    return ProviderCall(payment_id, Decimal(amount), currency, source)


def test_success_is_captured_with_the_provider_ids(sandbox: MpesaSandbox, connector: MpesaConnector) -> None:
    result = connector.charge(call("+258841230000"))

    assert result == ProviderResult(
        "succeeded",
        captured=True,
        extra={"provider_reference": transaction_id(REFERENCE), "conversation_id": conversation_id(REFERENCE)},
    )
    [received] = sandbox.requests
    assert received.method == "POST"
    assert received.path == C2B_PATH
    assert received.api_key == API_KEY  # the bearer token decrypts to the API key
    assert received.headers["origin"] == "developer.mpesa.vm.co.mz"
    assert received.headers["content-type"] == "application/json"
    assert received.headers["authorization"].startswith("Bearer ")
    assert received.body == {
        "input_TransactionReference": REFERENCE,
        "input_CustomerMSISDN": "258841230000",
        "input_Amount": "150.00",
        "input_ThirdPartyReference": THIRD_PARTY,
        "input_ServiceProviderCode": "171717",
    }


# A charge M-Pesa refuses: {test id: (the payer's phone, our code, our message, M-Pesa's code)}.
REFUSED = {
    "low_balance": ("+258841230001", "insufficient_funds", "The payer's wallet balance is too low.", "INS-2006"),
    "cancelled": ("+258851230002", "payer_declined", "The payer rejected the payment prompt.", "INS-5"),
    "bad_msisdn": ("+258841230005", "invalid_phone", "The payer's number is not a valid M-Pesa number.", "INS-2051"),
    "other_codes_keep_the_provider_description": ("+258841239876", "provider_declined", "Transaction Failed", "INS-6"),
}


@pytest.mark.parametrize(("phone", "code", "message", "provider_code"), list(REFUSED.values()), ids=list(REFUSED))
def test_a_refused_charge_fails_with_the_payers_reason(
    connector: MpesaConnector, phone: str, code: str, message: str, provider_code: str
) -> None:
    assert connector.charge(call(phone)) == ProviderResult(
        "failed", None, code, message, extra={"provider_response_code": provider_code}
    )


def test_client_timeout_is_pending_because_the_provider_may_still_take_the_money(sandbox: MpesaSandbox) -> None:
    connector = MpesaConnector(sandbox.credentials(), timeout=0.5)

    started = time.monotonic()
    result = connector.charge(call("+258841230003"))
    elapsed = time.monotonic() - started

    assert result == ProviderResult("pending")
    assert 0.5 <= elapsed < 1.5
    # The sandbox answers INS-0 after the client gave up: reporting "failed" would have been wrong.
    [answer] = sandbox.wait_for_answers(1, timeout=5)
    assert (answer.status, answer.body and answer.body["output_ResponseCode"]) == (201, "INS-0")


def test_unavailable_gateway_is_pending(connector: MpesaConnector) -> None:
    assert connector.charge(call("+258841230004")) == ProviderResult("pending", extra={"http_status": 503})


def test_duplicate_is_pending_because_the_first_attempt_decides(connector: MpesaConnector) -> None:
    assert connector.charge(call("+258841230006")) == ProviderResult(
        "pending", extra={"provider_response_code": "INS-10"}
    )


def test_connection_refused_is_pending(sandbox: MpesaSandbox) -> None:
    credentials = sandbox.credentials()
    sandbox.stop()  # nothing listens on that port any more

    assert MpesaConnector(credentials, timeout=2).charge(call("+258841230000")) == ProviderResult("pending")


def test_wrong_api_key_fails_as_an_authentication_problem(sandbox: MpesaSandbox) -> None:
    connector = MpesaConnector(sandbox.credentials(api_key="not-the-key"), timeout=5)

    assert connector.charge(call("+258841230000", amount="10.5")) == ProviderResult(
        "failed",
        None,
        "provider_auth_failed",
        "M-Pesa refused the connector's API key (INS-2 Invalid API Key).",
        extra={"provider_response_code": "INS-2"},
    )
    [received] = sandbox.requests
    assert received.path == C2B_PATH
    assert received.headers["origin"] == "developer.mpesa.vm.co.mz"
    assert received.api_key == "not-the-key"
    assert received.body is not None
    assert received.body["input_CustomerMSISDN"] == "258841230000"
    assert received.body["input_Amount"] == "10.50"
    assert received.body["input_TransactionReference"] == REFERENCE


def test_token_made_with_another_public_key_does_not_decrypt(sandbox: MpesaSandbox) -> None:
    other = MpesaSandbox(api_key=API_KEY)  # never started: only its key pair is used
    connector = MpesaConnector(sandbox.credentials(public_key=other.public_key), timeout=5)

    result = connector.charge(call("+258841230000"))

    assert (result.status, result.failure_code) == ("failed", "provider_auth_failed")
    # With implicit rejection (OpenSSL 3.2+) a wrong key may decrypt to random bytes instead of
    # failing: either way it is never the API key.
    assert sandbox.requests[0].api_key != API_KEY


@pytest.mark.parametrize(
    "public_key", ["not base64 at all!", "QUJD", "-----BEGIN PUBLIC KEY-----\nQUJD\n-----END PUBLIC KEY-----"]
)
def test_an_unusable_public_key_fails_before_anything_is_sent(sandbox: MpesaSandbox, public_key: str) -> None:
    connector = MpesaConnector(sandbox.credentials(public_key=public_key), timeout=5)

    assert connector.charge(call("+258841230000")) == ProviderResult(
        "failed",
        None,
        "provider_auth_failed",
        "The connector's M-Pesa public key is not a usable RSA public key; the operator must rebind it.",
    )
    assert sandbox.requests == []


def test_a_pem_public_key_is_accepted_too(sandbox: MpesaSandbox) -> None:
    body = "\n".join(textwrap.wrap(sandbox.public_key, 64))
    pem = f"-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----\n"
    connector = MpesaConnector(sandbox.credentials(public_key=pem), timeout=5)

    assert connector.charge(call("+258841230000")).status == "succeeded"
    assert sandbox.requests[0].api_key == API_KEY


def test_amount_and_msisdn_formatting() -> None:
    assert amount_text(Decimal("10.5")) == "10.50"
    assert amount_text(Decimal("125000")) == "125000.00"
    assert amount_text(Decimal("0.01")) == "0.01"
    for bad in ("10.505", "0", "-1.00"):
        with pytest.raises(ValueError):
            amount_text(Decimal(bad))
    assert msisdn("+258841234567") == "258841234567"
    assert msisdn("+258851234567") == "258851234567"
    assert msisdn("+258861234567") is None  # e-Mola, not M-Pesa
    assert msisdn("+25884123456") is None
    connector = MpesaConnector({"api_key": "k", "public_key": "p", "service_provider_code": "171717"})
    assert connector.request_body(call("+258841234567", amount="10.5")) == {
        "input_TransactionReference": REFERENCE,
        "input_CustomerMSISDN": "258841234567",
        "input_Amount": "10.50",
        "input_ThirdPartyReference": THIRD_PARTY,
        "input_ServiceProviderCode": "171717",
    }
    assert connector.base_url == "https://api.vm.co.mz:18352"
    assert connector.origin == "developer.mpesa.vm.co.mz"


def test_a_number_of_another_network_never_reaches_the_provider(sandbox: MpesaSandbox) -> None:
    connector = MpesaConnector(sandbox.credentials(), timeout=5)

    result = connector.charge(call("+258861230000"))

    assert (result.status, result.failure_code) == ("failed", "invalid_phone")
    assert sandbox.requests == []


def test_single_stage_has_no_second_step() -> None:
    connector = MpesaConnector({"api_key": "k", "public_key": "p", "service_provider_code": "171717"})
    payment = call("+258841230000")
    for step in (
        lambda: connector.complete_action(payment, {}, None),
        lambda: connector.capture(payment, Decimal("1.00")),
        lambda: connector.void(payment),
    ):
        with pytest.raises(ServiceError) as raised:
            step()
        assert (raised.value.status, raised.value.code) == (409, "invalid_state")


def test_missing_credentials_are_refused() -> None:
    with pytest.raises(ValueError, match="public_key, service_provider_code"):
        MpesaConnector({"api_key": "k"})


@pytest.mark.parametrize(
    ("status", "code", "expected"),
    [
        (500, "INS-1", ProviderResult("pending", extra={"provider_response_code": "INS-1"})),
        (408, "INS-9", ProviderResult("pending", extra={"provider_response_code": "INS-9"})),
        (400, "INS-23", ProviderResult("pending", extra={"provider_response_code": "INS-23"})),
        (
            503,
            "INS-16",
            ProviderResult(
                "failed",
                None,
                "provider_unavailable",
                "M-Pesa was overloaded and did not handle the payment; retry later.",
                extra={"provider_response_code": "INS-16"},
            ),
        ),
        (
            400,
            "INS-2001",
            ProviderResult(
                "failed",
                None,
                "payer_declined",
                "The payer did not authorize the payment (PIN not accepted).",
                extra={"provider_response_code": "INS-2001"},
            ),
        ),
        (
            400,
            "INS-2057",
            ProviderResult(
                "failed", None, "provider_declined", "described", extra={"provider_response_code": "INS-2057"}
            ),
        ),
        (200, None, ProviderResult("pending", extra={"http_status": 200})),
        (408, None, ProviderResult("pending", extra={"http_status": 408})),
        (502, None, ProviderResult("pending", extra={"http_status": 502})),
        (
            403,
            None,
            ProviderResult(
                "failed",
                None,
                "provider_auth_failed",
                "M-Pesa refused the connector's credentials (HTTP 403).",
                extra={"http_status": 403},
            ),
        ),
        (
            404,
            None,
            ProviderResult(
                "failed",
                None,
                "provider_declined",
                "M-Pesa refused the request (HTTP 404).",
                extra={"http_status": 404},
            ),
        ),
    ],
)
def test_outcome_table(status: int, code: str | None, expected: ProviderResult) -> None:
    answer = {"output_ResponseCode": code, "output_ResponseDesc": "described"} if code else {}
    assert outcome(status, answer) == expected


def recorded_logs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """What the connector logs from now on in this test: (message, extra) a line."""
    lines: list[tuple[str, dict[str, Any]]] = []

    class Recorder:
        def info(self, message: str, extra: dict[str, Any]) -> None:
            lines.append((message, extra))

        warning = info

    monkeypatch.setattr(mpesa, "logger", Recorder())
    return lines


def test_logs_and_repr_carry_neither_secrets_nor_the_phone(
    sandbox: MpesaSandbox, connector: MpesaConnector, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = recorded_logs(monkeypatch)
    connector.charge(call("+258841230000"))
    connector.charge(call("+258841230004"))
    MpesaConnector(sandbox.credentials(), timeout=0.2).charge(call("+258841230003"))

    token = sandbox.requests[0].headers["authorization"].removeprefix("Bearer ")
    text = repr(lines) + repr(connector)
    assert len(lines) == 3
    assert lines[0][1]["response_code"] == "INS-0"
    assert lines[2][1]["error"] in {"TimeoutError", "URLError"}
    for secret in (API_KEY, token, "841230000", "841230004", "841230003"):
        assert secret not in text


# ---------------------------------------------------------------- status queries (Reconciling)
OTHER_PAYMENT_ID = "01JD3M6Y8Q7T3Y5F0ZC9W3ZZZZ"  # never charged


def test_the_connector_is_reconciling() -> None:
    connector = MpesaConnector({"api_key": "k", "public_key": "p", "service_provider_code": "171717"})
    assert isinstance(connector, Reconciling)
    assert connector.query_base_url == "https://api.vm.co.mz:18353"


def test_status_settles_the_charge_the_sandbox_completed_after_the_client_gave_up(sandbox: MpesaSandbox) -> None:
    connector = MpesaConnector(sandbox.credentials(), timeout=0.5)
    payment = call("+258841230003")

    assert connector.charge(payment) == ProviderResult("pending")
    # Asked while the sandbox still holds the prompt: still unknown.
    assert connector.status(payment) == ProviderResult("pending", extra={"provider_transaction_status": "Pending"})

    sandbox.wait_for_answers(2, timeout=5)  # the query's answer and, later, the slow INS-0
    assert sandbox.charges == {REFERENCE: "Completed"}
    # The portal's status answer carries no transaction ID: provider_reference stays unknown.
    assert connector.status(payment) == ProviderResult("succeeded", captured=True, extra={"provider_reference": None})


def test_status_request_path_parameters_origin_and_token(sandbox: MpesaSandbox, connector: MpesaConnector) -> None:
    assert connector.query_base_url == sandbox.base_url  # no port 18352 to replace: both calls on one port

    connector.status(call("+258841230000"))

    [received] = sandbox.requests
    assert received.method == "GET"
    assert received.path == QUERY_PATH
    assert received.query == {
        "input_QueryReference": THIRD_PARTY,
        "input_ThirdPartyReference": THIRD_PARTY,
        "input_ServiceProviderCode": "171717",
    }
    assert received.body is None
    assert received.api_key == API_KEY  # the same bearer token as the charge: the encrypted API key
    assert received.headers["authorization"].startswith("Bearer ")
    assert received.headers["origin"] == "developer.mpesa.vm.co.mz"


@pytest.mark.parametrize(
    ("phone", "expected"),
    [
        ("+258841230000", ProviderResult("succeeded", captured=True, extra={"provider_reference": None})),
        (
            "+258851230002",
            ProviderResult(
                "failed",
                None,
                "payer_declined",
                "M-Pesa says the payer cancelled the payment.",
                extra={"provider_transaction_status": "Cancelled"},
            ),
        ),
        (
            "+258841230001",
            ProviderResult(
                "failed",
                None,
                "provider_declined",
                "M-Pesa says the payment failed.",
                extra={"provider_transaction_status": "Failed"},
            ),
        ),
        (  # the gateway answered 503: the API never saw the charge
            "+258841230004",
            ProviderResult(
                "failed",
                None,
                "not_received",
                "The provider never received the payment.",
                extra={"provider_transaction_status": "N/A"},
            ),
        ),
    ],
)
def test_status_agrees_with_what_the_charge_was_answered(
    sandbox: MpesaSandbox, connector: MpesaConnector, phone: str, expected: ProviderResult
) -> None:
    payment = call(phone)
    connector.charge(payment)

    assert connector.status(payment) == expected


def test_an_unknown_reference_was_never_received(sandbox: MpesaSandbox, connector: MpesaConnector) -> None:
    connector.charge(call("+258841230000"))  # another payment: not the one asked about

    assert connector.status(call("+258841230000", payment_id=OTHER_PAYMENT_ID)) == ProviderResult(
        "failed",
        None,
        "not_received",
        "The provider never received the payment.",
        extra={"provider_transaction_status": "N/A"},
    )
    assert sandbox.requests[-1].query["input_QueryReference"] == "5F0ZC9W3ZZZZ"


def test_an_overridden_pending_status_stays_pending(sandbox: MpesaSandbox, connector: MpesaConnector) -> None:
    payment = call("+258841230000")
    assert connector.charge(payment).status == "succeeded"
    sandbox.statuses[REFERENCE] = "Pending"

    assert connector.status(payment) == ProviderResult("pending", extra={"provider_transaction_status": "Pending"})


def test_an_expired_prompt_fails_as_expired(sandbox: MpesaSandbox, connector: MpesaConnector) -> None:
    sandbox.statuses[THIRD_PARTY] = "Expired"  # keyed by the query reference this time

    assert connector.status(call("+258841230000")) == ProviderResult(
        "failed",
        None,
        "expired",
        "The payer did not answer the payment prompt in time.",
        extra={"provider_transaction_status": "Expired"},
    )


def test_an_unavailable_query_gateway_leaves_the_payment_pending(
    sandbox: MpesaSandbox, connector: MpesaConnector
) -> None:
    connector.charge(call("+258841230000"))
    sandbox.query_unavailable = True

    assert connector.status(call("+258841230000")) == ProviderResult("pending", extra={"http_status": 503})


def test_a_refused_query_leaves_the_payment_pending(sandbox: MpesaSandbox) -> None:
    # A wrong key says nothing about the payment: it stays pending (and the code is kept).
    connector = MpesaConnector(sandbox.credentials(api_key="not-the-key"), timeout=5)

    assert connector.status(call("+258841230000")) == ProviderResult(
        "pending", extra={"provider_response_code": "INS-2"}
    )


def test_no_answer_to_a_query_leaves_the_payment_pending(sandbox: MpesaSandbox) -> None:
    credentials = sandbox.credentials()
    sandbox.stop()

    assert MpesaConnector(credentials, timeout=2).status(call("+258841230000")) == ProviderResult("pending")


def test_an_unusable_public_key_sends_no_query(sandbox: MpesaSandbox) -> None:
    connector = MpesaConnector(sandbox.credentials(public_key="QUJD"), timeout=5)

    assert connector.status(call("+258841230000")) == ProviderResult("pending")
    assert sandbox.requests == []


def test_query_base_url() -> None:
    assert query_base_url("https://api.vm.co.mz:18352") == "https://api.vm.co.mz:18353"
    assert query_base_url("https://api.sandbox.vm.co.mz:18352/") == "https://api.sandbox.vm.co.mz:18353"
    assert query_base_url("http://127.0.0.1:41234") == "http://127.0.0.1:41234"
    assert query_base_url("https://proxy.example:183520") == "https://proxy.example:183520"
    credentials = {"api_key": "k", "public_key": "p", "service_provider_code": "171717"}
    assert MpesaConnector({**credentials, "base_url": "https://api.sandbox.vm.co.mz:18352"}).query_base_url == (
        "https://api.sandbox.vm.co.mz:18353"
    )
    assert MpesaConnector({**credentials, "query_base_url": "https://q.example:9/"}).query_base_url == (
        "https://q.example:9"
    )


@pytest.mark.parametrize(
    ("status", "answer", "expected"),
    [
        (
            200,
            {
                "output_ResponseCode": "INS-0",
                "output_ResponseTransactionStatus": "Completed",
                "output_TransactionID": "X1",
            },
            ProviderResult("succeeded", captured=True, extra={"provider_reference": "X1"}),
        ),
        (
            200,
            {
                "output_ResponseCode": "INS-0",
                "output_ResponseTransactionStatus": " completed ",
                "output_TransactionID": "N/A",
            },
            ProviderResult("succeeded", captured=True, extra={"provider_reference": None}),
        ),
        (
            200,
            {"output_ResponseCode": "INS-0", "output_ResponseTransactionStatus": "Canceled"},
            ProviderResult(
                "failed",
                None,
                "payer_declined",
                "M-Pesa says the payer cancelled the payment.",
                extra={"provider_transaction_status": "Canceled"},
            ),
        ),
        (
            200,
            {"output_ResponseCode": "INS-0", "output_ResponseTransactionStatus": "n/a"},
            ProviderResult(
                "failed",
                None,
                "not_received",
                "The provider never received the payment.",
                extra={"provider_transaction_status": "n/a"},
            ),
        ),
        (  # a word it does not know decides nothing
            200,
            {"output_ResponseCode": "INS-0", "output_ResponseTransactionStatus": "Reversed"},
            ProviderResult("pending", extra={"provider_transaction_status": "Reversed"}),
        ),
        (200, {"output_ResponseCode": "INS-0"}, ProviderResult("pending", extra={"provider_transaction_status": ""})),
        (  # a status beside an error code is not trusted
            400,
            {"output_ResponseCode": "INS-23", "output_ResponseTransactionStatus": "N/A"},
            ProviderResult("pending", extra={"provider_response_code": "INS-23"}),
        ),
        (400, {"output_ResponseCode": "INS-18"}, ProviderResult("pending", extra={"provider_response_code": "INS-18"})),
        (404, {}, ProviderResult("pending", extra={"http_status": 404})),
        (200, {}, ProviderResult("pending", extra={"http_status": 200})),
    ],
)
def test_status_outcome_table(status: int, answer: dict[str, Any], expected: ProviderResult) -> None:
    assert status_outcome(status, answer) == expected


def test_status_logs_carry_no_secrets(
    sandbox: MpesaSandbox, connector: MpesaConnector, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = recorded_logs(monkeypatch)
    connector.status(call("+258841230000"))

    token = sandbox.requests[0].headers["authorization"].removeprefix("Bearer ")
    [(message, extra)] = lines
    assert (message, extra["response_code"], extra["transaction_status"]) == (
        "M-Pesa status query answered",
        "INS-0",
        "N/A",
    )
    for secret in (API_KEY, token):
        assert secret not in repr(lines)

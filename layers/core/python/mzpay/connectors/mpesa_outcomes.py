"""What M-Pesa's answers mean: the portal's response codes (developer.mpesa.vm.co.mz, "Response
Codes") mapped to the service's outcomes, per operation, in one place (docs/connectors.md lists
them). The rule: report a failure only when the provider refused outright; anything that may
have moved money stays pending, and reconciliation (the status query) finishes it."""

from __future__ import annotations

from typing import Any

from mzpay.connectors.base import NOT_RECEIVED as NOT_RECEIVED_CODE
from mzpay.connectors.base import ProviderResult
from mzpay.domain.payments.rules import Status

# Codes whose outcome stays unknown: money may have moved (or may still move), so never "failed".
UNKNOWN_OUTCOME = {
    "INS-1",  # internal error: seen after a completed debit as well as before one
    "INS-9",  # request timeout: the payer may still approve the prompt
    "INS-10",  # duplicate: an earlier attempt with the same reference decides the outcome
    "INS-23",  # unknown status
}

# Definitive refusals: code -> (failure_code, failure_message). Other codes: provider_declined.
FAILURES: dict[str, tuple[str, str]] = {
    "INS-2": ("provider_auth_failed", "M-Pesa refused the connector's API key (INS-2 Invalid API Key)."),
    "INS-4": ("provider_auth_failed", "M-Pesa says the API user is not active (INS-4)."),
    "INS-26": ("provider_auth_failed", "M-Pesa says the connector is not authorized (INS-26)."),
    "INS-5": ("payer_declined", "The payer rejected the payment prompt."),
    "INS-2001": ("payer_declined", "The payer did not authorize the payment (PIN not accepted)."),
    "INS-2006": ("insufficient_funds", "The payer's wallet balance is too low."),
    "INS-2051": ("invalid_phone", "The payer's number is not a valid M-Pesa number."),
    "INS-16": ("provider_unavailable", "M-Pesa was overloaded and did not handle the payment; retry later."),
}

# Query Transaction Status: output_ResponseTransactionStatus (lower-cased) -> the payment's outcome.
# Only an INS-0 answer carries a status worth acting on; any other answer leaves the payment pending.
COMPLETED = "completed"
NOT_FOUND = "n/a"  # M-Pesa has no transaction under the query reference
NOT_RECEIVED = "The provider never received the payment."
STATUS_FAILURES: dict[str, tuple[str, str]] = {
    "cancelled": ("payer_declined", "M-Pesa says the payer cancelled the payment."),
    "canceled": ("payer_declined", "M-Pesa says the payer cancelled the payment."),
    "expired": ("expired", "The payer did not answer the payment prompt in time."),
    "failed": ("provider_declined", "M-Pesa says the payment failed."),
}


# The same codes answering a B2C payout (the business pays a customer).
PAYOUT_FAILURES: dict[str, tuple[str, str]] = {
    **{code: FAILURES[code] for code in ("INS-2", "INS-4", "INS-26", "INS-16")},
    "INS-2006": ("insufficient_funds", "The M-Pesa business account's balance is too low to pay out."),
    "INS-2051": ("invalid_recipient", "M-Pesa has no wallet for the recipient's number."),
    "INS-2002": ("invalid_recipient", "M-Pesa refused the recipient (INS-2002 Receiver invalid)."),
    "INS-15": ("invalid_amount", "M-Pesa refused the amount (INS-15 Invalid Amount Used)."),
}

# The same codes answering a reversal (a refund of an earlier C2B payment).
REFUND_FAILURES: dict[str, tuple[str, str]] = {
    **{code: FAILURES[code] for code in ("INS-2", "INS-4", "INS-26", "INS-16")},
    "INS-2001": ("provider_auth_failed", "M-Pesa refused the initiator's credentials (INS-2001)."),
    "INS-24": ("provider_auth_failed", "M-Pesa refused the initiator identifier (INS-24)."),
    "INS-25": ("provider_auth_failed", "M-Pesa refused the security credential (INS-25)."),
    "INS-15": ("refund_declined", "M-Pesa refused the reversal amount (INS-15): more than is left to reverse."),
    "INS-18": ("refund_declined", "M-Pesa does not know the payment's transaction (INS-18 Invalid TransactionID)."),
    "INS-2006": ("refund_declined", "The M-Pesa business account's balance is too low to reverse the payment."),
}
# A refund or payout the status query finds failed: (failure_code, failure_message) by operation.
MONEY_OUT_STATUS_FAILURES = {
    "refund": ("refund_declined", "M-Pesa says the reversal failed."),
    "payout": ("payout_declined", "M-Pesa says the payout failed."),
}


def outcome(
    http_status: int, answer: dict[str, Any], failures: dict[str, tuple[str, str]] = FAILURES
) -> ProviderResult:
    """The ProviderResult of an answer to a money movement (C2B by default; a payout's or a
    refund's with its own `failures` table) from its HTTP status and parsed JSON body."""
    code = str(answer.get("output_ResponseCode") or "") or None
    description = str(answer.get("output_ResponseDesc") or "").strip()
    if code == "INS-0":
        return ProviderResult(
            Status.SUCCEEDED,
            captured=True,
            extra={
                "provider_reference": answer.get("output_TransactionID"),
                "conversation_id": answer.get("output_ConversationID"),
            },
        )
    if code is None:
        # No code: only a plain 4xx refusal is definitive; a 2xx, 408, 409, 5xx or gateway page is not.
        if http_status in (401, 403):
            return ProviderResult(
                Status.FAILED,
                None,
                "provider_auth_failed",
                f"M-Pesa refused the connector's credentials (HTTP {http_status}).",
                extra={"http_status": http_status},
            )
        if 400 <= http_status < 500 and http_status not in (408, 409):
            return ProviderResult(
                Status.FAILED,
                None,
                "provider_declined",
                f"M-Pesa refused the request (HTTP {http_status}).",
                extra={"http_status": http_status},
            )
        return ProviderResult(Status.PENDING, extra={"http_status": http_status})
    extra = {"provider_response_code": code}
    if code in UNKNOWN_OUTCOME:
        return ProviderResult(Status.PENDING, extra=extra)
    if code in failures:
        failure_code, message = failures[code]
        return ProviderResult(Status.FAILED, None, failure_code, message, extra=extra)
    return ProviderResult(
        Status.FAILED, None, "provider_declined", description or f"M-Pesa declined the payment ({code}).", extra=extra
    )


def status_outcome(http_status: int, answer: dict[str, Any], operation: str = "payment") -> ProviderResult:
    """The ProviderResult of a Query Transaction Status answer (HTTP status and parsed JSON body)
    for a payment, a refund or a payout (`operation`). Only an INS-0 answer naming a final status
    decides; anything else (Pending, an unknown word, another code, no code) leaves it pending."""
    code = str(answer.get("output_ResponseCode") or "") or None
    if code != "INS-0":
        return ProviderResult(
            Status.PENDING, extra={"provider_response_code": code} if code else {"http_status": http_status}
        )
    transaction_status = str(answer.get("output_ResponseTransactionStatus") or "").strip()
    key = transaction_status.lower()
    if key == COMPLETED:
        return ProviderResult(Status.SUCCEEDED, captured=True, extra={"provider_reference": _transaction_id(answer)})
    extra = {"provider_transaction_status": transaction_status}
    if key == NOT_FOUND:
        return ProviderResult(Status.FAILED, None, NOT_RECEIVED_CODE, NOT_RECEIVED, extra=extra)
    if key in STATUS_FAILURES:
        failure_code, message = MONEY_OUT_STATUS_FAILURES.get(operation) or STATUS_FAILURES[key]
        return ProviderResult(Status.FAILED, None, failure_code, message, extra=extra)
    return ProviderResult(Status.PENDING, extra=extra)


def _transaction_id(answer: dict[str, Any]) -> str | None:
    """The M-Pesa transaction ID, when a status answer carries one (the portal documents none)."""
    for key in ("output_TransactionID", "output_OriginalTransactionID"):
        value = str(answer.get(key) or "").strip()
        if value and value.upper() != "N/A":
            return value
    return None

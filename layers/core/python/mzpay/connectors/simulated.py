"""The test-mode connector: every outcome is a pure function of the request's own inputs (the
payer's phone number, the card token or test card), documented in docs/test-mode.md. It never
looks at the clock or a random source, and never reaches a live provider."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from ulid import ULID

from mzpay.connectors.base import PayoutCall, ProviderCall, ProviderResult
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.money.amounts import quantize
from mzpay.domain.payments.charges import TEST_CARDS
from mzpay.domain.payments.references import payment_reference
from mzpay.domain.payments.rules import Status

OTP = "123456"  # the one code the simulated OTP form accepts
SIMULATED_HOST = "https://simulator.test.mzpay.example"

# Mobile wallets: the last four digits of the payer's number decide.
WALLET_OUTCOMES: dict[str, tuple[str, str | None, str | None]] = {
    "0000": (Status.SUCCEEDED, None, None),
    "0001": (Status.FAILED, "insufficient_funds", "The payer's wallet balance is too low."),
    "0002": (Status.FAILED, "payer_declined", "The payer rejected the payment prompt."),
    "0003": (Status.PENDING, None, None),  # the provider timed out: outcome unknown for now
    # a provider outage (docs/test-mode.md): it says it cannot handle the charge, as M-Pesa's INS-16
    "0503": (Status.FAILED, "provider_unavailable", "The provider is unavailable (a simulated outage); retry later."),
}

# Cards: the token decides (a test card number stands for its token).
CARD_FAILURES: dict[str, tuple[str, str]] = {
    "tok_test_insufficient_funds": ("insufficient_funds", "The card has insufficient funds."),
    "tok_test_declined": ("card_declined", "The issuer declined the card."),
}


# Refunds: the refunded amount's cents decide.
REFUND_OUTCOMES: dict[str, tuple[str, str | None, str | None]] = {
    "13": (Status.FAILED, "refund_declined", "The provider declined the refund."),
    "14": (Status.PENDING, None, None),
}

# Payouts: the paid-out amount's cents decide (after the recipient check).
PAYOUT_OUTCOMES: dict[str, tuple[str, str | None, str | None]] = {
    "13": (Status.FAILED, "payout_declined", "The provider declined the payout."),
    "14": (Status.PENDING, None, None),
}

# The acquirer behind tok_test_fee reports keeping this share of what it captured (the ledger's fees).
CARD_FEE_RATE = Decimal("0.025")

TEST_ENTITY = "21000"  # the simulator's payment-reference entity
REFERENCE_VALIDITY = timedelta(hours=72)
CODE_VALIDITY = timedelta(minutes=15)


def _expires(validity: timedelta) -> str:
    return (datetime.now(UTC) + validity).isoformat(timespec="seconds").replace("+00:00", "Z")


def _seed(call: ProviderCall) -> int:
    return int(ULID.from_str(call.provider_payment_id))


def _reference(call: ProviderCall) -> dict[str, Any]:
    return {
        "type": "display_reference",
        "entity": TEST_ENTITY,
        "reference": payment_reference(TEST_ENTITY, _seed(call), call.amount),
        "expires_at": _expires(REFERENCE_VALIDITY),
    }


def _ussd(call: ProviderCall) -> dict[str, Any]:
    code = payment_reference(TEST_ENTITY, _seed(call), call.amount)
    return {
        "type": "display_ussd_code",
        "ussd_code": f"*500*{TEST_ENTITY}*{code}#",
        "expires_at": _expires(CODE_VALIDITY),
    }


def _qr(call: ProviderCall) -> dict[str, Any]:
    data = f"mzpay://pay?entity={TEST_ENTITY}&reference={payment_reference(TEST_ENTITY, _seed(call), call.amount)}"
    return {
        "type": "display_qr_code",
        "qr_code_url": f"{SIMULATED_HOST}/qr/{call.provider_payment_id}.png",
        "qr_code_data": data,
        "expires_at": _expires(CODE_VALIDITY),
    }


def _bank(call: ProviderCall) -> dict[str, Any]:
    return {
        "type": "redirect_to_url",
        "redirect_url": f"{SIMULATED_HOST}/bank/{call.provider_payment_id}",
        "return_url": call.return_url,
    }


def _bnpl(call: ProviderCall) -> dict[str, Any]:
    return {
        "type": "redirect_to_url",
        "redirect_url": f"{SIMULATED_HOST}/bnpl/{call.provider_payment_id}",
        "return_url": call.return_url,
        "bnpl_provider": "simulated-bnpl",
    }


# Methods the payer completes elsewhere (ATM, USSD menu, banking app, lender): next_action says how.
ASYNC_METHODS = {"reference": _reference, "ussd": _ussd, "qr": _qr, "bank_transfer": _bank, "bnpl": _bnpl}


def _masked(phone: str) -> str:
    return phone[:6] + "*" * (len(phone) - 8) + phone[-2:]


def card_token(source: dict[str, Any]) -> str:
    card = source.get("card") or {}
    return str(card.get("token") or TEST_CARDS.get(str(card.get("number", "")).replace(" ", ""), ""))


class SimulatedConnector:
    def charge(self, call: ProviderCall) -> ProviderResult:
        if call.open_amount:  # the payer picks the amount on the provider's page
            return ProviderResult(
                Status.REQUIRES_ACTION,
                {
                    "type": "redirect_to_url",
                    "redirect_url": f"{SIMULATED_HOST}/pay/{call.provider_payment_id}",
                    "return_url": call.return_url,
                },
            )
        if call.source["type"] in ASYNC_METHODS:
            return ProviderResult(Status.REQUIRES_ACTION, ASYNC_METHODS[call.source["type"]](call))
        if call.source["type"] == "mobile_wallet":
            phone = call.source["mobile_wallet"]["phone_number"]
            status, code, message = WALLET_OUTCOMES.get(phone[-4:], (Status.REQUIRES_ACTION, None, None))
            if status == Status.REQUIRES_ACTION:  # a USSD prompt on the payer's phone: poll
                return ProviderResult(Status.REQUIRES_ACTION, {"type": "poll", "poll_interval_secs": 5})
            return ProviderResult(status, None, code, message, captured=status == Status.SUCCEEDED)
        token = card_token(call.source)
        if token in CARD_FAILURES:
            code, message = CARD_FAILURES[token]
            return ProviderResult(Status.FAILED, None, code, message)
        if token == "tok_test_3ds":
            return ProviderResult(
                Status.REQUIRES_ACTION,
                {
                    "type": "redirect_to_url",
                    "redirect_url": f"{SIMULATED_HOST}/3ds/{call.provider_payment_id}",
                    "return_url": call.return_url,
                },
            )
        if token == "tok_test_otp":
            return ProviderResult(
                Status.REQUIRES_ACTION,
                {
                    "type": "display_otp_form",
                    "otp_hint": "Enter the 6-digit code sent by SMS",
                    "otp_length": 6,
                    "masked_dest": "+258 84 *** **67",
                },
            )
        if token == "tok_test_authorize":
            return ProviderResult(Status.AUTHORIZED)
        if token == "tok_test_timeout":
            return ProviderResult(Status.PENDING)
        if token == "tok_test_fee":
            return ProviderResult(
                Status.SUCCEEDED, captured=True, fee=quantize(call.amount * CARD_FEE_RATE, call.currency)
            )
        return ProviderResult(Status.SUCCEEDED, captured=True)

    def complete_action(self, call: ProviderCall, next_action: dict[str, Any], otp: str | None) -> ProviderResult:
        if next_action.get("type") == "display_otp_form":
            if not otp:
                raise ServiceError(400, "missing_otp", "This payment waits for the OTP the payer received.")
            if otp != OTP:
                raise ServiceError(422, "invalid_otp", "The OTP does not match.")
        return ProviderResult(Status.SUCCEEDED, captured=True)

    def capture(self, call: ProviderCall, amount: Decimal) -> ProviderResult:
        return ProviderResult(Status.SUCCEEDED, captured=True)

    def void(self, call: ProviderCall) -> ProviderResult:
        return ProviderResult(Status.CANCELED)

    def payout(self, call: PayoutCall) -> ProviderResult:
        """A wallet number ending 0001 is no such recipient; otherwise the amount's cents decide
        like refunds (.13 declined, .14 the provider timed out)."""
        phone = (call.destination.get("mobile_wallet") or {}).get("phone_number", "")
        if phone.endswith("0001"):
            return ProviderResult(
                Status.FAILED,
                failure_code="invalid_recipient",
                failure_message="The recipient's wallet does not exist.",
            )
        cents = f"{call.amount:.2f}"[-2:]
        if cents in PAYOUT_OUTCOMES:
            status, code, message = PAYOUT_OUTCOMES[cents]
            return ProviderResult(status, failure_code=code, failure_message=message)
        return ProviderResult(Status.SUCCEEDED)

    def refund_refusal(self, call: ProviderCall) -> str | None:
        return None

    def refund(self, call: ProviderCall, amount: Decimal, reference: str = "") -> ProviderResult:
        """The refund's cents decide: .13 is declined by the provider, .14 times out (pending)."""
        cents = f"{amount:.2f}"[-2:]
        if cents in REFUND_OUTCOMES:
            status, code, message = REFUND_OUTCOMES[cents]
            return ProviderResult(status, failure_code=code, failure_message=message)
        return ProviderResult(Status.SUCCEEDED)

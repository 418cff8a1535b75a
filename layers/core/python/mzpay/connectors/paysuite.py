"""Live connector for PaySuite (paysuite.tech, Hypertech Lda), a Mozambican aggregator that
takes M-Pesa, e-Mola and cards on its own checkout page (docs/connectors.md says why this one,
with the documentation it follows).

A charge is one POST to `/api/v1/payments` with the account's bearer token: amount, our
reference, a description, `return_url` and `callback_url`. PaySuite answers with its payment id
and a `checkout_url`, where the payer chooses the wallet and approves: the charge waits in
`requires_action` with a `redirect_to_url` next action. Its outcome arrives as a webhook
(`payment.success` or `payment.failed`) whose raw body is signed with the account's webhook
secret (HMAC-SHA256, hex, in `X-Webhook-Signature`); `GET /api/v1/payments/{id}` tells whether
it was paid (a `transaction` with `paid_at`). PaySuite's API documents no refunds, no payouts
and no name lookups: those are refused before anything is written. The rule, as for every
connector: report a failure only when PaySuite refused outright; anything that may have moved
money stays open, and a callback or a status query finishes it.
"""

from __future__ import annotations

import hashlib
import hmac
import urllib.parse
import urllib.request
from decimal import Decimal
from typing import Any

from mzpay.config import settings
from mzpay.connectors.base import ProviderCall, ProviderResult
from mzpay.connectors.provider_http import NoRedirect, call_json, json_request
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.rules import Status
from mzpay.observability import logger

PRODUCTION_BASE_URL = "https://paysuite.tech/api/v1"
PAYMENTS_PATH = "/payments"
CALLBACK_PATH = "/callbacks/paysuite"  # on the gateway: see functions/gateway_checkout
SIGNATURE_HEADER = "X-Webhook-Signature"
SUCCESS_EVENT, FAILED_EVENT = "payment.success", "payment.failed"
WALLETS = ("mpesa", "emola")  # the wallets PaySuite carries for us; and cards, on its page
CARD_TOKENS = (
    "PaySuite takes cards on its own checkout page, not by an acquirer's token: send the payer to "
    "the hosted checkout, whose card choice goes on to PaySuite's page."
)
NO_REFUNDS = (
    "PaySuite's API has no refunds: give the payer their money back from the PaySuite dashboard "
    "(or by a payout through another provider)."
)

# payment.failed's `error` text (lower-cased) -> failure_code; any other text: provider_declined.
CALLBACK_FAILURES: dict[str, str] = {"insufficient funds": "insufficient_funds"}

_CENTS = Decimal("0.01")


def amount_text(amount: Decimal) -> str:
    """'100.50' for Decimal('100.5'): PaySuite takes MZN with two decimals."""
    exact = amount.quantize(_CENTS)
    if exact != amount or amount <= 0:
        raise ValueError("a PaySuite amount is a positive number of centavos")
    return f"{exact:f}"


def signature(body: bytes, secret: str) -> str:
    """The X-Webhook-Signature of a webhook body: hex HMAC-SHA256 with the webhook secret."""
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def create_outcome(http_status: int, answer: dict[str, Any], return_url: str | None) -> ProviderResult:
    """The charge's state after PaySuite answered its creation (HTTP status, parsed body)."""
    data = answer.get("data") if isinstance(answer.get("data"), dict) else {}
    assert isinstance(data, dict)
    checkout_url, payment_id = str(data.get("checkout_url") or ""), str(data.get("id") or "")
    if 200 <= http_status < 300 and answer.get("status") == "success" and checkout_url and payment_id:
        action = {"type": "redirect_to_url", "redirect_url": checkout_url, "return_url": return_url}
        return ProviderResult(Status.REQUIRES_ACTION, action, extra={"provider_reference": payment_id})
    message = str(answer.get("message") or "").strip()
    extra = {"http_status": http_status}
    if http_status in (401, 403):
        text = f"PaySuite refused the connector's API token (HTTP {http_status})."
        return ProviderResult(Status.FAILED, None, "provider_auth_failed", text, extra=extra)
    if http_status in (400, 422) and answer.get("status") == "error":
        text = f"PaySuite refused the payment: {message}" if message else "PaySuite refused the payment."
        return ProviderResult(Status.FAILED, None, "provider_declined", text, extra=extra)
    # 2xx without a checkout, 404, 408, 409, 429, 5xx, a gateway page: the outcome is unknown.
    return ProviderResult(Status.PENDING, extra=extra)


def callback_outcome(event: dict[str, Any], amount: Decimal) -> ProviderResult:
    """What a (verified) webhook says of the charge of `amount`: succeeded, failed, or nothing
    (pending) for another event or an amount that is not the charge's."""
    data = event.get("data") if isinstance(event.get("data"), dict) else {}
    assert isinstance(data, dict)
    kind = event.get("event")
    try:
        paid = Decimal(str(data.get("amount")))
    except ArithmeticError:
        paid = None
    if kind == SUCCESS_EVENT and paid == amount:
        transaction = data.get("transaction") if isinstance(data.get("transaction"), dict) else {}
        assert isinstance(transaction, dict)
        extra = {"provider_transaction_id": transaction.get("id"), "provider_method": transaction.get("method")}
        return ProviderResult(Status.SUCCEEDED, captured=True, extra=extra)
    if kind == FAILED_EVENT:
        error = str(data.get("error") or "").strip()
        code = CALLBACK_FAILURES.get(error.lower(), "provider_declined")
        return ProviderResult(Status.FAILED, None, code, error or "PaySuite says the payment failed.")
    return ProviderResult(Status.PENDING)


def status_outcome(http_status: int, answer: dict[str, Any]) -> ProviderResult:
    """What a GET /payments/{id} answer says: succeeded once it carries a transaction paid at a
    time; anything else (not paid yet, an error, no answer) leaves the charge open."""
    data = answer.get("data") if isinstance(answer.get("data"), dict) else {}
    assert isinstance(data, dict)
    transaction = data.get("transaction") if isinstance(data.get("transaction"), dict) else None
    if 200 <= http_status < 300 and transaction and transaction.get("paid_at"):
        extra = {"provider_transaction_id": transaction.get("id"), "provider_method": transaction.get("method")}
        return ProviderResult(Status.SUCCEEDED, captured=True, extra=extra)
    return ProviderResult(Status.PENDING, extra={"http_status": http_status})


def _summary(answer: dict[str, Any]) -> dict[str, Any]:
    """What the logs keep of an answer: its status word (never its body)."""
    return {"answer_status": str(answer.get("status") or "")[:16] or None}


class PaysuiteConnector:
    """PaySuite: M-Pesa, e-Mola and card charges on its checkout page, with signed webhooks and status
    queries. Credentials: api_token and webhook_secret; optionally base_url (default
    production) and callback_url (default: PUBLIC_GATEWAY_URL + /callbacks/paysuite)."""

    def __init__(self, credentials: dict[str, str], timeout: float = 20.0) -> None:
        missing = [k for k in ("api_token", "webhook_secret") if not credentials.get(k)]
        if missing:
            raise ValueError(f"PaySuite credentials lack {', '.join(missing)}")
        self._token = credentials["api_token"]
        self._webhook_secret = credentials["webhook_secret"]
        self.base_url = (credentials.get("base_url") or PRODUCTION_BASE_URL).rstrip("/")
        gateway = settings().public_gateway_url
        self.callback_url = credentials.get("callback_url") or (
            gateway.rstrip("/") + CALLBACK_PATH if gateway else None
        )
        self.timeout = timeout
        self._opener = urllib.request.build_opener(NoRedirect)

    def __repr__(self) -> str:  # keeps the token and the webhook secret out of tracebacks and logs
        return f"PaysuiteConnector(base_url={self.base_url!r})"

    def request_body(self, call: ProviderCall) -> dict[str, str]:
        """The payment request for `call`: our payment id is PaySuite's reference (the webhook
        names it), the amount in MZN with two decimals."""
        body = {
            "amount": amount_text(call.amount),
            "reference": call.provider_payment_id,
            "description": f"Payment {call.provider_payment_id}",
        }
        if call.return_url:
            body["return_url"] = call.return_url
        if self.callback_url:
            body["callback_url"] = self.callback_url
        return body

    def _call(
        self, operation: str, method: str, url: str, log: dict[str, Any], body: dict[str, str] | None = None
    ) -> tuple[int, dict[str, Any]] | None:
        """One call: the HTTP status and parsed body, or None when no answer came. Logs the
        outcome, never the token, a secret or a body."""
        headers = {"Authorization": f"Bearer {self._token}", "Accept": "application/json", "User-Agent": "mzpay"}
        request = json_request(url, method, headers, body)
        log = {"provider": "paysuite", **log}
        return call_json(self._opener, self.timeout, "PaySuite", operation, request, log, _summary, logger)

    def charge(self, call: ProviderCall) -> ProviderResult:
        """A wallet's or a card's charge: the same request, as PaySuite's API names no method (the
        payer picks the wallet or types the card on PaySuite's page). A card by token is refused:
        no card data ever goes from us to PaySuite."""
        kind, wallet = call.source.get("type"), call.source.get("mobile_wallet") or {}
        wallet_charge = kind == "mobile_wallet" and wallet.get("network") in WALLETS
        if not (wallet_charge or kind == "card") or call.open_amount:
            raise ValueError("the PaySuite connector carries fixed-amount M-Pesa, e-Mola and card charges only")
        if self.charge_refusal(call.source):  # the charge use case refuses it before writing
            return ProviderResult(Status.FAILED, None, "not_supported", CARD_TOKENS)
        if call.currency != "MZN":
            return ProviderResult(Status.FAILED, None, "unsupported_currency", "PaySuite charges MZN only.")
        log = {"provider_payment_id": call.provider_payment_id}
        answered = self._call("payment request", "POST", self.base_url + PAYMENTS_PATH, log, self.request_body(call))
        return ProviderResult(Status.PENDING) if answered is None else create_outcome(*answered, call.return_url)

    def charge_refusal(self, source: dict[str, Any]) -> str | None:
        """A card by token: PaySuite's page takes the card, no card data goes from us to it."""
        return CARD_TOKENS if source.get("type") == "card" and source.get("card") else None

    def status(self, call: ProviderCall) -> ProviderResult:
        """Whether PaySuite's payment was paid (Reconciling). Without PaySuite's id (the request
        got no answer) there is nothing to ask: the charge waits for its webhook or its deadline."""
        if not call.provider_reference:
            return ProviderResult(Status.PENDING)
        url = f"{self.base_url}{PAYMENTS_PATH}/{urllib.parse.quote(call.provider_reference, safe='')}"
        answered = self._call("status query", "GET", url, {"provider_payment_id": call.provider_payment_id})
        return ProviderResult(Status.PENDING) if answered is None else status_outcome(*answered)

    def verify_callback(self, body: bytes, signed: str) -> bool:
        """Whether `signed` (X-Webhook-Signature) is the webhook secret's signature of `body`."""
        return bool(signed) and hmac.compare_digest(signature(body, self._webhook_secret), signed.strip().lower())

    def callback_outcome(self, event: dict[str, Any], call: ProviderCall) -> ProviderResult:
        return callback_outcome(event, call.amount)

    def refund_refusal(self, call: ProviderCall) -> str | None:
        return NO_REFUNDS

    def refund(self, call: ProviderCall, amount: Decimal, reference: str = "") -> ProviderResult:
        return ProviderResult(Status.FAILED, None, "not_supported", NO_REFUNDS)

    def complete_action(self, call: ProviderCall, next_action: dict[str, Any], otp: str | None) -> ProviderResult:
        raise ServiceError(409, "invalid_state", "The payer completes a PaySuite payment on PaySuite's page.")

    def capture(self, call: ProviderCall, amount: Decimal) -> ProviderResult:
        raise ServiceError(409, "invalid_state", "PaySuite payments are single-stage: there is nothing to capture.")

    def void(self, call: ProviderCall) -> ProviderResult:
        raise ServiceError(409, "invalid_state", "PaySuite payments are single-stage: there is nothing to void.")

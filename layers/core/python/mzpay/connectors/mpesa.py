"""Live connector for Vodacom Mozambique M-Pesa (OpenAPI, C2B single stage).

One POST to `/ipg/v1x/c2bPayment/singleStage/` pushes a PIN prompt to the payer and answers
once the payer acted (or the provider gave up): there is no authorize/capture split. The bearer
token is the API key encrypted with the portal's RSA public key (PKCS#1 v1.5), base64-encoded.
`output_ResponseCode` values are those of the developer portal's "Response Codes" table
(developer.mpesa.vm.co.mz). The rule: report a failure only when the provider refused the
payment outright; anything that may have moved money stays `pending`.

A payment left `pending` is reconciled with the portal's "Query Transaction Status" call
(`status`): a GET to `/ipg/v1x/queryTransactionStatus/` on port 18353 (the C2B call uses 18352)
with input_QueryReference, input_ThirdPartyReference and input_ServiceProviderCode as query
parameters, the same bearer token and Origin; its answer carries
`output_ResponseTransactionStatus` (Completed, Pending, Cancelled, Expired, or N/A when M-Pesa
has no such transaction).
"""

from __future__ import annotations

import base64
import http.client
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from decimal import Decimal
from typing import Any

from mzpay.connectors.base import NOT_RECEIVED as NOT_RECEIVED_CODE
from mzpay.connectors.base import ProviderCall, ProviderResult
from mzpay.domain.errors import ServiceError
from mzpay.domain.payments import Status
from mzpay.observability import logger

PRODUCTION_BASE_URL = "https://api.vm.co.mz:18352"
SANDBOX_BASE_URL = "https://api.sandbox.vm.co.mz:18352"
DEFAULT_ORIGIN = "developer.mpesa.vm.co.mz"  # the Origin the portal's examples send
C2B_PATH = "/ipg/v1x/c2bPayment/singleStage/"
QUERY_PATH = "/ipg/v1x/queryTransactionStatus/"
C2B_PORT, QUERY_PORT = 18352, 18353  # each OpenAPI operation has its own port on the same host

TRANSACTION_REFERENCE_LENGTH = 20  # the API refuses longer (INS-17: "Length Should Be Between 1 and 20")
THIRD_PARTY_REFERENCE_LENGTH = 12

_CENTS = Decimal("0.01")
_MPESA_PHONE = re.compile(r"^\+?(2588[45][0-9]{7})$")  # Vodacom M-Pesa: +258 84 / 85

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
BAD_PUBLIC_KEY = "The connector's M-Pesa public key is not a usable RSA public key; the operator must rebind it."

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


def transaction_reference(provider_payment_id: str) -> str:
    """input_TransactionReference: the last 20 alphanumerics of the payment id (a ULID)."""
    return re.sub(r"[^0-9A-Za-z]", "", provider_payment_id)[-TRANSACTION_REFERENCE_LENGTH:]


def third_party_reference(provider_payment_id: str) -> str:
    """input_ThirdPartyReference: the last 12 alphanumerics of the payment id (its random part)."""
    return re.sub(r"[^0-9A-Za-z]", "", provider_payment_id)[-THIRD_PARTY_REFERENCE_LENGTH:]


def query_base_url(base_url: str) -> str:
    """The Query Transaction Status base URL for a C2B base URL: port 18352 becomes 18353; a base
    URL on another port (a proxy, the test sandbox) serves both calls and is kept as it is."""
    parts = urllib.parse.urlsplit(base_url)
    netloc = re.sub(rf":{C2B_PORT}\Z", f":{QUERY_PORT}", parts.netloc)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc)).rstrip("/")


def amount_text(amount: Decimal) -> str:
    """'10.50' for Decimal('10.5'); refuses amounts with fractions of a centavo."""
    exact = amount.quantize(_CENTS)
    if exact != amount or amount <= 0:
        raise ValueError("an M-Pesa amount is a positive number of centavos")
    return f"{exact:f}"


def msisdn(phone_number: str) -> str | None:
    """'+258841234567' -> '258841234567'; None when it is not an M-Pesa number."""
    match = _MPESA_PHONE.fullmatch(phone_number.strip())
    return match.group(1) if match else None


def bearer_token(api_key: str, public_key: str) -> str:
    """base64(RSA PKCS#1 v1.5 encryption of the API key with the portal's public key)."""
    # Deferred: only live M-Pesa calls need cryptography, and it costs cold-start time.
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric import padding
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
    from cryptography.hazmat.primitives.serialization import load_der_public_key, load_pem_public_key

    text = public_key.strip()
    try:
        if text.startswith("-----BEGIN"):
            key = load_pem_public_key(text.encode())
        else:
            key = load_der_public_key(base64.b64decode("".join(text.split()), validate=True))
    except (ValueError, TypeError, UnsupportedAlgorithm) as error:
        raise ValueError("the M-Pesa public key is not a readable public key") from error
    if not isinstance(key, RSAPublicKey):
        raise ValueError("the M-Pesa public key must be an RSA key")
    return base64.b64encode(key.encrypt(api_key.encode(), padding.PKCS1v15())).decode()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # A redirected POST would be replayed as a GET without its body: surface the 3xx instead.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class MpesaConnector:
    """Vodacom M-Pesa C2B. Credentials: api_key, public_key, service_provider_code, and
    optionally base_url (default production), origin and query_base_url (for status queries;
    default: base_url with port 18352 replaced by 18353, see `query_base_url`)."""

    def __init__(self, credentials: dict[str, str], timeout: float = 20.0) -> None:
        missing = [k for k in ("api_key", "public_key", "service_provider_code") if not credentials.get(k)]
        if missing:
            raise ValueError(f"M-Pesa credentials lack {', '.join(missing)}")
        self._api_key = credentials["api_key"]
        self._public_key = credentials["public_key"]
        self.service_provider_code = credentials["service_provider_code"]
        self.base_url = (credentials.get("base_url") or PRODUCTION_BASE_URL).rstrip("/")
        self.origin = credentials.get("origin") or DEFAULT_ORIGIN
        self.query_base_url = (credentials.get("query_base_url") or query_base_url(self.base_url)).rstrip("/")
        self.timeout = timeout
        self._token: str | None = None
        self._opener = urllib.request.build_opener(_NoRedirect)

    def __repr__(self) -> str:  # keeps the API key and token out of tracebacks and logs
        return f"MpesaConnector(base_url={self.base_url!r}, service_provider_code={self.service_provider_code!r})"

    def _bearer(self) -> str:
        if self._token is None:
            self._token = bearer_token(self._api_key, self._public_key)
        return self._token

    def request_body(self, call: ProviderCall) -> dict[str, str]:
        """The C2B request body for `call` (the payer's number must be an M-Pesa number)."""
        number = msisdn(call.source["mobile_wallet"]["phone_number"])
        if number is None:
            raise ValueError("not an M-Pesa number")
        return {
            "input_TransactionReference": transaction_reference(call.provider_payment_id),
            "input_CustomerMSISDN": number,
            "input_Amount": amount_text(call.amount),
            "input_ThirdPartyReference": third_party_reference(call.provider_payment_id),
            "input_ServiceProviderCode": self.service_provider_code,
        }

    def query_params(self, call: ProviderCall) -> dict[str, str]:
        """The status query's parameters for `call`. The portal takes a transaction ID, a
        conversation ID or the third-party reference as input_QueryReference: a charge that timed
        out left us only the last, so it is the query reference, and the query's own
        input_ThirdPartyReference too."""
        reference = third_party_reference(call.provider_payment_id)
        return {
            "input_QueryReference": reference,
            "input_ThirdPartyReference": reference,
            "input_ServiceProviderCode": self.service_provider_code,
        }

    def _exchange(self, request: urllib.request.Request) -> tuple[int, bytes]:
        """The HTTP status and body of the answer to `request`. Raises OSError or HTTPException
        when no answer came (timeout, refused, reset)."""
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:  # a non-2xx answer still carries an INS code
            try:
                return error.code, error.read()
            except (OSError, http.client.HTTPException):
                return error.code, b""
            finally:
                error.close()

    def charge(self, call: ProviderCall) -> ProviderResult:
        wallet = call.source.get("mobile_wallet") or {}
        if call.source.get("type") != "mobile_wallet" or wallet.get("network") != "mpesa" or call.open_amount:
            raise ValueError("the M-Pesa connector carries fixed-amount mpesa mobile-wallet charges only")
        if call.currency != "MZN":
            return ProviderResult(Status.FAILED, None, "unsupported_currency", "M-Pesa charges MZN only.")
        if msisdn(str(wallet.get("phone_number", ""))) is None:
            return ProviderResult(Status.FAILED, None, "invalid_phone", FAILURES["INS-2051"][1])
        try:
            token = self._bearer()
        except ValueError:  # nothing was sent: a misconfigured binding, not an unknown outcome
            return ProviderResult(Status.FAILED, None, "provider_auth_failed", BAD_PUBLIC_KEY)
        body = json.dumps(self.request_body(call)).encode()
        request = urllib.request.Request(
            self.base_url + C2B_PATH,
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "Authorization": f"Bearer {token}",
                "Origin": self.origin,
                "User-Agent": "mzpay",
            },
        )
        started = time.monotonic()
        log = {"provider": "mpesa", "provider_payment_id": call.provider_payment_id}
        try:
            status, raw = self._exchange(request)
        except (OSError, http.client.HTTPException) as error:  # timeout, refused, reset: outcome unknown
            logger.warning(
                "M-Pesa C2B call ended without an answer",
                extra={**log, "error": type(error).__name__, "elapsed_ms": _elapsed(started)},
            )
            return ProviderResult(Status.PENDING)
        answer = _json(raw)
        code = str(answer.get("output_ResponseCode") or "") or None
        logger.info(
            "M-Pesa C2B answered",
            extra={**log, "http_status": status, "response_code": code, "elapsed_ms": _elapsed(started)},
        )
        return outcome(status, answer)

    def status(self, call: ProviderCall) -> ProviderResult:
        """What became of `call`'s charge, from M-Pesa's Query Transaction Status (Reconciling)."""
        log = {"provider": "mpesa", "provider_payment_id": call.provider_payment_id}
        try:
            token = self._bearer()
        except ValueError:  # nothing can be asked: the outcome stays unknown
            logger.warning("M-Pesa status query not sent: unusable public key", extra=log)
            return ProviderResult(Status.PENDING)
        request = urllib.request.Request(
            f"{self.query_base_url}{QUERY_PATH}?{urllib.parse.urlencode(self.query_params(call))}",
            method="GET",
            headers={"Authorization": f"Bearer {token}", "Origin": self.origin, "User-Agent": "mzpay"},
        )
        started = time.monotonic()
        try:
            status, raw = self._exchange(request)
        except (OSError, http.client.HTTPException) as error:
            logger.warning(
                "M-Pesa status query ended without an answer",
                extra={**log, "error": type(error).__name__, "elapsed_ms": _elapsed(started)},
            )
            return ProviderResult(Status.PENDING)
        answer = _json(raw)
        logger.info(
            "M-Pesa status query answered",
            extra={
                **log,
                "http_status": status,
                "response_code": str(answer.get("output_ResponseCode") or "") or None,
                "transaction_status": str(answer.get("output_ResponseTransactionStatus") or "") or None,
                "elapsed_ms": _elapsed(started),
            },
        )
        return status_outcome(status, answer)

    def complete_action(self, call: ProviderCall, next_action: dict[str, Any], otp: str | None) -> ProviderResult:
        raise ServiceError(
            409, "invalid_state", "M-Pesa C2B payments are single-stage: there is no action to complete."
        )

    def capture(self, call: ProviderCall, amount: Decimal) -> ProviderResult:
        raise ServiceError(409, "invalid_state", "M-Pesa C2B payments are single-stage: there is nothing to capture.")

    def void(self, call: ProviderCall) -> ProviderResult:
        raise ServiceError(409, "invalid_state", "M-Pesa C2B payments are single-stage: there is nothing to void.")


def outcome(http_status: int, answer: dict[str, Any]) -> ProviderResult:
    """The ProviderResult of a C2B answer (HTTP status and parsed JSON body)."""
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
    if code in FAILURES:
        failure_code, message = FAILURES[code]
        return ProviderResult(Status.FAILED, None, failure_code, message, extra=extra)
    return ProviderResult(
        Status.FAILED, None, "provider_declined", description or f"M-Pesa declined the payment ({code}).", extra=extra
    )


def status_outcome(http_status: int, answer: dict[str, Any]) -> ProviderResult:
    """The ProviderResult of a Query Transaction Status answer (HTTP status and parsed JSON body).
    Only an INS-0 answer naming a final status decides; anything else (Pending, an unknown word,
    another code, no code) leaves the payment pending."""
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
        failure_code, message = STATUS_FAILURES[key]
        return ProviderResult(Status.FAILED, None, failure_code, message, extra=extra)
    return ProviderResult(Status.PENDING, extra=extra)


def _transaction_id(answer: dict[str, Any]) -> str | None:
    """The M-Pesa transaction ID, when a status answer carries one (the portal documents none)."""
    for key in ("output_TransactionID", "output_OriginalTransactionID"):
        value = str(answer.get(key) or "").strip()
        if value and value.upper() != "N/A":
            return value
    return None


def _json(raw: bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _elapsed(started: float) -> int:
    return round((time.monotonic() - started) * 1000)

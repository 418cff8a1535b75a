"""Live connector for Vodacom Mozambique M-Pesa (OpenAPI): C2B single stage charges, B2C
payouts, reversals for refunds, status queries and the customer's masked name.

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
has no such transaction). Refunds and payouts are queried the same way, by their own references.

B2C (a payout) is a POST to `/ipg/v1x/b2cPayment/` (port 18345) with the recipient's number; a
reversal (a refund, whole or in part) a PUT to `/ipg/v1x/reversal/` (port 18354) naming the C2B
payment's transaction ID, the reversal amount and the binding's initiator identifier and
security credential; the customer's masked name a GET to `/ipg/v1x/queryCustomerName/` (port
19323). What each answer means is mzpay.connectors.mpesa_outcomes.
"""

from __future__ import annotations

import base64
import re
import urllib.parse
import urllib.request
from decimal import Decimal
from typing import Any

from mzpay.connectors.base import NameAnswer, PayoutCall, ProviderCall, ProviderResult
from mzpay.connectors.mpesa_outcomes import (
    FAILURES,
    PAYOUT_FAILURES,
    REFUND_FAILURES,
    outcome,
    status_outcome,
)
from mzpay.connectors.provider_http import NoRedirect, call_json, json_request
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.rules import Status
from mzpay.domain.payouts.name_lookups import ProviderUnavailable
from mzpay.observability import logger

PRODUCTION_BASE_URL = "https://api.vm.co.mz:18352"
SANDBOX_BASE_URL = "https://api.sandbox.vm.co.mz:18352"
DEFAULT_ORIGIN = "developer.mpesa.vm.co.mz"  # the Origin the portal's examples send
C2B_PATH = "/ipg/v1x/c2bPayment/singleStage/"
QUERY_PATH = "/ipg/v1x/queryTransactionStatus/"
B2C_PATH = "/ipg/v1x/b2cPayment/"
REVERSAL_PATH = "/ipg/v1x/reversal/"
NAME_PATH = "/ipg/v1x/queryCustomerName/"
# Each OpenAPI operation has its own port on the same host.
C2B_PORT, QUERY_PORT, B2C_PORT, REVERSAL_PORT, NAME_PORT = 18352, 18353, 18345, 18354, 19323
BAD_PUBLIC_KEY = "The connector's M-Pesa public key is not a usable RSA public key; the operator must rebind it."
NO_INITIATOR = (
    "Refunds reverse the M-Pesa payment, which needs the binding's initiator_identifier and "
    "security_credential; the operator must add them."
)
NO_TRANSACTION = "M-Pesa's transaction ID of this payment is unknown, so it cannot be reversed."

TRANSACTION_REFERENCE_LENGTH = 20  # the API refuses longer (INS-17: "Length Should Be Between 1 and 20")
THIRD_PARTY_REFERENCE_LENGTH = 12

_CENTS = Decimal("0.01")
_MPESA_PHONE = re.compile(r"^\+?(2588[45][0-9]{7})$")  # Vodacom M-Pesa: +258 84 / 85


def transaction_reference(provider_payment_id: str) -> str:
    """input_TransactionReference: the last 20 alphanumerics of the payment id (a ULID)."""
    return re.sub(r"[^0-9A-Za-z]", "", provider_payment_id)[-TRANSACTION_REFERENCE_LENGTH:]


def third_party_reference(provider_payment_id: str) -> str:
    """input_ThirdPartyReference: the last 12 alphanumerics of the payment id (its random part)."""
    return re.sub(r"[^0-9A-Za-z]", "", provider_payment_id)[-THIRD_PARTY_REFERENCE_LENGTH:]


def operation_base_url(base_url: str, port: int) -> str:
    """The base URL of the operation served on `port` for a C2B base URL: port 18352 becomes
    `port`; a base URL on another port (a proxy, the test sandbox) serves every operation and is
    kept as it is."""
    parts = urllib.parse.urlsplit(base_url)
    netloc = re.sub(rf":{C2B_PORT}\Z", f":{port}", parts.netloc)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc)).rstrip("/")


def query_base_url(base_url: str) -> str:
    """The Query Transaction Status base URL for a C2B base URL (port 18353)."""
    return operation_base_url(base_url, QUERY_PORT)


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


class MpesaConnector:
    """Vodacom M-Pesa: C2B charges, B2C payouts, reversals (refunds), status queries and the
    customer's masked name. Credentials: api_key, public_key, service_provider_code, and
    optionally base_url (default production), origin, query_base_url (for status queries;
    default: base_url with port 18352 replaced by 18353, see `operation_base_url`), and for
    reversals initiator_identifier and security_credential."""

    def __init__(self, credentials: dict[str, str], timeout: float = 20.0) -> None:
        missing = [k for k in ("api_key", "public_key", "service_provider_code") if not credentials.get(k)]
        if missing:
            raise ValueError(f"M-Pesa credentials lack {', '.join(missing)}")
        self._api_key = credentials["api_key"]
        self._public_key = credentials["public_key"]
        self._initiator = credentials.get("initiator_identifier") or ""
        self._security_credential = credentials.get("security_credential") or ""
        self.service_provider_code = credentials["service_provider_code"]
        self.base_url = (credentials.get("base_url") or PRODUCTION_BASE_URL).rstrip("/")
        self.origin = credentials.get("origin") or DEFAULT_ORIGIN
        self.query_base_url = (credentials.get("query_base_url") or query_base_url(self.base_url)).rstrip("/")
        self.timeout = timeout
        self._token: str | None = None
        self._opener = urllib.request.build_opener(NoRedirect)

    def __repr__(self) -> str:  # keeps the API key, credentials and token out of tracebacks and logs
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
        """The status query's parameters for `call`'s charge (see `reference_query`)."""
        return self.reference_query(call.provider_payment_id)

    def reference_query(self, object_id: str) -> dict[str, str]:
        """The status query's parameters for the charge, payout or reversal whose id is
        `object_id`. The portal takes a transaction ID, a conversation ID or the third-party
        reference as input_QueryReference: one that timed out left us only the last, so it is
        the query reference, and the query's own input_ThirdPartyReference too."""
        reference = third_party_reference(object_id)
        return {
            "input_QueryReference": reference,
            "input_ThirdPartyReference": reference,
            "input_ServiceProviderCode": self.service_provider_code,
        }

    def _call(
        self, operation: str, method: str, url: str, log: dict[str, Any], body: dict[str, str] | None = None
    ) -> tuple[int, dict[str, Any]] | None:
        """One call to the API (the bearer token must be made already): the HTTP status and the
        parsed body, or None when no answer came. Logs the outcome, never a secret or a number."""
        headers = {"Authorization": f"Bearer {self._bearer()}", "Origin": self.origin, "User-Agent": "mzpay"}
        request = json_request(url, method, headers, body)
        log = {"provider": "mpesa", **log}
        return call_json(self._opener, self.timeout, "M-Pesa", operation, request, log, _summary, logger)

    def _token_ready(self) -> bool:
        try:
            self._bearer()
        except ValueError:
            return False
        return True

    def charge(self, call: ProviderCall) -> ProviderResult:
        wallet = call.source.get("mobile_wallet") or {}
        if call.source.get("type") != "mobile_wallet" or wallet.get("network") != "mpesa" or call.open_amount:
            raise ValueError("the M-Pesa connector carries fixed-amount mpesa mobile-wallet charges only")
        if call.currency != "MZN":
            return ProviderResult(Status.FAILED, None, "unsupported_currency", "M-Pesa charges MZN only.")
        if msisdn(str(wallet.get("phone_number", ""))) is None:
            return ProviderResult(Status.FAILED, None, "invalid_phone", FAILURES["INS-2051"][1])
        if not self._token_ready():  # nothing was sent: a misconfigured binding, not an unknown outcome
            return ProviderResult(Status.FAILED, None, "provider_auth_failed", BAD_PUBLIC_KEY)
        log = {"provider_payment_id": call.provider_payment_id}
        answered = self._call("C2B call", "POST", self.base_url + C2B_PATH, log, self.request_body(call))
        return ProviderResult(Status.PENDING) if answered is None else outcome(*answered)

    def status(self, call: ProviderCall) -> ProviderResult:
        """What became of `call`'s charge, from M-Pesa's Query Transaction Status (Reconciling)."""
        return self._status("payment", call.provider_payment_id, {"provider_payment_id": call.provider_payment_id})

    def _status(self, operation: str, object_id: str, log: dict[str, Any]) -> ProviderResult:
        if not self._token_ready():  # nothing can be asked: the outcome stays unknown
            logger.warning("M-Pesa status query not sent: unusable public key", extra={"provider": "mpesa", **log})
            return ProviderResult(Status.PENDING)
        url = f"{self.query_base_url}{QUERY_PATH}?{urllib.parse.urlencode(self.reference_query(object_id))}"
        answered = self._call("status query", "GET", url, log)
        return ProviderResult(Status.PENDING) if answered is None else status_outcome(*answered, operation=operation)

    def payout(self, call: PayoutCall) -> ProviderResult:
        """B2C: the business's M-Pesa account pays the recipient's wallet (Paying)."""
        wallet = call.destination.get("mobile_wallet") or {}
        if call.destination.get("type") != "mobile_wallet" or wallet.get("network") != "mpesa":
            raise ValueError("the M-Pesa connector pays out to mpesa mobile wallets only")
        number = msisdn(str(wallet.get("phone_number", "")))
        if call.currency != "MZN" or number is None:
            failure = ("unsupported_currency", "M-Pesa pays out MZN only.") if number else PAYOUT_FAILURES["INS-2051"]
            return ProviderResult(Status.FAILED, None, *failure)
        if not self._token_ready():
            return ProviderResult(Status.FAILED, None, "provider_auth_failed", BAD_PUBLIC_KEY)
        body = {
            "input_TransactionReference": transaction_reference(call.provider_payout_id),
            "input_CustomerMSISDN": number,
            "input_Amount": amount_text(call.amount),
            "input_ThirdPartyReference": third_party_reference(call.provider_payout_id),
            "input_ServiceProviderCode": self.service_provider_code,
        }
        url = operation_base_url(self.base_url, B2C_PORT) + B2C_PATH
        answered = self._call("B2C payout", "POST", url, {"provider_payout_id": call.provider_payout_id}, body)
        return ProviderResult(Status.PENDING) if answered is None else outcome(*answered, failures=PAYOUT_FAILURES)

    def payout_status(self, call: PayoutCall) -> ProviderResult:
        """What became of a payout whose B2C call got no definite answer."""
        return self._status("payout", call.provider_payout_id, {"provider_payout_id": call.provider_payout_id})

    def refund_refusal(self, call: ProviderCall) -> str | None:
        """Why this payment cannot be reversed through the API, or None (Refunding)."""
        if not (self._initiator and self._security_credential):
            return NO_INITIATOR
        if not call.provider_reference:
            return NO_TRANSACTION
        return None

    def refund(self, call: ProviderCall, amount: Decimal, reference: str = "") -> ProviderResult:
        """A reversal of `call`'s C2B payment, whole or in part (`amount`); `reference` is the
        refund's id, its third-party reference (and the status query's key)."""
        refused = self.refund_refusal(call)
        if refused is not None:
            return ProviderResult(Status.FAILED, None, "not_supported", refused)
        if not self._token_ready():
            return ProviderResult(Status.FAILED, None, "provider_auth_failed", BAD_PUBLIC_KEY)
        body = {
            "input_TransactionID": str(call.provider_reference),
            "input_SecurityCredential": self._security_credential,
            "input_InitiatorIdentifier": self._initiator,
            "input_ThirdPartyReference": third_party_reference(reference or call.provider_payment_id),
            "input_ServiceProviderCode": self.service_provider_code,
            "input_ReversalAmount": amount_text(amount),
        }
        url = operation_base_url(self.base_url, REVERSAL_PORT) + REVERSAL_PATH
        log = {"provider_payment_id": call.provider_payment_id, "provider_refund_id": reference}
        answered = self._call("reversal", "PUT", url, log, body)
        return ProviderResult(Status.PENDING) if answered is None else outcome(*answered, failures=REFUND_FAILURES)

    def refund_status(self, call: ProviderCall, reference: str) -> ProviderResult:
        """What became of a reversal (the refund `reference`) that got no definite answer."""
        log = {"provider_payment_id": call.provider_payment_id, "provider_refund_id": reference}
        return self._status("refund", reference, log)

    def lookup_name(self, phone_number: str, reference: str) -> NameAnswer:
        """The masked name M-Pesa holds for an M-Pesa number (Query Customer Masked Name);
        ProviderUnavailable when M-Pesa gives no usable answer."""
        number = msisdn(phone_number)
        if number is None:
            return NameAnswer(found=False)
        if not self._token_ready():
            raise ProviderUnavailable("unusable M-Pesa public key")
        params = {
            "input_CustomerMSISDN": number,
            "input_ThirdPartyReference": third_party_reference(reference),
            "input_ServiceProviderCode": self.service_provider_code,
        }
        url = f"{operation_base_url(self.base_url, NAME_PORT)}{NAME_PATH}?{urllib.parse.urlencode(params)}"
        answered = self._call("customer name query", "GET", url, {"lookup_id": reference})
        if answered is None:
            raise ProviderUnavailable("no answer from M-Pesa")
        _status, answer = answered
        code = str(answer.get("output_ResponseCode") or answer.get("output_ResultCode") or "")
        name = str(answer.get("output_CustomerName") or "").strip()
        if code == "INS-0" and name and name.upper() != "N/A":
            return NameAnswer(found=True, name=name)
        if code in ("INS-2051", "INS-2002"):
            return NameAnswer(found=False)
        raise ProviderUnavailable(f"M-Pesa answered {code or 'without a code'}")

    def complete_action(self, call: ProviderCall, next_action: dict[str, Any], otp: str | None) -> ProviderResult:
        raise ServiceError(
            409, "invalid_state", "M-Pesa C2B payments are single-stage: there is no action to complete."
        )

    def capture(self, call: ProviderCall, amount: Decimal) -> ProviderResult:
        raise ServiceError(409, "invalid_state", "M-Pesa C2B payments are single-stage: there is nothing to capture.")

    def void(self, call: ProviderCall) -> ProviderResult:
        raise ServiceError(409, "invalid_state", "M-Pesa C2B payments are single-stage: there is nothing to void.")


def _summary(answer: dict[str, Any]) -> dict[str, Any]:
    """What the logs keep of an answer: its codes."""
    return {
        "response_code": str(answer.get("output_ResponseCode") or answer.get("output_ResultCode") or "") or None,
        "transaction_status": str(answer.get("output_ResponseTransactionStatus") or "") or None,
    }


__all__ = ["MpesaConnector", "amount_text", "msisdn", "outcome", "query_base_url", "status_outcome"]

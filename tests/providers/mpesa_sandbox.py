"""A loopback HTTP server that plays Vodacom M-Pesa's C2B single-stage and Query Transaction
Status endpoints for tests, both on one port (not being 18352, the connector keeps it for queries).

It holds its own RSA key pair: `public_key` (base64 DER, as the developer portal hands it out)
goes into the connector's credentials, and every bearer token is decrypted with the private
key and compared with `api_key`. The answer is a pure function of the payer number's last
four digits:

| ends in | answer |
|---|---|
| 0000 | 201 INS-0, with conversation and transaction ids derived from the transaction reference |
| 0001 | 422 INS-2006 Insufficient balance |
| 0002 | 401 INS-5 Transaction cancelled by customer |
| 0003 | 201 INS-0, after `slow_seconds` (longer than the client waits) |
| 0004 | 503 with an HTML body and no INS code (the gateway in front of the API) |
| 0005 | 400 INS-2051 Invalid MSISDN |
| 0006 | 409 INS-10 Duplicate Transaction |
| other | 401 INS-6 Transaction Failed |

A token that does not decrypt to `api_key` gets 401 INS-2 Invalid API Key; another path, 404.
HTTP statuses follow the portal's response-code table.

B2C payouts (POST /ipg/v1x/b2cPayment/) answer by the recipient's last four digits too: 0000
201 INS-0; 0001 422 INS-2006 (the business account's balance); 0003 201 INS-0 after
`slow_seconds`; 0004 the gateway's 503 page; 0005 400 INS-2051; other 401 INS-6. They are kept
in `charges` like C2B payments (the status query finds them by their references).

Reversals (PUT /ipg/v1x/reversal/) name a completed C2B payment's transaction ID, the
initiator identifier and security credential (`initiator`, `security_credential`: else 401
INS-2001), a third-party reference and an optional input_ReversalAmount (absent: what is left).
An unknown transaction is 400 INS-18; more than is left to reverse 400 INS-15; a reversal whose
amount ends in .03 is answered INS-0 after `slow_seconds` (the client gives up), one ending in
.04 gets the gateway's 503 page. Each reversal that reaches the API is kept in `charges` under
its own reference (third-party reference and transaction ID alias it for the status query);
`reversed` keeps what was reversed of each payment.

Customer masked names (GET /ipg/v1x/queryCustomerName/) answer 200 INS-0 with `names[msisdn]`
(default "Ana M******a"), 400 INS-2051 for a number ending in 0005 and the gateway's 503 page
for one ending in 0004.

Every charge that reaches the API (not 0004's gateway page, not 0006's duplicate, not a bad
token) is kept in `charges` (transaction reference -> status): "Pending" while it is being
answered (0003 during its slow wait), then "Completed" for INS-0, "Cancelled" for INS-5 and
"Failed" for any other refusal. GET /ipg/v1x/queryTransactionStatus/ (input_QueryReference: the
transaction reference, third-party reference, conversation ID or transaction ID of a charge;
input_ThirdPartyReference and input_ServiceProviderCode required too) answers 200 INS-0 with
that status as output_ResponseTransactionStatus, or "N/A" when no charge matches. Tests may set
`statuses[reference] = "Pending"` (any status; the key is the query reference or the charge's
transaction reference) to override it, and `query_unavailable = True` to get the gateway's
503 page for every query. A missing parameter gets 400 INS-20.

`outage = True` plays an M-Pesa outage: every C2B charge, whatever its number, is refused without
being handled and is not recorded (a status query answers N/A): two in three get 503 INS-16
(overloaded), every third the gateway's 503 page (no code: its outcome unknown to the client).
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from http.server import BaseHTTPRequestHandler
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.providers.loopback import LoopbackSandbox

C2B_PATH = "/ipg/v1x/c2bPayment/singleStage/"
QUERY_PATH = "/ipg/v1x/queryTransactionStatus/"
B2C_PATH = "/ipg/v1x/b2cPayment/"
REVERSAL_PATH = "/ipg/v1x/reversal/"
NAME_PATH = "/ipg/v1x/queryCustomerName/"
INITIATOR, SECURITY_CREDENTIAL = "mzpay-initiator", "sandbox-security-credential"
DEFAULT_MASKED_NAME = "Ana M******a"
API_KEY = "aaaabbbbccccdddd0123456789abcdef"  # the key the unit tests' sandbox and connector share
QUERY_PARAMETERS = ("input_QueryReference", "input_ThirdPartyReference", "input_ServiceProviderCode")
MISSING_PARAMETERS = "Not All Parameters Provided. Please try again."  # INS-20

# last four digits -> (HTTP status, output_ResponseCode, output_ResponseDesc)
OUTCOMES: dict[str, tuple[int, str, str]] = {
    "0000": (201, "INS-0", "Request processed successfully"),
    "0001": (422, "INS-2006", "Insufficient balance"),
    "0002": (401, "INS-5", "Transaction cancelled by customer"),
    "0003": (201, "INS-0", "Request processed successfully"),
    "0005": (400, "INS-2051", "Invalid MSISDN"),
    "0006": (409, "INS-10", "Duplicate Transaction"),
}
OTHER = (401, "INS-6", "Transaction Failed")
SLOW = "0003"
UNAVAILABLE = "0004"
DUPLICATE = "0006"
# output_ResponseCode of a charge's answer -> output_ResponseTransactionStatus of a later query
QUERY_STATUS = {"INS-0": "Completed", "INS-5": "Cancelled"}  # any other refusal: "Failed"


def conversation_id(transaction_reference: str) -> str:
    """The sandbox's output_ConversationID for a transaction reference."""
    return hashlib.sha256(b"conversation:" + transaction_reference.encode()).hexdigest()[:32]


def transaction_id(transaction_reference: str) -> str:
    """The sandbox's output_TransactionID for a transaction reference."""
    return hashlib.sha256(b"transaction:" + transaction_reference.encode()).hexdigest()[:10].upper()


@dataclass(frozen=True)
class Received:
    """One request as the sandbox saw it. `api_key` is the decrypted bearer token (None if it
    did not decrypt); `headers` have lower-case names; `path` is without the query string,
    whose parameters are in `query`."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    api_key: str | None
    query: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Answered:
    path: str
    status: int
    body: dict[str, Any] | None


OVERLOADED = "Unable to handle the request due to a temporary overloading"


class MpesaSandbox(LoopbackSandbox):
    """`with MpesaSandbox(api_key="...") as sandbox:`, or `.start()` / `.stop()`."""

    thread_name = "mpesa-sandbox"

    def __init__(self, api_key: str = "sandbox-api-key", slow_seconds: float = 2.0) -> None:
        super().__init__()
        self.api_key = api_key
        self.slow_seconds = slow_seconds
        self.requests: list[Received] = []
        self.answers: list[Answered] = []
        self.charges: dict[str, str] = {}  # transaction reference -> output_ResponseTransactionStatus
        self.statuses: dict[str, str] = {}  # overrides for the status query (see the module docstring)
        self.query_unavailable = False
        self.outage = False  # True: every C2B charge is refused unhandled (see the module docstring)
        self.outage_answers = 0
        self.initiator, self.security_credential = INITIATOR, SECURITY_CREDENTIAL
        self.reversed: dict[str, Decimal] = {}  # C2B transaction ID -> reversed so far
        self.amounts: dict[str, Decimal] = {}  # C2B transaction ID -> the amount paid
        self.names: dict[str, str] = {}  # MSISDN -> masked name (default DEFAULT_MASKED_NAME)
        self._aliases: dict[str, str] = {}  # third-party reference, conversation ID, transaction ID -> reference
        self._private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        der = self._private_key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        self.public_key = base64.b64encode(der).decode()
        self._lock = threading.Lock()
        self._answered = threading.Condition(self._lock)

    @property
    def base_url(self) -> str:
        return self.origin

    def credentials(self, **overrides: str) -> dict[str, str]:
        """Connector credentials that this sandbox accepts."""
        return {
            "api_key": self.api_key,
            "public_key": self.public_key,
            "service_provider_code": "171717",
            "base_url": self.base_url,
            "origin": "developer.mpesa.vm.co.mz",
            "initiator_identifier": self.initiator,
            "security_credential": self.security_credential,
            **overrides,
        }

    def wait_for_answers(self, count: int, timeout: float = 5.0) -> list[Answered]:
        """The answers once `count` were sent (a slow one arrives after the client gave up)."""
        with self._answered:
            if not self._answered.wait_for(lambda: len(self.answers) >= count, timeout):
                raise AssertionError(f"the sandbox sent {len(self.answers)} answers, expected {count}")
            return list(self.answers)

    def _decrypt(self, authorization: str) -> str | None:
        scheme, _, token = authorization.partition(" ")
        if scheme != "Bearer" or not token:
            return None
        try:
            return self._private_key.decrypt(base64.b64decode(token, validate=True), padding.PKCS1v15()).decode()
        except ValueError:  # bad base64, bad padding or bad UTF-8
            return None

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        body, headers = self._request(handler)
        api_key = self._decrypt(handler.headers.get("Authorization", ""))
        target = urllib.parse.urlsplit(handler.path)
        query = dict(urllib.parse.parse_qsl(target.query, keep_blank_values=True))
        with self._lock:
            self.requests.append(Received(handler.command, target.path, headers, body, api_key, query))

        route = (target.path, handler.command)
        if route in ((C2B_PATH, "POST"), (B2C_PATH, "POST")):
            self._charge(handler, api_key, body)
        elif route == (QUERY_PATH, "GET"):
            self._query(handler, api_key, query)
        elif route == (REVERSAL_PATH, "PUT"):
            self._reverse(handler, api_key, body)
        elif route == (NAME_PATH, "GET"):
            self._name(handler, api_key, query)
        else:
            self._send(handler, 404, None)

    def _charge(self, handler: BaseHTTPRequestHandler, api_key: str | None, body: dict[str, Any] | None) -> None:
        if self._wrong_key(handler, api_key):
            return
        fields = body if isinstance(body, dict) else {}
        reference = str(fields.get("input_TransactionReference", ""))
        digits = str(fields.get("input_CustomerMSISDN", ""))[-4:]
        if self.outage:  # nothing is recorded: M-Pesa never handled it
            with self._lock:
                self.outage_answers += 1
                overloaded = self.outage_answers % 3 != 0
            if overloaded:
                self._send(handler, 503, {"output_ResponseCode": "INS-16", "output_ResponseDesc": OVERLOADED})
            else:
                self._send(handler, 503, None, b"<html><body>503 Service Unavailable</body></html>", "text/html")
            return
        if digits == UNAVAILABLE:
            self._send(handler, 503, None, b"<html><body>503 Service Unavailable</body></html>", "text/html")
            return
        recorded = digits != DUPLICATE  # a duplicate leaves the earlier attempt's record alone
        if recorded:
            with self._lock:
                self.charges[reference] = "Pending"
                self._aliases[str(fields.get("input_ThirdPartyReference", ""))] = reference
                self._aliases[conversation_id(reference)] = reference
        if digits == SLOW:
            self._stopping.wait(self.slow_seconds)
        status, code, description = OUTCOMES.get(digits, OTHER)
        if recorded:  # before the answer is sent: whoever saw the answer sees the status too
            with self._lock:
                self.charges[reference] = QUERY_STATUS.get(code, "Failed")
                if code == "INS-0":
                    self._aliases[transaction_id(reference)] = reference
                    self.amounts[transaction_id(reference)] = Decimal(str(fields.get("input_Amount", "0")))
        answer = {
            "output_ConversationID": conversation_id(reference),
            "output_TransactionID": transaction_id(reference) if code == "INS-0" else "N/A",
            "output_ResponseCode": code,
            "output_ResponseDesc": description,
            "output_ThirdPartyReference": str(fields.get("input_ThirdPartyReference", "")),
        }
        self._send(handler, status, answer)

    def _query(self, handler: BaseHTTPRequestHandler, api_key: str | None, query: dict[str, str]) -> None:
        if self._wrong_key(handler, api_key):
            return
        if self.query_unavailable:
            self._send(handler, 503, None, b"<html><body>503 Service Unavailable</body></html>", "text/html")
            return
        if self._missing(handler, query, QUERY_PARAMETERS):
            return
        asked = query["input_QueryReference"]
        with self._lock:
            reference = asked if asked in self.charges else self._aliases.get(asked)
            found = self.charges.get(reference, "N/A") if reference else "N/A"
            status = self.statuses.get(asked) or (self.statuses.get(reference) if reference else None) or found
        answer = {
            "output_ConversationID": conversation_id("query:" + asked),
            "output_ResponseCode": "INS-0",
            "output_ResponseDesc": "Request processed successfully",
            "output_ResponseTransactionStatus": status,
            "output_ThirdPartyReference": query["input_ThirdPartyReference"],
        }
        self._send(handler, 200, answer)

    def _reverse(self, handler: BaseHTTPRequestHandler, api_key: str | None, body: dict[str, Any] | None) -> None:
        fields = body if isinstance(body, dict) else {}
        if self._wrong_key(handler, api_key):
            return
        required = ("input_TransactionID", "input_ThirdPartyReference", "input_ServiceProviderCode")
        if self._missing(handler, fields, required):
            return
        if (fields.get("input_InitiatorIdentifier"), fields.get("input_SecurityCredential")) != (
            self.initiator,
            self.security_credential,
        ):
            self._send(
                handler,
                401,
                {"output_ResponseCode": "INS-2001", "output_ResponseDesc": "Initiator authentication error"},
            )
            return
        original, third_party = str(fields["input_TransactionID"]), str(fields["input_ThirdPartyReference"])
        asked = str(fields.get("input_ReversalAmount") or "")
        if asked.endswith(".04"):
            self._send(handler, 503, None, b"<html><body>503 Service Unavailable</body></html>", "text/html")
            return
        reference = "REV" + third_party
        with self._lock:
            paid = self.amounts.get(original)
            left = paid - self.reversed.get(original, Decimal(0)) if paid is not None else None
            amount = Decimal(asked) if asked else left
            if left is None:
                refusal: tuple[str, str] | None = ("INS-18", "Invalid TransactionID Used")
            elif amount is None or amount <= 0 or amount > left:
                refusal = ("INS-15", "Invalid Amount Used")
            else:
                refusal = None
                self.reversed[original] = self.reversed.get(original, Decimal(0)) + amount
                self.charges[reference] = "Pending"
                self._aliases[third_party] = reference
                self._aliases[transaction_id(reference)] = reference
        if refusal is not None:
            self._send(handler, 400, {"output_ResponseCode": refusal[0], "output_ResponseDesc": refusal[1]})
            return
        if asked.endswith(".03"):
            self._stopping.wait(self.slow_seconds)
        with self._lock:
            self.charges[reference] = "Completed"
        answer = {
            "output_ConversationID": conversation_id(reference),
            "output_TransactionID": transaction_id(reference),
            "output_ResponseCode": "INS-0",
            "output_ResponseDesc": "Request processed successfully",
            "output_ThirdPartyReference": third_party,
        }
        self._send(handler, 200, answer)

    def _name(self, handler: BaseHTTPRequestHandler, api_key: str | None, query: dict[str, str]) -> None:
        if self._wrong_key(handler, api_key):
            return
        required = ("input_CustomerMSISDN", "input_ThirdPartyReference", "input_ServiceProviderCode")
        if self._missing(handler, query, required):
            return
        number = query["input_CustomerMSISDN"]
        if number.endswith(UNAVAILABLE):
            self._send(handler, 503, None, b"<html><body>503 Service Unavailable</body></html>", "text/html")
            return
        if number.endswith("0005"):
            self._send(handler, 400, {"output_ResponseCode": "INS-2051", "output_ResponseDesc": "Invalid MSISDN"})
            return
        answer = {
            "output_ConversationID": conversation_id("name:" + number),
            "output_ResponseCode": "INS-0",
            "output_ResponseDesc": "Request processed successfully",
            "output_ThirdPartyReference": query["input_ThirdPartyReference"],
            "output_CustomerName": self.names.get(number, DEFAULT_MASKED_NAME),
        }
        self._send(handler, 200, answer)

    def _wrong_key(self, handler: BaseHTTPRequestHandler, api_key: str | None) -> bool:
        """Answers 401 INS-2 when the token is not the sandbox's API key; True when it answered."""
        if api_key == self.api_key:
            return False
        self._send(handler, 401, {"output_ResponseCode": "INS-2", "output_ResponseDesc": "Invalid API Key"})
        return True

    def _missing(self, handler: BaseHTTPRequestHandler, given: Mapping[str, Any], required: Iterable[str]) -> bool:
        """Answers 400 INS-20 when a required parameter is absent or empty; True when it answered."""
        if all(given.get(name) for name in required):
            return False
        self._send(handler, 400, {"output_ResponseCode": "INS-20", "output_ResponseDesc": MISSING_PARAMETERS})
        return True

    def _send(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        answer: dict[str, Any] | None,
        raw: bytes | None = None,
        content_type: str = "application/json",
    ) -> None:
        payload = raw if raw is not None else json.dumps(answer).encode() if answer is not None else b""
        with self._answered:
            self.answers.append(Answered(urllib.parse.urlsplit(handler.path).path, status, answer))
            self._answered.notify_all()
        self._write(handler, status, payload, content_type)

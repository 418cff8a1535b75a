"""The message senders behind mzpay.ports.messaging: e-mail through Amazon SES (API v2,
`SendEmail` with the region's configuration set, as a raw MIME message: a plain-text part and an
HTML part) and SMS through Amazon SNS (`Publish` to a phone number, transactional, with the sender
ID where one is configured), both in `Messenger`, a mzpay.ports.messaging.MessageSender."""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage
from email.utils import formataddr, parseaddr
from typing import Any

from mzpay.config import optional_env
from mzpay.domain.messages.format import plain
from mzpay.ports.messaging import Outgoing, Throttled, Undeliverable

# Provider answers that will not change on a retry: the message is recorded failed.
PERMANENT = frozenset(
    {
        "MessageRejected",
        "InvalidParameter",
        "InvalidParameterValue",
        "BadRequestException",
        "NotFoundException",
        "MailFromDomainNotVerifiedException",
        "AccountSuspendedException",
        "SendingPausedException",
    }
)

# Provider answers that ask us to slow down: the message comes back later (mzpay.ports.messaging.Throttled).
THROTTLED = frozenset(
    {"Throttling", "ThrottlingException", "ThrottledException", "TooManyRequestsException", "LimitExceededException"}
)


def error_code(exc: BaseException) -> str:
    """The AWS error code of `exc` ('' when it is not an AWS error answer)."""
    error = (getattr(exc, "response", None) or {}).get("Error")
    return str(error.get("Code", "")) if isinstance(error, dict) else ""


def mime(message: Outgoing, from_address: str) -> bytes:
    """The e-mail as SES sends it: multipart/alternative, text first, HTML preferred; with
    attachments, multipart/mixed around it, each attachment base64."""
    mail = EmailMessage()
    name, address = parseaddr(from_address)
    mail["From"] = formataddr((name, address))
    mail["To"] = message.to
    mail["Subject"] = plain(message.subject)  # one line, no control character: no header injection
    # quoted-printable: 7-bit lines of at most 76 characters, whatever the accents and line lengths
    mail.set_content(message.text, cte="quoted-printable")
    if message.html:
        mail.add_alternative(message.html, subtype="html", cte="quoted-printable")
    for attachment in message.attachments:
        kind, _, subtype = attachment.content_type.partition("/")
        mail.add_attachment(attachment.data, maintype=kind, subtype=subtype, filename=plain(attachment.filename))
    return mail.as_bytes()


DEFAULT_SENDER = "mzpay"  # the From name; the address is no-reply@ the region's sending identity
SMS_TYPE = {"AWS.SNS.SMS.SMSType": {"DataType": "String", "StringValue": "Transactional"}}


class Messenger:
    """A MessageSender for both channels: SES for e-mail, SNS for SMS."""

    def __init__(
        self,
        client: Callable[[str], Any],
        from_address: str,
        configuration_set: str | None,
        sms_sender_id: str | None,
    ) -> None:
        self.client = client  # an AWS client of a service (mzpay.store.aws.client: the stack's endpoint)
        self.from_address = from_address
        self.configuration_set = configuration_set
        self.sms_sender_id = sms_sender_id

    @classmethod
    def from_env(cls, client: Callable[[str], Any]) -> Messenger:
        """The region's sending identity (SES_IDENTITY, a verified domain or address; the From is
        SES_FROM_ADDRESS when set), configuration set and SMS sender ID (none where the country
        allows none)."""
        identity = optional_env("SES_IDENTITY") or "mzpay.co.mz"
        default = formataddr((DEFAULT_SENDER, identity if "@" in identity else f"no-reply@{identity}"))
        return cls(
            client,
            optional_env("SES_FROM_ADDRESS") or default,
            optional_env("SES_CONFIGURATION_SET"),
            optional_env("SMS_SENDER_ID"),
        )

    def send(self, message: Outgoing) -> str:
        try:
            return self._email(message) if message.channel == "email" else self._sms(message)
        except Exception as exc:
            if error_code(exc) in PERMANENT:
                raise Undeliverable(error_code(exc)) from exc
            if error_code(exc) in THROTTLED:
                raise Throttled(error_code(exc)) from exc
            raise

    def opted_out(self, message: Outgoing) -> bool:
        """SNS's list of phone numbers that answered STOP (an e-mail address is never: SES applies
        its account-level suppression list itself, through the configuration set)."""
        if message.channel != "sms":
            return False
        try:
            answer = self.client("sns").check_if_phone_number_is_opted_out(phoneNumber=message.to)
        except Exception as exc:
            if error_code(exc) in THROTTLED:
                raise Throttled(error_code(exc)) from exc
            raise
        return bool(answer["isOptedOut"])

    def _email(self, message: Outgoing) -> str:
        sender = message.sender or self.from_address
        request: dict[str, Any] = {
            "FromEmailAddress": sender,
            "Destination": {"ToAddresses": [message.to]},
            "Content": {"Raw": {"Data": mime(message, sender)}},
        }
        if self.configuration_set:
            request["ConfigurationSetName"] = self.configuration_set
        return str(self.client("sesv2").send_email(**request)["MessageId"])

    def _sms(self, message: Outgoing) -> str:
        attributes: dict[str, Any] = dict(SMS_TYPE)
        sender = message.sender or self.sms_sender_id
        if sender:
            attributes["AWS.SNS.SMS.SenderID"] = {"DataType": "String", "StringValue": sender}
        answer = self.client("sns").publish(PhoneNumber=message.to, Message=message.text, MessageAttributes=attributes)
        return str(answer["MessageId"])

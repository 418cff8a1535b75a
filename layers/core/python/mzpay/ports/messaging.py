"""The port every message to a person goes through (docs/notifications.md): a use case hands an
`Outgoing` message to a `MessageSender` and gets the provider's message id back. The connectors
behind it: Amazon SES (API v2) for e-mail and Amazon SNS for SMS (mzpay.connectors.messaging),
bound by mzpay.deps.message_sender."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Attachment:
    """A file an e-mail carries (the collection request's invoice PDF)."""

    filename: str
    content_type: str  # e.g. application/pdf
    data: bytes


@dataclass(frozen=True)
class Outgoing:
    """One message to one address, rendered: an e-mail has a subject, an HTML part and a text
    part; an SMS its text only. `sender` is the e-mail's From address or the SMS sender ID ("" for
    none). An e-mail may carry `attachments` (an SMS never does)."""

    channel: str  # email | sms
    to: str
    sender: str
    text: str
    subject: str = ""
    html: str = ""
    attachments: tuple[Attachment, ...] = ()


class Undeliverable(Exception):
    """The provider refused the message for good (a rejected address, an invalid number): it is
    recorded failed and not tried again. Any other exception is a fault to retry."""


class Throttled(Exception):
    """The provider asked us to slow down (SES TooManyRequests, SNS Throttling): the message is
    neither sent nor failed; it comes back later, after a growing delay."""


class MessageSender(Protocol):
    def send(self, message: Outgoing) -> str:
        """Send `message`; the provider's message id."""
        ...

    def opted_out(self, message: Outgoing) -> bool:
        """True when the provider's own list says the recipient asked not to be sent to (SNS's
        opted-out phone numbers; e-mail has none to ask: SES's account-level suppression list is
        applied by SES itself, docs/notifications.md)."""
        ...

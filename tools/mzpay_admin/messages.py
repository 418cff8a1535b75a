"""`mzpay-admin messages [--to ADDRESS]`: what the local stack "sent" to people, as they would
read it (docs/notifications.md). It reads moto's own records of SES's e-mails and SNS's SMS
(served by the local stack's moto at /__devstack__/sent) and prints each SMS with its segment
count and each e-mail with its subject and plain-text part. Local stack only: on AWS, SES and
SNS keep no copy of what they sent."""

from __future__ import annotations

import json
import urllib.request
from email import message_from_string, policy
from email.message import EmailMessage
from typing import Any

from mzpay.domain.messages import sms

SENT_PATH = "/__devstack__/sent"


def fetch(aws_endpoint: str, timeout: float) -> dict[str, list[dict[str, Any]]]:
    with urllib.request.urlopen(f"{aws_endpoint.rstrip('/')}{SENT_PATH}", timeout=timeout) as answer:
        return json.loads(answer.read().decode("utf-8"))  # type: ignore[no-any-return]


def _line(text: str) -> str:
    """No terminal escape of a merchant's or payer's text reaches the terminal."""
    return "".join(char if char.isprintable() or char == " " else f"\\x{ord(char):02x}" for char in text)


def listing(sent: dict[str, list[dict[str, Any]]], to: str | None = None) -> list[dict[str, Any]]:
    """Each message as the payer reads it (to `to` only, when given), SMS then e-mails, oldest first."""
    found: list[dict[str, Any]] = []
    for message in sent.get("sms", []):
        if to is None or message["phone_number"] == to:
            size = sms.size(message["message"])
            found.append(
                {
                    "channel": "sms",
                    "to": message["phone_number"],
                    "message_id": message["message_id"],
                    "text": message["message"],
                    "encoding": size.encoding,
                    "segments": size.segments,
                }
            )
    for message in sent.get("emails", []):
        if to is not None and not any(to in destination for destination in message["destinations"]):
            continue
        mail = message_from_string(message["raw_data"] or "", policy=policy.default)
        text = ""
        if isinstance(mail, EmailMessage):
            body = mail.get_body(preferencelist=("plain",))
            text = body.get_content() if isinstance(body, EmailMessage) else ""
        found.append(
            {
                "channel": "email",
                "to": ", ".join(message["destinations"]),
                "message_id": message["message_id"],
                "from": message["source"],
                "subject": str(mail["Subject"] or message.get("subject") or ""),
                "text": text or message.get("body") or "",
            }
        )
    return found


def render(messages: list[dict[str, Any]]) -> str:
    if not messages:
        return "no messages sent\n"
    blocks = []
    for message in messages:
        if message["channel"] == "sms":
            head = f"sms to {message['to']} ({message['segments']} segment(s), {message['encoding']})"
            blocks.append(f"{_line(head)}\n  {_line(message['text'])}\n")
        else:
            lines = [f"email to {message['to']} from {message['from']}", f"  Subject: {message['subject']}"]
            lines += [f"  {line}" for line in str(message["text"]).splitlines()]
            blocks.append("\n".join(_line(line) for line in lines) + "\n")
    return "\n".join(blocks)

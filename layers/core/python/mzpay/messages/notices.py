"""What a business's person of contact or a customer reads (docs/notifications.md): the messages
of a decision or a transaction (mzpay.domain.messages.notices), rendered from their templates
(`templates/<template>.*`) like a collection request's (mzpay.messages): every merchant's or
customer's string made plain first, the HTML autoescaped, an SMS in GSM-7 (its texts avoid
accents, and the business's name and the reason are written without theirs) and kept to 2
segments by cutting the name and the reason shorter."""

from __future__ import annotations

from typing import Any

from mzpay.domain.messages import format as fmt
from mzpay.domain.messages import notices, sms
from mzpay.messages import Email, Sms, _render, titled_email

TEMPLATES = {
    notices.TRANSACTION_PROCESSED: "customer_transaction",
    **{notice: "business_decision" for notice in notices.BUSINESS_DECISIONS.values()},
    **{notice: "kyc_outcome" for notice in notices.KYC_OUTCOMES.values()},
    notices.BILL_PAID: "bill_payment",
}
# Each try of an SMS that does not fit cuts the business's name and the reason to these lengths.
SHORTER = ((None, 240), (60, 160), (30, 100), (16, 60), (16, 30))


def context(notice: str, data: dict[str, Any], language: str) -> dict[str, Any]:
    """What a notice's messages say, from its event's data: every merchant's or customer's text
    made plain."""
    contact = data.get("contact") or {}
    name = data.get("name") or " ".join(filter(None, (contact.get("first_name"), contact.get("last_name"))))
    words = {
        "business": fmt.plain(
            data.get("business_name") or data.get("biller_name") or data.get("account_id") or "mzpay", 120
        ),
        "name": fmt.plain(name, 120),
        "reason": fmt.plain(data.get("reason"), 500),
        "decision": notice.rpartition(".")[2],
        "status": str(data.get("status") or ""),
        "direction": str(data.get("direction") or ""),
        "reference": fmt.plain(data.get("reference"), 64),
        "token": fmt.plain(data.get("token"), 64),
        "receipt": fmt.plain(data.get("receipt_number"), 64),
        "customer": fmt.plain(data.get("customer_name"), 120),
    }
    if data.get("amount") is not None:
        words["amount"] = fmt.money(data["amount"], str(data.get("currency") or "MZN"), language)
    return words


def email(notice: str, data: dict[str, Any], language: str) -> Email:
    return titled_email(TEMPLATES[notice], language, context(notice, data, language))


def text_message(notice: str, data: dict[str, Any], language: str) -> Sms:
    """The SMS in GSM-7, at most 2 segments: the business's name and the reason written without
    accents, and cut shorter in turn while it would not fit."""
    template, words = TEMPLATES[notice], context(notice, data, language)
    text = ""
    for business_limit, reason_limit in SHORTER:
        tried = {
            **words,
            "business": sms.to_gsm7(fmt.plain(words["business"], business_limit)),
            "reason": sms.to_gsm7(fmt.plain(words["reason"], reason_limit)),
        }
        text = fmt.plain(_render(f"{template}.sms.txt", language, tried))
        if sms.fits(text):
            break
    return Sms(text=text, language=language)

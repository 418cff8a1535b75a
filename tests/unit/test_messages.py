"""Messages to payers (docs/notifications.md): SMS segments counted GSM-7 vs UCS-2 with real
Portuguese texts, amounts and dates the Mozambican way, the templates in both languages, and
every merchant's or payer's string escaped (HTML) and stripped of control characters (SMS,
subject, text part)."""

from __future__ import annotations

import re
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import pytest

from mzpay import messages
from mzpay.connectors.messaging import mime
from mzpay.domain.messages import format as fmt
from mzpay.domain.messages import sms
from mzpay.ports.messaging import Outgoing

LINK = "https://collection.mz.mzpay.example/pay/cr_01JD5XK0W8Q5W3M4N6P7R8S9TV"


def request(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "cr_01JD5XK0W8Q5W3M4N6P7R8S9TV",
        "description": "Factura de Novembro",
        "amount": {"currency": "MZN", "value": "1250.00"},
        "payer": {
            "first_name": "João",
            "last_name": "Sitoe",
            "delivery_method": "sms",
            "contact": {"phone_number": "+258841234567", "email": "joao@example.co.mz"},
        },
        "invoice_metadata": {"invoice_number": "INV-2026-01JD5XK0W8", "due_date": "2026-12-31", "payment_link": LINK},
        "biller": {"business_name": "Mercearia Boa Esperança"},
    }
    body.update(changes)
    return body


# ---------------------------------------------------------------- SMS segments
@pytest.mark.parametrize(
    ("text", "encoding", "units", "segments"),
    [
        ("Pague em https://mzpay.example/pay/x", "gsm7", 36, 1),
        ("a" * 160, "gsm7", 160, 1),
        ("a" * 161, "gsm7", 161, 2),
        ("a" * 306, "gsm7", 306, 2),
        ("a" * 307, "gsm7", 307, 3),
        ("€" * 80, "gsm7", 160, 1),  # the extension table costs two septets
        ("Olá João, a sua fatura de 1 250,00 MT vence a 31/12/2026.", "ucs2", 57, 1),
        ("Mercearia Boa Esperança: fatura de 1 250,00 MT, vence a 31/12/2026. Pague em " + LINK, "ucs2", 146, 3),
        ("ç" * 70, "ucs2", 70, 1),
        ("ç" * 71, "ucs2", 71, 2),
        ("ç" * 134, "ucs2", 134, 2),
        ("ç" * 135, "ucs2", 135, 3),
        ("Obrigado 🙏", "ucs2", 11, 1),  # an emoji is two UTF-16 units
        ("Olá à noite: é è ù ì ò Ç ñ ü", "ucs2", 28, 1),  # á is not GSM-7
        ("Cafe à noite: é è ù ì ò Ç ñ ü", "gsm7", 29, 1),
    ],
)
def test_segments_are_counted_gsm7_or_ucs2(text: str, encoding: str, units: int, segments: int) -> None:
    assert sms.size(text) == sms.SmsSize(encoding, units, segments)


# ---------------------------------------------------------------- formats
def test_money_and_dates_the_mozambican_way() -> None:
    assert fmt.money("1250", "MZN", "pt") == "1 250,00 MT"
    assert fmt.money("1234567.5", "MZN", "pt") == "1 234 567,50 MT"
    assert fmt.money("0.5", "MZN", "pt") == "0,50 MT"
    assert fmt.money("1250", "MZN", "en") == "MZN 1,250.00"
    assert fmt.day("2026-12-31", "pt") == fmt.day("2026-12-31T10:00:00", "en") == "31/12/2026"
    assert fmt.day(None, "pt") is None


def test_the_payers_language_else_the_businesss_else_portuguese() -> None:
    assert fmt.language("en", "pt") == "en"
    assert fmt.language(None, "en-GB") == "en"
    assert fmt.language("fr", None) == "pt"
    assert fmt.language() == "pt"
    assert fmt.language("pt_MZ") == "pt"


def test_plain_text_keeps_no_control_character() -> None:
    assert fmt.plain("Ana\r\nBcc: x@y\x1b[31m\u202eMachava\t ") == "Ana Bcc: x@y [31m Machava"
    assert fmt.plain("a" * 50, 10) == "aaaaaaa..."
    assert fmt.plain(None) == ""


# ---------------------------------------------------------------- the collection request's messages
def test_the_sms_in_portuguese() -> None:
    short = request(invoice_metadata={**request()["invoice_metadata"], "payment_link": "https://mz.example/pay/cr_1"})
    message = messages.collection_request_sms(short, "pt")
    text = "Mercearia Boa Esperança: fatura de 1 250,00 MT, vence a 31/12/2026. Pague em https://mz.example/pay/cr_1"
    assert message.text == text
    assert message.size == sms.SmsSize("ucs2", 104, 2)  # the business's "ç" makes it UCS-2


def test_an_accent_that_would_cost_a_third_segment_is_dropped() -> None:
    message = messages.collection_request_sms(request(), "pt")  # 146 UCS-2 units: 3 segments
    assert message.text == f"Mercearia Boa Esperanca: fatura de 1 250,00 MT, vence a 31/12/2026. Pague em {LINK}"
    assert message.size == sms.SmsSize("gsm7", 146, 1)


def test_the_sms_in_english_and_without_a_due_date() -> None:
    plain = request(
        biller={"business_name": "Loja Central"}, invoice_metadata={"invoice_number": "INV-1", "payment_link": LINK}
    )
    assert messages.collection_request_sms(plain, "en").text == f"Loja Central: invoice for MZN 1,250.00. Pay at {LINK}"
    pt = messages.collection_request_sms(plain, "pt")
    assert pt.text == f"Loja Central: fatura de 1 250,00 MT. Pague em {LINK}" and pt.size.encoding == "gsm7"


def test_a_long_business_name_is_cut_to_keep_the_sms_in_2_segments() -> None:
    long = request(biller={"business_name": "Associação dos Comerciantes Unidos da Província de Inhambane, Lda."})
    message = messages.collection_request_sms(long, "pt")
    assert message.size.segments <= 2
    assert message.text.startswith("Associacao dos Comerciantes Unidos da Provincia de Inhambane, Lda.: fatura")
    assert message.text.endswith(LINK) and message.size.encoding == "gsm7"


def test_the_email_in_portuguese_and_english() -> None:
    pt = messages.collection_request_email(request(), "pt")
    assert pt.subject == "Fatura INV-2026-01JD5XK0W8 de Mercearia Boa Esperança: 1 250,00 MT, vence a 31/12/2026"
    assert "Olá João Sitoe," in pt.text and "Pague aqui: " + LINK in pt.text
    assert "Data de vencimento: 31/12/2026" in pt.text
    assert f'<a href="{LINK}"' in pt.html and "Pagar agora" in pt.html and '<html lang="pt">' in pt.html
    en = messages.collection_request_email(request(), "en")
    assert en.subject == "Invoice INV-2026-01JD5XK0W8 from Mercearia Boa Esperança: MZN 1,250.00, due 31/12/2026"
    assert "Pay now" in en.html and "Hello João Sitoe," in en.text


def test_every_merchant_and_payer_string_is_escaped() -> None:
    hostile = request(
        description='<img src=x onerror="alert(1)">\x1b[2J',
        payer={"first_name": "<script>alert(1)</script>", "last_name": "Sitoe\r\nBcc: victim@example.com"},
        biller={"business_name": 'Loja "X" & <b>Filhos</b>\u202e\x07'},
    )
    email = messages.collection_request_email(hostile, "pt")
    assert "<script>" not in email.html and "<img" not in email.html and "<b>Filhos" not in email.html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in email.html
    assert "Loja &#34;X&#34; &amp; &lt;b&gt;Filhos&lt;/b&gt;" in email.html
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in email.html
    for text in (email.html, email.text, email.subject):
        assert not any(char in text for char in "\x1b\x07\u202e\r")
    assert "\n" not in email.subject and "Sitoe Bcc: victim@example.com" in email.text
    message = messages.collection_request_sms(hostile, "pt")
    assert not any(ord(char) < 32 or char == "\u202e" for char in message.text)
    raw = message_from_bytes(
        mime(
            Outgoing(
                "email", "joao@example.co.mz", "mzpay <no-reply@mzpay.co.mz>", email.text, email.subject, email.html
            ),
            "mzpay <no-reply@mzpay.co.mz>",
        )
    )
    assert raw["Bcc"] is None and raw["To"] == "joao@example.co.mz"


def test_the_email_has_a_text_part_and_an_html_part() -> None:
    email = messages.collection_request_email(request(), "pt")
    outgoing = Outgoing("email", "joao@example.co.mz", "", email.text, email.subject, email.html)
    raw = message_from_bytes(mime(outgoing, "mzpay <no-reply@mzpay.co.mz>"), policy=policy.default)
    assert isinstance(raw, EmailMessage) and raw.get_content_type() == "multipart/alternative"
    parts = [part for part in raw.iter_parts() if isinstance(part, EmailMessage)]
    assert [part.get_content_type() for part in parts] == ["text/plain", "text/html"]
    assert "Pague aqui" in parts[0].get_content() and "Pagar agora" in parts[1].get_content()
    assert str(raw["Subject"]).startswith("Fatura INV-2026")


def test_every_message_of_the_templates_is_translated() -> None:
    """The `messages` catalogue holds each text of the templates (make translations puts new ones
    there), translated, with the same placeholders, and nothing else."""
    from babel.messages.pofile import read_po

    from tests.unit.test_checkout_page import template_texts

    found = template_texts("layers/core/python/mzpay/messages/templates/**")
    assert len(found) >= 12
    with (messages.HERE / "locale" / "pt" / "LC_MESSAGES" / "messages.po").open("rb") as handle:
        catalogue = read_po(handle)
    translated = {message.id: message.string for message in catalogue if message.id}
    assert sorted(found - set(translated)) == [] and sorted(set(translated) - found) == []
    placeholder = re.compile(r"%\(\w+\)s")
    for text, translation in translated.items():
        assert translation and not any(message.fuzzy for message in catalogue if message.id), text
        assert sorted(placeholder.findall(text)) == sorted(placeholder.findall(str(translation))), text


def test_mzpay_admin_shows_the_payers_view_without_terminal_escapes() -> None:
    from mzpay_admin import messages as admin

    mail = mime(
        Outgoing("email", "joao@example.co.mz", "", "Olá\nPague aqui: x", "Fatura \x1b[31m", "<p>Olá</p>"),
        "mzpay <no-reply@mzpay.co.mz>",
    ).decode("utf-8")
    sent = {
        "sms": [{"phone_number": "+258841234567", "message_id": "m1", "message": "Loja\x1b[2J: fatura de 1 250,00 MT"}],
        "emails": [{"destinations": ["joao@example.co.mz"], "message_id": "m2", "source": "mzpay", "raw_data": mail}],
    }
    assert [m["channel"] for m in admin.listing(sent, "+258841234567")] == ["sms"]
    shown = admin.render(admin.listing(sent))
    assert "\x1b" not in shown and "sms to +258841234567 (1 segment(s), ucs2)" in shown
    assert "  Subject: Fatura [31m" in shown and "  Olá\n  Pague aqui: x" in shown
    assert admin.render([]) == "no messages sent\n"

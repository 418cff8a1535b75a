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


# ---------------------------------------------------------------- reminders, overdue notices, receipts
PAID = {
    "business": "Mercearia Boa Esperança",
    "payer_name": "João Sitoe",
    "amount": {"value": "1250.00", "currency": "MZN"},
    "number": "INV-2026-01JD5XK0W8",
    "description": "Factura de Novembro",
    "paid_at": "2026-12-20T23:15:00Z",  # already the 21st in Maputo
    "receipt": "R-7K3M-9QXF-2DW4",
}


@pytest.mark.parametrize(
    ("notice", "language", "subject", "lead", "text"),
    [
        (
            messages.REMINDER,
            "pt",
            "Lembrete: fatura INV-2026-01JD5XK0W8 de Mercearia Boa Esperança, 1 250,00 MT, vence a 31/12/2026",
            "Lembrete: a fatura INV-2026-01JD5XK0W8 de Mercearia Boa Esperança de 1 250,00 MT vence a 31/12/2026.",
            f"Mercearia Boa Esperanca: lembrete, fatura de 1 250,00 MT vence a 31/12/2026. Pague em {LINK}",
        ),
        (
            messages.OVERDUE,
            "pt",
            "Em atraso: fatura INV-2026-01JD5XK0W8 de Mercearia Boa Esperança, 1 250,00 MT, venceu a 31/12/2026",
            "A fatura INV-2026-01JD5XK0W8 de Mercearia Boa Esperança de 1 250,00 MT venceu a 31/12/2026 e ainda não "
            "foi paga.",
            f"Mercearia Boa Esperanca: fatura de 1 250,00 MT em atraso (vencia a 31/12/2026). Pague em {LINK}",
        ),
        (
            messages.REMINDER,
            "en",
            "Reminder: invoice INV-2026-01JD5XK0W8 from Mercearia Boa Esperança, MZN 1,250.00, due 31/12/2026",
            "A reminder: invoice INV-2026-01JD5XK0W8 from Mercearia Boa Esperança for MZN 1,250.00 is due on "
            "31/12/2026.",
            f"Mercearia Boa Esperanca: reminder, invoice for MZN 1,250.00 due 31/12/2026. Pay at {LINK}",
        ),
        (
            messages.OVERDUE,
            "en",
            "Overdue: invoice INV-2026-01JD5XK0W8 from Mercearia Boa Esperança, MZN 1,250.00, was due 31/12/2026",
            "Invoice INV-2026-01JD5XK0W8 from Mercearia Boa Esperança for MZN 1,250.00 was due on 31/12/2026 and is "
            "not paid yet.",
            f"Mercearia Boa Esperanca: invoice for MZN 1,250.00 is overdue (due 31/12/2026). Pay at {LINK}",
        ),
    ],
)
def test_the_reminder_and_the_overdue_notice(notice: str, language: str, subject: str, lead: str, text: str) -> None:
    email = messages.due_email(request(), language, notice)
    assert email.subject == subject
    assert lead in email.text and lead in email.html and f'<a href="{LINK}"' in email.html
    assert f'<html lang="{language}">' in email.html
    message = messages.due_sms(request(), language, notice)
    assert message.text == text
    assert message.size.segments == 1 and message.size.encoding == "gsm7"  # the name lost its accent to fit


def test_a_due_sms_with_a_long_name_stays_within_2_segments() -> None:
    long = request(biller={"business_name": "Associação dos Comerciantes Unidos da Província de Inhambane, Lda."})
    for notice in (messages.REMINDER, messages.OVERDUE):
        for language in ("pt", "en"):
            assert messages.due_sms(long, language, notice).size.segments <= 2


@pytest.mark.parametrize(
    ("language", "subject", "lead", "rows", "text"),
    [
        (
            "pt",
            "Recibo de Mercearia Boa Esperança: 1 250,00 MT pago",
            "Mercearia Boa Esperança recebeu o seu pagamento de 1 250,00 MT. Obrigado.",
            ["Fatura: INV-2026-01JD5XK0W8", "Pago em: 21/12/2026", "Número do recibo: R-7K3M-9QXF-2DW4"],
            "Mercearia Boa Esperança: pagamento de 1 250,00 MT da fatura INV-2026-01JD5XK0W8 recebido. "
            "Recibo R-7K3M-9QXF-2DW4. Obrigado",
        ),
        (
            "en",
            "Receipt from Mercearia Boa Esperança: MZN 1,250.00 paid",
            "Mercearia Boa Esperança received your payment of MZN 1,250.00. Thank you.",
            ["Invoice: INV-2026-01JD5XK0W8", "Paid on: 21/12/2026", "Receipt number: R-7K3M-9QXF-2DW4"],
            "Mercearia Boa Esperança: payment of MZN 1,250.00 for invoice INV-2026-01JD5XK0W8 received. "
            "Receipt R-7K3M-9QXF-2DW4. Thank you",
        ),
    ],
)
def test_the_receipt(language: str, subject: str, lead: str, rows: list[str], text: str) -> None:
    email = messages.receipt_email(PAID, language)
    assert email.subject == subject and email.text.startswith(("Olá João Sitoe,", "Hello João Sitoe,"))
    for line in [lead, *rows]:
        assert line in email.text and line in email.html
    message = messages.receipt_sms(PAID, language)
    assert message.text == text and message.size == sms.SmsSize("ucs2", len(text), 2)  # ç: UCS-2, 2 segments
    checkout = {**PAID, "number": None, "description": None, "payer_name": None}
    assert messages.receipt_sms(checkout, language).size.segments <= 2
    assert "INV-" not in messages.receipt_email(checkout, language).text


def test_every_merchant_and_payer_string_is_escaped_in_reminders_and_receipts() -> None:
    hostile_name = 'Loja "X" & <b>Filhos</b>\u202e\x07'
    hostile = request(
        description='<img src=x onerror="alert(1)">\x1b[2J',
        payer={"first_name": "<script>alert(1)</script>", "last_name": "Sitoe\r\nBcc: victim@example.com"},
        biller={"business_name": hostile_name},
    )
    paid = {
        **PAID,
        "business": hostile_name,
        "payer_name": "<script>alert(1)</script> Sitoe\r\nBcc: victim@example.com",
        "description": '<img src=x onerror="alert(1)">\x1b[2J',
        "number": "INV-1\r\nBcc: x@y",
    }
    emails = [messages.due_email(hostile, "pt", n) for n in (messages.REMINDER, messages.OVERDUE)]
    emails.append(messages.receipt_email(paid, "en"))
    for email in emails:
        assert "<script>" not in email.html and "<img" not in email.html and "<b>Filhos" not in email.html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in email.html
        assert "Loja &#34;X&#34; &amp; &lt;b&gt;Filhos&lt;/b&gt;" in email.html
        for text in (email.html, email.text, email.subject):
            assert not any(char in text for char in "\x1b\x07\u202e\r")
        assert "\n" not in email.subject
    texts = [messages.due_sms(hostile, "pt", n).text for n in (messages.REMINDER, messages.OVERDUE)]
    texts.append(messages.receipt_sms(paid, "pt").text)
    for text in texts:
        assert not any(ord(char) < 32 or char == "\u202e" for char in text)


# ---------------------------------------------------------------- the invoice PDF
def pdf_text(data: bytes) -> str:
    """The PDF's text: pypdf's reading when it is installed, else the page stream as fpdf2 wrote it."""
    assert data.startswith(b"%PDF-")
    try:
        import pypdf
    except ImportError:  # fpdf2 writes its page content uncompressed only when told; read the raw bytes
        return data.decode("latin-1")
    import io

    return "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("pt", ["Fatura INV-2026-01JD5XK0W8", "De", "Faturado a", "João Sitoe", "Valor", "1 250,00 MT", "Pague em"]),
        ("en", ["Invoice INV-2026-01JD5XK0W8", "From", "Billed to", "João Sitoe", "Amount", "MZN 1,250.00", "Pay at"]),
    ],
)
def test_the_invoice_pdf_in_the_payers_language(language: str, expected: list[str]) -> None:
    lines = pdf_text(messages.invoice_pdf(request(), language)).splitlines()
    for line in [*expected, "Mercearia Boa Esperança", "Factura de Novembro", "31/12/2026", LINK]:
        assert line in lines, (line, lines)


def test_the_invoice_pdf_takes_hostile_names_as_text() -> None:
    hostile = request(
        description="Linha 1\r\nLinha 2\tcom tab \u202e",
        biller={"business_name": "Loja 🙏 Ç"},
        invoice_metadata={"invoice_number": "INV-1", "payment_link": LINK},
    )
    lines = pdf_text(messages.invoice_pdf(hostile, "pt")).splitlines()
    assert "Linha 1 Linha 2 com tab" in lines and "Loja ? Ç" in lines  # no Latin-1 for the emoji
    assert "Data de vencimento" not in lines  # no due date: no row


def test_the_email_carries_its_attachment_in_base64() -> None:
    from mzpay.ports.messaging import Attachment

    email = messages.collection_request_email(request(), "pt")
    pdf = messages.invoice_pdf(request(), "pt")
    outgoing = Outgoing(
        "email", "joao@example.co.mz", "", email.text, email.subject, email.html,
        (Attachment("fatura-INV-2026-01JD5XK0W8.pdf", "application/pdf", pdf),),
    )  # fmt: skip
    raw = message_from_bytes(mime(outgoing, "mzpay <no-reply@mzpay.co.mz>"), policy=policy.default)
    assert isinstance(raw, EmailMessage) and raw.get_content_type() == "multipart/mixed"
    body, attached = (part for part in raw.iter_parts() if isinstance(part, EmailMessage))
    assert body.get_content_type() == "multipart/alternative"
    assert attached.get_content_type() == "application/pdf" and attached["Content-Transfer-Encoding"] == "base64"
    assert attached.get_filename() == "fatura-INV-2026-01JD5XK0W8.pdf" and attached.get_content() == pdf


# ---------------------------------------------------------------- a request paid at a bank
BANK_DETAILS = [
    {"collection_method_id": "cm_1", "name": "M-Pesa", "type": "mpesa", "status": "active"},
    {
        "collection_method_id": "cm_2",
        "name": "Referência",
        "type": "simo_erv",
        "status": "active",
        "entity_number": "21542",
        "reference_number": "12345678901",
    },
    {
        "collection_method_id": "cm_3",
        "name": "Transferência",
        "type": "interbank",
        "status": "active",
        "nib": "000800000123456789159",
        "reference_number": "12345678901",
        "transfer_description": "MZP12345678901",
    },
]


def test_a_request_with_bank_methods_says_how_to_pay_at_a_bank_in_every_message() -> None:
    banked = request(collection_method_details=BANK_DETAILS)
    pt = messages.collection_request_email(banked, "pt")
    simo_pt = (
        "Num banco, num ATM ou na aplicação do seu banco (Pagamentos a entidades): entidade 21542, referência"
        " 12345678901."
    )
    transfer_pt = (
        "Por transferência bancária para o NIB 000800000123456789159, escrevendo MZP12345678901 no descritivo da"
        " transferência."
    )
    assert simo_pt in pt.text and transfer_pt in pt.text and simo_pt in pt.html and transfer_pt in pt.html
    en = messages.due_email(banked, "en", messages.REMINDER)
    assert "entity 21542, reference 12345678901." in en.text and "writing MZP12345678901 in the" in en.html
    short = {**banked["invoice_metadata"], "payment_link": "https://mz.example/pay/cr_1"}
    sms_pt = messages.collection_request_sms({**banked, "invoice_metadata": short}, "pt")
    assert sms_pt.text.endswith("Pague em https://mz.example/pay/cr_1 ATM/banco: entidade 21542, ref. 12345678901.")
    assert sms_pt.size.segments <= 2
    overdue = messages.due_sms(banked, "en", messages.OVERDUE)
    assert overdue.text.endswith("ATM/bank: entity 21542, ref. 12345678901.") and overdue.size.segments <= 2
    lines = pdf_text(messages.invoice_pdf(banked, "pt")).splitlines()
    for line in ("Entidade (SIMO)", "21542", "Referência (SIMO)", "12345678901", "MZP12345678901"):
        assert line in lines, (line, lines)


def test_a_request_without_active_bank_methods_says_nothing_of_banks() -> None:
    off = [{**item, "status": "inactive"} if item["type"] != "mpesa" else item for item in BANK_DETAILS]
    for details in ([], off):
        texts = messages.collection_request_email(request(collection_method_details=details), "en").text
        assert "entity" not in texts and "NIB" not in texts
        assert "ATM" not in messages.collection_request_sms(request(collection_method_details=details), "en").text

"""Messages to payers on the local stack, read back from what moto's SES and SNS "sent"
(devstack.moto_server's /__devstack__/sent: moto's own records, not a table of ours): a
collection request with delivery_method sms reaches its payer's phone and one with email its
payer's inbox, in Portuguese, with the payment link; a bill payment's resend goes out by e-mail."""

from __future__ import annotations

import io
import json
from datetime import UTC, date, datetime, timedelta
from email import message_from_string, policy
from email.message import EmailMessage
from typing import Any
from urllib.parse import quote

import pytest
import requests
from playwright.sync_api import Browser
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay.domain.messages import format as fmt
from mzpay.domain.messages import sms
from mzpay.domain.payments.fiscal import short_number
from mzpay_admin.cli import run
from tests.e2e.browsers import fresh_pages, serious_violations
from tests.e2e.collection_client import Collection, assert_error, assert_ok
from tests.e2e.test_bill_resends import bought, resend
from tests.e2e.test_collection_requests import ENTITY, NIB, Payer, bank_methods, create, full, payer, unique_phone
from tests.e2e.test_local_stack import local_lambda
from tests.polling import eventually

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return Collection(stack, "mz")


def sent(stack: RunningStack) -> dict[str, list[dict[str, Any]]]:
    answer = requests.get(f"{stack.state['aws_endpoint']}/__devstack__/sent", timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def sms_to(stack: RunningStack, phone: str, count: int = 1) -> list[str]:
    found = eventually(
        lambda: [m["message"] for m in sent(stack)["sms"] if m["phone_number"] == phone],
        lambda texts: len(texts) >= count,
        timeout=60,
    )
    assert len(found) == count, found
    return found


def emails_to(stack: RunningStack, address: str, count: int = 1, having: str = "") -> list[EmailMessage]:
    def read() -> list[EmailMessage]:
        return [
            mail
            for m in sent(stack)["emails"]
            if m["raw_data"] and any(address in d for d in m["destinations"])
            for mail in [message_from_string(m["raw_data"], policy=policy.default)]
            if isinstance(mail, EmailMessage) and having in mail.as_string()
        ]

    found = eventually(read, lambda mails: len(mails) >= count, timeout=60)
    assert len(found) == count, [m["Subject"] for m in found]
    return found


def parts(mail: EmailMessage) -> tuple[str, str]:
    """The text and HTML parts (inside multipart/mixed when the e-mail carries the invoice PDF)."""
    text, html = (mail.get_body(preferencelist=(kind,)) for kind in ("plain", "html"))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


def test_a_request_by_sms_reaches_the_payers_phone_in_portuguese(mz: Collection, stack: RunningStack) -> None:
    phone = unique_phone()
    created = create(mz, payer=payer(phone), invoice_metadata={"due_date": "2026-12-31"})
    link = created["invoice_metadata"]["payment_link"]
    business = full(mz, created["id"])["biller"]["business_name"]
    (text,) = sms_to(stack, phone)
    assert text == f"{business}: fatura de 1 500,50 MT, vence a 31/12/2026. Pague em {link}"
    assert sms.size(text).segments <= 2
    # what a developer reads: mzpay-admin messages --to <phone>
    out, err = io.StringIO(), io.StringIO()
    assert run(["--stack-file", str(stack.state_file), "messages", "--to", phone], out, err, {}) == 0, err.getvalue()
    size = sms.size(text)
    assert out.getvalue() == f"sms to {phone} ({size.segments} segment(s), {size.encoding})\n  {text}\n"


def test_the_business_reads_its_requests_messages(mz: Collection, stack: RunningStack) -> None:
    phone = unique_phone()
    request_id = create(mz, payer=payer(phone))["id"]
    sms_to(stack, phone)
    path = f"/v1/collection-requests/{request_id}/notifications"
    listed = eventually(
        lambda: assert_ok(mz.call("GET", path)),
        lambda answer: [m["status"] for m in answer["data"]] == ["sent"],
        timeout=30,
    )
    (message,) = listed["data"]
    sms_ids = [m["message_id"] for m in sent(stack)["sms"] if m["phone_number"] == phone]
    assert listed == {
        "object": "list",
        "data": [
            {
                "object": "notification",
                "cause": "collection_request.created",
                "channel": "sms",
                "to": phone,
                "status": "sent",
                "provider_message_id": sms_ids[0],
                "failure": None,
                "created_at": message["created_at"],
                "updated_at": message["updated_at"],
            }
        ],
        "has_more": False,
    }
    reader = mz.mint(scope="collection_request:read")
    assert assert_ok(mz.call("GET", path, token=reader)) == listed
    other = mz.active_business(sub="messages-other")[1]
    assert_error(mz.call("GET", path, token=other), 404, "not_found", "No such collection request.")
    no_permission = mz.mint(scope="collection_method:read")
    assert_error(
        mz.call("GET", path, token=no_permission),
        403,
        "forbidden",
        "The access token lacks the permission collection_request:read.",
        {"permission": "collection_request:read"},
    )


def test_a_request_by_email_reaches_the_payers_inbox_in_portuguese(mz: Collection, stack: RunningStack) -> None:
    address = f"joao.{str(ULID()).lower()}@example.co.mz"
    body = payer(delivery_method="email", contact={"phone_number": unique_phone(), "email": address})
    created = create(mz, payer=body, invoice_metadata={"due_date": "2026-12-31"})
    link, number = created["invoice_metadata"]["payment_link"], created["invoice_metadata"]["invoice_number"]
    business = full(mz, created["id"])["biller"]["business_name"]
    (mail,) = emails_to(stack, address)
    assert mail["Subject"] == f"Fatura {number} de {business}: 1 500,50 MT, vence a 31/12/2026"
    assert mail["From"] == "mzpay <no-reply@mzpay.co.mz>" and mail["To"] == address
    text, html = parts(mail)
    assert text.startswith("Olá João Sitoe,") and f"Pague aqui: {link}" in text
    assert "Data de vencimento: 31/12/2026" in text and "Factura de Novembro" in text
    assert f'<a href="{link}"' in html and "Pagar agora" in html


def test_a_request_with_bank_methods_tells_its_payer_the_entity_reference_and_nib(
    mz: Collection, stack: RunningStack
) -> None:
    simo, interbank = bank_methods(mz)
    address, phone = f"rita.{str(ULID()).lower()}@example.co.mz", unique_phone()
    by_email = payer(delivery_method="email", contact={"phone_number": unique_phone(), "email": address})
    ids = [simo["id"], interbank["id"]]
    mailed = create(mz, payer=by_email, collection_method_ids=ids, invoice_metadata={"due_date": "2026-12-31"})
    texted = create(mz, payer=payer(phone), collection_method_ids=ids, invoice_metadata={"due_date": "2026-12-31"})
    number = mailed["collection_method_details"][0]["reference_number"]
    described = next(d["transfer_description"] for d in mailed["collection_method_details"] if d["type"] == "interbank")
    text, html = parts(emails_to(stack, address)[0])
    at_bank = (
        "Num banco, num ATM ou na aplicação do seu banco (Pagamentos a entidades): entidade"
        f" {ENTITY}, referência {number}."
    )
    by_transfer = f"Por transferência bancária para o NIB {NIB}, escrevendo {described} no descritivo da transferência."
    assert at_bank in text and by_transfer in text and at_bank in html and by_transfer in html
    (sms_text,) = sms_to(stack, phone)
    texted_number = texted["collection_method_details"][0]["reference_number"]
    assert sms_text.endswith(
        f"Pague em {texted['invoice_metadata']['payment_link']} ATM/banco: entidade {ENTITY}, ref. {texted_number}."
    )
    assert sms.size(sms_text).segments <= 2


def test_a_payer_who_reads_english_gets_english(mz: Collection, stack: RunningStack) -> None:
    phone, address = unique_phone(), f"ana.{str(ULID()).lower()}@example.co.mz"
    by_sms = create(mz, payer=payer(phone, language="en"), invoice_metadata={"due_date": "2026-12-31"})
    assert by_sms["payer"]["language"] == "en"
    business = full(mz, by_sms["id"])["biller"]["business_name"]
    link = by_sms["invoice_metadata"]["payment_link"]
    assert sms_to(stack, phone) == [f"{business}: invoice for MZN 1,500.50, due 31/12/2026. Pay at {link}"]
    contact = {"phone_number": unique_phone(), "email": address}
    by_email = create(mz, payer=payer(delivery_method="email", contact=contact, language="en"))
    (mail,) = emails_to(stack, address)
    number = by_email["invoice_metadata"]["invoice_number"]
    assert mail["Subject"] == f"Invoice {number} from {business}: MZN 1,500.50"
    text, html = parts(mail)
    assert text.startswith("Hello João Sitoe,") and "Pay now" in html and '<html lang="en">' in html


def test_a_request_by_erp_sends_nothing(mz: Collection, stack: RunningStack) -> None:
    """Sent after an SMS request to a second phone: once that one arrived, the erp one (queued
    first, on the same queue) would have too."""
    quiet, witness = unique_phone(), unique_phone()
    create(mz, payer=payer(quiet, delivery_method="erp"))
    create(mz, payer=payer(witness))
    sms_to(stack, witness)
    assert [m for m in sent(stack)["sms"] if m["phone_number"] == quiet] == []


def test_a_bill_payments_resend_goes_out_by_email(stack: RunningStack) -> None:
    shop, payment = bought(stack)
    answer = resend(shop, payment["payment_id"], "email")
    assert answer.status_code == 201, answer.text
    # the token as the payment first sent it, then the resend: the same e-mail, in Portuguese
    first, again = emails_to(stack, "ana@example.co.mz", count=2, having=payment["receipt_number"])
    assert first["Subject"] == again["Subject"] == "EDM Credelec: o seu token para 04000000001"
    assert first["From"] == again["From"] == "mzpay <no-reply@mzpay.co.mz>"  # the region's
    text, html = parts(again)
    assert text == parts(first)[0] and text.startswith("Olá,")
    assert f"Token: {payment['token']}" in text and f"Recibo: {payment['receipt_number']}" in text
    assert payment["token"] in html and '<html lang="pt">' in html


def test_a_bill_payment_sends_its_token_by_sms_in_portuguese(stack: RunningStack) -> None:
    """A payer who gave only a phone gets the token by SMS when the supplier pays it (GSM-7, one
    segment), from the region's sender: no SMS channel is needed for the first message."""
    phone = unique_phone()
    _shop, payment = bought(stack, payer={"phone_number": phone})
    (text,) = sms_to(stack, phone)
    assert text == (
        f"EDM Credelec: token {payment['token']} para 04000000001, 100,00 MT. Recibo {payment['receipt_number']}"
    )
    assert (sms.size(text).segments, sms.size(text).encoding) == (1, "gsm7")


def test_the_consoles_messages_page_shows_what_the_payer_read(
    mz: Collection, stack: RunningStack, browser: Browser
) -> None:
    """An operator reads a business's messages in the console (Portuguese, then English): the
    SMS as it was sent with its segments and encoding, its status and SNS's message id; filtered
    by channel, status and recipient; an e-mail with its subject."""
    from tests.e2e.test_console_browser import DESKTOP, console, sign_in, visit

    phone, address = unique_phone(), f"ana.{str(ULID()).lower()}@example.co.mz"
    by_sms = create(mz, payer=payer(phone), invoice_metadata={"due_date": "2026-12-31"})
    by_email = create(mz, payer=payer(delivery_method="email", contact={"email": address}))
    (text,) = sms_to(stack, phone)
    (mail,) = emails_to(stack, address)
    account = mz.demo["account_id"]  # the business collects through the gateway account of its own id
    page_of = f"{console(stack)}/accounts/{account}/messages?mode=test"
    with fresh_pages(browser, DESKTOP) as operator:
        page = operator()
        sign_in(page, stack)

        def rows(query: str) -> list[tuple[str | None, str | None, str | None]]:
            assert visit(page, f"{page_of}&{query}").status == 200
            found = page.locator("main tr[data-message]")
            return [
                (row.get_attribute("data-message"), row.get_attribute("data-channel"), row.get_attribute("data-status"))
                for row in found.all()
            ]

        sms_cause = f"collection_request.created:{by_sms['id']}"
        assert eventually(lambda: rows(f"recipient={quote(phone)}"), bool) == [(sms_cause, "sms", "sent")]
        row = page.locator(f'main tr[data-message="{sms_cause}"]')
        size = sms.size(text)
        assert row.locator("[data-text]").inner_text() == text
        assert row.locator("[data-sms]").get_attribute("data-sms") == f"{size.segments} {size.encoding}"
        assert f"segmentos: {size.segments}" in row.inner_text() and "enviado" in row.inner_text()
        assert row.locator("td").nth(3).inner_text().strip()  # SNS's message id
        assert page.get_by_role("heading", level=1).inner_text().startswith("Mensagens")

        email_cause = f"collection_request.created:{by_email['id']}"
        assert rows(f"recipient={quote(address)}&channel=email&status=sent") == [(email_cause, "email", "sent")]
        subject = page.locator(f'main tr[data-message="{email_cause}"] [data-subject]').inner_text()
        assert subject == mail["Subject"]
        assert rows(f"recipient={quote(phone)}&channel=email") == []
        assert page.locator('[data-empty="messages"]').inner_text() == "Sem mensagem."
        newest = rows("page_size=2")
        assert newest[:2] == [(email_cause, "email", "sent"), (sms_cause, "sms", "sent")]  # newest first

        assert visit(page, f"{page_of}&recipient={quote(phone)}&lang=en").status == 200
        assert page.get_by_role("heading", level=1).inner_text().startswith("Messages")
        assert "segments: 1" in page.locator(f'main tr[data-message="{sms_cause}"]').inner_text()
        with_axe = operator(javascript=True)  # axe runs in the page; the console itself has no script
        sign_in(with_axe, stack)
        visit(with_axe, f"{page_of}&recipient={quote(phone)}")
        assert with_axe.locator("script").count() == 0
        assert with_axe.locator("main tr[data-message]").count() == 1
        serious, found = serious_violations(with_axe)
        assert serious == [], f"axe on {with_axe.url}:\n{found}"
        refused = visit(page, f"{page_of}&status=lost")
        assert (refused.status, page.locator("main").get_attribute("data-code")) == (400, "invalid_request")


def test_the_request_by_email_carries_its_invoice_pdf_and_its_payer_gets_the_receipt(
    mz: Collection, stack: RunningStack
) -> None:
    """The payer's e-mail holds the invoice as a PDF; paid through its link, the request's payer
    gets the receipt by e-mail (collection_request.paid), and only that one (the checkout the link
    opened sends none of its own)."""
    address = f"rita.{str(ULID()).lower()}@example.co.mz"
    body = payer(delivery_method="email", contact={"phone_number": unique_phone(), "email": address})
    created = create(mz, payer=body, invoice_metadata={"due_date": "2026-12-31"})
    number, link = created["invoice_metadata"]["invoice_number"], created["invoice_metadata"]["payment_link"]
    (invoice,) = emails_to(stack, address)
    (attached,) = invoice.iter_attachments()
    assert attached.get_content_type() == "application/pdf" and attached.get_filename() == f"fatura-{number}.pdf"
    pdf = attached.get_content()
    assert pdf.startswith(b"%PDF-")
    pypdf = pytest.importorskip("pypdf")
    lines = "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages).splitlines()
    assert f"Fatura {number}" in lines and "1 500,50 MT" in lines and link in lines and "31/12/2026" in lines

    browser = Payer()
    checkout_url = browser.open(link).headers["Location"]
    assert "Pago. Obrigado!" in browser.pay(checkout_url, "succeed")
    (receipt,) = emails_to(stack, address, having="Recibo de")
    business = full(mz, created["id"])["biller"]["business_name"]
    assert receipt["Subject"] == f"Recibo de {business}: 1 500,50 MT pago"
    text, html = parts(receipt)
    payment_id = checkout_url.rsplit("/", 1)[1]
    assert f"Fatura: {number}" in text and f"Número do recibo: {short_number(payment_id)}" in text
    assert "Obrigado." in html and list(receipt.iter_attachments()) == []
    assert len(emails_to(stack, address, count=2)) == 2  # the invoice and its receipt: nothing else


def test_the_daily_sweep_sends_the_reminder_and_the_overdue_notice_once(mz: Collection, stack: RunningStack) -> None:
    """The sweep invoked in the local stack for a given day (as an operator replays one): the
    reminder 3 days (ReminderDaysBeforeDue) before the due date, the overdue notice the day after,
    each once however often the day is swept."""
    phone = unique_phone()
    due = fmt.today_in_maputo(datetime.now(UTC)) + timedelta(days=10)
    created = create(mz, payer=payer(phone), invoice_metadata={"due_date": due.isoformat()})
    sms_to(stack, phone)  # the request itself
    lambda_api = local_lambda(stack)

    def sweep(day: date) -> dict[str, Any]:
        answer = lambda_api.invoke(FunctionName="DueDateSweepFunction", Payload=json.dumps({"day": day.isoformat()}))
        assert "FunctionError" not in answer, answer
        return json.loads(answer["Payload"].read())  # type: ignore[no-any-return]

    business = full(mz, created["id"])["biller"]["business_name"]
    link, shown = created["invoice_metadata"]["payment_link"], due.strftime("%d/%m/%Y")
    sweep(due - timedelta(days=4))  # not yet
    assert sweep(due - timedelta(days=3))["reminders"] >= 1
    reminder = f"{business}: lembrete, fatura de 1 500,50 MT vence a {shown}. Pague em {link}"
    assert sms_to(stack, phone, count=2)[1] == reminder
    sweep(due - timedelta(days=3))  # again: sent already
    assert sweep(due + timedelta(days=1))["overdue"] >= 1
    overdue = f"{business}: fatura de 1 500,50 MT em atraso (vencia a {shown}). Pague em {link}"
    assert sms_to(stack, phone, count=3)[2] == overdue
    sweep(due + timedelta(days=2))
    listed = eventually(
        lambda: assert_ok(mz.call("GET", f"/v1/collection-requests/{created['id']}/notifications")),
        lambda answer: [m["status"] for m in answer["data"]] == ["sent"] * 3,
        timeout=30,
    )
    causes = sorted(m["cause"] for m in listed["data"])
    assert causes == ["collection_request.created", "collection_request.overdue", "collection_request.reminder"]
    assert len(sms_to(stack, phone, count=3)) == 3


def test_an_english_payer_gets_the_reminder_overdue_notice_and_receipt_in_english(
    mz: Collection, stack: RunningStack
) -> None:
    """The same messages in English for a payer who reads English (payer.language en), by SMS:
    the request, its reminder and overdue notice from the sweep, then its receipt once paid
    through its link."""
    phone = unique_phone()
    due = fmt.today_in_maputo(datetime.now(UTC)) + timedelta(days=10)
    created = create(mz, payer=payer(phone, language="en"), invoice_metadata={"due_date": due.isoformat()})
    business = full(mz, created["id"])["biller"]["business_name"]
    link, shown = created["invoice_metadata"]["payment_link"], due.strftime("%d/%m/%Y")
    assert sms_to(stack, phone) == [f"{business}: invoice for MZN 1,500.50, due {shown}. Pay at {link}"]
    lambda_api = local_lambda(stack)
    for day in (due - timedelta(days=3), due + timedelta(days=1)):
        answer = lambda_api.invoke(FunctionName="DueDateSweepFunction", Payload=json.dumps({"day": day.isoformat()}))
        assert "FunctionError" not in answer, answer
    reminder, overdue = sms_to(stack, phone, count=3)[1:]
    assert reminder == f"{business}: reminder, invoice for MZN 1,500.50 due {shown}. Pay at {link}"
    assert overdue == f"{business}: invoice for MZN 1,500.50 is overdue (due {shown}). Pay at {link}"

    browser = Payer()
    checkout_url = browser.open(link).headers["Location"]
    browser.pay(checkout_url, "succeed")
    number, short = created["invoice_metadata"]["invoice_number"], short_number(checkout_url.rsplit("/", 1)[1])
    receipt = sms_to(stack, phone, count=4)[3]
    assert receipt == f"{business}: payment of MZN 1,500.50 for invoice {number} received. Receipt {short}. Thank you"

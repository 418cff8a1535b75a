"""Reminders, overdue notices, receipts and the invoice PDF through SES and SNS on in-process
moto (docs/notifications.md): the daily sweep reads the due-date index of the stack's own
CollectionTable (no Scan) with a frozen clock, queues what is due, and the sender sends each once;
what moto's SES and SNS kept is what the payer reads, the invoice PDF parsed back from the raw
MIME."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_string, policy
from email.message import EmailMessage
from typing import Any

import pytest

from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import due_dates, notifications
from mzpay.domain.collection.requests import CollectionRequest, RequestStatus
from mzpay.domain.payments.fiscal import short_number
from mzpay.steps.notifications import dispatch_notification
from mzpay.store.aws import client
from tests.integration.support import function_stack
from tests.integration.test_messages import created_event, sent_emails, sent_sms
from tests.unit.builders import account
from tests.unit.test_payer_reads import request as a_request

PHONE, EMAIL = "+258841234567", "joao@example.co.mz"


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with function_stack("NotificationSenderFunction", monkeypatch) as provisioned, atomic_dynamodb():
        queue = provisioned.physical["NotificationQueue"].rsplit("/", 1)[-1]
        monkeypatch.setenv("NOTIFICATION_QUEUE_URL", client("sqs").get_queue_url(QueueName=queue)["QueueUrl"])
        monkeypatch.setenv("TEST_MODE_MESSAGES", "deliver")
        monkeypatch.setenv("REMINDER_DAYS_BEFORE_DUE", "3")
        deps.reset()
        yield provisioned


def stored(request_id: str, due: str, created: str, delivery_method: str = "sms", phone: str = PHONE) -> str:
    """A pending request due on `due`, created at `created`, in the stack's CollectionTable."""
    payer = {
        "type": "individual",
        "first_name": "João",
        "last_name": "Sitoe",
        "delivery_method": delivery_method,
        "contact": {"phone_number": phone, "email": EMAIL},
    }
    invoice = {
        "invoice_number": f"INV-{request_id[-4:]}",
        "due_date": due,
        "payment_link": f"https://c.example/pay/{request_id}",
    }
    request = a_request(
        request_id=request_id, payer=payer, invoice_metadata=invoice, created_at=created, updated_at=created
    )
    deps.collection_requests().create(request, [])
    return request_id


def paid(request_id: str) -> CollectionRequest:
    request = deps.collection_requests().get(request_id)
    assert request is not None
    return deps.collection_requests().transition(request, {"status": RequestStatus.PAID}, [])


def drain() -> list[dict[str, Any]]:
    """Every message on NotificationQueue (taken off it)."""
    sqs, url, found = client("sqs"), deps.notification_queue().url, []
    while answer := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for message in answer:
            found.append(json.loads(message["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return found


def sweep(day: str) -> tuple[due_dates.Swept, list[str]]:
    """The sweep at 08:00 in Maputo on `day` (a frozen clock), then the sender on what it queued."""
    swept = due_dates.sweep(datetime.fromisoformat(f"{day}T06:00:00+00:00").astimezone(UTC))
    causes = [notifications.deliver(message) for message in drain()]
    return swept, causes


def sms_to(phone: str) -> list[str]:
    return [text for to, text in sent_sms() if to == phone]


def test_a_reminder_n_days_before_and_an_overdue_notice_the_day_after(stack: ProvisionedStack) -> None:
    soon = stored("cr_01JD5XK0W8Q5W3M4N6P7R8SOON", "2026-12-10", "2026-12-01T09:00:00Z")
    late = stored("cr_01JD5XK0W8Q5W3M4N6P7R8LATE", "2026-12-06", "2026-12-01T09:00:00Z", "email")
    fresh = stored("cr_01JD5XK0W8Q5W3M4N6P7RFRESH", "2026-12-09", "2026-12-07T09:00:00Z", phone="+258841234568")
    stored("cr_01JD5XK0W8Q5W3M4N6P7R8SFAR", "2026-12-20", "2026-12-01T09:00:00Z", phone="+258841234569")
    stored("cr_01JD5XK0W8Q5W3M4N6P7R8SERP", "2026-12-10", "2026-12-01T09:00:00Z", "erp")

    swept, causes = sweep("2026-12-07")
    assert (swept.day, swept.reminders, swept.overdue) == ("2026-12-07", 1, 1)
    assert sorted(causes) == [f"collection_request.overdue:{late}", f"collection_request.reminder:{soon}"]
    assert sms_to(PHONE) == [
        f"Demo Comercial Lda: lembrete, fatura de 1 500,50 MT vence a 10/12/2026. Pague em https://c.example/pay/{soon}"
    ]
    (mail,) = [message_from_string(m.raw_data, policy=policy.default) for m in sent_emails()]
    assert mail["To"] == EMAIL
    assert mail["Subject"] == "Em atraso: fatura INV-LATE de Demo Comercial Lda, 1 500,50 MT, venceu a 06/12/2026"
    assert "pdf" not in mail.as_string().lower()  # the invoice PDF goes with the request, not its notices
    assert sms_to("+258841234568") == [] and sms_to("+258841234569") == []  # created within 3 days; due later

    # run again (a retried schedule): nothing queued, nothing sent twice
    again, causes = sweep("2026-12-07")
    assert (again.reminders, again.overdue, causes) == (0, 0, [])
    assert len(sent_sms()) == 1 and len(sent_emails()) == 1
    records = deps.message_records().about(soon)
    assert [(r["cause"], r["status"]) for r in records] == [(f"collection_request.reminder:{soon}", "sent")]
    assert fresh  # its reminder day (12-06) came before it existed


def test_a_missed_day_is_caught_up_and_a_paid_request_is_left_alone(stack: ProvisionedStack) -> None:
    missed = stored("cr_01JD5XK0W8Q5W3M4N6P7RMISSD", "2026-12-10", "2026-12-01T09:00:00Z")
    settled = stored("cr_01JD5XK0W8Q5W3M4N6P7RPAID0", "2026-12-10", "2026-12-01T09:00:00Z", phone="+258841234570")
    racing = stored("cr_01JD5XK0W8Q5W3M4N6P7RRACE0", "2026-12-10", "2026-12-01T09:00:00Z", phone="+258841234571")
    paid(settled)
    due = {r.request_id for r in deps.collection_requests().due_on("2026-12-10")}
    assert due == {missed, racing}  # a paid request leaves the due-date index

    # the sweep of 12-07 (the reminder day) did not run: 12-08 sends the reminder; the racing one
    # is paid between the sweep and the sender, which reads it again and sends nothing
    swept = due_dates.sweep(datetime(2026, 12, 8, 6, tzinfo=UTC))
    assert swept.reminders == 2
    paid(racing)
    causes = sorted(notifications.deliver(message) for message in drain())
    assert causes == [f"collection_request.reminder:{missed}", f"collection_request.reminder:{racing}"]
    assert len(sms_to(PHONE)) == 1 and sms_to("+258841234570") == sms_to("+258841234571") == []
    assert sweep("2026-12-09")[1] == []  # sent already

    # 12-11 (the day after) did not run either: 12-12 sends the overdue notice, once
    assert sweep("2026-12-12")[1] == [f"collection_request.overdue:{missed}"]
    assert sms_to(PHONE)[-1].startswith("Demo Comercial Lda: fatura de 1 500,50 MT em atraso (vencia a 10/12/2026)")
    assert sweep("2026-12-13")[1] == [] and sweep("2026-12-20")[1] == []
    assert len(sms_to(PHONE)) == 2


def test_the_paid_request_and_the_paid_checkout_get_their_receipts(stack: ProvisionedStack) -> None:
    event = created_event("email")
    view = event["data"]["object"]
    view["payment_reconciliation"] = {"gateway_transaction_id": "pay_01JD5XK0W8Q5W3M4N6P7R8S9TV"}
    view["payment_reconciliation"]["date_payment"] = "2026-12-20T10:15:00Z"
    view["status"] = "paid"
    assert dispatch_notification({**event, "type": "collection_request.paid"}) is True
    (message,) = drain()
    notifications.deliver(message)
    assert notifications.deliver(message) == "receipt:pay_01JD5XK0W8Q5W3M4N6P7R8S9TV"  # a retry sends nothing
    (sent,) = sent_emails()
    mail = message_from_string(sent.raw_data, policy=policy.default)
    assert mail["To"] == EMAIL and mail["Subject"] == "Recibo de Mercearia Boa Esperança: 1 500,50 MT pago"
    number = short_number("pay_01JD5XK0W8Q5W3M4N6P7R8S9TV")
    assert f"Número do recibo: {number}" in _text(mail) and "Fatura: INV-2026-01JD5XK0W8" in _text(mail)

    deps.directory().create_account(account("01JACC0000000000000000000A", name="Loja Maputo"))
    payment = {
        "provider_payment_id": "pay_01JD5XK0W8Q5W3M4N6P7R8CHK0",
        "status": "succeeded",
        "money": {"amount": "250.00", "currency": "MZN"},
        "captured_amount": "250.00",
        "checkout_url": "https://pay.example/checkout/pay_01JD5XK0W8Q5W3M4N6P7R8CHK0",
        "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234572"}},
        "last_updated_at": "2026-12-20T10:15:00Z",
    }
    succeeded = {"type": "payment.succeeded", "account_id": "01JACC0000000000000000000A", "mode": "test"}
    assert dispatch_notification({**succeeded, "data": {"object": payment}}) is True
    of_a_request = {**payment, "collection_request_id": "cr_01JD5XK0W8Q5W3M4N6P7R8S9TV"}
    assert dispatch_notification({**succeeded, "data": {"object": of_a_request}}) is False  # its request's says it
    card = {**payment, "source": {"type": "card", "card": {"last4": "4242"}}}
    assert dispatch_notification({**succeeded, "data": {"object": card}}) is False  # no phone to send it to
    (message,) = drain()
    assert (
        notifications.deliver(message) == notifications.deliver(message) == f"receipt:{payment['provider_payment_id']}"
    )
    short = short_number(payment["provider_payment_id"])
    assert sms_to("+258841234572") == [f"Loja Maputo: pagamento de 250,00 MT recebido. Recibo {short}. Obrigado"]

    # a card checkout whose customer left an e-mail gets its receipt there (the wallet's phone, if
    # any, only without one)
    by_card = {
        **card,
        "provider_payment_id": "pay_01JD5XK0W8Q5W3M4N6P7R8CHK1",
        "customer": {"email": "rosa@example.co.mz", "name": "Rosa Cossa"},
    }
    assert dispatch_notification({**succeeded, "data": {"object": by_card}}) is True
    (message,) = drain()
    assert notifications.deliver(message) == "receipt:pay_01JD5XK0W8Q5W3M4N6P7R8CHK1"
    (mail,) = [
        found
        for sent in sent_emails()
        for found in [message_from_string(sent.raw_data, policy=policy.default)]
        if found["To"] == "rosa@example.co.mz"
    ]
    assert mail["Subject"] == "Recibo de Loja Maputo: 250,00 MT pago"
    assert _text(mail).startswith("Olá Rosa Cossa,")
    assert f"Número do recibo: {short_number(by_card['provider_payment_id'])}" in _text(mail)


def _text(mail: EmailMessage) -> str:
    body = mail.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content())


def test_the_request_by_email_carries_the_invoice_pdf(stack: ProvisionedStack) -> None:
    for language in ("pt", "en"):
        event = created_event("email", request_id=f"cr_01JD5XK0W8Q5W3M4N6P7R8S9{language.upper()}")
        event["data"]["object"]["payer"]["language"] = language
        dispatch_notification(event)
    for message in drain():
        notifications.deliver(message)
    mails = [message_from_string(m.raw_data, policy=policy.default) for m in sent_emails()]
    expected = {
        "fatura-INV-2026-01JD5XK0W8.pdf": ["Fatura INV-2026-01JD5XK0W8", "Valor", "1 500,50 MT", "Pague em"],
        "invoice-INV-2026-01JD5XK0W8.pdf": ["Invoice INV-2026-01JD5XK0W8", "Amount", "MZN 1,500.50", "Pay at"],
    }
    found = set()
    for mail in mails:
        assert isinstance(mail, EmailMessage) and mail.get_content_type() == "multipart/mixed"
        (attached,) = mail.iter_attachments()
        name = attached.get_filename()
        assert attached.get_content_type() == "application/pdf" and name in expected
        found.add(name)
        data = attached.get_content()
        assert data.startswith(b"%PDF-")
        pypdf = pytest.importorskip("pypdf")
        text = "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages).splitlines()
        for line in [*expected[name], "Mercearia Boa Esperança", "João Sitoe", "Factura de Novembro", "31/12/2026"]:
            assert line in text, (line, text)
    assert found == set(expected)

"""Messages to people through SES and SNS on in-process moto, with the stack's own resources
(the sending identity and configuration set of stacks/workers.yaml): a collection request's
event queues one message, the sender sends it once however often the queue delivers it or
senders race for it, and what moto's SES and SNS kept is what the payer reads."""

from __future__ import annotations

import json
from collections.abc import Iterator
from email import message_from_string, policy
from email.message import EmailMessage
from typing import Any

import pytest
from moto.core import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends
from moto.sns.models import sns_backends

from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import notifications
from mzpay.ports.messaging import Undeliverable
from mzpay.steps.notifications import dispatch_notification
from mzpay.store.aws import client
from tests.integration.races import race
from tests.integration.support import REGION, function_stack

LINK = "http://127.0.0.1:3001/pay/cr_01JD5XK0W8Q5W3M4N6P7R8S9TV"


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with function_stack("NotificationSenderFunction", monkeypatch) as provisioned, atomic_dynamodb():
        monkeypatch.setenv(
            "NOTIFICATION_QUEUE_URL", client("sqs").get_queue_url(QueueName=_queue_name(provisioned))["QueueUrl"]
        )
        monkeypatch.setenv("TEST_MODE_MESSAGES", "deliver")  # as the local stack: moto's SES and SNS receive them
        monkeypatch.setenv("SMS_QUIET_HOURS", "none")  # sent at whatever hour the tests run (test_message_courtesy.py)
        # the outbox's dispatch (WebhookDispatcherFunction) reads the business's notification language
        dispatcher = provisioned.functions["WebhookDispatcherFunction"].environment
        monkeypatch.setenv("COLLECTION_TABLE", dispatcher["COLLECTION_TABLE"])
        deps.reset()
        yield provisioned


def _queue_name(provisioned: ProvisionedStack) -> str:
    return provisioned.physical["NotificationQueue"].rsplit("/", 1)[-1]


def created_event(
    delivery_method: str, request_id: str = "cr_01JD5XK0W8Q5W3M4N6P7R8S9TV", mode: str = "test"
) -> dict[str, Any]:
    view = {
        "id": request_id,
        "account_id": "acct_01JD5XK0W8Q5W3M4N6P7R8S9TV",
        "mode": mode,
        "description": "Factura de Novembro",
        "amount": {"currency": "MZN", "value": "1500.50"},
        "payer": {
            "first_name": "João",
            "last_name": "Sitoe",
            "delivery_method": delivery_method,
            "contact": {"phone_number": "+258841234567", "email": "joao@example.co.mz"},
        },
        "invoice_metadata": {"invoice_number": "INV-2026-01JD5XK0W8", "due_date": "2026-12-31", "payment_link": LINK},
        "biller": {"business_name": "Mercearia Boa Esperança"},
    }
    return {"type": "collection_request.created", "data": {"object": view}}


def queued() -> list[dict[str, Any]]:
    answer = client("sqs").receive_message(QueueUrl=deps.notification_queue().url, MaxNumberOfMessages=10)
    return [json.loads(message["Body"]) for message in answer.get("Messages", [])]


def sent_sms() -> list[tuple[str, str]]:
    return list(sns_backends[DEFAULT_ACCOUNT_ID][REGION].sms_messages.values())


def sent_emails() -> list[Any]:
    return list(ses_backends[DEFAULT_ACCOUNT_ID][REGION].sent_messages)


def test_a_retried_queue_message_and_racing_senders_send_once(stack: ProvisionedStack) -> None:
    assert dispatch_notification(created_event("sms")) is True
    (message,) = queued()
    outcomes = race(8, lambda _: notifications.deliver(message))
    # one sender sent; the others found it sent, or found a live claim and will come back
    assert all(kind == "ok" or isinstance(value, notifications.Busy) for kind, value in outcomes), outcomes
    assert notifications.deliver(message) == "collection_request.created:cr_01JD5XK0W8Q5W3M4N6P7R8S9TV"  # a retry
    assert sent_sms() == [
        (
            "+258841234567",
            f"Mercearia Boa Esperança: fatura de 1 500,50 MT, vence a 31/12/2026. Pague em {LINK}",
        )
    ]
    (record,) = deps.message_records().about("cr_01JD5XK0W8Q5W3M4N6P7R8S9TV")
    assert (record["status"], record["channel"], record["to"]) == ("sent", "sms", "+258841234567")
    assert (record["account_id"], record["mode"]) == ("acct_01JD5XK0W8Q5W3M4N6P7R8S9TV", "test")
    assert record["provider_message_id"] in sns_backends[DEFAULT_ACCOUNT_ID][REGION].sms_messages


def test_the_email_goes_through_ses_with_both_parts(stack: ProvisionedStack) -> None:
    dispatch_notification(created_event("email"))
    (message,) = queued()
    race(4, lambda _: notifications.deliver(message))
    notifications.deliver(message)
    (sent,) = sent_emails()
    mail = message_from_string(sent.raw_data, policy=policy.default)
    assert isinstance(mail, EmailMessage)
    assert mail["To"] == "joao@example.co.mz" and mail["From"] == "mzpay <no-reply@mzpay.co.mz>"
    assert mail["Subject"] == "Fatura INV-2026-01JD5XK0W8 de Mercearia Boa Esperança: 1 500,50 MT, vence a 31/12/2026"
    text, html = (mail.get_body(preferencelist=(kind,)).get_content() for kind in ("plain", "html"))  # type: ignore[union-attr]
    assert "Pague aqui: " + LINK in text and f'href="{LINK}"' in html
    (record,) = deps.message_records().about("cr_01JD5XK0W8Q5W3M4N6P7R8S9TV")
    assert (record["status"], record["provider_message_id"]) == ("sent", sent.id)


def test_a_test_mode_message_is_recorded_never_sent_unless_the_stack_delivers_them(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deployed stack (TestModeMessages record, the default): a test request never reaches a real
    phone; its message is recorded, rendered, as simulated. A live request's is sent."""
    monkeypatch.setenv("TEST_MODE_MESSAGES", "record")
    deps.reset()
    dispatch_notification(created_event("sms"))
    (message,) = queued()
    notifications.deliver(message)
    notifications.deliver(message)  # a retry changes nothing
    assert sent_sms() == []
    (record,) = deps.message_records().about("cr_01JD5XK0W8Q5W3M4N6P7R8S9TV")
    assert (record["status"], record["to"], "provider_message_id" in record) == ("simulated", "+258841234567", False)
    assert record["text"].startswith("Mercearia Boa Esperança: fatura de 1 500,50 MT")
    dispatch_notification(created_event("sms", request_id="cr_01JD5XK0W8Q5W3M4N6P7R8S9TX", mode="live"))
    (live,) = [m for m in queued() if m["request"]["id"].endswith("TX")]
    notifications.deliver(live)
    assert [to for to, _ in sent_sms()] == ["+258841234567"]


def test_erp_and_a_missing_address_send_nothing(stack: ProvisionedStack) -> None:
    assert dispatch_notification(created_event("erp")) is False
    no_phone = created_event("sms")
    no_phone["data"]["object"]["payer"]["contact"] = {"email": "joao@example.co.mz"}
    assert dispatch_notification(no_phone) is False
    assert queued() == []


def test_a_provider_fault_is_retried_and_a_refusal_recorded(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    dispatch_notification(created_event("sms"))
    (message,) = queued()
    sender = deps.message_sender()
    real_send = sender.send
    faults = iter([ConnectionError("SNS did not answer")])

    def flaky(outgoing: Any) -> str:
        fault = next(faults, None)
        if fault is not None:
            raise fault
        return real_send(outgoing)

    monkeypatch.setattr(sender, "send", flaky)
    with pytest.raises(ConnectionError):
        notifications.deliver(message)
    assert sent_sms() == []
    notifications.deliver(message)  # the queue's retry: the claim was released, it sends at once
    assert len(sent_sms()) == 1

    refused = created_event("sms", request_id="cr_01JD5XK0W8Q5W3M4N6P7R8S9TW")
    dispatch_notification(refused)
    (again,) = queued()

    def refuse(outgoing: Any) -> str:
        raise Undeliverable("InvalidParameter")

    monkeypatch.setattr(sender, "send", refuse)
    notifications.deliver(again)
    notifications.deliver(again)  # recorded failed: not tried again
    (record,) = deps.message_records().about("cr_01JD5XK0W8Q5W3M4N6P7R8S9TW")
    assert (record["status"], record["failure"]) == ("failed", "InvalidParameter")

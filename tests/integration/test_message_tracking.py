"""What became of each message, on in-process moto with the stack's own resources: SES's events
(as SES publishes them to the configuration set's SNS topic, through its SQS queue to
MessageEventsFunction) move the records forward only, a permanent bounce or a complaint puts the
address on the suppression list and the next message to it is recorded `suppressed`, never sent;
an SMS opt-out at SNS stops SMS; a throttle from SES slows the sender and the message is sent
once, later. moto's SES publishes no configuration-set events: the tests publish SES's shapes to
the stack's topic themselves."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from botocore.exceptions import ClientError
from moto.core import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends
from moto.sns.models import sns_backends

from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import notifications
from mzpay.domain.common.errors import ServiceError
from mzpay.operators import message_suppressions, notification_dead_letters
from mzpay.ports.messaging import Throttled
from mzpay.steps.notifications import dispatch_notification
from mzpay.store.aws import client
from tests.integration.support import REGION, function_app, function_stack
from tests.integration.test_messages import created_event, queued

ADDRESS = "joao@example.co.mz"


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with function_stack("NotificationSenderFunction", monkeypatch) as provisioned, atomic_dynamodb():
        monkeypatch.setenv("NOTIFICATION_QUEUE_URL", provisioned.physical["NotificationQueue"])
        monkeypatch.setenv("NOTIFICATION_DEAD_LETTER_QUEUE_URL", provisioned.physical["NotificationDeadLetterQueue"])
        monkeypatch.setenv("TEST_MODE_MESSAGES", "deliver")
        deps.reset()
        yield provisioned


def sent_emails() -> list[Any]:
    return list(ses_backends[DEFAULT_ACCOUNT_ID][REGION].sent_messages)


def sent_sms() -> list[tuple[str, str]]:
    return list(sns_backends[DEFAULT_ACCOUNT_ID][REGION].sms_messages.values())


def record_of(request_id: str) -> dict[str, Any]:
    (record,) = deps.message_records().about(request_id)
    return record


def send_email(request_id: str, to: str = ADDRESS) -> dict[str, Any]:
    """A collection request's e-mail, sent through moto's SES; its record."""
    event = created_event("email", request_id=request_id)
    event["data"]["object"]["payer"]["contact"]["email"] = to
    dispatch_notification(event)
    (message,) = [m for m in queued() if m["request"]["id"] == request_id]
    notifications.deliver(message)
    return record_of(request_id)


def ses(kind: str, message_id: str, to: str = ADDRESS, **details: Any) -> dict[str, Any]:
    """An SES event as the configuration set's event destination publishes it."""
    mail = {
        "timestamp": "2026-11-29T10:00:00.000Z",
        "source": "mzpay <no-reply@mzpay.co.mz>",
        "messageId": message_id,
        "destination": [to],
        "tags": {"ses:configuration-set": ["messages"]},
    }
    body = {
        "Delivery": {
            "delivery": {"timestamp": "2026-11-29T10:00:02.000Z", "recipients": [to], "smtpResponse": "250 ok"}
        },
        "Bounce": {
            "bounce": {
                "bounceType": "Permanent",
                "bounceSubType": "General",
                "bouncedRecipients": [{"emailAddress": to, "action": "failed", "status": "5.1.1"}],
                "timestamp": "2026-11-29T10:00:03.000Z",
                "feedbackId": "0100-bounce",
            }
        },
        "Complaint": {
            "complaint": {
                "complainedRecipients": [{"emailAddress": to}],
                "complaintFeedbackType": "abuse",
                "timestamp": "2026-11-29T11:00:00.000Z",
                "feedbackId": "0100-complaint",
            }
        },
        "DeliveryDelay": {
            "deliveryDelay": {
                "delayType": "MailboxFull",
                "delayedRecipients": [{"emailAddress": to, "status": "4.2.2"}],
                "timestamp": "2026-11-29T10:05:00.000Z",
            }
        },
        "Reject": {"reject": {"reason": "Bad content"}},
    }[kind]
    for part in body.values():
        part.update(details)
    return {"eventType": kind, "mail": mail, **body}


def through_the_topic(stack: ProvisionedStack, *events: dict[str, Any]) -> list[str]:
    """Publish `events` to MessageEventsTopic, take them off MessageEventsQueue (where SNS put
    them, in its notification envelope) and apply each, in order; what each did. Each is then
    handed to MessageEventsFunction's record handler too: delivered twice, it applies once."""
    for event in events:
        client("sns").publish(TopicArn=stack.physical["MessageEventsTopic"], Message=json.dumps(event))
    url = stack.physical["MessageEventsQueue"]
    received: list[dict[str, Any]] = []
    while len(received) < len(events):
        answer = client("sqs").receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"])
        assert answer.get("Messages"), f"{len(received)} of {len(events)} events reached the queue"
        received += answer["Messages"]
    app = function_app("message_events", "message_events_app")
    from mzpay.cases import message_events

    outcomes = []
    for message in sorted(received, key=lambda m: int(m["Attributes"]["SentTimestamp"])):
        assert json.loads(message["Body"])["Type"] == "Notification"  # SNS's envelope
        outcomes.append(message_events.received(message["Body"]))
        before = client("dynamodb").scan(TableName=stack.physical["PaymentsTable"])["Items"]
        app.record_handler(SQSRecord(sqs_record(message)))  # the same event again
        assert client("dynamodb").scan(TableName=stack.physical["PaymentsTable"])["Items"] == before
    return outcomes


def sqs_record(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": message.get("Attributes") or {},
        "messageAttributes": {},
        "eventSource": "aws:sqs",
    }


def test_delivery_then_a_permanent_bounce_suppresses_the_address(stack: ProvisionedStack) -> None:
    record = send_email("cr_01JD5XK0W8Q5W3M4N6P7R8S9A1")
    (mail,) = sent_emails()
    assert (record["status"], record["provider_message_id"]) == ("sent", mail.id)

    assert through_the_topic(stack, ses("Delivery", mail.id)) == ["delivered"]
    assert record_of("cr_01JD5XK0W8Q5W3M4N6P7R8S9A1")["status"] == "delivered"
    delayed = ses("DeliveryDelay", mail.id)
    assert through_the_topic(stack, delayed, ses("Bounce", mail.id, bounceType="Transient")) == ["unchanged"] * 2
    assert record_of("cr_01JD5XK0W8Q5W3M4N6P7R8S9A1")["status"] == "delivered"  # SES still tries
    assert deps.suppressions().get("email", ADDRESS) is None

    # the permanent bounce; then the same bounce again and a late Delivery: neither changes it
    assert through_the_topic(stack, ses("Bounce", mail.id), ses("Bounce", mail.id), ses("Delivery", mail.id)) == [
        "bounced",
        "unchanged",
        "unchanged",
    ]
    bounced = record_of("cr_01JD5XK0W8Q5W3M4N6P7R8S9A1")
    assert (bounced["status"], bounced["failure"]) == ("bounced", "bounce:General")
    listed = deps.suppressions().get("email", "Joao@Example.co.mz")  # an address is listed lowercased
    assert listed is not None
    assert (listed["address"], listed["reason"], listed["source"]) == (ADDRESS, "bounce", f"ses:Bounce:{mail.id}")

    # the next message to that address: recorded suppressed, never sent; the cause does not fail
    later = send_email("cr_01JD5XK0W8Q5W3M4N6P7R8S9A2", to="JOAO@example.co.mz")
    assert (later["status"], later["failure"]) == ("suppressed", "suppression_list:bounce")
    assert len(sent_emails()) == 1
    # an operator reads it and takes it off the list (GET, DELETE /v1/message-suppressions/email/<address>)
    shown = message_suppressions.suppression("email", "JOAO@example.co.mz")
    assert (shown.object, shown.address, shown.reason) == ("message_suppression", ADDRESS, "bounce")
    assert message_suppressions.remove("email", ADDRESS) == shown
    with pytest.raises(ServiceError) as gone:
        message_suppressions.remove("email", ADDRESS)
    assert (gone.value.status, gone.value.code) == (404, "not_found")
    assert send_email("cr_01JD5XK0W8Q5W3M4N6P7R8S9A3")["status"] == "sent"


def test_a_complaint_before_its_delivery_suppresses_and_stays(stack: ProvisionedStack) -> None:
    send_email("cr_01JD5XK0W8Q5W3M4N6P7R8S9B1", to="ana@example.co.mz")
    (mail,) = sent_emails()
    assert through_the_topic(stack, ses("Complaint", mail.id, to="ana@example.co.mz")) == ["complained"]
    assert through_the_topic(stack, ses("Delivery", mail.id, to="ana@example.co.mz")) == ["unchanged"]  # out of order
    record = record_of("cr_01JD5XK0W8Q5W3M4N6P7R8S9B1")
    assert (record["status"], record["failure"]) == ("complained", "complaint:abuse")
    listed = deps.suppressions().get("email", "ana@example.co.mz")
    assert listed is not None and listed["reason"] == "complaint"
    assert send_email("cr_01JD5XK0W8Q5W3M4N6P7R8S9B2", to="ana@example.co.mz")["status"] == "suppressed"
    assert len(sent_emails()) == 1


def test_an_account_suppressed_address_a_reject_and_an_unknown_message(stack: ProvisionedStack) -> None:
    send_email("cr_01JD5XK0W8Q5W3M4N6P7R8S9C1")
    send_email("cr_01JD5XK0W8Q5W3M4N6P7R8S9C2", to="rita@example.co.mz")
    first, second = sent_emails()
    outcomes = through_the_topic(
        stack,
        ses("Bounce", first.id, bounceSubType="OnAccountSuppressionList"),
        ses("Reject", second.id, to="rita@example.co.mz"),
        ses("Delivery", "0100-not-ours"),
    )
    assert outcomes == ["suppressed", "failed", "unknown"]
    record = record_of("cr_01JD5XK0W8Q5W3M4N6P7R8S9C1")
    assert (record["status"], record["failure"]) == ("suppressed", "ses_account_suppression_list")
    assert deps.suppressions().get("email", ADDRESS) is None  # SES's own list keeps it
    rejected = record_of("cr_01JD5XK0W8Q5W3M4N6P7R8S9C2")
    assert (rejected["status"], rejected["failure"]) == ("failed", "reject:Bad content")


def test_an_sms_opt_out_at_sns_stops_the_sms(stack: ProvisionedStack) -> None:
    """moto's SNS answers that every number ending in 99 opted out."""
    event = created_event("sms", request_id="cr_01JD5XK0W8Q5W3M4N6P7R8S9D1")
    event["data"]["object"]["payer"]["contact"]["phone_number"] = "+258841234599"
    dispatch_notification(event)
    (message,) = queued()
    assert notifications.deliver(message) == "collection_request.created:cr_01JD5XK0W8Q5W3M4N6P7R8S9D1"
    record = record_of("cr_01JD5XK0W8Q5W3M4N6P7R8S9D1")
    assert (record["status"], record["failure"]) == ("suppressed", "sms_opted_out")
    assert sent_sms() == []


def test_a_throttle_from_ses_slows_the_sender_and_the_message_is_sent_once_later(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    sender_app = function_app("notification_sender", "notification_sender_app")
    messenger = deps.message_sender()
    real_client = messenger.client  # type: ignore[attr-defined]
    throttles = iter([True])

    class ThrottledSes:
        def __init__(self, real: Any) -> None:
            self.real = real

        def send_email(self, **request: Any) -> Any:
            if next(throttles, False):
                raise ClientError(
                    {"Error": {"Code": "TooManyRequestsException", "Message": "Maximum sending rate exceeded."}},
                    "SendEmail",
                )
            return self.real.send_email(**request)

    monkeypatch.setattr(
        messenger,
        "client",
        lambda service: ThrottledSes(real_client(service)) if service == "sesv2" else real_client(service),
    )
    waits: list[int] = []
    queue = deps.notification_queue()
    real_come_back = queue.come_back_in
    monkeypatch.setattr(
        queue, "come_back_in", lambda handle, seconds: (waits.append(seconds), real_come_back(handle, seconds))
    )

    dispatch_notification(created_event("email", request_id="cr_01JD5XK0W8Q5W3M4N6P7R8S9E1"))

    def receive() -> list[dict[str, Any]]:
        answer = client("sqs").receive_message(QueueUrl=queue.url, MaxNumberOfMessages=10, AttributeNames=["All"])
        return list(answer.get("Messages", []))

    (message,) = receive()
    with pytest.raises(Throttled):  # the batch reports this record failed: SQS keeps it
        sender_app.record_handler(SQSRecord(sqs_record(message)))
    assert 30 <= waits[0] <= 60  # the first throttle's wait
    record = record_of("cr_01JD5XK0W8Q5W3M4N6P7R8S9E1")
    assert (record["status"], int(record["claimed_until"])) == ("queued", 0)  # released: neither sent nor failed
    assert sent_emails() == [] and receive() == []  # it waits, invisible

    # the wait is over (moto's clock does not move: make it visible now, as time would)
    client("sqs").change_message_visibility(
        QueueUrl=queue.url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
    )
    (again,) = receive()
    assert again["Attributes"]["ApproximateReceiveCount"] == "2"
    sender_app.record_handler(SQSRecord(sqs_record(again)))
    sender_app.record_handler(SQSRecord(sqs_record(again)))  # delivered twice: sent once
    (mail,) = sent_emails()
    assert record_of("cr_01JD5XK0W8Q5W3M4N6P7R8S9E1")["provider_message_id"] == mail.id


def test_the_throttle_waits_grow_with_the_receive_count() -> None:
    sender_app = function_app("notification_sender", "notification_sender_delays")
    for receive_count, ceiling in [(1, 60), (2, 240), (3, 960), (4, 3840), (9, 43_200)]:
        waits = {sender_app.throttle_delay(receive_count) for _ in range(50)}
        assert all(ceiling // 2 <= wait <= ceiling for wait in waits), (receive_count, waits)


def test_dead_letters_are_replayed_and_a_message_sent_already_is_not_sent_again(stack: ProvisionedStack) -> None:
    """What the sender gave up on (5 receives: here put on the dead-letter queue directly) goes
    back to NotificationQueue (POST /v1/notification-dead-letters/replay); sending stays once."""
    dispatch_notification(created_event("sms", request_id="cr_01JD5XK0W8Q5W3M4N6P7R8S9F1"))
    dispatch_notification(created_event("sms", request_id="cr_01JD5XK0W8Q5W3M4N6P7R8S9F2"))
    first, second = sorted(queued(), key=lambda m: str(m["request"]["id"]))
    notifications.deliver(first)  # sent, and yet its message reached the dead letters too
    dead_letters = stack.physical["NotificationDeadLetterQueue"]
    for message in (first, second):
        client("sqs").send_message(QueueUrl=dead_letters, MessageBody=json.dumps(message))

    answer = notification_dead_letters.replay(1)
    assert (answer.replayed, answer.has_more) == (1, True)
    answer = notification_dead_letters.replay(100)
    assert (answer.replayed, answer.has_more) == (1, False)
    assert client("sqs").receive_message(QueueUrl=dead_letters).get("Messages") is None

    replayed = queued()
    assert sorted(str(m["request"]["id"]) for m in replayed) == [
        "cr_01JD5XK0W8Q5W3M4N6P7R8S9F1",
        "cr_01JD5XK0W8Q5W3M4N6P7R8S9F2",
    ]
    for message in replayed:
        notifications.deliver(message)
    assert [to for to, _ in sent_sms()] == ["+258841234567", "+258841234567"]  # one each: the first not again
    assert record_of("cr_01JD5XK0W8Q5W3M4N6P7R8S9F2")["status"] == "sent"

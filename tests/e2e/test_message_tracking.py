"""What became of a payer's e-mail, on the local stack: SES's events reach the message's record
through the stack's own path (the configuration set's SNS topic MessageEventsTopic ->
MessageEventsQueue -> MessageEventsFunction) and the business reads the statuses; a permanent
bounce suppresses the address, so the next request's e-mail is recorded `suppressed` and never
reaches moto's SES. moto's SES publishes no configuration-set events (its SES v2 has no event
destinations), so the test publishes SES's event, shaped as SES shapes it, to the stack's topic."""

from __future__ import annotations

import io
import json
from typing import Any

import boto3
import pytest
from ulid import ULID

from devstack.launcher import RunningStack
from mzpay_admin.cli import run
from tests.e2e.collection_client import Collection, assert_ok
from tests.e2e.test_collection_requests import create, full, payer, unique_phone
from tests.e2e.test_messages import emails_to, sent, sms_to
from tests.polling import eventually

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return Collection(stack, "mz")


def notifications(mz: Collection, request_id: str, status: str) -> dict[str, Any]:
    """The request's one message, once its status is `status`."""
    answer = eventually(
        lambda: assert_ok(mz.call("GET", f"/v1/collection-requests/{request_id}/notifications")),
        lambda listed: [m["status"] for m in listed["data"]] == [status],
        timeout=60,
    )
    (message,) = answer["data"]
    return message  # type: ignore[no-any-return]


def aws(stack: RunningStack, service: str) -> Any:
    return boto3.client(
        service,
        region_name=stack.state["aws_regions"]["mz"],
        endpoint_url=stack.state["aws_endpoint"],
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def publish(stack: RunningStack, event: dict[str, Any]) -> None:
    topic = stack.state["resources"]["mz"]["MessageEventsTopic"]
    aws(stack, "sns").publish(TopicArn=topic, Message=json.dumps(event))


def events_applied(stack: RunningStack, queue: str = "MessageEventsQueue") -> None:
    """Every message on `queue` was taken and handled (none waiting, none in flight)."""
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    url = stack.state["resources"]["mz"][queue]
    eventually(
        lambda: aws(stack, "sqs").get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"],
        lambda counts: all(counts[name] == "0" for name in names),
        timeout=60,
    )


def admin(stack: RunningStack, *argv: str) -> Any:
    """mzpay-admin's --json answer to `argv` on the local stack's mz region."""
    out, err = io.StringIO(), io.StringIO()
    assert run(["--region", "mz", "--stack-file", str(stack.state_file), *argv], out, err, {}) == 0, err.getvalue()
    return json.loads(out.getvalue())


def ses_event(kind: str, message_id: str, address: str, detail: dict[str, Any]) -> dict[str, Any]:
    mail = {"timestamp": "2026-11-29T10:00:00.000Z", "messageId": message_id, "destination": [address]}
    return {"eventType": kind, "mail": mail, kind[0].lower() + kind[1:]: detail}


def test_a_delivery_then_a_hard_bounce_reach_the_record_and_suppress_the_address(
    mz: Collection, stack: RunningStack
) -> None:
    address = f"payer-{str(ULID()).lower()}@example.co.mz"
    contact = {"phone_number": unique_phone(), "email": address}
    first = create(mz, payer=payer(delivery_method="email", contact=contact))
    emails_to(stack, address)
    message_id = notifications(mz, first["id"], "sent")["provider_message_id"]
    assert message_id in [m["message_id"] for m in sent(stack)["emails"]]

    delivery = {"timestamp": "2026-11-29T10:00:02.000Z", "recipients": [address], "smtpResponse": "250 ok"}
    publish(stack, ses_event("Delivery", message_id, address, delivery))
    assert notifications(mz, first["id"], "delivered")["failure"] is None

    bounce = {
        "bounceType": "Permanent",
        "bounceSubType": "General",
        "bouncedRecipients": [{"emailAddress": address, "action": "failed", "status": "5.1.1"}],
        "timestamp": "2026-11-29T10:00:03.000Z",
    }
    publish(stack, ses_event("Bounce", message_id, address, bounce))
    assert notifications(mz, first["id"], "bounced")["failure"] == "bounce:General"
    publish(stack, ses_event("Delivery", message_id, address, delivery))  # late: changes nothing
    events_applied(stack)
    assert notifications(mz, first["id"], "bounced")["status"] == "bounced"

    second = create(mz, payer=payer(delivery_method="email", contact={**contact, "email": address.upper()}))
    suppressed = notifications(mz, second["id"], "suppressed")
    assert (suppressed["failure"], suppressed["provider_message_id"]) == ("suppression_list:bounce", None)
    assert len([m for m in sent(stack)["emails"] if any(address in d.lower() for d in m["destinations"])]) == 1

    # an operator reads the address on the list and takes it off: the next e-mail is sent
    shown = admin(stack, "suppressions", "show", "email", address.upper(), "--json")
    assert (shown["address"], shown["reason"], shown["source"]) == (address, "bounce", f"ses:Bounce:{message_id}")
    assert admin(stack, "suppressions", "remove", "email", address, "--json") == shown
    third = create(mz, payer=payer(delivery_method="email", contact=contact))
    assert notifications(mz, third["id"], "sent")["failure"] is None
    emails_to(stack, address, count=2)


def test_an_operator_replays_the_notification_dead_letters_and_nothing_is_sent_twice(
    mz: Collection, stack: RunningStack
) -> None:
    """mzpay-admin notification-dead-letters replay (POST /v1/notification-dead-letters/replay):
    a dead letter whose message was sent meanwhile goes back to NotificationQueue and is dropped by
    the sender, not sent again."""
    phone = unique_phone()
    created = create(mz, payer=payer(phone))
    sms_to(stack, phone)
    dead = {"kind": "collection_request", "request": full(mz, created["id"])}
    dead_letters = stack.state["resources"]["mz"]["NotificationDeadLetterQueue"]
    aws(stack, "sqs").send_message(QueueUrl=dead_letters, MessageBody=json.dumps(dead))
    answer = admin(stack, "notification-dead-letters", "replay", "--json")
    assert answer["object"] == "notification_dead_letter_replay" and answer["has_more"] is False
    assert answer["replayed"] >= 1  # ours (and any other test's dead letter)
    events_applied(stack, "NotificationQueue")
    events_applied(stack, "NotificationDeadLetterQueue")
    sms_to(stack, phone, count=1)
    assert notifications(mz, created["id"], "sent")["to"] == phone

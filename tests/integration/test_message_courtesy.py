"""Respectful sending (docs/notifications.md, "Respectful and safe") on in-process moto with the
stack's resources: a recipient's daily cap holds exactly when senders race, and an SMS due in the
quiet hours waits for the morning (its queue message made to come back then), sent once, with
the clock frozen: nothing here sleeps."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

import pytest
from moto.core import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends
from moto.sns.models import sns_backends

from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import notifications
from mzpay.domain.common import clock
from mzpay.ports.messaging import Outgoing
from mzpay.steps import courtesy
from mzpay.store.aws import client
from tests.integration.races import race
from tests.integration.support import REGION, ROOT
from tests.integration.test_messages import created_event, queued, stack

__all__ = ["stack"]  # the fixture: SES and SNS on moto, the sender's environment
PHONE = "+258841234567"
ACCOUNT = "acct_01JD5XK0W8Q5W3M4N6P7R8S9TV"


def sent_sms() -> list[tuple[str, str]]:
    return list(sns_backends[DEFAULT_ACCOUNT_ID][REGION].sms_messages.values())


def sent_emails() -> list[Any]:
    return list(ses_backends[DEFAULT_ACCOUNT_ID][REGION].sent_messages)


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Set the clock to a UTC moment (`2026-11-30T19:30:00Z` is 21:30 in Maputo)."""

    def at(moment: str) -> None:
        fixed = datetime.fromisoformat(moment.replace("Z", "+00:00")).astimezone(UTC)
        monkeypatch.setattr(clock, "now", lambda: fixed)

    return at


@pytest.fixture
def courteous(stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    """The stack's defaults: a cap of 5 a day and quiet hours 21:00-07:00."""
    monkeypatch.setenv("MESSAGES_DAILY_CAP", "5")
    monkeypatch.setenv("SMS_QUIET_HOURS", "21:00-07:00")
    deps.reset()
    yield stack


def send(index: int, channel: str = "sms", to: str = PHONE) -> str:
    outgoing = Outgoing(channel, to, "", f"Mensagem {index}", f"Assunto {index}")
    return notifications.send_once(f"test.cause:{index}", f"cr_{index}", outgoing, account_id=ACCOUNT, mode="live")


def record_of(index: int, channel: str = "sms", to: str = PHONE) -> dict[str, Any]:
    (record,) = deps.message_records().about(f"cr_{index}")
    assert (record["channel"], record["to"]) == (channel, to)
    return record


def test_the_daily_cap_holds_exactly_when_senders_race_for_one_recipient(
    courteous: ProvisionedStack, frozen: Callable[[str], None]
) -> None:
    frozen("2026-11-30T08:00:00Z")  # 10:00 in Maputo
    outcomes = race(8, send)
    assert sorted(value for _, value in outcomes) == ["sent"] * 5 + ["suppressed"] * 3, outcomes
    assert len(sent_sms()) == 5
    suppressed = [record_of(i) for i in range(8) if record_of(i)["status"] == "suppressed"]
    assert [(r["failure"], "provider_message_id" in r) for r in suppressed] == [("daily_cap", False)] * 3
    assert [send(i) for i in range(8)] == [value for _, value in outcomes]  # retries change nothing
    assert len(sent_sms()) == 5
    assert send(9, "email", "joao@example.co.mz") == "sent"  # another recipient (channel and address)
    frozen("2026-11-30T22:00:00Z")  # 00:00 on the 1st in Maputo: a new day
    assert send(10, "email", PHONE.replace("+", "") + "@example.co.mz") == "sent"
    frozen("2026-11-30T21:59:59Z")  # 23:59:59 on the 30th in Maputo: the e-mail is not held, the cap holds
    assert send(11, "email", "joao@example.co.mz") == "sent"
    frozen("2026-12-01T05:00:00Z")  # 07:00 on the 1st in Maputo: the SMS recipient's new day
    assert send(12) == "sent"


def test_an_sms_in_the_quiet_hours_waits_for_the_morning_and_is_sent_once(
    courteous: ProvisionedStack, frozen: Callable[[str], None]
) -> None:
    frozen("2026-11-30T19:30:00Z")  # 21:30 in Maputo
    with pytest.raises(courtesy.Deferred) as held:
        send(1)
    assert held.value.not_before == datetime(2026, 12, 1, 5, 0, tzinfo=UTC)  # 07:00 in Maputo
    record = record_of(1)
    assert (record["status"], record["not_before"]) == ("deferred", "2026-12-01T05:00:00Z")
    assert "claimed_until" not in record  # the next delivery may claim it
    frozen("2026-12-01T04:59:59Z")  # a duplicate delivery at 06:59:59: still held, not counted
    with pytest.raises(courtesy.Deferred):
        send(1)
    assert send(2, "email", "joao@example.co.mz") == "sent"  # e-mail is not held
    assert sent_sms() == []
    frozen("2026-12-01T05:00:00Z")  # 07:00
    assert send(1) == "sent"
    assert send(1) == "sent"  # a late duplicate finds it sent
    assert sent_sms() == [(PHONE, "Mensagem 1")] and len(sent_emails()) == 1
    assert record_of(1)["status"] == "sent"


def sender_app() -> ModuleType:
    path = ROOT / "functions/notification_sender/app.py"
    spec = importlib.util.spec_from_file_location("notification_sender_app", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_held_queue_message_comes_back_when_the_quiet_hours_end(
    courteous: ProvisionedStack, frozen: Callable[[str], None]
) -> None:
    """The sender's record handler makes the queue message visible again at 07:00 (SQS keeps it
    hidden until then) and reports it failed, so it is neither deleted nor lost."""
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    from mzpay.steps.notifications import dispatch_notification

    dispatch_notification(created_event("sms", mode="live"))
    url = deps.notification_queue().url
    (received,) = client("sqs").receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    frozen("2026-11-30T20:00:00Z")  # 22:00 in Maputo
    changed: list[tuple[str, int]] = []
    queue = deps.notification_queue()
    original = queue.come_back_in
    record = SQSRecord(
        {"messageId": received["MessageId"], "receiptHandle": received["ReceiptHandle"], "body": received["Body"]}
    )

    def come_back_in(handle: str, seconds: int) -> None:
        changed.append((handle, seconds))
        original(handle, seconds)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(queue, "come_back_in", come_back_in)
        with pytest.raises(courtesy.Deferred):
            sender_app().record_handler(record)
    assert changed == [(received["ReceiptHandle"], 9 * 3600 + 1)]  # 07:00, a second after
    assert queued() == []  # hidden until then, not deleted
    assert sent_sms() == []
    frozen("2026-12-01T05:00:01Z")
    sender_app().record_handler(record)  # as SQS hands it back at 07:00
    assert [to for to, _ in sent_sms()] == [PHONE]


def test_the_console_lists_an_accounts_messages_newest_first_by_channel_status_and_recipient(
    courteous: ProvisionedStack, frozen: Callable[[str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the console's Messages page reads (mzpay.cases.listings.messages): the list indexes'
    kind MSG, no Scan; each message's place by status follows its outcome."""
    from mzpay.cases import listings
    from mzpay.domain.access.principal import Principal

    console = courteous.functions["ManagementConsoleFunction"].environment
    monkeypatch.setenv("KEY_PEPPER_SECRET", console["KEY_PEPPER_SECRET"])  # page tokens are sealed with it
    deps.reset()
    frozen("2026-11-30T18:00:00Z")  # 20:00 in Maputo
    assert send(1) == "sent"
    frozen("2026-11-30T18:00:01Z")
    assert send(2, "email", "joao@example.co.mz") == "sent"
    frozen("2026-11-30T19:00:00Z")  # 21:00: the SMS waits
    with pytest.raises(courtesy.Deferred):
        send(3, "sms", "+258821234567")
    live = Principal.of_account(ACCOUNT, "live")

    def listed(**query: str) -> list[tuple[str, str]]:
        return [(m.cause, m.status) for m in listings.messages(live, query).data]

    assert listed() == [("test.cause:3", "deferred"), ("test.cause:2", "sent"), ("test.cause:1", "sent")]
    assert listed(channel="email") == [("test.cause:2", "sent")]
    assert listed(status="deferred") == [("test.cause:3", "deferred")]
    assert listed(recipient=PHONE) == [("test.cause:1", "sent")]
    # created_at is when it was queued (the wall clock's: only the courtesy rules read the frozen one)
    assert listed(created_lt="2020-01-01T00:00:00Z") == [] and len(listed(created_gte="2020-01-01T00:00:00Z")) == 3
    (sms_row,) = listings.messages(live, {"recipient": PHONE}).data
    assert (sms_row.text, sms_row.sms and sms_row.sms.segments, sms_row.subject) == ("Mensagem 1", 1, None)
    first = listings.messages(live, {"page_size": "2"})
    assert (len(first.data), first.has_more) == (2, True)
    rest = listings.messages(live, {"page_size": "2", "page_token": str(first.next_page_token)})
    assert [m.cause for m in rest.data] == ["test.cause:1"]
    assert listings.messages(Principal.of_account(ACCOUNT, "test"), {}).data == []  # the other mode's list
    frozen("2026-12-01T05:00:00Z")
    assert send(3, "sms", "+258821234567") == "sent"
    assert listed(status="deferred") == [] and listed(status="sent")[0] == ("test.cause:3", "sent")


def test_a_suppressed_address_does_not_use_up_its_daily_cap(
    courteous: ProvisionedStack, frozen: Callable[[str], None]
) -> None:
    """An address on the suppression list gets nothing and is not counted: taken off the list the
    same day, it still has its whole cap."""
    frozen("2026-11-30T08:00:00Z")
    address = "ana@example.co.mz"
    deps.suppressions().add("email", address, "bounce", "ses:Bounce:test", "2026-11-30T07:00:00Z")
    assert [send(i, "email", address) for i in range(6)] == ["suppressed"] * 6
    assert {record_of(i, "email", address)["failure"] for i in range(6)} == {"suppression_list:bounce"}
    deps.suppressions().remove("email", address)
    assert [send(i, "email", address) for i in range(6, 12)] == ["sent"] * 5 + ["suppressed"]
    assert record_of(11, "email", address)["failure"] == "daily_cap" and len(sent_emails()) == 5


def test_quiet_hours_none_sends_at_night_and_an_empty_setting_keeps_the_default(
    stack: ProvisionedStack, frozen: Callable[[str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SmsQuietHours `none` (what the local stack sets) sends at any hour; an empty setting is
    unset, as every setting is (mzpay.config), so the default 21:00-07:00 holds."""
    frozen("2026-11-30T20:30:00Z")  # 22:30 in Maputo
    monkeypatch.setenv("SMS_QUIET_HOURS", "none")
    deps.reset()
    assert send(1) == "sent" and sent_sms() == [(PHONE, "Mensagem 1")]
    monkeypatch.setenv("SMS_QUIET_HOURS", "")
    deps.reset()
    with pytest.raises(courtesy.Deferred):
        send(2)
    assert len(sent_sms()) == 1

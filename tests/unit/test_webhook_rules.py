"""Webhook delivery rules (mzpay.domain.webhooks.rules): the retry schedule and its table in
docs/webhooks.md, the template's queue settings that follow from it, the callback address rule,
delivery ids, envelopes and outcomes."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import pytest
from ulid import ULID

from devstack.template import load_template, template_text
from mzpay.domain.common import network
from mzpay.domain.webhooks import rules
from mzpay.domain.webhooks.events import ENVELOPE_FIELDS, envelope_of
from mzpay.domain.webhooks.rules import DeliveryStatus, Outcome

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = load_template(ROOT / "template.yaml")
RESOURCES = TEMPLATE["Resources"]
DAY = 86_400


# ---------------------------------------------------------------- retry schedule
def test_the_production_ceilings_double_from_five_minutes_up_to_twelve_hours() -> None:
    assert [rules.retry_ceiling(n) for n in range(1, 20)] == [
        300,
        600,
        1200,
        2400,
        4800,
        9600,
        19200,
        38400,
        *[43200] * 11,
    ]


@pytest.mark.parametrize("base", [0, 1, 2, 30, 150, 300])
def test_no_wait_is_longer_than_sqs_allows_whatever_the_base(base: int) -> None:
    for attempt in range(1, rules.MAX_ATTEMPTS):
        assert 0 <= rules.retry_ceiling(attempt, base) <= rules.MAX_DELAY_SECONDS
        assert 0 <= rules.retry_delay(attempt, base, rng=lambda: 0.999999) <= rules.MAX_DELAY_SECONDS


def test_full_jitter_spans_zero_to_the_ceiling_in_whole_seconds() -> None:
    assert rules.retry_delay(3, rng=lambda: 0.0) == 0
    assert rules.retry_delay(3, rng=lambda: 0.5) == 600
    assert rules.retry_delay(3, rng=lambda: 0.9999999) == 1200
    samples = {rules.retry_delay(1) for _ in range(2000)}
    assert min(samples) >= 0 and max(samples) <= 300 and len(samples) > 100


def test_after_the_last_attempt_there_is_no_next_one() -> None:
    assert rules.retry_delay(rules.MAX_ATTEMPTS - 1, rng=lambda: 0.0) == 0
    assert rules.retry_delay(rules.MAX_ATTEMPTS) is None
    assert rules.retry_delay(rules.MAX_ATTEMPTS + 5) is None


def test_a_zero_base_retries_at_once_as_the_local_stack_does() -> None:
    assert {rules.retry_delay(n, 0) for n in range(1, rules.MAX_ATTEMPTS)} == {0}


def test_the_schedule_lasts_about_three_days_on_average_and_at_most_six_and_a_half() -> None:
    schedule = rules.retry_schedule()
    assert len(schedule) == rules.MAX_ATTEMPTS - 1
    assert 3 * DAY <= schedule[-1].mean <= 3.3 * DAY
    assert schedule[-1].latest == 551_700  # 6 d 9 h 15 min
    assert [s.latest for s in schedule] == sorted(s.latest for s in schedule)


def test_the_retry_base_parameter_defaults_to_production_and_stays_within_the_cap() -> None:
    parameter = TEMPLATE["Parameters"]["WebhookRetryBaseSeconds"]
    assert int(parameter["Default"]) == rules.DEFAULT_RETRY_BASE_SECONDS
    assert int(parameter["MinValue"]) == 0
    assert int(parameter["MaxValue"]) * rules.CAP_FACTOR <= rules.MAX_DELAY_SECONDS
    sender = RESOURCES["WebhookSenderFunction"]["Properties"]["Environment"]["Variables"]
    assert sender["WEBHOOK_RETRY_BASE_SECONDS"] == {"Ref": "WebhookRetryBaseSeconds"}


def test_the_queue_redelivers_once_per_attempt_and_keeps_messages_past_the_longest_schedule() -> None:
    queue = RESOURCES["WebhookQueue"]["Properties"]
    assert queue["RedrivePolicy"]["maxReceiveCount"] == rules.MAX_ATTEMPTS
    assert queue["MessageRetentionPeriod"] > rules.retry_schedule()[-1].latest + DAY
    sender_timeout = RESOURCES["WebhookSenderFunction"]["Properties"]["Timeout"]
    assert queue["VisibilityTimeout"] >= 6 * sender_timeout  # AWS's advice for SQS event sources
    assert sender_timeout > rules.REQUEST_TIMEOUT_SECONDS


def test_the_slow_lane_keeps_the_hot_lanes_attempts_dead_letter_and_has_its_own_capped_event_source() -> None:
    hot, slow = RESOURCES["WebhookQueue"]["Properties"], RESOURCES["WebhookSlowQueue"]["Properties"]
    for name in ("VisibilityTimeout", "MessageRetentionPeriod", "RedrivePolicy", "SqsManagedSseEnabled"):
        assert slow[name] == hot[name], name  # same attempts per receive, same dead-letter queue
    sender = RESOURCES["WebhookSenderFunction"]["Properties"]
    assert sender["Environment"]["Variables"]["WEBHOOK_SLOW_QUEUE_URL"] == {"Ref": "WebhookSlowQueue"}
    assert sender["Environment"]["Variables"]["WEBHOOK_DEAD_LETTER_QUEUE_URL"] == {"Ref": "WebhookDeadLetterQueue"}
    events = {e["Properties"]["Queue"]["Fn::GetAtt"][0]: e["Properties"] for e in sender["Events"].values()}
    assert set(events) == {"WebhookQueue", "WebhookSlowQueue"}
    hot_cap = events["WebhookQueue"]["ScalingConfig"]["MaximumConcurrency"]
    slow_cap = events["WebhookSlowQueue"]["ScalingConfig"]["MaximumConcurrency"]
    assert 2 <= slow_cap < hot_cap <= 1000  # slow receivers never get the hot lane's share
    assert all(e["FunctionResponseTypes"] == ["ReportBatchItemFailures"] for e in events.values())
    assert sender["Timeout"] > rules.REQUEST_TIMEOUT_SECONDS > rules.HOT_LANE_TIMEOUT_SECONDS


def _duration(seconds: float) -> str:
    rest = round(seconds)
    days, rest = divmod(rest, DAY)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{days} d" * bool(days), f"{hours} h" * bool(hours), f"{minutes} min" * bool(minutes)]
    return " ".join(p for p in [*parts, f"{secs} s" * bool(secs)] if p) or "0 s"


def test_the_retry_table_in_the_docs_is_the_schedule() -> None:
    text = (ROOT / "docs" / "webhooks.md").read_text(encoding="utf-8")
    table = re.search(r"<!-- retry-schedule:.*?-->\n(.*?)<!-- /retry-schedule -->", text, re.S)
    assert table is not None
    expected = [
        f"| {s.attempt} | {s.ceiling} s ({_duration(s.ceiling)}) | {_duration(s.latest)} | {_duration(s.mean)} |"
        for s in rules.retry_schedule()
    ]
    rows = table.group(1).strip().splitlines()
    assert rows[2:-1] == expected
    assert rows[-1].startswith(f"| {rules.MAX_ATTEMPTS} | none")


# ---------------------------------------------------------------- outcomes and statuses
@pytest.mark.parametrize(
    ("status_code", "error", "outcome"),
    [
        (200, None, Outcome.DELIVERED),
        (204, None, Outcome.DELIVERED),
        (299, None, Outcome.DELIVERED),
        (410, None, Outcome.STOPPED),
        (301, None, Outcome.RETRY),  # redirects are never followed
        (400, None, Outcome.RETRY),
        (404, None, Outcome.RETRY),
        (429, None, Outcome.RETRY),
        (500, None, Outcome.RETRY),
        (None, "timeout", Outcome.RETRY),
        (None, "connection_error", Outcome.RETRY),
        (None, "dns_error", Outcome.RETRY),
        (None, "no_signing_secret", Outcome.RETRY),
        (None, "ssrf_blocked", Outcome.REFUSED),
        (None, "invalid_url", Outcome.REFUSED),
    ],
)
def test_what_an_answer_means(status_code: int | None, error: str | None, outcome: Outcome) -> None:
    assert rules.outcome_of(status_code, error) is outcome


def test_only_a_failed_delivery_can_be_replayed_and_final_statuses_stay() -> None:
    assert set(rules.REPLAYABLE) == {DeliveryStatus.FAILED}
    assert rules.TRANSITIONS[DeliveryStatus.DELIVERED] == frozenset()
    assert rules.TRANSITIONS[DeliveryStatus.STOPPED] == frozenset()
    assert rules.TRANSITIONS[DeliveryStatus.PENDING] == {
        DeliveryStatus.DELIVERED,
        DeliveryStatus.FAILED,
        DeliveryStatus.STOPPED,
    }


# ---------------------------------------------------------------- deliveries
def test_terminal_payment_events_are_delivered_and_internal_ones_are_not() -> None:
    assert {"payment.succeeded", "payment.failed"} <= rules.DELIVERABLE
    for internal in (
        "payment.created",
        "payment.requires_action",
        "transaction.rejected",
        "transaction.card.tokenized",
    ):
        assert not rules.is_deliverable(internal, "https://shop.example/hook")
    assert rules.is_deliverable("payment.succeeded", "https://shop.example/hook")
    assert not rules.is_deliverable("payment.succeeded", None)
    assert not rules.is_deliverable("payment.succeeded", "")


def test_the_same_event_and_url_always_name_the_same_delivery() -> None:
    event_id = str(ULID())
    delivery_id = rules.delivery_id_for(event_id, "https://shop.example/hook")
    assert delivery_id == rules.delivery_id_for(event_id, "https://shop.example/hook")
    assert re.fullmatch(r"[0-7][0-9A-HJKMNP-TV-Z]{25}", delivery_id)
    assert delivery_id[:10] == event_id[:10]  # the event's time: deliveries list in event order
    assert delivery_id != rules.delivery_id_for(event_id, "https://shop.example/other")
    assert delivery_id != rules.delivery_id_for(str(ULID()), "https://shop.example/hook")


def test_the_envelope_leaves_storage_and_routing_attributes_behind() -> None:
    item = {
        "pk": "ACC#a#test",
        "sk": "EVT#e",
        "gsi1pk": "RES#p",
        "gsi1sk": "EVT#e",
        "callback_url": "https://shop.example/hook",
        "id": "e",
        "type": "payment.succeeded",
        "created_at": "2026-11-21T07:38:59Z",
        "account_id": "a",
        "mode": "test",
        "api_version": "2026-11-01",
        "resource": "payment",
        "resource_id": "p",
        "data": {"object": {"status": "succeeded"}},
    }
    envelope = envelope_of(item)
    assert list(envelope) == list(ENVELOPE_FIELDS)
    assert envelope["data"] == {"object": {"status": "succeeded"}}


def test_every_post_carries_the_documented_headers() -> None:
    assert rules.delivery_headers("t=1,v1=ab", "EVT", "DLV") == {
        "Content-Type": "application/json",
        "User-Agent": "mzpay-webhooks/1",
        "Service-Signature": "t=1,v1=ab",
        "Service-Event-Id": "EVT",
        "Service-Delivery-Id": "DLV",
    }


# ---------------------------------------------------------------- callback addresses
PUBLIC = ["8.8.8.8", "1.1.1.1", "41.94.0.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e"]
REFUSED = [
    "10.0.0.1",  # private
    "172.16.5.4",
    "192.168.1.10",
    "169.254.169.254",  # link-local: the cloud metadata address
    "100.64.0.1",  # shared address space (carrier-grade NAT)
    "0.0.0.0",  # unspecified
    "224.0.0.1",  # multicast
    "239.255.255.250",
    "240.0.0.1",  # reserved
    "255.255.255.255",
    "192.0.2.1",  # documentation
    "198.18.0.1",  # benchmarking
    "fc00::1",  # unique local
    "fd12:3456::1",
    "fe80::1",  # link-local
    "fe80::1%eth0",
    "ff02::1",  # multicast
    "::",
    "fec0::1",  # site-local (deprecated)
    "2001:db8::1",  # documentation
    "::ffff:10.0.0.1",  # IPv4-mapped private
    "::ffff:169.254.169.254",
    "2002:a00:1::1",  # 6to4 of 10.0.0.1
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
]
LOOPBACK = ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_may_be_called(address: str) -> None:
    assert network.address_allowed(address)
    assert network.address_allowed(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", REFUSED)
def test_private_link_local_multicast_and_reserved_addresses_are_refused(address: str) -> None:
    assert not network.address_allowed(address)
    assert not network.address_allowed(address, allow_loopback=True)


@pytest.mark.parametrize("address", LOOPBACK)
def test_loopback_is_refused_unless_the_local_stack_allows_it(address: str) -> None:
    assert not network.address_allowed(address)
    assert network.address_allowed(address, allow_loopback=True)


def test_a_public_address_embedded_in_ipv6_is_judged_by_its_ipv4() -> None:
    assert network.address_allowed("::ffff:8.8.8.8")
    assert network.address_allowed("64:ff9b::808:808")


def test_only_the_local_stack_lets_webhooks_reach_loopback() -> None:
    from devstack.stack import LOCAL_ENVIRONMENT, LOCAL_PARAMETERS

    template = template_text(ROOT / "template.yaml")  # with its nested templates
    assert "WEBHOOK_ALLOW_LOOPBACK" not in template
    assert "WEBHOOK_RETRY_TIME_SCALE" not in template  # production waits the schedule as it is
    assert {
        "WEBHOOK_ALLOW_LOOPBACK": "true",
        "OIDC_ALLOW_LOOPBACK": "true",
        "WEBHOOK_RETRY_TIME_SCALE": repr(1 / 60),  # a minute of the schedule is a second locally
    } == LOCAL_ENVIRONMENT
    # the production retry base, 300 s; and test-mode messages sent to moto (deployed: recorded only)
    assert LOCAL_PARAMETERS == {"ReconcileFirstSeconds": "1", "TestModeMessages": "deliver"}


# ---------------------------------------------------------------- fairness: the two lanes
def test_the_hot_lane_waits_less_than_the_slow_lane_and_the_contract() -> None:
    from mzpay.domain.webhooks.rules import (
        HOT_LANE_TIMEOUT_SECONDS,
        REQUEST_TIMEOUT_SECONDS,
        SLOW_ATTEMPT_SECONDS,
        Lane,
        attempt_timeout,
    )

    assert attempt_timeout(Lane.HOT) == HOT_LANE_TIMEOUT_SECONDS == 5.0
    assert attempt_timeout(Lane.SLOW) == REQUEST_TIMEOUT_SECONDS == 10.0
    assert SLOW_ATTEMPT_SECONDS < HOT_LANE_TIMEOUT_SECONDS  # a hot-lane timeout is always a slow attempt


@pytest.mark.parametrize(("latency_ms", "slow"), [(0, False), (1_999, False), (2_000, True), (5_003, True)])
def test_an_attempt_of_two_seconds_or_more_is_slow_whatever_it_answered(latency_ms: int, slow: bool) -> None:
    from mzpay.domain.webhooks.rules import is_slow_attempt

    assert is_slow_attempt(latency_ms) is slow


def test_an_endpoint_is_the_account_and_the_urls_origin() -> None:
    from mzpay.domain.webhooks.rules import endpoint_key

    a = endpoint_key("ACC_A", "https://Shop.example/hooks/1?x=1")
    assert a == endpoint_key("ACC_A", "https://shop.example/other")  # same origin, any path
    assert a.startswith("ACC_A#") and len(a) == len("ACC_A#") + 32
    assert a != endpoint_key("ACC_B", "https://shop.example/hooks/1")  # never shared between accounts
    assert a != endpoint_key("ACC_A", "https://shop.example:8443/hooks/1")
    assert a != endpoint_key("ACC_A", "http://shop.example/hooks/1")
    assert endpoint_key("ACC_A", "http://[::1").startswith("ACC_A#")  # an unparsable URL still has one

"""Which dispatch faults are poison (skipped into the failure queue) and which are retried; what a
delivery may store; the local time scale of webhook retries."""

from __future__ import annotations

import pytest
from botocore.exceptions import (
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ParamValidationError,
    ReadTimeoutError,
)

from mzpay import config
from mzpay.fanout import stream as fanout
from mzpay.webhooks import outbox


def client_error(code: str, operation: str = "PutItem") -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "refused"}}, operation)


@pytest.mark.parametrize(
    ("exc", "reason"),
    [
        (outbox.PoisonRecord("callback_url_too_long", "3000 characters"), "callback_url_too_long"),
        (client_error("ValidationException"), "rejected_by_dynamodb"),  # e.g. an item over 400 KB
        (client_error("SerializationException"), "rejected_by_dynamodb"),
        (client_error("InvalidParameterValue", "SendMessage"), "rejected_by_sqs"),  # a message too long
        (client_error("InvalidMessageContents", "SendMessage"), "rejected_by_sqs"),
        (ParamValidationError(report="Invalid type for parameter Item"), "invalid_request_parameters"),
    ],
)
def test_faults_that_can_never_pass_are_poison(exc: BaseException, reason: str) -> None:
    assert outbox.is_permanent(exc) is True
    assert outbox.poison_reason(exc) == reason


@pytest.mark.parametrize(
    "exc",
    [
        client_error("ProvisionedThroughputExceededException"),
        client_error("ThrottlingException"),
        client_error("RequestLimitExceeded"),
        client_error("InternalServerError"),
        client_error("ServiceUnavailable"),
        client_error("ResourceNotFoundException"),  # a table being created or restored
        client_error("AccessDeniedException"),  # a policy being fixed
        client_error("AWS.SimpleQueueService.NonExistentQueue", "SendMessage"),
        client_error("TransactionConflictException"),
        ReadTimeoutError(endpoint_url="https://dynamodb"),
        ConnectTimeoutError(endpoint_url="https://sqs"),
        EndpointConnectionError(endpoint_url="https://sqs"),
        outbox.DispatchInProgress("01J"),
        RuntimeError("delivery vanished"),
        KeyError("PAYOUT_SETTLEMENT_QUEUE_URL"),  # a bug or a configuration fault: retried, alarmed
    ],
)
def test_transient_faults_and_bugs_are_retried(exc: BaseException) -> None:
    assert outbox.is_permanent(exc) is False


def test_a_delivery_is_bounded_by_construction() -> None:
    outbox.bounded("https://shop.example/" + "a" * (outbox.MAX_URL_LENGTH - 21), "{}")
    with pytest.raises(outbox.PoisonRecord) as long_url:
        outbox.bounded("https://shop.example/" + "a" * (outbox.MAX_URL_LENGTH - 20), "{}")
    assert (long_url.value.reason, long_url.value.detail) == ("callback_url_too_long", "2049 characters, at most 2048")
    outbox.bounded("https://shop.example/", "é" * (outbox.MAX_PAYLOAD_BYTES // 2))  # bytes, not characters
    with pytest.raises(outbox.PoisonRecord) as large:
        outbox.bounded("https://shop.example/", "é" * (outbox.MAX_PAYLOAD_BYTES // 2) + "x")
    assert large.value.reason == "payload_too_large"
    # What a delivery stores at most stays far below DynamoDB's 400 KB item limit.
    attempt = 300 + outbox.MAX_ERROR_CHARS  # an attempt's fields and names, its error text at most
    assert outbox.MAX_PAYLOAD_BYTES + outbox.MAX_URL_LENGTH + outbox.MAX_ATTEMPTS_KEPT * attempt < 320 * 1024


@pytest.mark.parametrize(
    "image",
    [
        {"sk": "EVT#x", "type": "payment.succeeded", "callback_url": "https://shop.example/"},  # no envelope
        {
            "sk": "EVT#x",
            "type": "payment.succeeded",
            "callback_url": "https://shop.example/",
            **dict.fromkeys(
                ("id", "created_at", "account_id", "mode", "api_version", "resource", "resource_id", "data"), "x"
            ),
        },  # an id that is not a ULID
    ],
    ids=["missing_fields", "bad_id"],
)
def test_a_malformed_event_is_poison_before_anything_is_written(image: dict[str, object]) -> None:
    with pytest.raises(outbox.PoisonRecord) as raised:
        outbox.dispatch(image)
    assert raised.value.reason == "malformed_event"


def test_a_skip_message_is_bounded_and_names_the_event() -> None:
    image = {"pk": "ACC#a#test", "sk": "EVT#" + "x" * 5000, "id": "01J", "type": "payment.succeeded", "mode": "test"}
    message = fanout.skip_message(
        image, fanout.Skip("webhook", "payload_too_large", "d" * 5000), {"sequence_number": "7"}, clock=lambda: 0
    )
    assert message["event_key"] == {"pk": "ACC#a#test", "sk": ("EVT#" + "x" * 5000)[:1024]}
    assert len(message["detail"]) == outbox.MAX_ERROR_CHARS
    assert message | {"event_key": None, "detail": None} == {
        "source": "webhook_dispatcher",
        "step": "webhook",
        "reason": "payload_too_large",
        "detail": None,
        "event_key": None,
        "event_id": "01J",
        "event_type": "payment.succeeded",
        "account_id": None,
        "mode": "test",
        "stream": {"sequence_number": "7"},
        "skipped_at": "1970-01-01T00:00:00.000Z",
    }


def test_production_waits_the_schedule_and_the_local_stack_scales_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEBHOOK_RETRY_TIME_SCALE", raising=False)
    assert outbox.retry_time_scale("https://shop.example/?devstack_retry_scale=0") == 1.0  # ignored in production
    monkeypatch.setenv("WEBHOOK_RETRY_TIME_SCALE", repr(1 / 60))
    config.reload()  # the settings are read once per execution environment
    assert outbox.retry_time_scale("http://127.0.0.1:8080/hooks") == 1 / 60
    assert outbox.retry_time_scale("http://127.0.0.1:8080/hooks?devstack_retry_scale=0") == 0.0
    assert outbox.retry_time_scale("http://127.0.0.1/h?devstack_retry_scale=fast") == 1 / 60  # unreadable
    assert outbox.retry_time_scale("http://127.0.0.1/h?devstack_retry_scale=5") == 1 / 60  # never slower

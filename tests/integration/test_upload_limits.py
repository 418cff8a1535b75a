"""Upload limits in process against DynamoDB (moto), the clock injected: uploads per minute,
per UTC day and bytes per UTC day, each 429 rate_limited naming its rule with Retry-After; a
refused upload is not counted and its file is not stored (POST /v1/files); racing uploads pass
exactly up to the limit."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from moto import mock_aws

from devstack.moto_server import atomic_dynamodb
from mzpay import deps
from mzpay.collection import files
from mzpay.domain.common import clock
from mzpay.domain.common.errors import ServiceError
from mzpay.steps.uploads import admit_upload
from tests.integration.races import race
from tests.integration.support import REGION, create_directory_table, reset_mzpay_caches

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 100
BOUNDARY = "b0undary"


class Clock:
    def __init__(self) -> None:
        self.at = datetime(2026, 11, 27, 10, 15, 5, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def moved(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    now = Clock()
    monkeypatch.setattr(clock, "now", now)
    monkeypatch.setenv("UPLOAD_LIMIT_PER_MINUTE", "3")
    monkeypatch.setenv("UPLOAD_LIMIT_PER_DAY", "5")
    monkeypatch.setenv("UPLOAD_BYTES_PER_DAY", "1000")
    with mock_aws():
        create_directory_table("collection")  # pk/sk, as CollectionTable
        boto3.client("s3", region_name=REGION).create_bucket(
            Bucket="uploads", CreateBucketConfiguration={"LocationConstraint": REGION}
        )
        monkeypatch.setenv("COLLECTION_TABLE", "collection")
        monkeypatch.setenv("UPLOAD_COUNTERS_TABLE", "collection")
        monkeypatch.setenv("UPLOADS_BUCKET", "uploads")
        reset_mzpay_caches()
        yield now
        reset_mzpay_caches()


def refusal(work: Any) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        work()
    return caught.value


def facts(error: ServiceError) -> tuple[int, str, str | None, Any, Any]:
    rule, limit = error.extensions["rule"], error.extensions["limit"]
    return error.status, error.code, error.headers.get("Retry-After"), rule, limit


def multipart(content: bytes) -> bytes:
    return (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file_type"\r\n\r\npng\r\n'
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="logo.png"\r\n'
            "Content-Type: image/png\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )


def stored(account_id: str) -> list[str]:
    listed = boto3.client("s3", region_name=REGION).list_objects_v2(Bucket="uploads", Prefix=f"accounts/{account_id}/")
    return [item["Key"] for item in listed.get("Contents", [])]


def test_a_fourth_upload_in_a_minute_is_429_and_nothing_is_stored(moved: Clock) -> None:
    made = [files.upload("acct_A", multipart(PNG), f"multipart/form-data; boundary={BOUNDARY}") for _ in range(3)]
    assert [m.file_size for m in made] == [len(PNG)] * 3
    error = refusal(lambda: files.upload("acct_A", multipart(PNG), f"multipart/form-data; boundary={BOUNDARY}"))
    assert facts(error) == (429, "rate_limited", "55", "uploads_per_minute", 3)  # 10:15:05: the minute ends in 55 s
    assert error.message == "Too many uploads for this account: at most 3 uploads a minute. Retry after 55 s."
    assert sorted(stored("acct_A")) == sorted(f"accounts/acct_A/files/{m.id}" for m in made)
    assert files.upload("acct_B", multipart(PNG), f"multipart/form-data; boundary={BOUNDARY}").file_size == len(
        PNG
    )  # another account's uploads are its own
    moved.advance(55)  # the next minute
    assert files.upload("acct_A", multipart(PNG), f"multipart/form-data; boundary={BOUNDARY}").file_size == len(PNG)


def test_the_day_counts_uploads_and_bytes_and_a_refused_one_is_not_counted(moved: Clock) -> None:
    for _ in range(5):
        admit_upload("acct_D", 100)
        moved.advance(60)
    day_left = int((datetime(2026, 11, 28, tzinfo=UTC) - moved.at).total_seconds())
    assert facts(refusal(lambda: admit_upload("acct_D", 1))) == (
        429,
        "rate_limited",
        str(day_left),
        "uploads_per_day",
        5,
    )
    admit_upload("acct_E", 600)
    assert facts(refusal(lambda: admit_upload("acct_E", 401))) == (
        429,
        "rate_limited",
        str(day_left),
        "upload_bytes_per_day",
        1000,
    )
    admit_upload("acct_E", 400)  # the refused 401 bytes were not counted: 600 + 400 is the day's 1,000
    assert facts(refusal(lambda: admit_upload("acct_F", 1001)))[3] == "upload_bytes_per_day"  # over alone
    moved.advance(day_left)  # a new UTC day
    admit_upload("acct_D", 100)
    admit_upload("acct_E", 1000)


def test_test_uploads_never_use_up_the_live_allowance(moved: Clock) -> None:
    for _ in range(5):
        admit_upload("acct_M", 100, "test")
        moved.advance(60)
    assert facts(refusal(lambda: admit_upload("acct_M", 1, "test")))[:2] == (429, "rate_limited")
    for _ in range(5):  # the live allowance of the same account is whole: modes never meet
        admit_upload("acct_M", 100, "live")
        moved.advance(60)
    assert facts(refusal(lambda: admit_upload("acct_M", 1, "live")))[3] == "uploads_per_day"


def test_racing_uploads_pass_exactly_up_to_the_limit(moved: Clock) -> None:
    deps.upload_counters()  # built before the threads
    with atomic_dynamodb():
        outcomes = race(8, lambda _i: admit_upload("acct_R", 10))
    passed = [o for o in outcomes if o[0] == "ok"]
    refused = [o[1] for o in outcomes if o[0] == "error"]
    assert len(passed) == 3
    assert {(e.status, e.code, e.extensions["rule"]) for e in refused} == {(429, "rate_limited", "uploads_per_minute")}
    item = (
        boto3.resource("dynamodb", region_name=REGION)
        .Table("collection")
        .get_item(Key={"pk": "UPLOADS#acct_R#-#2026-11-27", "sk": "UPLOADS"})["Item"]
    )
    assert (item["files"], item["bytes"], item[f"m_{10 * 60 + 15}"]) == (3, 30, 3)

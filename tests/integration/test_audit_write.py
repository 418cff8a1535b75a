"""Writing the audit trail against in-process moto with the stack of template.yaml: a record is
appended once and read back whole; a trail that refuses the put leaves the action's outcome
standing and keeps the record in the log and the AuditWriteFailures count."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.domain.operators.audit import AuditFilter, Observation, Request, begin, end, observe
from mzpay.steps.audit import write
from tests.expected import payout_approval_record
from tests.integration.support import function_stack
from tests.integration.test_business_metrics import counts


@pytest.fixture
def management(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with function_stack("ManagementOperationsFunction", monkeypatch) as provisioned:
        yield provisioned


def request(**changes: object) -> Request:
    fields: dict[str, object] = {
        "surface": "management",
        "action": "approve_payout",
        "method": "POST",
        "path": "/v1/payouts/{payout_id}/approve",
        "path_params": {"payout_id": "01JD8Z5Q1R2S3T4V5W6X7Y8Z9B"},
        "body": {"note": "ok", "api_key": "sk_live_x"},
        "request_id": "req-1",
        "actor_kind": "operator",
        "actor_id": "ana",
        "source_ip": "198.51.100.7",
    }
    return Request(**{**fields, **changes})  # type: ignore[arg-type]


def observed() -> Observation:
    observation = begin()
    observe("payout", "01JD8Z5Q1R2S3T4V5W6X7Y8Z9B", account_id="01JDACC0000000000000000000", before={"status": "a"})
    observe("payout", "01JD8Z5Q1R2S3T4V5W6X7Y8Z9B", after={"status": "b"})
    end()
    return observation


def test_a_record_is_appended_and_read_back_whole(management: ProvisionedStack) -> None:
    write(observed(), request(), 200, None)
    records, last = deps.audit_trail().page(AuditFilter(actor="ana"), 10, None)
    assert last is None and len(records) == 1
    record = records[0].public()
    assert record == payout_approval_record(
        record,
        "ana",
        "198.51.100.7",
        "01JD8Z5Q1R2S3T4V5W6X7Y8Z9B",
        account_id="01JDACC0000000000000000000",
        request={"note": "ok", "api_key": "[redacted]"},
        before={"status": "a"},
        after={"status": "b"},
        request_id="req-1",
    )
    assert deps.audit_trail().get(record["id"]) == records[0]


def test_a_refused_request_naming_an_empty_account_is_recorded_without_one(
    management: ProvisionedStack, caplog: pytest.LogCaptureFixture
) -> None:
    body = {"account_id": "", "provider_payment_id": "01JD8Z5Q1R2S3T4V5W6X7Y8Z9B"}
    opening = request(action="open_dispute", path="/v1/disputes", path_params={}, body=body, actor_id="eva")
    write(begin(), opening, 400, "invalid_request")
    assert [r for r in caplog.records if r.getMessage() == "audit record not written"] == []
    records, _ = deps.audit_trail().page(AuditFilter(actor="eva"), 10, None)
    assert [r.public() for r in records] == [
        {
            "id": records[0].audit_id,
            "object": "audit_record",
            "at": records[0].at,
            "actor": {"kind": "operator", "id": "eva", "source_ip": "198.51.100.7", "issuer": None, "account_id": None},
            "surface": "management",
            "action": "open_dispute",
            "method": "POST",
            "path": "/v1/disputes",
            "target": None,
            "account_id": None,
            "request": body,
            "outcome": {"status": 400, "code": "invalid_request"},
            "before": None,
            "after": None,
            "request_id": "req-1",
        }
    ]


def test_a_refused_put_keeps_the_record_in_the_log_and_counts_it(
    management: ProvisionedStack,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("AUDIT_TABLE", "no-such-table")
    deps.reset()
    write(observed(), request(), 200, None)  # no exception: the action's outcome stands
    out = capfd.readouterr().out
    assert counts(out) == [("AuditWriteFailures", {})]
    logged = [r for r in caplog.records if r.getMessage() == "audit record not written"]
    assert len(logged) == 1 and logged[0].levelname == "ERROR"
    kept = logged[0].audit_record  # type: ignore[attr-defined]
    assert (kept["actor"]["id"], kept["target"]["type"], kept["outcome"]) == (
        "ana",
        "payout",
        {"status": 200, "code": None},
    )
    assert kept["request"] == {"note": "ok", "api_key": "[redacted]"}
    assert "sk_live_x" not in json.dumps(kept) and "sk_live_x" not in out

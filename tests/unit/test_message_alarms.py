"""The message rate alarms (stacks/workers.yaml) read the metrics the code writes: each metric of
their math is `Messages` with the dimensions mzpay.observability.count gives it (`service` the
writing function's POWERTOOLS_SERVICE_NAME, `outcome`, `channel`), so neither alarm watches a
metric nobody writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from devstack.template import load_template
from mzpay.observability import COUNTS

ROOT = Path(__file__).resolve().parents[2]
RESOURCES: dict[str, Any] = load_template(ROOT / "template.yaml")["Resources"]
WRITERS = {"notification-sender": {"sent", "failed", "suppressed", "throttled"}, "message-events": {"bounced"}}


def service_of(function: str) -> str:
    return str(RESOURCES[function]["Properties"]["Environment"]["Variables"]["POWERTOOLS_SERVICE_NAME"])


@pytest.mark.parametrize("alarm", ["MessageFailureRateAlarm", "MessageBounceRateAlarm"])
def test_each_rate_alarm_reads_what_the_functions_write(alarm: str) -> None:
    assert {service_of("NotificationSenderFunction"), service_of("MessageEventsFunction")} == set(WRITERS)
    stats = [m["MetricStat"] for m in RESOURCES[alarm]["Properties"]["Metrics"] if "MetricStat" in m]
    assert stats
    for stat in stats:
        metric = stat["Metric"]
        dimensions = {d["Name"]: d["Value"] for d in metric["Dimensions"]}
        assert (metric["Namespace"], metric["MetricName"]) == ("mzpay", "Messages")
        assert set(dimensions) == {"service", *COUNTS["Messages"]}
        assert dimensions["outcome"] in WRITERS[dimensions["service"]], dimensions
        assert dimensions["channel"] in {"email", "sms"}
        assert stat["Stat"] == "Sum"

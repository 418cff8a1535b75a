"""The risk stage, before any provider call.

Live mode: velocity per payer phone. More than VELOCITY_LIMIT wallet charge attempts from one
phone (per account) within a window of VELOCITY_WINDOW_SECONDS are declined. Test mode must
decide from the request's own inputs, never from time, so there a number ending in 9999 is
always declined instead (docs/test-mode.md)."""

from __future__ import annotations

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.routing import refusal

VELOCITY_LIMIT = 5
VELOCITY_WINDOW_SECONDS = 600
TEST_DECLINED_SUFFIX = "9999"


def velocity_window(epoch_seconds: float) -> int:
    """The number of the window `epoch_seconds` falls in."""
    return int(epoch_seconds // VELOCITY_WINDOW_SECONDS)


def declined(rejection_id: str) -> ServiceError:
    return refusal(422, "risk_declined", "risk", "The charge was declined by the risk checks.", rejection_id)


def declined_test_number(mode: str, phone: str) -> bool:
    return mode == "test" and phone.endswith(TEST_DECLINED_SUFFIX)

"""The lines of a payout batch upload, each parsed as POST /payouts parses its body: a
PayoutRequest, or the 400 that POST /payouts would answer for it (same codes and words), so that
a bad line is reported on its own and never refuses the whole upload."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payouts.rules import PayoutRequest
from mzpay.http.errors import Surface
from mzpay.http.resolver import validation_error


def parse_lines(lines: list[Any]) -> list[PayoutRequest | ServiceError]:
    parsed: list[PayoutRequest | ServiceError] = []
    for line in lines:
        try:
            parsed.append(PayoutRequest.model_validate(line))
        except ValidationError as exc:
            parsed.append(validation_error([dict(e) for e in exc.errors()], Surface.GATEWAY, PayoutRequest))
    return parsed

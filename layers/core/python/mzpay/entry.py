"""How the gateway's endpoint-group functions are wired (the handler layer's composition root):
every group answers through the same Lambda entry point, with the per-request rate limit and
the platform-connection check of ?account_id= bound to their use cases. The use cases are
imported on first use, so a group imports only what its own routes need."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver

from mzpay.http.principal import current_merchant
from mzpay.http.resolver import lambda_handler


def _rate_limit(_event: dict[str, Any]) -> None:
    from mzpay.cases import rate_limits

    rate_limits.enforce(current_merchant())


def _may_act_for(caller_account_id: str, account_id: str) -> None:
    from mzpay.cases.access import ensure_may_act_for  # read only when ?account_id= names another account

    ensure_may_act_for(caller_account_id, account_id)


def gateway_handler(app: APIGatewayRestResolver) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The Lambda entry point of a gateway group's resolver `app`."""
    return lambda_handler(app, admit_more=_rate_limit, may_act_for=_may_act_for)

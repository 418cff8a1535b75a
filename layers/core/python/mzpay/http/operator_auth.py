"""The management API's authorizer: operator bearer token plus optional IP allowlist."""

from __future__ import annotations

from typing import Any

from mzpay.config import settings
from mzpay.deps import once
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.network import IpNetwork, ip_allowed, parse_allowlist
from mzpay.domain.operators.credentials import operator_named
from mzpay.http.authorizers import Unauthorized, allow, bearer_token, refuse, source_ip
from mzpay.store.secrets import operator_token


@once
def _allowlist() -> tuple[IpNetwork, ...]:
    return parse_allowlist(settings().operator_ip_allowlist)


def authorize_operator(event: dict[str, Any]) -> dict[str, Any]:
    """Allow a request bearing the operator token from an allowed address.

    The allowlist is checked first so that a leaked token is useless from elsewhere; an
    empty allowlist means none is configured (spec: `mgmt.ip_allowlist` when configured).
    """
    token = bearer_token(event)
    if token is None:
        raise Unauthorized()
    allowlist = _allowlist()
    address = source_ip(event)
    if allowlist and not ip_allowed(address, allowlist):
        return refuse(
            event,
            "operator",
            ServiceError(403, "ip_not_allowed", "The source address is not in the management allowlist."),
        )
    name = operator_named(operator_token(), token)
    if name is None:
        raise Unauthorized()
    return allow(event, "operator", {"role": "operator", "operator": name, "source_ip": address})

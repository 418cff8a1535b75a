"""The audit trail's writing side: the surface opens a scope for each state-changing request
(mzpay.domain.operators.audit.begin) and has the record written when it ends; a use case says, through
`observe`, what it acted on and the state before and after (views an API would show: never
secrets), and a surface without an authorizer (the console) says who acts through `identify`."""

from __future__ import annotations

from collections.abc import Mapping

from mzpay import deps
from mzpay.domain.operators.audit import Observation, Request, concerns, identify, observe

__all__ = ["concerns", "identify", "observe", "write"]


def write(observation: Observation, request: Request, status: int, code: str | None) -> None:
    """Append the request's record to the trail. A trail that cannot be written does not undo
    what the request did: the record goes to the log (an ERROR line holding it whole) and the
    AuditWriteFailures count, which an alarm watches."""
    from mzpay.domain.common.clock import now_iso
    from mzpay.domain.common.ids import new_id
    from mzpay.domain.operators.audit import AuditRecord, capped

    target_type, target_id = observation.target_type, observation.target_id
    if target_type is None:
        target_type, target_id = _target_of(request.path_params)
    account_id = observation.account_id or request.path_params.get("account_id")
    if account_id is None and isinstance(request.body, Mapping) and isinstance(request.body.get("account_id"), str):
        account_id = request.body["account_id"][:64] or None  # "" names no account (and is no index key)
    record = AuditRecord(
        audit_id=new_id(),
        at=now_iso(),
        actor_kind=observation.actor_kind or request.actor_kind,
        actor_id=observation.actor_id or request.actor_id,
        source_ip=observation.source_ip or request.source_ip,
        surface=request.surface,
        action=request.action,
        method=request.method,
        path=request.path,
        target_type=target_type,
        target_id=target_id,
        account_id=account_id,
        request=capped(request.body),
        before=capped(observation.before),
        after=capped(observation.after),
        status=status,
        code=code,
        request_id=request.request_id,
        actor_issuer=request.actor_issuer if observation.actor_kind is None else None,
        actor_account_id=request.actor_account_id if observation.actor_kind is None else None,
    )
    try:
        deps.audit_trail().append(record)
    except Exception as exc:  # the request's outcome stands; the log keeps the record
        from mzpay.observability import count, logger

        logger.error("audit record not written", extra={"audit_record": record.public()}, exc_info=exc)
        count("AuditWriteFailures")


# A path parameter's object where its name alone does not say it the way use cases observe it.
_KINDS = {
    "application": "psp_application",
    "batch": "payout_batch",
    "delivery": "webhook_delivery",
    "key": "api_key",
    "client": "oauth_client",
    "product": "bill_product",
    "object": "reconciliation_case",
    "message": "dispatch_failure",
    "idp": "identity_provider",
}


def _target_of(path_params: Mapping[str, str]) -> tuple[str | None, str | None]:
    """The object a route's path names last (`/v1/payouts/{payout_id}/approve`: payout), named
    as the use cases name it when they observe it (`application_id`: psp_application)."""
    for name in reversed(list(path_params)):
        if name.endswith("_id") and name != "account_id":
            kind = name[: -len("_id")]
            return _KINDS.get(kind, kind), path_params[name]
    if "account_id" in path_params:
        return "account", path_params["account_id"]
    return None, None

"""What an operator's or a reviewer's request did, for the audit trail. The surface opens a scope
for each state-changing request (who, from where, which action) and writes the record when the
request ends; a use case says, through `observe`, what it acted on and the state before and after
(views an API would show: never secrets)."""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Observation:
    """What the action touched: the target, its account, and its state before and after."""

    target_type: str | None = None
    target_id: str | None = None
    account_id: str | None = None
    before: Mapping[str, Any] | None = None
    after: Mapping[str, Any] | None = None
    actor_kind: str | None = None
    actor_id: str | None = None
    source_ip: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


_current: contextvars.ContextVar[Observation | None] = contextvars.ContextVar("mzpay_audit", default=None)


def begin() -> Observation:
    """A fresh observation for the request now starting (the surface calls it)."""
    observation = Observation()
    _current.set(observation)
    return observation


def end() -> None:
    _current.set(None)


def identify(actor_kind: str, actor_id: str, source_ip: str) -> None:
    """Say who acts in this request when the surface's authorizer did not (the console's session
    names its operator); outside an audited request it does nothing."""
    observation = _current.get()
    if observation is not None:
        observation.actor_kind, observation.actor_id, observation.source_ip = actor_kind, actor_id, source_ip


def observe(
    target_type: str,
    target_id: str,
    *,
    account_id: str | None = None,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
) -> None:
    """Say what the action acts on and its state before and after (a use case calls it; outside
    an audited request it does nothing). A later call for the same target keeps the first `before`."""
    observation = _current.get()
    if observation is None:
        return
    if observation.target_id != target_id or observation.target_type != target_type or observation.before is None:
        observation.before = before
    observation.target_type, observation.target_id = target_type, target_id
    if account_id is not None:
        observation.account_id = account_id
    if after is not None:
        observation.after = after

"""The management API's answers about routing by health (mzpay.operators.route_health)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.base import ACCOUNT, AccountId, Answer, Timestamp, examples
from mzpay.answers.bindings import BindingMethod

CircuitState = Literal["closed", "open", "half_open"]
_COUNTS = {"success": 0, "provider_error": 0, "timeout": 2, "provider_unavailable": 6}
_HEALTH = {
    "route": "vodacom-mpesa",
    "method": "mpesa",
    "state": "open",
    "effective_state": "open",
    "forced": None,
    "since": "2026-11-29T18:00:00Z",
    "probes": 0,
    "failure_rate": 1.0,
    "counts": _COUNTS,
}


class OutcomeCounts(Answer):
    """A route's outcomes counted, by kind."""

    model_config = examples(_COUNTS)

    success: int = Field(description="Charges the provider answered (whatever the payer did).")
    provider_error: int = Field(description="Charges it answered with a server error (5xx).")
    timeout: int = Field(description="Charges it did not answer (the outcome was unknown).")
    provider_unavailable: int = Field(description="Charges it said it could not handle.")


class RouteHealth(Answer):
    """A route's health: installation-wide (every account's live charges on the route count, and
    its circuit steers every account's new live charges), never an account's own."""

    model_config = examples(_HEALTH)

    route: str = Field(description="The connector: a PSP's own (vodacom-mpesa) or an aggregator (paysuite).")
    method: BindingMethod = Field(description="The method it carries.")
    state: CircuitState = Field(description="The circuit's own state.")
    effective_state: CircuitState = Field(description="What routing obeys: `forced` if set, else `state`.")
    forced: Literal["open", "closed"] | None = Field(description="An operator's override (null: automatic).")
    since: Timestamp | None = Field(description="When the circuit took its state (null: never moved).")
    probes: int = Field(description="Probe charges let through since it half-opened.")
    failure_rate: float = Field(description="Failed share of `counts`.")
    counts: OutcomeCounts = Field(description="Outcomes since the circuit took its state, within the window.")


class RouteHealthList(Answer):
    """Every route's health."""

    model_config = examples({"routes": [_HEALTH]})

    routes: list[RouteHealth] = Field(description="One per (route, method) a live connector carries.")


class FurtherRoute(Answer):
    """A further route of an account's method: another connector that carries it, taken when the
    routes it prefers are open (credentials never shown)."""

    model_config = examples(
        {
            "account_id": ACCOUNT,
            "mode": "live",
            "method": "mpesa",
            "psp_id": "paysuite",
            "preference": 1,
            "cost_bps": 150,
            "credential_fields": ["api_token", "webhook_secret"],
            "updated_at": "2026-11-29T18:00:00Z",
        }
    )

    account_id: AccountId
    mode: Literal["live"] = Field(description="Always live.")
    method: BindingMethod = Field(description="The method it carries.")
    psp_id: str = Field(description="The connector of the route.")
    preference: int = Field(description="Lower first; the method's binding is preference 0, cost 0.")
    cost_bps: int = Field(description="Its cost in basis points: lower first among equal preferences.")
    credential_fields: list[str] = Field(description="The names of the credentials stored (encrypted).")
    updated_at: Timestamp = Field(description="When it was last bound.")

"""The dashboard's home page: the account's balance in the session's mode, read by the use case
GET /v1/balance answers with, and today's and the last 30 days' volume and success rate by method
(mzpay.cases.volume, over the list GET /v1/payments reads); the user as the actor, within its role."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mzpay.domain.access.principal import Principal
from mzpay.domain.dashboard import roles
from mzpay.domain.dashboard.sessions import Session
from mzpay.lazy import deferred_imports

if TYPE_CHECKING:
    from mzpay.answers.balance import Balance
    from mzpay.domain.dashboard.volume import Volume

with deferred_imports():  # loaded by the first page that needs it: sign-in does not
    from mzpay.cases import refunds, volume


def acting(session: Session, permission: str) -> Principal:
    """The user as the gateway's use cases know an actor: its account, the session's mode, the
    scope the action needs (after its role was checked), named `user:<e-mail>`."""
    roles.require(session.role, permission)
    return Principal(
        account_id=session.account_id,
        mode=session.mode,
        scopes=frozenset({permission}),
        key_id=f"user:{session.email}",
        allowed_customers=frozenset(),
        expires_at=None,
        acting_account_id=session.account_id,
    )


def balance(session: Session) -> Balance:
    """Available and held (pending) per currency, as GET /v1/balance answers."""
    return refunds.balance(acting(session, "balance:read"))


def volume_by_method(session: Session) -> Volume:
    """Today's and the last 30 days' volume and success rate per method (the home page's charts)."""
    return volume.by_method(acting(session, "payments:read"))

"""The rule every collection operation of a business shares: only an active account may issue
collection requests and receive payments (docs/onboarding.md)."""

from __future__ import annotations

from mzpay import deps
from mzpay.domain.business import AccountStatus, BusinessAccount
from mzpay.domain.errors import ServiceError


def require_active(account_id: str) -> BusinessAccount:
    """The account, if it may issue collection requests and receive payments (active); else 403
    forbidden saying why (not onboarded, under review, rejected, suspended)."""
    account = deps.business_accounts().get(account_id)
    if account is None or account.status != AccountStatus.ACTIVE:
        status = account.status if account else "not_onboarded"
        raise ServiceError(
            403,
            "forbidden",
            f"The business account is {status}: only an active account may do this.",
            account_status=status,
        )
    return account

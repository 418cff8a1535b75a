"""The rule every collection operation of a business shares: only an active account may issue
collection requests, register customers and payment methods, move money or be paid
(docs/onboarding.md, "Suspended means stopped")."""

from __future__ import annotations

from mzpay import deps
from mzpay.domain.collection.business import AccountStatus, BusinessAccount
from mzpay.domain.common.errors import ServiceError

NOT_ONBOARDED = "not_onboarded"  # metadata.account_status of an account with no business record


def status_of(account_id: str) -> str:
    """The business account's status, or not_onboarded when it never started onboarding."""
    account = deps.business_accounts().get(account_id)
    return account.status if account is not None else NOT_ONBOARDED


def require_active(account_id: str) -> BusinessAccount:
    """The account, if it may issue collection requests and receive payments (active); else 403
    forbidden saying why (not onboarded, under review, rejected, suspended)."""
    account = deps.business_accounts().get(account_id)
    if account is None:
        raise ServiceError(
            403,
            "forbidden",
            "The account has not onboarded as a business: only an active account may do this.",
            account_status=NOT_ONBOARDED,
        )
    if account.status != AccountStatus.ACTIVE:
        raise ServiceError(
            403,
            "forbidden",
            f"The business account is {account.status}: only an active account may do this.",
            account_status=account.status,
        )
    return account


def require_payee_active(account_id: str) -> None:
    """A payer's payment to a business (the hosted checkout of its payment link) only while the
    business is active: else 403 account_suspended (the gateway's code for an account that may
    not take payments)."""
    status = status_of(account_id)
    if status != AccountStatus.ACTIVE:
        raise ServiceError(
            403,
            "account_suspended",
            "This merchant cannot take payments now; ask the merchant how to pay.",
            account_status=status,
        )


def gateway_account_of(business_account_id: str) -> str:
    """The gateway account the business collects through: the one its approval opened or an
    operator linked, else (approved before approvals recorded it) the account of its own id."""
    business = deps.business_accounts().get(business_account_id)
    return (business.gateway_account_id if business is not None else None) or business_account_id


def business_of(gateway_account_id: str) -> str:
    """The business that collects through the gateway account: the one linked to it, else the
    business of the same id."""
    return deps.business_accounts().linked_business(gateway_account_id) or gateway_account_id

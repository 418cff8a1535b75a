"""Operators link an existing gateway account to a business account (docs/onboarding.md, "Linking
an existing gateway account"): the business then collects through it instead of an account of
its own id. One business per gateway account, both in this region; a business that collects
through an account already keeps it. The link is one transaction (the business's versioned
change and the gateway account's link item, put new), so of two racing links of one account
exactly one lands."""

from __future__ import annotations

from typing import Literal

from mzpay import deps
from mzpay.answers.reviews import BusinessGatewayAccount
from mzpay.config import settings
from mzpay.domain.collection.business import BusinessAccount
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.steps import audit
from mzpay.steps.accounts import home_account
from mzpay.store.business_accounts import AccountChanged
from mzpay.store.transitions import rejudged

MAX_ACCOUNT_ID = 128


def _business(business_account_id: str) -> BusinessAccount:
    business = deps.business_accounts().get(business_account_id) if len(business_account_id) <= MAX_ACCOUNT_ID else None
    if business is None:
        raise ServiceError(404, "not_found", "No such business account.")
    return business


def _collecting(business: BusinessAccount) -> str | None:
    """The gateway account the business collects through now, if any: its recorded one, else
    (approved before approvals recorded it, or the local demo's) the account of its own id."""
    if business.gateway_account_id is not None:
        return business.gateway_account_id
    return business.account_id if deps.directory().get_account(business.account_id) is not None else None


def _answer(business: BusinessAccount) -> BusinessGatewayAccount:
    collecting = _collecting(business)
    how: Literal["opened", "linked"] | None = None
    if collecting is not None:
        how = "opened" if collecting == business.account_id else "linked"
    return BusinessGatewayAccount(
        object="business_gateway_account",
        business_account_id=business.account_id,
        gateway_account_id=collecting,
        how=how,
        region=settings().service_region,  # type: ignore[arg-type]  # a configured service region
    )


def collecting_for(gateway_account_id: str) -> str | None:
    """The business that collects through the gateway account, if any (the console's account page)."""
    linked = deps.business_accounts().linked_business(gateway_account_id)
    if linked is not None:
        return linked
    own = deps.business_accounts().get(gateway_account_id) if len(gateway_account_id) <= MAX_ACCOUNT_ID else None
    return own.account_id if own is not None and own.gateway_account_id in (None, gateway_account_id) else None


def read(business_account_id: str) -> BusinessGatewayAccount:
    """The gateway account the business collects through (null when none yet)."""
    return _answer(_business(business_account_id))


def link(business_account_id: str, gateway_account_id: str) -> BusinessGatewayAccount:
    """Let the business collect through an existing gateway account of this region: 404 for an
    unknown business or account, 421 wrong_region for an account homed elsewhere, 409
    already_connected when another business collects through it, 409 invalid_state when the
    business collects through another account already; the same link again changes nothing."""
    _business(business_account_id)
    gateway = home_account(gateway_account_id)  # 404 unknown, 421 homed elsewhere

    def change(business: BusinessAccount) -> BusinessAccount:
        collecting = _collecting(business)
        if collecting == gateway.account_id:
            return business
        if collecting is not None:
            raise ServiceError(
                409,
                "invalid_state",
                f"The business already collects through account {collecting}.",
            )
        owner = deps.business_accounts().linked_business(gateway.account_id)
        if owner is None and gateway.account_id != business.account_id:
            owner = gateway.account_id if deps.business_accounts().get(gateway.account_id) else None
        if owner not in (None, business.account_id):
            raise ServiceError(409, "already_connected", "Another business collects through this gateway account.")
        changes = {"gateway_account_id": gateway.account_id, "updated_at": now_iso()}
        return deps.business_accounts().transition(business, changes)

    before = _business(business_account_id)
    after = rejudged(lambda: _business(business_account_id), change, AccountChanged, "business account")
    answer = _answer(after)
    audit.observe(
        "business_account",
        business_account_id,
        account_id=gateway.account_id,
        before=_answer(before).model_dump(),
        after=answer.model_dump(),
    )
    return answer

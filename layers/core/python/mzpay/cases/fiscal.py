"""Operators: an account's fiscal details, which its receipts carry (mzpay.domain.payments.fiscal;
docs/payments.md, "Receipts")."""

from __future__ import annotations

from mzpay import deps
from mzpay.answers.receipts import AccountFiscalDetails
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.fiscal import FiscalDetails
from mzpay.steps.accounts import home_account


def _answer(account_id: str, details: FiscalDetails, updated_at: str) -> AccountFiscalDetails:
    return AccountFiscalDetails(
        account_id=account_id,
        legal_name=details.legal_name,
        nuit=details.nuit,
        address=details.address,
        vat_registered=details.vat_registered,
        vat_rate=format(details.vat_rate.normalize(), "f"),
        updated_at=updated_at,
    )


def set_fiscal_details(account_id: str, details: FiscalDetails) -> AccountFiscalDetails:
    """PUT /v1/accounts/{id}/fiscal-details: the details the account's receipts carry from now on."""
    account = home_account(account_id)
    now = now_iso()
    deps.fiscal_details().put(account.account_id, details, now)
    return _answer(account.account_id, details, now)


def read_fiscal_details(account_id: str) -> AccountFiscalDetails:
    """GET /v1/accounts/{id}/fiscal-details: 404 not_found while none were set."""
    account = home_account(account_id)
    kept = deps.fiscal_details().get(account.account_id)
    if kept is None:
        raise ServiceError(404, "not_found", "This account has no fiscal details; PUT them first.")
    return _answer(account.account_id, *kept)

"""The tenant behind an operator's or a merchant's call: it must exist (else 404) and live in
this stack's region (else 421 wrong_region naming its home)."""

from __future__ import annotations

from typing import Any, TypeVar

from mzpay import deps
from mzpay.domain.access.oauth import OAuthClient
from mzpay.domain.access.principal import Principal
from mzpay.domain.accounts.residency import ensure_home
from mzpay.domain.common.errors import OfAccount, ServiceError
from mzpay.domain.payments.rules import Payment
from mzpay.domain.payouts.cash_deposits import not_a_partner
from mzpay.store.directory import Account, ApiKey

Served = TypeVar("Served", Account, ApiKey, OAuthClient)


def not_found(what: str) -> ServiceError:
    return ServiceError(404, "not_found", f"No such {what}.")


def served_here(record: Served | None, what: str, api: str) -> Served:
    """`record` if it exists (else 404) and its tenant lives here (else 421 naming its region)."""
    if record is None:
        raise not_found(what)
    ensure_home(record.home_region, api)
    return record


def home_account(account_id: str, api: str = "management") -> Account:
    return served_here(deps.directory().get_account(account_id), "account", api)


Kept = TypeVar("Kept", bound=OfAccount)


def at_home(record: Kept | None, what: str) -> Kept:
    """An operator's read of `record` by its id: 404 not_found ("No such `what`.") when there is
    none, and served by its account's home region only (else 421 naming it)."""
    if record is None:
        raise not_found(what)
    home_account(record.account_id)
    return record


def merchant_name(payment: Payment) -> str:
    """Who a payment pays, as the payer reads it: a collection request's biller, else the
    account's name ("" when the directory has none)."""
    biller = (payment.statement or {}).get("biller")
    if biller:
        return biller
    account = deps.directory().get_account(payment.account_id)
    return account.name if account is not None else ""


def payment_receipt(payment: Payment) -> dict[str, Any]:
    """The receipt of `payment` (mzpay.domain.payments.receipts), with the fiscal details an
    operator set on its account."""
    from mzpay.domain.payments.receipts import receipt

    kept = deps.fiscal_details().get(payment.account_id)
    return receipt(payment, merchant_name(payment), kept[0] if kept is not None else None)


def require_partner(principal: Principal) -> None:
    """403 not_a_partner unless operators made the acting account a partner (cash deposits)."""
    account = deps.directory().get_account(principal.acting_account_id)
    if account is None or not account.partner:
        raise not_a_partner()

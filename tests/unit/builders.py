"""Test data builders, written once: each builds a valid domain object (of the bill payments
capability) or request body from defaults, and a test names only the fields it is about; and the
two helpers every lifecycle test uses (its table as cases, the ServiceError a refused call raises)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import pytest

from mzpay.domain.bills.billers import Biller, BillProduct
from mzpay.domain.bills.payments import BillPayment
from mzpay.domain.bills.quotes import BillQuote, Invoice
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payouts.batches import PayoutBatch, Status
from mzpay.store.directory import Account

NOW = "2026-11-25T08:00:00Z"
BILLER_ID = "01M8A0MH8BAHW8JZV956J9ME1Z"
STAMPS = {"status": "active", "version": 1, "created_at": NOW, "updated_at": NOW}


def moves(table: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, str, Any]]:
    """A lifecycle's table, {status: {action: what follows}}, as the (status, action, what follows)
    cases of one parametrized test, in the table's order."""
    return [(status, action, after) for status, actions in table.items() for action, after in actions.items()]


def refused(call: Callable[[], object]) -> ServiceError:
    """The ServiceError that `call` raises (the test fails when it raises none)."""
    with pytest.raises(ServiceError) as caught:
        call()
    return caught.value


def biller(**fields: Any) -> Biller:
    """An active electricity biller paid through the simulated supplier."""
    defaults = {"biller_id": BILLER_ID, "name": "EDM", "category": "electricity", "supplier": "simulator"}
    return Biller(**{**defaults, "credit_account": "000100001234567890194", **STAMPS, **fields})


def bill_product(**fields: Any) -> BillProduct:
    """An active open-amount product in MZN that yields a receipt."""
    defaults = {"product_id": "01M8A0MH8BAHW8JZV956J9ME20", "biller_id": BILLER_ID, "name": "P", "kind": "open"}
    return BillProduct(
        **{**defaults, "currency": "MZN", "yields": "receipt", "supplier_product": "x", **STAMPS, **fields}
    )


def invoice(**fields: Any) -> Invoice:
    """An open invoice of 1000.00 MZN for Ana, nothing paid."""
    defaults = {"biller_id": "b", "mode": "test", "number": "F1", "customer_name": "Ana", "currency": "MZN"}
    return Invoice(**{**defaults, "amount_due": "1000.00", "paid": "0.00", **STAMPS, "status": "open", **fields})


def bill_quote(amount: str, **fields: Any) -> BillQuote:
    """A quote of `amount` MZN (the total, the channel's debit and the biller's credit alike)."""
    money = {"currency": "MZN", "amount": amount, "total": amount, "channel_debit": amount, "biller_credit": amount}
    return BillQuote(**{**money, "yields": "receipt", "expires_at": NOW, **STAMPS, "status": "quoted", **fields})


def bill_payment(**fields: Any) -> BillPayment:
    """A pending payment of 400.00 MZN (405.00 with the payer's fee)."""
    money = {"currency": "MZN", "amount": "400.00", "total": "405.00", "channel_debit": "405.00"}
    return BillPayment(**{**money, "biller_credit": "400.00", **STAMPS, "status": "pending", **fields})


def account(account_id: str = "01JACC0000000000000000000A", **changes: Any) -> Account:
    """An active account of Mozambique, Loja Maputo, opened on 2026-03-01 at 10:00 and not changed since."""
    opened = "2026-03-01T10:00:00Z"
    return replace(Account(account_id, "Loja Maputo", "mz", "active", "", opened, opened), **changes)


def payout_batch(**fields: Any) -> PayoutBatch:
    """An open batch of 2 lines, 100.00 MZN in all: 1 accepted, 1 refused."""
    ids = {"batch_id": "01JD9B7F1R2S3T4V5W6X7Y8Z9A", "account_id": "01JD0000000000000000000ACC", "mode": "test"}
    lines = {"currency": "MZN", "line_count": 2, "accepted": 1, "refused": 1, "total": "100.00"}
    return PayoutBatch.model_validate({**ids, **lines, **STAMPS, "status": Status.OPEN, **fields})


def collection_payer(phone: str, **changes: Any) -> dict[str, Any]:
    """A collection request's payer as a client sends it: João Sitoe, an individual told by SMS."""
    body: dict[str, Any] = {
        "first_name": "João",
        "last_name": "Sitoe",
        "legal_name": "João Sitoe",
        "vat_number": "400339910",
        "type": "individual",
        "delivery_method": "sms",
        "contact": {"phone_number": phone, "email": "joao@example.co.mz"},
        "address": {"country": "MZ", "city": "Maputo"},
    }
    return {**body, **changes}

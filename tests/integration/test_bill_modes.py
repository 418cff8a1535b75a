"""Modes never meet on bill invoices (issue 30, item 4), with a supplier that answers live as
well as test, as a connected biller's system will: each mode keeps its own copy of an invoice
(INVOICE#<biller>#<mode>#<number>), so a test payment locks only the test invoice (the live
quote, the live payment and the biller's live change still work), a live change never shows in
test, and the test invoice never shows what live wrote. In-process moto with the stack of
template.yaml; the local stack's simulator answers test only (tests/e2e/test_bill_modes.py)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from ulid import ULID

from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import bill_payments, bill_quotes, biller_api
from mzpay.connectors.bill_suppliers import DATA, SimulatedSupplier
from mzpay.domain.access.principal import Principal
from mzpay.domain.bills.biller_api import InvoicePatch
from mzpay.domain.bills.billers import BillerIn, ProductIn
from mzpay.domain.bills.payments import BillPaymentRequest
from mzpay.domain.bills.quotes import QuoteRequest
from mzpay.domain.common.errors import ServiceError
from mzpay.operators import billers
from mzpay.steps import bills as bill_steps
from mzpay.store.aws import env, table
from tests.integration.races import race
from tests.integration.support import function_stack

WATER = "01M8A0MH8BAHW8JZV956J9ME22"


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with function_stack("GatewayBillsFunction", monkeypatch) as provisioned:
        # the simulator answering both modes: a biller's system connected for live as well
        monkeypatch.setattr(bill_steps, "supplier_for", lambda name, mode: SimulatedSupplier())
        yield provisioned


def key_of(account_id: str, mode: str) -> Principal:
    return Principal(
        account_id=account_id,
        mode=mode,
        scopes=frozenset({"payments:write", "payments:read"}),
        key_id=str(ULID()),
        allowed_customers=frozenset(),
        expires_at=None,
        acting_account_id=account_id,
    )


def water_biller(organisation: str) -> str:
    """A copy of the simulated water utility, registered as `organisation`'s: its product id."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    biller = next(b for b in data["billers"] if any(p["product_id"] == WATER for p in b["products"]))
    fields = {k: v for k, v in biller.items() if k not in ("products", "biller_id")}
    made = billers.create_biller(BillerIn.model_validate({**fields, "account_id": organisation}))
    product = {k: v for k, v in biller["products"][0].items() if k != "product_id"}
    return str(billers.add_product(made.biller_id, ProductIn.model_validate(product)).product_id)


def fund(account_id: str, mode: str, amount: str) -> None:
    """The channel's float of `mode`, as captured charges leave it."""
    key = {"pk": f"BAL#{account_id}#{mode}", "sk": "CUR#MZN"}
    item = {**key, "available": Decimal(amount), "held": Decimal(0), "fees": Decimal(0), "currency": "MZN"}
    table(env("PAYMENTS_TABLE")).put_item(Item=item)


def quote(channel: Principal, product_id: str, number: str) -> dict[str, Any]:
    return bill_quotes.quote(
        channel, QuoteRequest.model_validate({"product_id": product_id, "reference": number})
    ).wire()


def pay(channel: Principal, quote_id: str) -> dict[str, Any]:
    request = BillPaymentRequest.model_validate({"quote_id": quote_id})
    return bill_payments.pay(channel, request, str(uuid.uuid4())).wire()


def change(biller: Principal, number: str, **fields: Any) -> dict[str, Any]:
    return biller_api.change_invoice(biller, number, InvoicePatch.model_validate(fields)).wire()


def refused(call: Any) -> tuple[int, str, str]:
    with pytest.raises(ServiceError) as refusal:
        call()
    return refusal.value.status, refusal.value.code, refusal.value.message


def test_a_test_payment_locks_only_the_test_invoice(stack: ProvisionedStack) -> None:
    organisation, channel_id = str(ULID()), str(ULID())
    product_id = water_biller(organisation)
    test_channel, live_channel = key_of(channel_id, "test"), key_of(channel_id, "live")
    test_biller, live_biller = key_of(organisation, "test"), key_of(organisation, "live")
    fund(channel_id, "test", "1000.00")
    fund(channel_id, "live", "1000.00")

    paid = pay(test_channel, quote(test_channel, product_id, "FT2026-000102")["quote_id"])
    assert (paid["status"], paid["amount"]) == ("succeeded", "800.00")
    assert refused(lambda: change(test_biller, "FT2026-000102", description="x")) == (
        409,
        "invoice_locked",
        "Invoice FT2026-000102 is paid or paid in part: it cannot change.",
    )

    # live: the invoice is the live one, open and unpaid: the biller changes it, a channel pays it
    live = change(live_biller, "FT2026-000102", description="Consumo de novembro", due_date="2026-12-31")
    assert {k: live[k] for k in ("status", "amount_due", "paid", "outstanding", "description", "due_date")} == {
        "status": "open",
        "amount_due": "800.00",
        "paid": "0.00",
        "outstanding": "800.00",
        "description": "Consumo de novembro",
        "due_date": "2026-12-31",
    }
    live_quote = quote(live_channel, product_id, "FT2026-000102")
    assert live_quote["invoice"] == {
        "number": "FT2026-000102",
        "amount_due": "800.00",
        "outstanding": "800.00",
        "due_date": "2026-12-31",
    }
    live_paid = pay(live_channel, live_quote["quote_id"])
    assert (live_paid["status"], live_paid["amount"]) == ("succeeded", "800.00")

    # and the test invoice never saw the live change
    test_invoice = deps.bill_quotes().invoice(live_quote["biller_id"], "test", "FT2026-000102")
    assert test_invoice is not None
    assert (test_invoice.paid, test_invoice.status, test_invoice.description, test_invoice.due_date) == (
        "800.00",
        "paid",
        None,
        "2026-12-15",
    )


def test_a_live_change_never_shows_in_test_quotes(stack: ProvisionedStack) -> None:
    organisation, channel_id = str(ULID()), str(ULID())
    product_id = water_biller(organisation)
    live = change(key_of(organisation, "live"), "FT2026-000101", amount_due="1.00", customer_name="Live Only")
    assert (live["amount_due"], live["customer_name"]) == ("1.00", "Live Only")

    test_quote = quote(key_of(channel_id, "test"), product_id, "FT2026-000101")
    assert (test_quote["customer_name"], test_quote["amount"], test_quote["invoice"]) == (
        "Ana Machava",
        "1500.00",
        {"number": "FT2026-000101", "amount_due": "1500.00", "outstanding": "1500.00", "due_date": "2026-12-15"},
    )
    live_quote = quote(key_of(channel_id, "live"), product_id, "FT2026-000101")
    assert (live_quote["amount"], live_quote["invoice"]["amount_due"]) == ("1.00", "1.00")


def test_a_test_payment_and_a_live_change_racing_on_one_number_both_land(stack: ProvisionedStack) -> None:
    """Of one invoice number, the test payment's versioned write and the live change's are on two
    records: racing, neither is a 409 (before issue 30 one of them lost to the other)."""
    organisation, channel_id = str(ULID()), str(ULID())
    product_id = water_biller(organisation)
    test_channel, live_biller = key_of(channel_id, "test"), key_of(organisation, "live")
    fund(channel_id, "test", "1000.00")
    change(live_biller, "FT2026-000102", description="seen in live")  # both copies exist before the race
    made = quote(test_channel, product_id, "FT2026-000102")
    rounds = (
        lambda: pay(test_channel, made["quote_id"]),
        lambda: change(live_biller, "FT2026-000102", amount_due="900.00"),
    )
    with atomic_dynamodb():
        outcomes = race(2, lambda index: rounds[index]())
    assert [kind for kind, _ in outcomes] == ["ok", "ok"], outcomes
    paid, changed = outcomes[0][1], outcomes[1][1]
    assert (paid["status"], paid["amount"]) == ("succeeded", "800.00")
    assert (changed["status"], changed["amount_due"], changed["paid"]) == ("open", "900.00", "0.00")
    test_invoice = deps.bill_quotes().invoice(made["biller_id"], "test", "FT2026-000102")
    assert test_invoice is not None and (test_invoice.amount_due, test_invoice.paid) == ("800.00", "800.00")

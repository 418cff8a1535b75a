"""The connector test kit's bill family: the clauses of the contract that apply to a bill
payment, run by every bill supplier (mzpay.connectors.bill_suppliers) in process. A bill supplier
pays a biller from our balance (`pay`, `payment_status`); what the two families share is in
contract.py. Each `BillKit` says, for its supplier:

- the outcome table: each supplier outcome (a reference's behaviour) to our status and
  failure_code; no answer (a timeout, an outage) is `pending`, never failed;
- idempotent resubmission: the same bill payment id paid twice pays once (the same token or receipt);
- a timeout: the payment stays `pending` (never failed), and a status query reconciles it;
- confirmations (suppliers that call back): late or duplicate ones apply once. No supplier calls
  back yet (they answer `pay` synchronously), so that clause skips, as it does for the
  synchronous charging connectors;
- amounts and account, meter and phone references as the supplier gets them;
- no credential in any log line or in the supplier's repr.

The simulator is the only supplier today (live suppliers are not connected: docs/bills.md); a
live one is done when it has its `BillKit` here, with its sandbox's `wire`, and passes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest

from mzpay.connectors import bill_suppliers
from mzpay.connectors.bill_suppliers import (
    BillCall,
    BillSupplier,
    SimulatedSupplier,
    SupplierPayment,
    SupplierTimeout,
    SupplierUnavailable,
)
from tests.integration.connector_kit.contract import (
    IDS,
    Harness,
    assert_no_secret,
    assert_on_the_wire,
    logged,
    skip_without_callbacks,
)

# A bill payment as a supplier gets it: (product code, reference, amount, what it yields)
Bill = tuple[str, str, str, str]


@dataclass(frozen=True)
class BillKit:
    name: str
    harness: Callable[[], Any]  # a context manager yielding a Harness[BillSupplier]
    # case -> (the bill payment, our status once the supplier decided, our failure_code)
    outcomes: dict[str, tuple[Bill, str, str | None]]
    timeout: Bill  # a payment whose supplier does not answer in time
    # case -> what the supplier gets of that case's payment (amount and reference as it expects them)
    wire: dict[str, dict[str, Any]] = field(default_factory=dict)


class Recording:
    """A supplier that keeps each call it was handed: the in-process supplier's wire."""

    def __init__(self, supplier: BillSupplier) -> None:
        self.supplier, self.calls = supplier, list[BillCall]()

    def quote(self, product_code: str, reference: str, amount: Decimal | None) -> Any:
        return self.supplier.quote(product_code, reference, amount)

    def pay(self, call: BillCall) -> SupplierPayment:
        self.calls.append(call)
        return self.supplier.pay(call)

    def payment_status(self, call: BillCall) -> SupplierPayment:
        self.calls.append(call)
        return self.supplier.payment_status(call)


def bill_call(bill: Bill) -> BillCall:
    product_code, reference, amount, yields = bill
    return BillCall(next(IDS), product_code, reference, Decimal(amount), yields)


# ---------------------------------------------------------------- the suppliers
@contextmanager
def simulator() -> Iterator[Harness[BillSupplier]]:
    recording = Recording(SimulatedSupplier())

    def wire(payment_id: str) -> dict[str, Any]:
        sent = next(call for call in recording.calls if call.payment_id == payment_id)
        return {"product": sent.product_code, "reference": sent.reference, "amount": sent.amount}

    yield Harness(recording, wire=wire)


ELECTRICITY, WATER, AIRTIME = "sim-electricity", "sim-water", "sim-airtime"
BILL_KITS = [
    BillKit(
        "simulator",
        simulator,
        {
            "token": ((ELECTRICITY, "04000000001", "150.00", "token"), "succeeded", None),
            "receipt": ((WATER, "FT2026-000101", "1500.00", "receipt"), "succeeded", None),
            "declined": ((ELECTRICITY, "04000000402", "150.00", "token"), "failed", "supplier_declined"),
            "rejected": ((ELECTRICITY, "04000000403", "150.00", "token"), "failed", "reference_rejected"),
            "unknown": ((ELECTRICITY, "04999999999", "150.00", "token"), "failed", "reference_not_found"),
            "timeout": ((ELECTRICITY, "04000000408", "150.00", "token"), "pending", None),
            "outage": ((ELECTRICITY, "04000000503", "150.00", "token"), "pending", None),
        },
        (ELECTRICITY, "04000000408", "150.00", "token"),
        {  # the meter number keeps its leading zero, the phone number its +258; amounts in MZN
            "token": {"product": ELECTRICITY, "reference": "04000000001", "amount": Decimal("150.00")},
            "airtime": {"product": AIRTIME, "reference": "+258841234567", "amount": Decimal("20.00")},
        },
    ),
]
PAYMENTS = {"airtime": (AIRTIME, "+258841234567", "20.00", "receipt")}


@pytest.fixture(params=BILL_KITS, ids=[kit.name for kit in BILL_KITS])
def kit(request: pytest.FixtureRequest) -> BillKit:
    return request.param  # type: ignore[no-any-return]


def cases() -> list[tuple[BillKit, str]]:
    return [(kit, case) for kit in BILL_KITS for case in kit.outcomes]


def paid(supplier: BillSupplier, payment: BillCall) -> SupplierPayment:
    """The supplier's answer as the gateway takes it (mzpay.steps.bill_outcomes.submit): no answer
    (a timeout, an outage) leaves the payment pending for reconciliation."""
    try:
        return supplier.pay(payment)
    except (SupplierTimeout, SupplierUnavailable):
        return SupplierPayment("pending")


def settled(answer: SupplierPayment, yields: str) -> None:
    """A succeeded payment carries what it yields: a token (20 digits) and receipt, or a receipt."""
    if answer.status == "succeeded":
        assert answer.receipt_number
        assert (answer.token is not None) == (yields == "token")
        assert answer.token is None or (answer.token.isdigit() and len(answer.token) == bill_suppliers.TOKEN_DIGITS)
    else:  # failed or pending: nothing paid yet
        assert (answer.token, answer.receipt_number) == (None, None)


# ---------------------------------------------------------------- the contract
@pytest.mark.parametrize(("kit", "case"), cases(), ids=[f"{k.name}-{c}" for k, c in cases()])
def test_the_outcome_table(kit: BillKit, case: str) -> None:
    bill, status, failure_code = kit.outcomes[case]
    with kit.harness() as harness:
        answer = paid(harness.connector, bill_call(bill))
    assert (answer.status, answer.failure_code) == (status, failure_code)
    assert answer.status != "failed" or answer.failure_message
    settled(answer, bill[3])


def test_the_same_payment_id_twice_pays_once(kit: BillKit) -> None:
    bill, _, _ = kit.outcomes["token"]
    with kit.harness() as harness:
        payment = bill_call(bill)
        first = harness.connector.pay(payment)
        again = harness.connector.pay(payment)
        asked = harness.connector.payment_status(payment)
        other = harness.connector.pay(bill_call(bill))  # another payment of the same bill is another one
    assert first.status == "succeeded"
    assert again == asked == first  # the same token and receipt: paid once
    assert (other.token, other.receipt_number) != (first.token, first.receipt_number)


def test_a_timeout_is_pending_and_reconciles(kit: BillKit) -> None:
    with kit.harness() as harness:
        payment = bill_call(kit.timeout)
        with pytest.raises(SupplierTimeout):  # the gateway keeps the payment pending (mzpay.steps.bill_outcomes)
            harness.connector.pay(payment)
        final = harness.connector.payment_status(payment)
        assert harness.connector.payment_status(payment) == final  # asked again: the same answer
    assert final.status == "succeeded"
    settled(final, kit.timeout[3])


def test_late_or_duplicate_confirmations_apply_once(kit: BillKit) -> None:
    with kit.harness() as harness:
        skip_without_callbacks(kit.name, harness)


def test_amounts_and_references_as_the_supplier_expects(kit: BillKit) -> None:
    bills = {**{case: bill for case, (bill, _, _) in kit.outcomes.items()}, **PAYMENTS}
    with kit.harness() as harness:
        for case, expected in kit.wire.items():
            payment = bill_call(bills[case])
            harness.connector.pay(payment)
            assert_on_the_wire(harness.wire(payment.payment_id), expected)


def test_no_credential_is_ever_logged(
    kit: BillKit, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with logged(caplog, monkeypatch, ()) as log, kit.harness() as harness:
        for bill in [*(bill for bill, _, _ in kit.outcomes.values()), kit.timeout]:
            payment = bill_call(bill)
            paid(harness.connector, payment)
            with suppress(SupplierUnavailable):
                harness.connector.payment_status(payment)
        assert_no_secret(log.text(), harness)

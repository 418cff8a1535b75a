"""The ledger's invariant (issue 32, item 2): for each (account, mode, currency) the entries' legs
add up to the balance item, and the balance transactions listed add up to GET /v1/balance, after
any sequence of charges (some with a provider fee), partial refunds (succeeded and failed),
payouts (paid and failed), disputes (won and lost) and bill payments (succeeded and failed), some
of them run concurrently, all through the real use cases. Hypothesis draws the sequences; each
runs in a fresh account of the stack of template.yaml in in-process moto."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from ulid import ULID

from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import access, balance_transactions, bill_payments, bill_quotes, charges, disputes, payouts, refunds
from mzpay.connectors.bill_suppliers import DATA
from mzpay.domain.access.principal import Principal
from mzpay.domain.bills.billers import BillerIn, ProductIn
from mzpay.domain.bills.payments import BillPaymentRequest
from mzpay.domain.bills.quotes import QuoteRequest
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments.charges import ChargeRequest, Money
from mzpay.domain.payments.disputes import DecideDisputeRequest, OpenDisputeRequest
from mzpay.domain.payments.pricing import FeeRule, Schedule
from mzpay.domain.payouts.rules import PayoutRequest
from mzpay.operators import billers
from tests.integration.races import race
from tests.integration.support import functions_stack

FUNCTIONS = (
    "GatewayPaymentsFunction",
    "GatewayRefundsFunction",
    "GatewayPayoutsFunction",
    "GatewayBillsFunction",
    "PayoutSettlementFunction",
    "ManagementOperationsFunction",
)
ELECTRICITY = "01M8A0MH8BAHW8JZV956J9ME20"  # the simulated Credelec prepaid electricity (docs/test-mode.md)
WALLET = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}}
LOOKS = 20  # readings a look may need while two writers race it
FEE_CARD = {"type": "card", "card": {"token": "tok_test_fee"}}  # the acquirer keeps 2.5%


@pytest.fixture(scope="module")
def stack() -> Iterator[ProvisionedStack]:
    """One stack for the module (each example makes its own account)."""
    with functions_stack(*FUNCTIONS) as provisioned:
        electricity_biller()
        yield provisioned


def electricity_biller() -> None:
    """The simulated Credelec biller and its prepaid product, as the local stack seeds them."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    biller = next(b for b in data["billers"] if any(p["product_id"] == ELECTRICITY for p in b["products"]))
    made = billers.create_biller(BillerIn.model_validate({k: v for k, v in biller.items() if k != "products"}))
    product = next(p for p in biller["products"] if p["product_id"] == ELECTRICITY)
    billers.add_product(made.biller_id, ProductIn.model_validate(product))


def merchant(account_id: str) -> Principal:
    return Principal(
        account_id=account_id,
        mode="test",
        scopes=frozenset({"payments:write", "payments:read", "refunds:write", "payouts:write", "balance:read"}),
        key_id=str(ULID()),
        allowed_customers=frozenset(),
        expires_at=None,
        acting_account_id=account_id,
    )


# ---------------------------------------------------------------- what a sequence does
class Shop:
    """One account and what it made so far (the payments later steps refund or dispute)."""

    def __init__(self) -> None:
        self.account_id = access.create_account("Loja", "mz").id
        self.key = merchant(self.account_id)
        self.payments: list[str] = []
        # the service's fee on its M-Pesa payments: each capture is two entries (the capture, its fee)
        rule = FeeRule("mpesa", "MZN", Decimal("1.5"), Decimal("1.00"), Decimal(0), Decimal("50.00"))
        deps.fee_schedules().write(self.account_id, Schedule((rule,), "2026-11-29T00:00:00Z"))

    def charge(self, cents: int, fee: bool) -> None:
        request = ChargeRequest.model_validate(
            {
                "payment_id": str(ULID()),
                "money": {"amount": f"{Decimal(cents) / 100:.2f}", "currency": "MZN"},
                "source": FEE_CARD if fee else WALLET,
                "country": "MZ",
            }
        )
        answer = charges.create_charge(self.key, request).wire()
        assert answer["status"] == "succeeded", answer
        self.payments.append(str(answer["provider_payment_id"]))

    def payment(self, pick: int) -> str | None:
        return self.payments[pick % len(self.payments)] if self.payments else None

    def refund(self, pick: int, cents: int, fails: bool) -> None:
        paid = self.payment(pick)
        if paid is not None:  # .13 is declined: the money comes back
            money = Money.model_validate(
                {"amount": f"{cents // 100}.{13 if fails else cents % 100 or 1:02d}", "currency": "MZN"}
            )
            refunds.create_refund(self.key, paid, str(ULID()), money, None)

    def payout(self, cents: int, fails: bool) -> None:
        amount = f"{cents // 100}.{13 if fails else cents % 100 or 1:02d}"  # .13 is declined
        request = PayoutRequest.model_validate(
            {"payout_id": str(ULID()), "money": {"amount": amount, "currency": "MZN"}, "destination": WALLET}
        )
        made = payouts.create_payout(self.key, request).wire()
        payouts.settle(str(made["provider_payout_id"]))

    def dispute(self, pick: int, won: bool) -> None:
        paid = self.payment(pick)
        if paid is not None:
            opened = disputes.open_dispute(
                OpenDisputeRequest.model_validate(
                    {"account_id": self.account_id, "provider_payment_id": paid, "reason": "general"}
                )
            ).wire()
            decision = DecideDisputeRequest.model_validate({"outcome": "won" if won else "lost", "note": "test"})
            disputes.decide(str(opened["dispute_id"]), decision, "127.0.0.1")

    def bill(self, fails: bool) -> None:
        reference = "04000000402" if fails else "04000000001"  # 402: the supplier declines, the float comes back
        quoted = bill_quotes.quote(
            self.key,
            QuoteRequest.model_validate({"product_id": ELECTRICITY, "reference": reference, "amount": "20.00"}),
        ).wire()
        bill_payments.pay(
            self.key, BillPaymentRequest.model_validate({"quote_id": quoted["quote_id"]}), str(uuid.uuid4())
        )

    def look(self) -> None:
        """A merchant reading its balance transactions while money moves: whatever lands meanwhile,
        the pages it reads are one ledger, each balance after the next one's less that one."""
        for _attempt in range(LOOKS):
            try:
                rows = listed(self.key, 5)
            except ServiceError as busy:  # 503 while writers keep landing: retry, as Retry-After says
                assert (busy.status, busy.code, busy.headers) == (503, "service_unavailable", {"Retry-After": "1"})
                continue
            assert_one_ledger(rows)
            return
        pytest.fail(f"the balance kept changing through {LOOKS} readings")


Step = tuple[str, tuple[Any, ...]]
CENTS = st.integers(min_value=1_000, max_value=50_000)  # a card takes 10.00 at least
STEP: st.SearchStrategy[Step] = st.one_of(
    st.tuples(st.just("charge"), st.tuples(CENTS, st.booleans())),
    st.tuples(st.just("refund"), st.tuples(st.integers(0, 9), st.integers(100, 20_000), st.booleans())),
    st.tuples(st.just("payout"), st.tuples(st.integers(100, 30_000), st.booleans())),
    st.tuples(st.just("dispute"), st.tuples(st.integers(0, 9), st.booleans())),
    st.tuples(st.just("bill"), st.tuples(st.booleans())),
    st.tuples(st.just("look"), st.just(())),
)
# a round: one step, or two to three run at the same moment in threads
ROUND = st.one_of(st.lists(STEP, min_size=1, max_size=1), st.lists(STEP, min_size=2, max_size=3))


def run(shop: Shop, step: Step) -> None:
    name, args = step
    action: Callable[..., None] = getattr(shop, name)
    try:
        action(*args)
    except ServiceError as refused:  # refused moves (no money, disputed already...) move nothing
        assert refused.status in (400, 404, 409, 422), (step, refused.status, refused.code, refused.message)


# ---------------------------------------------------------------- what must hold
def listed(principal: Principal, page_size: int, **filters: str) -> list[dict[str, Any]]:
    """Every balance transaction, page after page."""
    found: list[dict[str, Any]] = []
    query = {"page_size": str(page_size), **filters}
    while True:
        page = balance_transactions.listing(principal, query).wire()
        found += page["data"]
        if not page["has_more"]:
            assert page["next_page_token"] is None
            return found
        query = {**query, "page_token": page["next_page_token"]}


def total(rows: list[dict[str, Any]], key: str) -> Decimal:
    return sum((Decimal(row[key]) for row in rows), Decimal(0))


def assert_one_ledger(rows: list[dict[str, Any]]) -> None:
    """Each balance after is the newer one's less the newer transaction, down to zero before the first."""
    after = None
    for row in rows:
        shown = (Decimal(row["balance_after"]["available"]), Decimal(row["balance_after"]["held"]))
        assert after is None or shown == after, row
        after = (shown[0] - Decimal(row["net"]), shown[1] - Decimal(row["held"]))
    assert after in (None, (Decimal(0), Decimal(0)))


def assert_the_ledger_adds_up(shop: Shop) -> None:
    shown = refunds.balance(shop.key).wire()["balances"]
    entries = deps.ledger().entries(shop.account_id, "test", "MZN")
    assert len(shown) == (1 if entries else 0)
    if not entries:
        assert listed(shop.key, 7) == []
        return
    balance = {"service_fees": Decimal(0)} | {k: Decimal(v) for k, v in shown[0].items() if k != "currency"}
    legs = {
        name: sum((Decimal(e["legs"].get(name, 0)) for e in entries), Decimal(0))
        for name in ("available", "held", "fees", "service_fees")
    }
    assert legs == balance  # the entries' legs are the balance item, which GET /v1/balance shows
    rows = listed(shop.key, 7)
    for kind in {row["kind"] for row in rows}:
        event(kind)  # --hypothesis-show-statistics: how often each movement was drawn
    assert len(rows) == len(entries)
    assert [row["id"] for row in rows] == [f"btx_{e['sk'][4:]}" for e in reversed(entries)]  # newest first
    assert (total(rows, "net"), total(rows, "held"), total(rows, "provider_fee"), total(rows, "service_fee")) == (
        balance["available"],
        balance["held"],
        balance["fees"],
        balance["service_fees"],
    )
    assert balance["service_fees"] > 0  # the first charge's fee at least
    assert all(Decimal(row["net"]) == Decimal(row["amount"]) - Decimal(row["fee"]) for row in rows)
    newest = rows[0]["balance_after"]
    assert (Decimal(newest["available"]), Decimal(newest["held"])) == (balance["available"], balance["held"])
    assert_one_ledger(rows)
    # a filter pages through the same rows, with the same balances after them
    charges_only = listed(shop.key, 2, type="charge")
    assert charges_only == [row for row in rows if row["type"] == "charge"]
    assert len(charges_only) == len(shop.payments)


@settings(
    max_examples=25,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(rounds=st.lists(ROUND, min_size=1, max_size=8))
def test_balance_transactions_add_up_to_the_balance_after_any_sequence(
    stack: ProvisionedStack, rounds: list[list[Step]]
) -> None:
    shop = Shop()
    shop.charge(100_000, fee=False)  # something to refund, pay out and dispute
    for steps in rounds:
        if len(steps) == 1:
            run(shop, steps[0])
            continue
        outcomes = race(len(steps), lambda index, steps=steps: run(shop, steps[index]))
        assert all(kind == "ok" for kind, _ in outcomes), outcomes
    assert_the_ledger_adds_up(shop)

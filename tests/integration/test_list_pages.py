"""The merchant's list pages (mzpay.store.listings) against the payments table of template.yaml in
in-process moto: whatever the objects, filters, page size and per-shard read budget, paging from
the first page to the last gives exactly the objects that match, newest first, each once, and
never another account's or mode's. Checked against a plain filter-and-sort of the same objects
(hypothesis), and a status change moves an object between status partitions in its own write."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ulid import ULID

from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.domain.common.listing import Filters
from mzpay.domain.payments.rules import Payment
from mzpay.store import listings
from mzpay.store.list_keys import list_attributes
from mzpay.store.listings import Scope
from mzpay.store.transitions import versioned_update
from tests.integration.support import function_stack

STATUSES = ["succeeded", "failed", "pending"]
SECONDS = [f"2026-11-2{day}T1{hour}:00:00Z" for day in (7, 8) for hour in (0, 1, 2)]


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with function_stack("GatewayPaymentsFunction", monkeypatch) as provisioned:
        yield provisioned


def payment(account: str, mode: str, created_at: str, status: str, **extra: Any) -> Payment:
    amount = extra.pop("amount", "100.00")
    return Payment.model_validate(
        {
            "provider_payment_id": str(ULID()),
            "payment_id": str(ULID()),
            "account_id": account,
            "mode": mode,
            "amount": amount,
            "currency": extra.pop("currency", "MZN"),
            "country": "MZ",
            "authorized_amount": amount,
            "captured_amount": amount if status == "succeeded" else "0.00",
            "fingerprint": "f",
            "created_at": created_at,
            "updated_at": created_at,
            "status": status,
            "version": 1,
            **extra,
        }
    )


def store(found: list[Payment]) -> None:
    table = deps.payments().table
    for made in found:
        table.put_item(
            Item={"pk": f"PAY#{made.provider_payment_id}", "sk": "PAYMENT", **made.item(), **list_attributes(made)}
        )


def matches(made: Payment, filters: Filters, customers: frozenset[str]) -> bool:
    checks = [
        filters.status is None or made.status == filters.status,
        filters.currency is None or made.currency == filters.currency,
        filters.created_gte is None or made.created_at >= filters.created_gte,
        filters.created_lt is None or made.created_at < filters.created_lt,
        filters.amount_gte is None or Decimal(made.amount) >= filters.amount_gte,
        filters.amount_lte is None or Decimal(made.amount) <= filters.amount_lte,
        not customers or made.customer_id in customers,
        filters.metadata is None or (made.metadata or {}).get(filters.metadata[0]) == filters.metadata[1],
    ]
    return all(checks)


def every_page(scope: Scope, filters: Filters, size: int) -> tuple[list[str], int]:
    """The ids of every page from the first to the last, and how many pages it took."""
    seen: list[str] = []
    position: str | None = None
    pages = 0
    while True:
        found, position = deps.listings().page(Payment, scope, filters, position, size)
        pages += 1
        assert len(found) <= size
        seen += [p.provider_payment_id for p in found]
        if position is None:
            return seen, pages
        assert pages < 500, "paging never ends"


objects = st.lists(
    st.tuples(
        st.sampled_from(SECONDS),
        st.sampled_from(STATUSES),
        st.sampled_from(["MZN", "USD"]),
        st.sampled_from(["1.00", "100.00", "250.50"]),
        st.sampled_from([None, "cust-a", "cust-b"]),
        st.sampled_from([None, "a", "b"]),
        st.sampled_from(["mine", "mine-live", "theirs"]),
    ),
    max_size=30,
)
filters = st.builds(
    Filters,
    status=st.sampled_from([None, *STATUSES]),
    currency=st.sampled_from([None, "MZN", "USD"]),
    created_gte=st.sampled_from([None, *SECONDS[:3]]),
    created_lt=st.sampled_from([None, *SECONDS[3:]]),
    amount_gte=st.sampled_from([None, Decimal("50")]),
    amount_lte=st.sampled_from([None, Decimal("100.00")]),
    metadata=st.sampled_from([None, ("order", "a")]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    made=objects,
    asked=filters,
    customers=st.sampled_from([frozenset(), frozenset({"cust-a"})]),
    size=st.integers(1, 7),
    budget=st.sampled_from([2, 5, 400]),
)
def test_paging_gives_every_match_once_newest_first(
    stack: ProvisionedStack,
    monkeypatch: pytest.MonkeyPatch,
    made: list[tuple[Any, ...]],
    asked: Filters,
    customers: frozenset[str],
    size: int,
    budget: int,
) -> None:
    monkeypatch.setattr(listings, "BUDGET", budget)
    mine, theirs = str(ULID()), str(ULID())
    stored = []
    for created_at, status, currency, amount, customer, order, owner in made:
        account = theirs if owner == "theirs" else mine
        mode = "live" if owner == "mine-live" else "test"
        extra: dict[str, Any] = {"currency": currency, "amount": amount}
        if customer:
            extra["customer"] = {"id": customer}
        if order:
            extra["metadata"] = {"order": order}
        stored.append(payment(account, mode, created_at, status, **extra))
    store(stored)
    scope = Scope(mine, "test", customers)
    expected = sorted(
        (p for p in stored if p.account_id == mine and p.mode == "test" and matches(p, asked, customers)),
        key=lambda p: (p.created_at, p.provider_payment_id),
        reverse=True,
    )
    seen, pages = every_page(scope, asked, size)
    assert seen == [p.provider_payment_id for p in expected]
    if budget >= 400:  # nothing cut short: every page but the last is full
        assert pages == max(1, -(-len(expected) // size))


def test_a_status_change_moves_the_payment_between_status_lists(stack: ProvisionedStack) -> None:
    account = str(ULID())
    pending = payment(account, "test", SECONDS[0], "pending")
    store([pending])
    scope = Scope(account, "test")
    assert [
        p.provider_payment_id for p in deps.listings().page(Payment, scope, Filters(status="pending"), None, 10)[0]
    ] == [pending.provider_payment_id]
    update = versioned_update(
        deps.payments().name,
        {"pk": f"PAY#{pending.provider_payment_id}", "sk": "PAYMENT"},
        pending,
        {"status": "succeeded"},
    )
    deps.payments().client.update_item(**update["Update"])
    assert deps.listings().page(Payment, scope, Filters(status="pending"), None, 10) == ([], None)
    moved, position = deps.listings().page(Payment, scope, Filters(status="succeeded"), None, 10)
    assert [(p.provider_payment_id, p.status, p.version) for p in moved] == [
        (pending.provider_payment_id, "succeeded", 2)
    ]
    assert position is None
    everything, _ = deps.listings().page(Payment, scope, Filters(), None, 10)
    assert [p.status for p in everything] == ["succeeded"]


def test_an_object_stored_before_the_lists_joins_them_on_its_next_change(stack: ProvisionedStack) -> None:
    account = str(ULID())
    old = payment(account, "test", SECONDS[0], "pending")
    deps.payments().table.put_item(Item={"pk": f"PAY#{old.provider_payment_id}", "sk": "PAYMENT", **old.item()})
    scope = Scope(account, "test")
    assert deps.listings().page(Payment, scope, Filters(), None, 10) == ([], None)
    update = versioned_update(
        deps.payments().name, {"pk": f"PAY#{old.provider_payment_id}", "sk": "PAYMENT"}, old, {"status": "failed"}
    )
    deps.payments().client.update_item(**update["Update"])
    found, _ = deps.listings().page(Payment, scope, Filters(), None, 10)
    assert [(p.provider_payment_id, p.status) for p in found] == [(old.provider_payment_id, "failed")]

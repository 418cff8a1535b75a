"""Nothing half-done: a charge or refund whose creating write landed but whose provider call never
happened (a fault right after the write) is finished by a retry of the same request, or by the
sweep, exactly once; in-process moto with the stack of template.yaml."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from botocore.exceptions import ReadTimeoutError
from ulid import ULID

from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.answers.payments import ChargeResult
from mzpay.cases import charges, refunds
from mzpay.cases import expiry as sweep
from mzpay.connectors.base import NOT_RECEIVED, ProviderCall, ProviderResult
from mzpay.connectors.simulated import SimulatedConnector
from mzpay.domain.access.principal import Principal
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payments import expiry
from mzpay.domain.payments.charges import ChargeRequest
from mzpay.domain.payments.refunds import Refund
from mzpay.domain.payments.rules import Payment, Status
from mzpay.steps import payments as payment_steps
from mzpay.store import aws
from tests.integration.races import race
from tests.integration.support import provisioned_stack

TIMEOUT = ReadTimeoutError(endpoint_url="https://dynamodb.af-south-1.amazonaws.com")


def _clear() -> None:
    deps.reset()


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with provisioned_stack() as provisioned:
        environment = {
            **provisioned.functions["GatewayPaymentsFunction"].environment,
            **provisioned.functions["PaymentExpiryFunction"].environment,
        }
        for name, value in environment.items():
            monkeypatch.setenv(name, value)
        _clear()
        yield provisioned
        _clear()


def merchant(mode: str = "test") -> Principal:
    return Principal(
        account_id="01JACCOUNT0000000000000000",
        mode=mode,
        scopes=frozenset({"payments:write", "payments:read", "refunds:write"}),
        key_id="01JKEY00000000000000000000",
        allowed_customers=frozenset(),
        expires_at=None,
        acting_account_id="01JACCOUNT0000000000000000",
    )


def charge_request(payment_id: str, amount: str = "150.00") -> ChargeRequest:
    return ChargeRequest.model_validate(
        {
            "payment_id": payment_id,
            "money": {"amount": amount, "currency": "MZN"},
            "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}},
            "country": "MZ",
        }
    )


class Calls:
    """Counts the simulator's charge and refund calls; `fail_next` makes the next one a fault."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.charges = 0
        self.refunds = 0
        self.fail_next = False
        charge, refund = SimulatedConnector.charge, SimulatedConnector.refund

        def counted_charge(connector: SimulatedConnector, call: ProviderCall) -> ProviderResult:
            if self.fail_next:
                self.fail_next = False
                raise TIMEOUT
            self.charges += 1
            return charge(connector, call)

        def counted_refund(
            connector: SimulatedConnector, call: ProviderCall, amount: Decimal, reference: str = ""
        ) -> ProviderResult:
            if self.fail_next:
                self.fail_next = False
                raise TIMEOUT
            self.refunds += 1
            return refund(connector, call, amount, reference)

        monkeypatch.setattr(SimulatedConnector, "charge", counted_charge)
        monkeypatch.setattr(SimulatedConnector, "refund", counted_refund)


def lease_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the creating request's submission lease had run out: the rules' clock runs an hour on."""
    on_time = expiry.iso
    monkeypatch.setattr(expiry, "iso", lambda moment: on_time(moment + timedelta(hours=1)))


@pytest.fixture
def calls(stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch) -> Calls:
    """The simulator's calls, counted, on the provisioned stack."""
    return Calls(monkeypatch)


def half_made_charge(calls: Calls, payment_id: str) -> Payment:
    """A charge whose write landed while its request met a fault before the provider call."""
    calls.fail_next = True
    with pytest.raises(ReadTimeoutError):
        charges.create_charge(merchant(), charge_request(payment_id))
    claimed = deps.payments().by_payment_id(merchant().account_id, "test", payment_id)
    assert claimed is not None
    stored = claimed.entity
    assert stored.status == Status.PENDING and stored.submit_lease_until
    return stored


def kinds(outcomes: list[tuple[str, Any]]) -> set[str]:
    """What racing retries answered: the outcome, or a wait while another retry submits it."""
    return {kind if kind == "ok" else getattr(value, "code", repr(value)) for kind, value in outcomes}


def events_of(resource_id: str) -> list[str]:
    table = aws.table(deps.payments().events_name)
    items = table.query(
        IndexName="gsi1", KeyConditionExpression="gsi1pk = :pk", ExpressionAttributeValues={":pk": f"RES#{resource_id}"}
    )["Items"]
    return [item["type"] for item in sorted(items, key=lambda i: i["sk"])]


def test_a_retry_within_the_lease_is_asked_to_wait_and_one_after_it_finishes_the_charge(
    calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    payment_id = str(ULID())
    stored = half_made_charge(calls, payment_id)
    with pytest.raises(ServiceError) as early:  # the creator might still be submitting it
        charges.create_charge(merchant(), charge_request(payment_id))
    assert (early.value.status, early.value.code, early.value.headers) == (
        409,
        "request_in_progress",
        {"Retry-After": "1"},
    )
    assert calls.charges == 0
    lease_ended(monkeypatch)
    finished = charges.create_charge(merchant(), charge_request(payment_id))
    assert finished.provider_payment_id == stored.provider_payment_id
    assert (finished.status, finished.captured_amount, calls.charges) == ("succeeded", "150.00", 1)
    assert events_of(stored.provider_payment_id) == ["payment.created", "payment.succeeded"]
    again = charges.create_charge(merchant(), charge_request(payment_id))
    assert (again.status, calls.charges) == ("succeeded", 1)
    final = deps.payments().get(stored.provider_payment_id)
    assert final is not None and final.submit_lease_until is None


def test_concurrent_retries_submit_a_half_made_charge_exactly_once(
    calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    payment_id = str(ULID())
    stored = half_made_charge(calls, payment_id)
    lease_ended(monkeypatch)
    with atomic_dynamodb():
        outcomes = race(6, lambda _: charges.create_charge(merchant(), charge_request(payment_id)))
    assert kinds(outcomes) <= {"ok", "request_in_progress"} and "ok" in kinds(outcomes), outcomes
    assert calls.charges == 1
    final = deps.payments().get(stored.provider_payment_id)
    assert final is not None and final.status == "succeeded"
    assert events_of(stored.provider_payment_id) == ["payment.created", "payment.succeeded"]


def test_the_sweep_submits_a_test_charge_its_request_abandoned(calls: Calls, monkeypatch: pytest.MonkeyPatch) -> None:
    stored = half_made_charge(calls, str(ULID()))
    assert sweep.expire_due().resumed == 0  # the lease still runs: nobody takes it over
    lease_ended(monkeypatch)
    assert sweep.expire_due() == sweep.SweepTally(expired=0, reconciled=0, resumed=1, operator_cases=0)
    final = deps.payments().get(stored.provider_payment_id)
    assert final is not None and (final.status, calls.charges) == ("succeeded", 1)
    assert sweep.expire_due().resumed == 0


class AskedConnector:
    """A provider that can be asked about a charge (like live M-Pesa) and never received this one."""

    def __init__(self) -> None:
        self.asked = 0
        self.charged = 0

    def status(self, call: ProviderCall) -> ProviderResult:
        self.asked += 1
        return ProviderResult(Status.FAILED, None, NOT_RECEIVED, "The provider never received the payment.")

    def charge(self, call: ProviderCall) -> ProviderResult:
        self.charged += 1
        return ProviderResult(Status.SUCCEEDED, captured=True)


def test_a_provider_that_can_be_asked_is_asked_first_retry_submits_the_sweep_fails_it(
    calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    retried = half_made_charge(calls, str(ULID()))
    swept = half_made_charge(calls, str(ULID()))
    provider = AskedConnector()
    monkeypatch.setattr(payment_steps, "connector_of", lambda payment: provider)
    lease_ended(monkeypatch)
    after_retry = payment_steps.resume(retried)
    assert (after_retry.status, provider.asked, provider.charged) == ("succeeded", 1, 1)
    after_sweep = payment_steps.resume(swept, submit=False)
    assert (after_sweep.status, after_sweep.failure_code) == ("failed", NOT_RECEIVED)
    assert (provider.asked, provider.charged) == (2, 1)  # never submitted minutes later by the sweep
    assert events_of(swept.provider_payment_id) == ["payment.created", "payment.failed"]


def half_made_refund(calls: Calls, refund_id: str) -> tuple[ChargeResult, Refund]:
    paid = charges.create_charge(merchant(), charge_request(str(ULID())))
    calls.fail_next = True
    with pytest.raises(ReadTimeoutError):
        refunds.create_refund(merchant(), paid.provider_payment_id, refund_id, None, "requested_by_customer")
    claimed = deps.refunds().by_refund_id(merchant().account_id, "test", refund_id)
    assert claimed is not None
    stored = claimed.entity
    assert stored.status == Status.PENDING and stored.submit_lease_until
    return paid, stored


def test_a_retried_refund_is_finished_once_and_the_sweep_finishes_an_abandoned_one(
    calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    refund_id = str(ULID())
    paid, stored = half_made_refund(calls, refund_id)
    lease_ended(monkeypatch)
    with atomic_dynamodb():
        outcomes = race(
            4,
            lambda _: refunds.create_refund(
                merchant(), paid.provider_payment_id, refund_id, None, "requested_by_customer"
            ),
        )
    assert kinds(outcomes) <= {"ok", "request_in_progress"} and "ok" in kinds(outcomes), outcomes
    assert calls.refunds == 1
    assert events_of(stored.provider_refund_id) == ["refund.created", "refund.succeeded"]
    assert refunds.balance(merchant()).wire()["balances"] == [
        {"currency": "MZN", "available": "0.00", "held": "0.00", "fees": "0.00"}
    ]

    other_paid, abandoned = half_made_refund(calls, str(ULID()))
    assert sweep.expire_due().resumed == 0  # its lease still runs
    lease_ended(monkeypatch)
    assert sweep.expire_due() == sweep.SweepTally(expired=0, reconciled=0, resumed=1, operator_cases=0)
    final = deps.refunds().get(abandoned.provider_refund_id)
    assert final is not None and (final.status, calls.refunds) == ("succeeded", 2)
    assert final.due_at is None and final.submit_lease_until is None
    assert sweep.expire_due().resumed == 0
    assert other_paid.status == "succeeded"

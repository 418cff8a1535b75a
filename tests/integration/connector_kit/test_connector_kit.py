"""The connector test kit: one contract every charging connector passes, in process against its
loopback sandbox (no local stack). A new connector is done when it has a `Kit` here and the kit
passes. Each kit says, for its connector:

- the outcome table: each provider outcome it can be driven to, and our status and failure_code;
- idempotent resubmission: once the provider decided, asking again (`status`, or a second
  submission the provider refuses by reference) never yields a second captured charge;
- a timeout: the charge is `pending` (never failed), and reconciles to the provider's outcome;
- callbacks (connectors that take them): a late one decides, a duplicate says the same again
  (the store applies it once: tests/e2e/test_live_paysuite.py), a badly signed one never verifies;
- amounts and phone numbers as they go on the wire;
- no credential in any log line or in the connector's repr.

The bill suppliers do not charge a payer (they pay a biller from our balance): they run the
clauses that apply to a bill payment in test_bill_supplier_kit.py, with what both families share
in contract.py."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest

from mzpay.connectors import mpesa as mpesa_module
from mzpay.connectors import paysuite as paysuite_module
from mzpay.connectors.base import Connector, Notified, ProviderCall, ProviderResult, Reconciling
from mzpay.connectors.mpesa import MpesaConnector
from mzpay.connectors.paysuite import PaysuiteConnector
from mzpay.connectors.simulated import SimulatedConnector
from tests.integration.connector_kit.contract import (
    IDS,
    PATIENCE,
    SLOW,
    Harness,
    assert_no_secret,
    assert_on_the_wire,
    logged,
    skip_without_callbacks,
)
from tests.providers.mpesa_sandbox import C2B_PATH, MpesaSandbox
from tests.providers.paysuite_sandbox import PAYMENTS_PATH, CallbackReceiver, PaysuiteSandbox


@dataclass(frozen=True)
class Kit:
    name: str
    harness: Callable[[], Any]  # a context manager yielding a Harness
    network: str
    # case -> (the payer's phone, the amount, our status once the provider decided, our failure_code)
    outcomes: dict[str, tuple[str, str, str, str | None]]
    timeout: tuple[str, str]  # (phone, amount) of a charge whose provider answers too late
    wire: dict[str, Any] = field(default_factory=dict)  # what a charge of (phone, amount) sends


def call(kit: Kit, phone: str, amount: str, reference: str | None = None) -> ProviderCall:
    """A charge of `amount` from `phone`'s wallet; a card kit's (network "card") is a card its
    provider's page takes (the phone is not sent)."""
    wallet = {"type": "mobile_wallet", "mobile_wallet": {"network": kit.network, "phone_number": phone}}
    source = {"type": "card"} if kit.network == "card" else wallet
    return ProviderCall(next(IDS), Decimal(amount), "MZN", source, "https://shop.example/back", False, reference)


def decided(kit: Kit, harness: Harness[Connector], charge: ProviderCall, first: ProviderResult) -> ProviderResult:
    """The charge once its provider decided: the first answer, or (a provider that calls back)
    what its verified callback says."""
    if harness.callbacks is None or first.status != "requires_action":
        return first
    [(raw, signed)] = harness.callbacks.of(charge.provider_payment_id)
    assert isinstance(harness.connector, Notified) and harness.connector.verify_callback(raw, signed)
    return harness.connector.callback_outcome(json.loads(raw), charge)


# ---------------------------------------------------------------- the connectors
@contextmanager
def simulated() -> Iterator[Harness[Connector]]:
    yield Harness(SimulatedConnector())


@contextmanager
def mpesa() -> Iterator[Harness[Connector]]:
    with MpesaSandbox(api_key="kit-api-key-0123456789", slow_seconds=SLOW) as sandbox:
        credentials = sandbox.credentials()

        def wire(reference: str) -> dict[str, Any]:
            bodies = [r.body for r in sandbox.requests if r.path == C2B_PATH and r.body]
            return next(b for b in bodies if b["input_ThirdPartyReference"] == reference[-12:])

        secrets = (credentials["api_key"], credentials["security_credential"])
        yield Harness(MpesaConnector(credentials, timeout=PATIENCE), secrets, wire, sandbox=sandbox)


@contextmanager
def paysuite() -> Iterator[Harness[Connector]]:
    receiver = CallbackReceiver()
    try:
        with PaysuiteSandbox(slow_seconds=SLOW) as sandbox:
            credentials = sandbox.credentials(callback_url=receiver.url)

            def wire(reference: str) -> dict[str, Any]:
                bodies = [r.body for r in sandbox.requests if r.path == PAYMENTS_PATH and r.body]
                return next(b for b in bodies if b["reference"] == reference)

            secrets = (credentials["api_token"], credentials["webhook_secret"])
            connector = PaysuiteConnector(credentials, timeout=PATIENCE)
            yield Harness(connector, secrets, wire, receiver, sandbox)
    finally:
        receiver.close()


PAYSUITE_OUTCOMES: dict[str, tuple[str, str, str, str | None]] = {  # the sandbox decides by the amount's cents
    "paid": ("+258861230000", "150.00", "succeeded", None),
    "insufficient_funds": ("+258861230000", "150.01", "failed", "insufficient_funds"),
    "gateway_page": ("+258861230000", "150.05", "pending", None),
    "refused": ("+258861230000", "150.06", "failed", "provider_declined"),
    "never_paid": ("+258861230000", "150.07", "requires_action", None),
}
KITS = [
    Kit(
        "simulated",
        simulated,
        "emola",
        {
            "paid": ("+258860000000", "150.00", "succeeded", None),
            "insufficient_funds": ("+258860000001", "150.00", "failed", "insufficient_funds"),
            "payer_declined": ("+258860000002", "150.00", "failed", "payer_declined"),
        },
        ("+258860000003", "150.00"),
    ),
    Kit(
        "vodacom-mpesa",
        mpesa,
        "mpesa",
        {
            "paid": ("+258841230000", "150.00", "succeeded", None),
            "insufficient_funds": ("+258841230001", "150.00", "failed", "insufficient_funds"),
            "payer_declined": ("+258851230002", "150.00", "failed", "payer_declined"),
            "invalid_phone": ("+258841230005", "150.00", "failed", "invalid_phone"),
            "gateway_page": ("+258841230004", "150.00", "pending", None),
            "duplicate": ("+258841230006", "150.00", "pending", None),
            "other_code": ("+258841239876", "150.00", "failed", "provider_declined"),
        },
        ("+258841230003", "150.00"),
        {"input_CustomerMSISDN": "258841230000", "input_Amount": "150.00"},
    ),
    Kit(
        "paysuite",
        paysuite,
        "emola",
        PAYSUITE_OUTCOMES,
        ("+258861230000", "150.02"),
        {"amount": "150.00"},  # no phone number: the payer types it on PaySuite's page
    ),
    Kit(  # live cards: PaySuite's page takes the card (docs/connectors.md)
        "paysuite-card",
        paysuite,
        "card",
        {case: ("", *outcome[1:]) for case, outcome in PAYSUITE_OUTCOMES.items()},  # the same amounts, no phone
        ("", "150.02"),
        {"amount": "150.00", "return_url": "https://shop.example/back"},  # no card data on the wire
    ),
]


@pytest.fixture(params=KITS, ids=[kit.name for kit in KITS])
def kit(request: pytest.FixtureRequest) -> Kit:
    return request.param  # type: ignore[no-any-return]


def cases() -> list[tuple[Kit, str]]:
    return [(kit, case) for kit in KITS for case in kit.outcomes]


# ---------------------------------------------------------------- the contract
@pytest.mark.parametrize(("kit", "case"), cases(), ids=[f"{k.name}-{c}" for k, c in cases()])
def test_the_outcome_table(kit: Kit, case: str) -> None:
    phone, amount, status, failure_code = kit.outcomes[case]
    with kit.harness() as harness:
        charge = call(kit, phone, amount)
        if case == "never_paid":  # nothing more will come: the first answer is all there is
            result = harness.connector.charge(charge)
        else:
            result = decided(kit, harness, charge, harness.connector.charge(charge))
    assert (result.status, result.failure_code) == (status, failure_code)
    assert result.status != "succeeded" or result.captured


def test_once_decided_asking_again_never_charges_twice(kit: Kit) -> None:
    phone, amount, _, _ = kit.outcomes["paid"]
    with kit.harness() as harness:
        charge = call(kit, phone, amount)
        first = harness.connector.charge(charge)
        assert decided(kit, harness, charge, first).status == "succeeded"
        reference = first.extra.get("provider_reference")
        if isinstance(harness.connector, Reconciling):  # resume() asks before it would resubmit
            again = harness.connector.status(charge_with(charge, reference))
            assert (again.status, again.captured) == ("succeeded", True), again
        if harness.sandbox is not None and kit.name.startswith("paysuite"):  # refused by reference
            assert harness.connector.charge(charge).status == "failed"
            assert len(harness.sandbox.payments) == 1


def charge_with(charge: ProviderCall, reference: Any) -> ProviderCall:
    return ProviderCall(
        charge.provider_payment_id, charge.amount, charge.currency, charge.source, charge.return_url, False, reference
    )


def test_a_timeout_is_pending_and_reconciles(kit: Kit) -> None:
    phone, amount = kit.timeout
    with kit.harness() as harness:
        charge = call(kit, phone, amount)
        first = harness.connector.charge(charge)
        assert (first.status, first.failure_code) == ("pending", None)
        if harness.callbacks is not None:  # the late callback decides
            final = decided(kit, harness, charge, ProviderResult("requires_action"))
        elif isinstance(harness.connector, Reconciling):  # the status query, once the provider finished
            harness.sandbox.wait_for_answers(1, timeout=SLOW + 5)
            final = harness.connector.status(charge)
        else:  # the simulator's payer answers the prompt
            final = harness.connector.complete_action(charge, {"type": "poll"}, None)
    assert (final.status, final.captured) == ("succeeded", True)


def test_callbacks_late_duplicate_and_badly_signed(kit: Kit) -> None:
    with kit.harness() as harness:
        skip_without_callbacks(kit.name, harness)
        connector = harness.connector
        assert isinstance(connector, Notified)
        duplicated = call(kit, "+258861230000", "150.03")
        connector.charge(duplicated)
        twice = harness.callbacks.of(duplicated.provider_payment_id, 2)
        assert twice[0] == twice[1]  # the same event and request_id: applied once by the store
        assert {connector.callback_outcome(json.loads(raw), duplicated).status for raw, _ in twice} == {"succeeded"}
        forged = call(kit, "+258861230000", "150.04")
        connector.charge(forged)
        [(raw, signed)] = harness.callbacks.of(forged.provider_payment_id)
        assert not connector.verify_callback(raw, signed)


def test_amounts_and_phone_numbers_on_the_wire(kit: Kit) -> None:
    with kit.harness() as harness:
        charge = call(kit, kit.outcomes["paid"][0], "150")
        harness.connector.charge(charge)
        sent = harness.wire(charge.provider_payment_id)
    assert_on_the_wire(sent, kit.wire)


def test_no_credential_is_ever_logged(
    kit: Kit, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with logged(caplog, monkeypatch, (mpesa_module, paysuite_module)) as log, kit.harness() as harness:
        for phone, amount, _, _ in [*kit.outcomes.values(), (*kit.timeout, "", None)]:
            charge = call(kit, phone, amount)
            harness.connector.charge(charge)
            if isinstance(harness.connector, Reconciling):
                harness.connector.status(charge)
        assert log.lines or kit.name == "simulated"
        assert_no_secret(log.text(), harness)

"""The gateway's answer models (mzpay.answers, indexed by mzpay.openapi.gateway.ROUTES) against the
code that builds the answers: real entities made by the real use cases, steps and views (the stores
replaced by in-memory fakes with deps.substitute, the simulator as connector), each answer validated
by its route's model, in many states; so are the events they record (and webhooks deliver). Also:
every example validates, every model and field is described, ROUTES names exactly the operations of
docs/openapi/gateway.json, the models' enumerations are the domain's, and no model name clashes with
a request body's."""

from __future__ import annotations

import json
import time
import typing
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from types import SimpleNamespace
from typing import Any
from uuid import uuid4

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from pydantic import BaseModel

from mzpay import deps
from mzpay.answers import access as access_answers
from mzpay.answers import events as event_answers
from mzpay.answers import name_lookups as lookup_answers
from mzpay.answers import payments as payment_answers
from mzpay.answers import payouts as payout_answers
from mzpay.answers import refunds as refund_answers
from mzpay.answers import service as service_answers
from mzpay.answers.balance import Balance
from mzpay.cases import access, account_endpoints, charges, checkout, client_certs, events, oauth
from mzpay.cases import name_lookups as name_lookup_cases
from mzpay.cases import payouts as payout_cases
from mzpay.cases import refunds as refund_cases
from mzpay.cases import secret_scanning as scanning
from mzpay.config import SERVICE_REGIONS, Settings
from mzpay.domain.access import client_certs as cert_rules
from mzpay.domain.access import keys, secret_scanning
from mzpay.domain.access.oauth import AuthMethod, ClientStatus, OAuthClient, TokenRequest
from mzpay.domain.access.principal import Principal
from mzpay.domain.common.clock import iso, now_iso
from mzpay.domain.common.ids import new_id
from mzpay.domain.common.model import Strict
from mzpay.domain.money.amounts import format_amount
from mzpay.domain.payments import methods
from mzpay.domain.payments import rules as payments
from mzpay.domain.payments.charges import ChargeRequest, CheckoutRequest, Money, Source, check_charge
from mzpay.domain.payments.manual import MANUAL
from mzpay.domain.payments.pricing import FeeRule, Schedule
from mzpay.domain.payments.rules import Payment, Status, charge_result, snapshot
from mzpay.domain.payouts import destinations as payout_destinations
from mzpay.domain.payouts import name_lookups
from mzpay.domain.payouts import rules as payouts
from mzpay.domain.payouts.limits import PayoutLimits
from mzpay.domain.payouts.rules import BankPayoutRequest, PayoutRequest
from mzpay.domain.webhooks.events import Event
from mzpay.domain.webhooks.secrets import SecretVersion
from mzpay.openapi import gateway as answers
from mzpay.openapi.gateway import ROUTES
from mzpay.steps.admission import stored_source
from mzpay.steps.checkouts import create_checkout as open_checkout
from mzpay.steps.connectors import connector_for
from mzpay.steps.payments import apply_outcome, close, payment_event, provider_call, waiting
from mzpay.store.directory import Account, ApiKey
from mzpay.webhooks import sign
from tests.unit import openapi_checks
from tests.unit.test_client_cert_rules import csr_of

DOCUMENT = openapi_checks.shipped_document("gateway")
ACCOUNT = "01JD0000000000000000000ACC"
KEY = "01JD0000000000000000000KEY"
PEPPER = "pepper-for-tests"
SECRET = "whsec_test_secret"
NIB = "0003 0108 0016 3671 0237 1"
# M-Pesa payments pay the service a fee (shown on the payment), card payments none
SCHEDULE = Schedule((FeeRule("mpesa", "MZN", Decimal("1.5"), Decimal("0"), Decimal("1.00")),), "2026-11-29T08:00:00Z")


# ---------------------------------------------------------------- in-memory stores
class Store:
    """Every fake store: entities by id, and the events written with them (in order)."""

    def __init__(self, log: list[Event]) -> None:
        self.items: dict[str, Any] = {}
        self.log = log

    def get(self, *ids: str) -> Any:
        return self.items.get(ids[-1])

    def put(self, entity_id: str, entity: Any, events: list[Event] | None = None) -> Any:
        self.items[entity_id] = entity
        self.log.extend(events or [])
        return entity


class Payments(Store):
    def create(self, payment: Payment, events: list[Event], *_: Any) -> None:
        self.put(payment.provider_payment_id, payment, events)

    def by_payment_id(self, *_: str) -> None:
        return None

    def with_schedule(self, provider_payment_id: str, *_: Any) -> tuple[Payment | None, Schedule]:
        return self.get(provider_payment_id), SCHEDULE

    def transition(self, payment: Payment, changes: dict[str, Any], events: list[Event], **_: Any) -> Payment:
        return self.put(payment.provider_payment_id, payment.changed(changes), events)  # type: ignore[no-any-return]


class Refunds(Store):
    def __init__(self, log: list[Event], payments: Payments) -> None:
        super().__init__(log)
        self.payments = payments

    def create(self, refund: Any, payment: Payment, events: list[Event], _held: Any) -> None:
        self.payments.put(
            payment.provider_payment_id, payment.changed({"refunded_amount": payment.refunded_amount + refund.value})
        )
        self.put(refund.provider_refund_id, refund, events)

    def by_refund_id(self, *_: str) -> None:
        return None

    def settle(self, refund: Any, changes: dict[str, Any], events: list[Event], _entry: Any, give_back: Decimal) -> Any:
        payment = self.payments.items[refund.provider_payment_id]
        self.payments.put(
            payment.provider_payment_id, payment.changed({"refunded_amount": payment.refunded_amount - give_back})
        )
        return self.put(refund.provider_refund_id, refund.changed(changes), events)


class Payouts(Store):
    def create(self, payout: Any, events: list[Event], *_: Any) -> None:
        self.put(payout.provider_payout_id, payout, events)

    def by_payout_id(self, *_: str) -> None:
        return None

    def transition(self, payout: Any, changes: dict[str, Any], events: list[Event], *_: Any, **__: Any) -> Any:
        return self.put(payout.provider_payout_id, payout.changed(changes), events)


class NameLookups(Store):
    def create(self, lookup: Any) -> None:
        self.put(lookup.lookup_id, lookup)

    def transition(self, lookup: Any, changes: dict[str, Any]) -> Any:
        return self.put(lookup.lookup_id, lookup.changed(changes))


class Events(Store):
    table = SimpleNamespace(name="events")

    def page(self, _account: str, _mode: str, size: int, cursor: Any, *_: Any) -> tuple[list[Event], Any]:
        start = int(cursor["at"]) if cursor else 0
        page = self.log[start : start + size]
        return page, ({"at": str(start + size)} if start + size < len(self.log) else None)

    def get(self, _account: str, _mode: str, event_id: str) -> Event | None:
        return next((event for event in self.log if event.id == event_id), None)


class Directory(Store):
    def get_account(self, account_id: str) -> Account | None:
        return self.items.get(account_id)  # type: ignore[no-any-return]

    def get_key(self, key_id: str) -> ApiKey | None:
        return self.items.get(key_id)  # type: ignore[no-any-return]

    def key_by_hash(self, digest: str) -> ApiKey | None:
        return next((key for key in self.items.values() if getattr(key, "key_hash", None) == digest), None)

    def roll_key(self, old: ApiKey, new: ApiKey, until: str) -> None:
        self.put(old.key_id, replace(old, status=keys.KeyStatus.ROLLED, expires_at=until, rolled_to=new.key_id))
        self.put(new.key_id, new)

    def revoke_key(self, key: ApiKey, events: list[Event], _table: str) -> ApiKey:
        return self.put(key.key_id, replace(key, status=keys.KeyStatus.REVOKED), events)  # type: ignore[no-any-return]


class Endpoints(Store):
    def read(self, account_id: str, mode: str) -> dict[str, str] | None:
        return self.items.get(f"{account_id}#{mode}")  # type: ignore[no-any-return]

    def write(self, account_id: str, mode: str, url: str, now: str) -> None:
        self.put(f"{account_id}#{mode}", {"url": url, "updated_at": now})

    def delete(self, account_id: str, mode: str) -> None:
        self.items.pop(f"{account_id}#{mode}", None)


class ClientCerts(Store):
    def __init__(self, log: list[Event], directory: Directory) -> None:
        super().__init__(log)
        self.directory = directory
        self.ca_pair: tuple[str, str] | None = None

    def count_of(self, _account_id: str) -> int:
        return len(self.items)

    def ca(self, create: Any) -> tuple[str, str]:
        self.ca_pair = self.ca_pair or create()
        return self.ca_pair

    def add(self, record: Any) -> None:
        self.put(record.fingerprint, record)

    def set_mtls(self, account_id: str, required: bool, _version: int) -> None:
        self.directory.put(account_id, replace(self.directory.items[account_id], mtls_required=required))


class OAuth(Store):
    def get_client(self, client_id: str) -> OAuthClient | None:
        return self.items.get(client_id)  # type: ignore[no-any-return]

    def put_token(self, token: Any, _expires: datetime) -> None:
        self.put(token.token_hash, token)

    def client_by_secret_hash(self, _digest: str) -> None:
        return None

    def token_by_hash(self, _digest: str) -> None:
        return None


class World(SimpleNamespace):
    log: list[Event]
    payments: Payments
    refunds: Refunds
    payouts: Payouts
    limits: SimpleNamespace
    directory: Directory
    oauth: OAuth


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    log: list[Event] = []
    payment_store, directory = Payments(log), Directory(log)
    now = now_iso()
    directory.put(ACCOUNT, Account(ACCOUNT, "Loja Ana", "mz", "active", "", now, now))
    directory.put(KEY, _api_key(KEY, "mzp_test_" + "a" * 38))
    limits = SimpleNamespace(value=PayoutLimits(), read=lambda *_: limits.value)
    secrets = SimpleNamespace(read=lambda *_: ([SecretVersion("s1", "sealed", datetime.now(UTC), None)], 1))
    secrets.decrypt = lambda *_: SECRET
    stores = World(
        log=log,
        payments=payment_store,
        refunds=Refunds(log, payment_store),
        payouts=Payouts(log),
        limits=limits,
        directory=directory,
        oauth=OAuth(log),
    )
    for module in (access, oauth, scanning):
        monkeypatch.setattr(module, "key_pepper", lambda: PEPPER)
    with deps.substitute(
        settings=Settings(service_region="mz", stage="test", secret_scanning_keys_urls={"github": "https://keys"}),
        payments=stores.payments,
        refunds=stores.refunds,
        payouts=stores.payouts,
        payout_limits=limits,
        name_lookups=NameLookups(log),
        events=Events(log),
        ledger=SimpleNamespace(
            balances=lambda *_: [{"currency": "MZN", "available": Decimal("970"), "held": Decimal("30.5")}]
        ),
        directory=directory,
        account_endpoints=Endpoints(log),
        fee_schedules=SimpleNamespace(read=lambda *_: SCHEDULE),
        client_certs=ClientCerts(log, directory),
        oauth=stores.oauth,
        webhook_secrets=secrets,
    ):
        yield stores


def _api_key(key_id: str, secret: str) -> ApiKey:
    return ApiKey(
        key_id, ACCOUNT, "mz", "test", list(keys.DEFAULT_SCOPES), keys.KeyStatus.ACTIVE,
        keys.key_hash(secret, PEPPER), keys.redacted(secret), now_iso(),
    )  # fmt: skip


def merchant(key_id: str = KEY) -> Principal:
    return Principal(ACCOUNT, "test", frozenset(keys.SCOPES), key_id, frozenset(), None, ACCOUNT)


def valid(model: Any, answer: Any) -> Any:
    """`answer` validated by `model` (after a JSON round trip: what the client reads; an answer model
    as the keys it was built with, mzpay.answers)."""
    plain = answer.model_dump() if isinstance(answer, BaseModel) else answer
    return model.model_validate(json.loads(json.dumps(plain, default=str)))


# ---------------------------------------------------------------- payments
def charge(source: dict[str, Any], amount: str = "150.00", **extra: Any) -> Payment:
    """A test charge as POST /charges makes it (admission aside): written, sent to the simulator,
    its answer applied by the real step."""
    request = ChargeRequest.model_validate(
        {"payment_id": str(uuid4()), "money": {"amount": amount, "currency": "MZN"}, "source": source}
        | {"country": "MZ", "return_url": "https://shop.example/back", **extra}
    )
    check_charge(request, "test")
    now = now_iso()
    payment = Payment(
        provider_payment_id=new_id(), payment_id=request.payment_id, account_id=ACCOUNT, mode="test", key_id=KEY,
        psp_id="simulator", status=Status.PENDING, version=1, amount=format_amount(request.money.value, "MZN"),
        currency="MZN", source=stored_source(request), country="MZ", return_url=request.return_url,
        open_amount=request.open_amount, min_amount=request.min_amount, max_amount=request.max_amount,
        suggested_amounts=request.suggested_amounts, authorized_amount="0.00", captured_amount="0.00",
        fingerprint="test", created_at=now, updated_at=now,
    )  # fmt: skip
    payment = payment.with_changes(waiting(payment, datetime.now(UTC)))
    deps.payments().create(payment, [payment_event("payment.created", payment, now)])
    connector = connector_for(ACCOUNT, "test", request.source.type, "simulator")
    return apply_outcome(payment, connector.charge(provider_call(payment)), now_iso(), answer=charge_result)


def wallet(phone: str) -> dict[str, Any]:
    return {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": phone}}


CHARGES = {
    "succeeded wallet": (wallet("+258840000000"), "succeeded", None),
    "failed wallet": (wallet("+258840000001"), "failed", None),
    "pending wallet": (wallet("+258840000003"), "pending", None),
    "wallet prompt": (wallet("+258841234567"), "requires_action", "poll"),
    "test card number": ({"type": "card", "card": {"number": "4242424242424242"}}, "succeeded", None),
    "declined card": ({"type": "card", "card": {"token": "tok_test_declined"}}, "failed", None),
    "3-D Secure": ({"type": "card", "card": {"token": "tok_test_3ds"}}, "requires_action", "redirect_to_url"),
    "otp card": ({"type": "card", "card": {"token": "tok_test_otp"}}, "requires_action", "display_otp_form"),
    "authorized card": ({"type": "card", "card": {"token": "tok_test_authorize"}}, "authorized", None),
    "reference": ({"type": "reference"}, "requires_action", "display_reference"),
    "ussd": ({"type": "ussd", "ussd": {"channel": "menu"}}, "requires_action", "display_ussd_code"),
    "qr": ({"type": "qr"}, "requires_action", "display_qr_code"),
    "bank transfer": ({"type": "bank_transfer"}, "requires_action", "redirect_to_url"),
    "bnpl": ({"type": "bnpl"}, "requires_action", "redirect_to_url"),
}


@pytest.mark.parametrize("case", sorted(CHARGES))
def test_a_charge_answers_a_charge_result_and_reads_as_a_snapshot(world: World, case: str) -> None:
    source, status, action = CHARGES[case]
    payment = charge(source, "600.00" if source["type"] == "bnpl" else "150.00")
    result = valid(payment_answers.ChargeResult, charge_result(payment))
    assert (result.status, result.next_action and result.next_action.type) == (status, action)
    assert (result.failure_code is not None, result.failure_message is not None) == (status == "failed",) * 2
    valid(payment_answers.PaymentSnapshot, charges.read_payment(merchant(), payment.provider_payment_id))


def test_the_actions_on_a_charge_answer_charge_results(world: World) -> None:
    otp = charge({"type": "card", "card": {"token": "tok_test_otp"}})
    done = valid(
        payment_answers.ChargeResult, charges.complete_action(merchant(), otp.provider_payment_id, "123456", None)
    )
    assert (done.status, done.next_action) == ("succeeded", None)
    held = charge({"type": "card", "card": {"token": "tok_test_authorize"}})
    captured = valid(
        payment_answers.ChargeResult, charges.capture(merchant(), held.provider_payment_id, "60.00", "MZN")
    )
    assert (captured.status, captured.captured_amount) == ("succeeded", "60.00")
    voided = charge({"type": "card", "card": {"token": "tok_test_authorize"}})
    assert (
        valid(payment_answers.ChargeResult, charges.void(merchant(), voided.provider_payment_id)).status == "canceled"
    )
    prompt = charge(wallet("+258841234567"))  # test mode: the simulated payer approves after a few seconds
    long_ago = iso(datetime.now(UTC) - timedelta(seconds=10))
    world.payments.put(prompt.provider_payment_id, prompt.changed({"updated_at": long_ago}))
    approved = valid(payment_answers.PaymentSnapshot, charges.read_payment(merchant(), prompt.provider_payment_id))
    assert (approved.status, approved.next_action, approved.expires_at) == ("succeeded", None, None)


def test_an_open_amount_charge_shows_its_bounds_as_sent(world: World) -> None:
    source = {"type": "card", "card": {"token": "tok_test_visa"}}
    payment = charge(source, "0", open_amount=True, min_amount="10", suggested_amounts=["50.00", "100"])
    view = charge_result(payment)
    assert {k: view[k] for k in ("open_amount", "min_amount", "max_amount")} == {
        "open_amount": True,
        "min_amount": "10",  # as the merchant wrote it, not in the currency's digits
        "max_amount": None,
    }
    assert valid(payment_answers.ChargeResult, view).next_action.type == "redirect_to_url"
    paid = charges.complete_action(merchant(), payment.provider_payment_id, None, "75.50")
    assert valid(payment_answers.ChargeResult, paid).money.amount == "75.50"


def test_a_checkout_its_cancel_and_its_expiry_answer_snapshots(world: World) -> None:
    request = CheckoutRequest(amount="250", currency="MZN", callback_url="https://shop.example/hook")
    created = valid(
        payment_answers.PaymentSnapshot, checkout.create_checkout(merchant(), request, "https://pay.example")
    )
    assert (created.status, created.source, created.checkout_url is not None) == ("requires_payment_method", None, True)
    assert created.money.amount == "250.00"
    canceled = valid(payment_answers.PaymentSnapshot, checkout.cancel(merchant(), created.provider_payment_id))
    assert (canceled.status, canceled.expires_at) == ("canceled", None)
    linked = open_checkout(  # as a collection request's payment link opens it
        merchant(), request, "https://pay.example", {"biller": "EDM"}, ["mpesa"], "01JD00000000000000000000CR"
    )
    assert valid(payment_answers.PaymentSnapshot, linked).collection_request_id == "01JD00000000000000000000CR"
    expired = close(world.payments.items[linked["provider_payment_id"]], "expire", Status.EXPIRED, "payment.expired")
    assert valid(payment_answers.PaymentSnapshot, snapshot(expired)).status == "expired"


# ---------------------------------------------------------------- refunds and balance
def test_refunds_answer_refund_results_and_the_payment_shows_them(world: World) -> None:
    payment = charge(wallet("+258840000000"))
    pid = payment.provider_payment_id
    outcomes = {}
    for amount, reason in (("50.00", "Returned item"), ("0.13", None), ("0.14", None)):
        answer = refund_cases.create_refund(merchant(), pid, str(uuid4()), Money(amount=amount, currency="MZN"), reason)
        result = valid(refund_answers.RefundResult, answer)
        outcomes[amount] = (result.status, result.failure_code)
        assert (
            valid(refund_answers.RefundResult, refund_cases.read_refund(merchant(), result.provider_refund_id))
            == result
        )
    assert outcomes == {"50.00": ("succeeded", None), "0.13": ("failed", "refund_declined"), "0.14": ("pending", None)}
    refunded = valid(payment_answers.PaymentSnapshot, charges.read_payment(merchant(), pid))
    assert refunded.refunded_amount == "50.14"
    everything = refund_cases.create_refund(
        merchant(), charge(wallet("+258840000000")).provider_payment_id, None, None, None
    )
    assert valid(refund_answers.RefundResult, everything).money.amount == "150.00"


def test_the_balance(world: World) -> None:
    balance = valid(Balance, refund_cases.balance(merchant()))
    assert balance.balances[0].model_dump() == {
        "currency": "MZN",
        "available": "970.00",
        "held": "30.50",
        "fees": "0.00",
    }


# ---------------------------------------------------------------- payouts and name lookups
DESTINATIONS = {
    "mobile_wallet": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}},
    "manual": {"type": "manual", "manual": {"reference": "PO-77"}},
    "manual without details": {"type": "manual"},
    "crypto": {"type": "crypto", "crypto": {"address": "bc1qexample", "network": "bitcoin"}},
    "cheque": {"type": "cheque", "cheque": {"payee_name": "Ana Machava"}},
}


def payout_request(destination: dict[str, Any], amount: str = "100.00") -> PayoutRequest:
    money = {"amount": amount, "currency": "MZN"}
    return PayoutRequest.model_validate({"payout_id": str(uuid4()), "money": money, "destination": destination})


@pytest.mark.parametrize("kind", sorted(DESTINATIONS))
def test_a_payout_answers_a_payout_through_its_lifecycle(world: World, kind: str) -> None:
    created = valid(payout_answers.Payout, payout_cases.create_payout(merchant(), payout_request(DESTINATIONS[kind])))
    assert created.status == "pending"
    assert payout_cases.settle(created.provider_payout_id) == "paid"
    assert (
        valid(payout_answers.Payout, payout_cases.read_payout(merchant(), created.provider_payout_id)).status == "paid"
    )


def test_bank_payouts_failures_cancels_and_rejections(world: World) -> None:
    body = {"payout_id": str(uuid4()), "money": {"amount": "100.13", "currency": "MZN"}, "method": "bank"}
    bank = BankPayoutRequest.model_validate(body | {"beneficiary": {"name": "Ana Machava", "account": NIB}})
    created = valid(payout_answers.Payout, payout_cases.create_payout(merchant(), bank.to_payout_request()))
    assert created.destination.bank_transfer.account == "*" * 17 + "2371"
    payout_cases.settle(created.provider_payout_id)
    failed = valid(payout_answers.Payout, payout_cases.read_payout(merchant(), created.provider_payout_id))
    assert (failed.status, failed.failure_code) == ("failed", "payout_declined")
    pending = payout_cases.create_payout(merchant(), payout_request(DESTINATIONS["manual"]))
    assert (
        valid(payout_answers.Payout, payout_cases.cancel(merchant(), pending.provider_payout_id)).status == "canceled"
    )
    world.limits.value = PayoutLimits(approval_threshold={"MZN": Decimal("1000")})
    waiting_one = valid(
        payout_answers.Payout, payout_cases.create_payout(merchant(), payout_request(DESTINATIONS["manual"], "5000.00"))
    )
    assert waiting_one.status == "waiting_for_approval"
    rejected = valid(payout_answers.Payout, payout_cases.reject(waiting_one.provider_payout_id, "Not expected"))
    assert (rejected.status, rejected.failure_code, rejected.failure_message) == (
        "rejected",
        "rejected",
        "Not expected",
    )


def test_name_lookups_resolved_ambiguous_and_selected(world: World) -> None:
    def lookup(body: dict[str, Any]) -> Any:
        request = name_lookups.NameLookupRequest.model_validate(body)
        return valid(lookup_answers.NameLookup, name_lookup_cases.create_lookup(merchant(), request))

    assert lookup({"type": "bank_transfer", "bank_transfer": {"account": NIB}}).status == "resolved"
    ambiguous = lookup(
        {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000002"}}
    )
    assert (ambiguous.status, ambiguous.name, len(ambiguous.candidates)) == ("ambiguous", None, 3)
    selected = valid(lookup_answers.NameLookup, name_lookup_cases.select(merchant(), ambiguous.lookup_id, "cand_2"))
    assert (selected.status, selected.name) == ("selected", "Ana Maria Machava")


# ---------------------------------------------------------------- events and webhooks
OBJECTS: dict[str, type[BaseModel]] = {
    "payment": payment_answers.PaymentSnapshot,
    "refund": refund_answers.RefundResult,
    "payout": payout_answers.Payout,
}


def test_the_events_of_those_changes_and_their_objects(world: World) -> None:
    charge(wallet("+258840000000"))
    refund_cases.create_refund(merchant(), charge(wallet("+258840000000")).provider_payment_id, None, None, "Duplicate")
    payout_cases.create_payout(merchant(), payout_request(DESTINATIONS["mobile_wallet"]))
    page = valid(event_answers.EventList, events.list_events(merchant(), "100", None, None, None))
    assert not page.has_more and {e.resource for e in page.data} == {"payment", "refund", "payout"}
    for event in page.data:  # what webhooks deliver: the resource as its own route answers it
        valid(OBJECTS[event.resource], event.data["object"])
        assert valid(event_answers.Event, events.read_event(merchant(), event.id)) == event
    first = valid(event_answers.EventList, events.list_events(merchant(), "1", None, None, None))
    assert first.has_more and first.next_cursor is not None


def test_the_webhook_signature_check_and_its_refusals(world: World) -> None:
    body, now = b'{"id": "evt"}', int(time.time())
    verified = valid(
        event_answers.WebhookVerification, events.verify_signature(merchant(), sign(body, [SECRET], now), body)
    )
    assert (verified.valid, verified.t) == (True, now)
    refusals = []
    for header in (None, "v1=abc", sign(body, ["whsec_other"], now), sign(body, [SECRET], now - 3600)):
        with pytest.raises(events.SignatureRefused) as refused:
            events.verify_signature(merchant(), header, body)
        refusals.append(valid(event_answers.SignatureRefusal, refused.value.body()))
    assert [(r.error, r.t is None) for r in refusals] == [
        ("signature_invalid", True),
        ("signature_invalid", True),
        ("signature_invalid", False),
        ("signature_timestamp_outside_tolerance", False),
    ]


# ---------------------------------------------------------------- access, OAuth, secret scanning, health
def test_api_keys_current_rolled_and_revoked(world: World) -> None:
    assert valid(access_answers.ApiKey, access.current_api_key(merchant())).status == "active"
    rolled = valid(access_answers.RolledApiKey, access.roll_api_key(merchant(), KEY, 3600))
    assert rolled.rolled.id == KEY and rolled.key.startswith("mzp_test_")
    old = valid(access_answers.ApiKey, access.current_api_key(merchant()))
    assert (old.status, old.rolled_to, old.expires_at) == ("rolled", rolled.id, rolled.rolled.expires_at)
    assert valid(access_answers.ApiKey, access.current_api_key(merchant(rolled.id))).status == "active"
    report = json.dumps([{"token": rolled.key, "type": "mzpay_api_key"}, {"token": "ghp_other", "type": "x"}])
    with pytest.MonkeyPatch.context() as patch:  # a report signed with the provider's key
        patch.setattr(scanning, "provider_key", lambda url, key_id: "PEM")
        patch.setattr(secret_scanning, "signature_valid", lambda *_: True)
        labels = valid(
            service_answers.SecretScanningLabels, scanning.receive("github", report.encode(), "k1", "sig", None)
        )
    assert [label.label for label in labels.root] == ["true_positive", "false_positive"]
    revoked = valid(access_answers.ApiKey, access.current_api_key(merchant(rolled.id)))
    assert revoked.status == "revoked"
    valid(access_answers.ApiKey, world.log[-1].data["object"])  # api_key.revoked carries the key as its route shows it


def test_the_accounts_endpoint_set_read_and_removed(world: World) -> None:
    assert valid(access_answers.WebhookEndpoint, account_endpoints.read(merchant())).url is None
    set_one = valid(
        access_answers.WebhookEndpoint, account_endpoints.set_url(merchant(), "https://shop.example/events")
    )
    assert set_one.updated_at is not None
    assert valid(access_answers.WebhookEndpoint, account_endpoints.read(merchant())) == set_one
    assert valid(access_answers.WebhookEndpoint, account_endpoints.remove(merchant())).updated_at is None


def test_client_certificates_and_the_mtls_switch(world: World) -> None:
    made = valid(access_answers.ClientCertificate, client_certs.issue(merchant(), None))
    assert made.private_key is not None
    from_csr = client_certs.issue(merchant(), csr_of(ec.generate_private_key(ec.SECP256R1())))
    assert (
        "private_key" not in from_csr.wire() and valid(access_answers.ClientCertificate, from_csr).private_key is None
    )
    assert valid(access_answers.MtlsSetting, client_certs.mtls(merchant())).required is False
    assert valid(access_answers.MtlsSetting, client_certs.set_mtls(merchant(), True, made.certificate)).required is True
    assert valid(access_answers.MtlsSetting, client_certs.mtls(merchant())).required is True
    assert cert_rules.fingerprint_of(made.certificate) == made.fingerprint_sha256 == made.id


def test_the_oauth_token(world: World) -> None:
    secret = keys.generate_key("test", keys.CLIENT_SECRET_PREFIX)
    client = OAuthClient(
        new_id(), ACCOUNT, "mz", "test", ["payments:read", "events:read"], ClientStatus.ACTIVE, AuthMethod.SECRET,
        "shop", now_iso(), secret_hash=keys.key_hash(secret, PEPPER),
    )  # fmt: skip
    world.oauth.put(client.client_id, client)
    request = TokenRequest("client_credentials", "events:read", client.client_id, secret)
    token = valid(access_answers.OAuthToken, oauth.issue_token(request, "https://gw.example/oauth/token"))
    assert (token.token_type, token.scope, token.expires_in) == ("Bearer", "events:read", 3600)


def test_health_methods_and_the_document(world: World) -> None:
    from mzpay.http import api_docs
    from mzpay.version import health_report

    assert valid(service_answers.Health, health_report("gateway")).service_region == "mz"
    listed = valid(payment_answers.MethodList, charges.methods())
    assert [m.method for m in listed.methods] == list(methods.METHODS)
    assert (
        valid(service_answers.OpenApiDocument, json.loads(api_docs.document("gateway")))
        .root["openapi"]
        .startswith("3.1")
    )


# ---------------------------------------------------------------- the models themselves
def test_every_example_validates_and_every_model_and_field_is_described() -> None:
    openapi_checks.assert_examples_valid_and_described(answers.models())


def test_routes_are_exactly_the_operations_of_the_gateway_document() -> None:
    document, operations = openapi_checks.document_operations(DOCUMENT)
    assert set(ROUTES) == operations
    pages = {path for path in document["paths"] if path.startswith(("/checkout/", "/docs"))}
    assert {path for (_, path), model in ROUTES.items() if model is None} == pages


def literal(model: type[BaseModel], field: str) -> set[Any]:
    annotation = model.model_fields[field].annotation
    while typing.get_origin(annotation) in (list, typing.Union, type(int | None)):
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    return set(typing.get_args(annotation))


def values(constants: type) -> set[str]:
    return {v for k, v in vars(constants).items() if k.isupper()}


def test_the_enumerations_are_the_domains() -> None:
    assert literal(payment_answers.ChargeResult, "status") == values(payments.Status)
    assert literal(payout_answers.Payout, "status") == values(payouts.Status)
    assert literal(refund_answers.RefundResult, "status") == {Status.PENDING, Status.SUCCEEDED, Status.FAILED}
    charged = literal(payment_answers.PaymentSource, "type") - {MANUAL}  # manual: recorded, never charged
    assert literal(payment_answers.PaymentSource, "type") == charged | {MANUAL}
    assert charged == set(typing.get_args(Source.model_fields["type"].annotation))
    assert charged == set(methods.METHODS) == literal(payment_answers.MethodInfo, "method")
    assert literal(payment_answers.SourceWallet, "network") == set(methods.NETWORK_PREFIXES)
    assert literal(payout_answers.PayoutDestination, "type") == set(payout_destinations.DESTINATION_TYPES)
    assert literal(lookup_answers.NameLookup, "type") == set(name_lookups.LOOKUP_TYPES)
    assert literal(lookup_answers.NameLookup, "status") == values(name_lookups.LookupStatus)
    assert literal(access_answers.ApiKey, "status") == values(keys.KeyStatus)
    scopes = access_answers.ApiKey.model_json_schema()["properties"]["scopes"]["items"]
    assert scopes["enum"] == list(keys.SCOPES)
    assert literal(access_answers.ApiKey, "mode") == set(keys.MODES)
    assert literal(access_answers.ClientCertificate, "status") == values(cert_rules.CertStatus)
    assert literal(service_answers.Health, "service_region") == set(SERVICE_REGIONS)
    assert literal(service_answers.SecretScanningLabel, "label") == {
        secret_scanning.TRUE_POSITIVE,
        secret_scanning.FALSE_POSITIVE,
    }


def test_no_answer_model_is_named_like_a_request_body() -> None:
    """The generator files schemas by name: an answer named like a request body would replace it."""
    import mzpay.domain.payments.charges
    import mzpay.domain.payments.refunds
    from mzpay.http import gateway_schemas, key_schemas

    bodies = {
        cls.__name__
        for module in (
            mzpay.domain.payments.charges,
            payouts,
            mzpay.domain.payments.refunds,
            name_lookups,
            gateway_schemas,
            key_schemas,
        )
        for cls in vars(module).values()
        if isinstance(cls, type) and issubclass(cls, Strict)
    }
    ours = {
        name
        for module in (
            answers,
            access_answers,
            event_answers,
            lookup_answers,
            payment_answers,
            payout_answers,
            refund_answers,
            service_answers,
        )
        for name, cls in vars(module).items()
        if isinstance(cls, type) and issubclass(cls, BaseModel)
    }
    shapes = {"Problem", "FieldError", "CollectionError", "OAuthError"}  # the generator's error shapes
    assert "Money" in bodies and (bodies | shapes) & ours == set()

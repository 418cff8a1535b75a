"""The tenancy matrix (issue 11): every gateway route, reached with another account's resource ids,
with the other mode's resource ids, and acting (?account_id=) for an unrelated account, a suspended
connected account, another region's account and an id that does not exist. Each answer is asserted
whole, and nothing of the accounts touched changes. The positive case: a connected active account is
reachable and what is created is ITS.

The route list comes from the gateway's resolvers (devstack.openapi, the same source as the committed
OpenAPI document): a new route without an entry in ROUTES fails `test_every_gateway_route_is_in_the_matrix`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from devstack.openapi import documents
from mzpay.domain.access.keys import SCOPES
from tests.e2e.management_client import Operator
from tests.e2e.test_bill_payments import DATA
from tests.expected import problem
from tests.polling import eventually

pytestmark = pytest.mark.e2e

ALL_SCOPES = list(SCOPES)
NOWHERE = "01JN0SXCHACC0XNT0000000000"  # a well-formed account id that no region knows
PHONE = "+258840000000"
AMBIGUOUS_NIB = "0001 0000 0000 0002 8000 2"  # the simulated bank answers three candidates


def quote_body() -> dict[str, Any]:
    """A quote of the simulated prepaid electricity (docs/bills.md)."""
    return {"product_id": "01M8A0MH8BAHW8JZV956J9ME20", "reference": "04000000001", "amount": "20.00"}


def wallet() -> dict[str, Any]:
    return {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": PHONE}}


# ---------------------------------------------------------------- the tenants
@dataclass
class Resources:
    """Ids of one account's resources of one mode."""

    payment: str = ""
    refund: str = ""
    payout: str = ""
    batch: str = ""  # an open payout batch
    event: str = ""
    lookup: str = ""
    psp_transaction: str = ""
    intent: str = ""  # a cash-deposit intent, confirmed
    deposit: str = ""
    dispute: str = ""  # decided (won): it holds no money
    key: str = ""  # an API key id of the account (of this mode)
    quote: str = ""  # a bill quote (quoted)
    bill_payment: str = ""  # a bill payment (succeeded)
    report: str = ""  # a report (succeeded)
    balance_transaction: str = ""  # the newest ledger entry (btx_...)


@dataclass
class Tenant:
    stack: RunningStack
    operator: Operator
    account_id: str
    keys: dict[str, dict[str, Any]] = field(default_factory=dict)  # mode -> created key (id, key)
    test: Resources = field(default_factory=Resources)

    @classmethod
    def create(cls, stack: RunningStack, operator: Operator, name: str, scopes: list[str] | None = None) -> Tenant:
        account = operator.ok("POST", "/v1/accounts", {"name": name, "region": operator.region})
        tenant = cls(stack, operator, account["id"])
        for mode in ("test", "live"):
            body: dict[str, Any] = {"mode": mode, **({"scopes": scopes} if scopes else {})}
            tenant.keys[mode] = operator.ok("POST", f"/v1/accounts/{account['id']}/api-keys", body)
        operator.ok("PUT", f"/v1/accounts/{account['id']}/partner", {"partner": True})  # cash deposits
        return tenant

    def call(self, method: str, path: str, body: Any = None, mode: str = "test", query: str = "") -> requests.Response:
        headers = {"Authorization": f"Bearer {self.keys[mode]['key']}", "Idempotency-Key": str(uuid.uuid4())}
        url = self.stack.state["regions"][self.operator.region]["gateway"] + path + query
        return requests.request(method, url, json=body, headers=headers, timeout=30)

    def furnish(self, query: str = "") -> Resources:
        """Test-mode resources of every kind (made by this tenant, or for it by a platform: `query`)."""
        made = Resources(key=self.keys["test"]["id"])
        charge = self.call("POST", "/charges", charge_body("1000.00"), query=query)
        assert charge.status_code == 200 and charge.json()["status"] == "succeeded", charge.text
        made.payment = charge.json()["provider_payment_id"]
        refund = self.call("POST", f"/v1/payments/{made.payment}/refund", refund_body("10.00"), query=query)
        assert refund.status_code == 200, refund.text
        made.refund = refund.json()["provider_refund_id"]
        payout = self.call("POST", "/payouts", payout_body(), query=query)
        assert payout.status_code == 200, payout.text
        made.payout = payout.json()["provider_payout_id"]
        settled = eventually(
            lambda: self.call("GET", f"/v1/payouts/{made.payout}", query=query).json()["status"],
            lambda status: status in ("paid", "failed"),
        )
        assert settled == "paid"  # settled through the queue: nothing moves by itself afterwards
        batch = self.call("POST", "/v1/payout-batches", {"currency": "MZN", "lines": [payout_body()]}, query=query)
        assert batch.status_code == 200 and batch.json()["status"] == "open", batch.text
        made.batch = batch.json()["batch_id"]
        lookup = self.call("POST", "/v1/name-lookups", lookup_body(), query=query)
        assert lookup.status_code == 200 and lookup.json()["status"] == "ambiguous", lookup.text
        made.lookup = lookup.json()["lookup_id"]
        recorded = self.call("POST", "/v1/psp/transactions", psp_body(), query=query)
        assert recorded.status_code == 201, recorded.text
        made.psp_transaction = recorded.json()["transaction_id"]
        payer = self.call("POST", "/v1/name-lookups", {"type": "mobile_wallet", **wallet()}, query=query)
        assert payer.status_code == 200, payer.text
        intent = self.call(
            "POST",
            "/v1/cash-deposits/intents",
            {"lookup_id": payer.json()["lookup_id"], "money": {"amount": "1.00", "currency": "MZN"}},
            query=query,
        )
        assert intent.status_code == 201, intent.text
        made.intent = intent.json()["intent_id"]
        deposit = self.call("POST", "/v1/cash-deposits", {"intent_id": made.intent}, query=query)
        assert deposit.status_code == 201, deposit.text
        made.deposit = deposit.json()["deposit_id"]
        deposited = eventually(
            lambda: self.call("GET", f"/v1/cash-deposits/{made.deposit}", query=query).json()["status"],
            lambda status: status != "pending",
        )
        assert deposited == "succeeded"
        disputed = self.call("POST", "/charges", charge_body("5.00"), query=query).json()["provider_payment_id"]
        owner = query.split("account_id=", 1)[1] if "account_id=" in query else self.account_id
        body = {"account_id": owner, "provider_payment_id": disputed, "reason": "general"}
        made.dispute = self.operator.ok("POST", "/v1/disputes", body)["dispute_id"]
        decided = {"outcome": "won", "note": "test"}
        assert self.operator.ok("POST", f"/v1/disputes/{made.dispute}/decide", decided)["status"] == "won"
        quoted = self.call("POST", "/v1/bill-payments/quotes", quote_body(), query=query)
        assert quoted.status_code == 201, quoted.text
        made.quote = quoted.json()["quote_id"]
        paying = self.call("POST", "/v1/bill-payments/quotes", quote_body(), query=query)
        bill = self.call("POST", "/v1/bill-payments", {"quote_id": paying.json()["quote_id"]}, query=query)
        assert bill.status_code == 201 and bill.json()["status"] == "succeeded", bill.text
        made.bill_payment = bill.json()["payment_id"]
        asked = self.call("POST", "/v1/reports", report_body(), query=query)
        assert asked.status_code == 201, asked.text
        made.report = asked.json()["report_id"]
        built = eventually(  # built in the background: nothing moves by itself afterwards
            lambda: self.call("GET", f"/v1/reports/{made.report}", query=query).json()["status"],
            lambda status: status != "pending",
            timeout=90,
        )
        assert built == "succeeded"
        events = self.call("GET", "/v1/events", query=query + ("&" if query else "?") + "limit=1")
        assert events.status_code == 200, events.text
        made.event = events.json()["data"][0]["id"]
        moves = self.call("GET", "/v1/balance/transactions", query=query + ("&" if query else "?") + "page_size=1")
        assert moves.status_code == 200, moves.text
        made.balance_transaction = moves.json()["data"][0]["id"]
        return made

    def snapshot(self) -> dict[str, Any]:
        """What this tenant can see of itself (its own key, test mode): must not move under attack."""
        reads = {
            "balance": "/v1/balance",
            "balance_transactions": "/v1/balance/transactions?page_size=100",
            "payment": f"/v1/payments/{self.test.payment}",
            "refund": f"/v1/refunds/{self.test.refund}",
            "payout": f"/v1/payouts/{self.test.payout}",
            "batch": f"/v1/payout-batches/{self.test.batch}",
            "events": "/v1/events?limit=100",
            "payments": "/v1/payments?page_size=100",
            "refunds": "/v1/refunds?page_size=100",
            "payouts": "/v1/payouts?page_size=100",
            "bill_payments": "/v1/bill-payments?page_size=100",
            "batches": "/v1/payout-batches?page_size=100",
            "key": "/v1/api-keys/current",
            "webhook_endpoint": "/v1/webhook-endpoint",
            "mtls": "/v1/mtls",
            # (its quote is not read: a quote turns expired by the clock alone, 15 minutes on)
            "bill_payment": f"/v1/bill-payments/{self.test.bill_payment}",
        }
        seen = {}
        for name, path in reads.items():
            response = self.call("GET", path)
            assert response.status_code == 200, response.text
            seen[name] = response.json()
        return seen


def charge_body(amount: str = "25.00") -> dict[str, Any]:
    return {
        "payment_id": str(ULID()),
        "money": {"amount": amount, "currency": "MZN"},
        "source": wallet(),
        "country": "MZ",
    }


def refund_body(amount: str = "1.00") -> dict[str, Any]:
    return {"refund_id": str(ULID()), "amount": {"amount": amount, "currency": "MZN"}}


def payout_body() -> dict[str, Any]:
    return {"payout_id": str(ULID()), "money": {"amount": "100.00", "currency": "MZN"}, "destination": wallet()}


def psp_body() -> dict[str, Any]:
    return {
        "type": "payment",
        "originator_reference": f"PSP-{uuid.uuid4().hex}",
        "money": {"amount": "25.00", "currency": "MZN"},
        "source": wallet(),
    }


def report_body() -> dict[str, Any]:
    return {"type": "balance_summary", "interval_start": "2026-11-01", "interval_end": "2026-12-01"}


def lookup_body() -> dict[str, Any]:
    return {"type": "bank_transfer", "bank_transfer": {"account": AMBIGUOUS_NIB}}


@dataclass
class World:
    victim: Tenant  # an unrelated account with resources
    platform: Tenant  # the caller: every scope, accounts:write included
    connected: Tenant  # connected to the platform, active
    suspended: Tenant  # connected to the platform, then suspended
    far: Tenant  # an account of the other region
    baseline: dict[str, Any] = field(default_factory=dict)


@pytest.fixture(scope="module")
def world(stack: RunningStack) -> World:
    mz, sa = Operator(stack, "mz"), Operator(stack, "regional-sa")
    victim = Tenant.create(stack, mz, "Vítima Lda")
    platform = Tenant.create(stack, mz, "Plataforma SA", ALL_SCOPES)
    connected = Tenant.create(stack, mz, "Loja ligada")
    suspended = Tenant.create(stack, mz, "Loja suspensa")
    far = Tenant.create(stack, sa, "Loja Joanesburgo")
    for tenant in (connected, suspended):
        mz.ok("POST", f"/v1/accounts/{platform.account_id}/connected-accounts", {"account_id": tenant.account_id})
    victim.test = victim.furnish()
    platform.test = platform.furnish()
    suspended.test = suspended.furnish()
    far.test = far.furnish()
    mz.ok("POST", f"/v1/accounts/{suspended.account_id}/suspend", {"reason": "KYC review"})
    world = World(victim, platform, connected, suspended, far)
    world.baseline = {
        "victim": victim.snapshot(),
        "platform": platform.snapshot(),
        "far": far.snapshot(),
        "suspended": storage_of(stack, suspended.account_id),
        "nowhere": storage_of(stack, NOWHERE),
    }
    return world


# ---------------------------------------------------------------- the routes
@dataclass(frozen=True)
class Route:
    """How to call one gateway route against a tenant's resources (`ids`): the path and body."""

    path: Callable[[Resources], str]
    body: Callable[[Resources], Any] = lambda ids: None
    resource: str = ""  # the detail of the 404 when the route names another account's resource
    other_mode: bool = True  # the route names a resource whose mode can differ

    def call(self, tenant: Tenant, method: str, ids: Resources, mode: str = "test", query: str = "") -> Any:
        return tenant.call(method, self.path(ids), self.body(ids), mode=mode, query=query)


PUBLIC = {  # no API key: the payer's hosted page (its payment id is the capability), the health check,
    # the OAuth token endpoint (the client authenticates in it: tests/e2e/test_oauth.py) and the
    # secret-scanning receiver (the provider's signature: tests/e2e/test_secret_scanning.py), and
    # the API's own description (tests/e2e/test_openapi.py), the same for everyone
    ("GET", "/health"),
    ("GET", "/openapi.json"),
    ("GET", "/docs"),
    ("GET", "/docs/{asset}"),
    ("POST", "/oauth/token"),
    ("POST", "/secret-scanning/{provider}"),
    ("POST", "/callbacks/{provider}"),  # a provider's signed callback (tests/e2e/test_live_paysuite.py)
    ("GET", "/checkout/{payment_id}"),
    ("GET", "/checkout/{payment_id}/receipt"),
    ("GET", "/checkout/{payment_id}/return"),
    ("POST", "/checkout/{payment_id}/pay"),
    ("POST", "/checkout/{payment_id}/test/{outcome}"),
}
ROUTES: dict[tuple[str, str], Route] = {
    ("GET", "/v1/api-keys/current"): Route(lambda r: "/v1/api-keys/current"),
    ("POST", "/v1/api-keys/{key_id}/roll"): Route(
        lambda r: f"/v1/api-keys/{r.key}/roll", lambda r: {"overlap_seconds": 0}, "API key"
    ),
    ("GET", "/v1/webhook-endpoint"): Route(lambda r: "/v1/webhook-endpoint"),
    ("PUT", "/v1/webhook-endpoint"): Route(
        lambda r: "/v1/webhook-endpoint", lambda r: {"url": "https://shop.example/e"}
    ),
    ("DELETE", "/v1/webhook-endpoint"): Route(lambda r: "/v1/webhook-endpoint"),
    ("POST", "/v1/client-certificates"): Route(lambda r: "/v1/client-certificates", lambda r: {}),
    ("GET", "/v1/mtls"): Route(lambda r: "/v1/mtls"),
    ("PUT", "/v1/mtls"): Route(lambda r: "/v1/mtls", lambda r: {"required": False}),
    ("GET", "/methods"): Route(lambda r: "/methods"),
    ("POST", "/charges"): Route(lambda r: "/charges", lambda r: charge_body()),
    ("POST", "/charges/{payment_id}/capture"): Route(lambda r: f"/charges/{r.payment}/capture", resource="payment"),
    ("POST", "/charges/{payment_id}/void"): Route(lambda r: f"/charges/{r.payment}/void", resource="payment"),
    ("POST", "/charges/{payment_id}/complete-action"): Route(
        lambda r: f"/charges/{r.payment}/complete-action", lambda r: {"otp": "123456"}, "payment"
    ),
    ("GET", "/payments/{payment_id}"): Route(lambda r: f"/payments/{r.payment}", resource="payment"),
    ("GET", "/v1/payments/{payment_id}"): Route(lambda r: f"/v1/payments/{r.payment}", resource="payment"),
    ("GET", "/v1/payments"): Route(lambda r: "/v1/payments"),
    ("GET", "/v1/payments/{payment_id}/refunds"): Route(
        lambda r: f"/v1/payments/{r.payment}/refunds", resource="payment"
    ),
    ("GET", "/v1/refunds"): Route(lambda r: "/v1/refunds"),
    ("GET", "/v1/payouts"): Route(lambda r: "/v1/payouts"),
    ("GET", "/v1/bill-payments"): Route(lambda r: "/v1/bill-payments"),
    ("GET", "/v1/payout-batches"): Route(lambda r: "/v1/payout-batches"),
    ("GET", "/v1/payments/{payment_id}/receipt"): Route(
        lambda r: f"/v1/payments/{r.payment}/receipt", resource="payment"
    ),
    ("POST", "/v1/payments"): Route(
        lambda r: "/v1/payments", lambda r: {"amount": "10.00", "currency": "MZN"}, other_mode=False
    ),
    ("POST", "/v1/payments/{payment_id}/cancel"): Route(
        lambda r: f"/v1/payments/{r.payment}/cancel", resource="payment"
    ),
    ("POST", "/v1/manual-payments"): Route(
        lambda r: "/v1/manual-payments",
        lambda r: {"money": {"amount": "5.00", "currency": "MZN"}, "kind": "cash", "evidence": {"text": "cash"}},
    ),
    ("PUT", "/v1/payments/{payment_id}/evidence"): Route(
        lambda r: f"/v1/payments/{r.payment}/evidence", lambda r: {"text": "mine"}, "payment"
    ),
    ("POST", "/refunds"): Route(
        lambda r: "/refunds", lambda r: {**refund_body(), "provider_payment_id": r.payment}, "payment"
    ),
    ("POST", "/v1/payments/{payment_id}/refund"): Route(
        lambda r: f"/v1/payments/{r.payment}/refund", lambda r: refund_body(), "payment"
    ),
    ("GET", "/v1/refunds/{refund_id}"): Route(lambda r: f"/v1/refunds/{r.refund}", resource="refund"),
    ("GET", "/v1/balance"): Route(lambda r: "/v1/balance"),
    ("POST", "/v1/reports"): Route(lambda r: "/v1/reports", lambda r: report_body()),
    ("GET", "/v1/reports"): Route(lambda r: "/v1/reports"),
    # a report's key holds its mode: the other mode's is not found (tests/e2e/test_reports.py)
    ("GET", "/v1/reports/{report_id}"): Route(lambda r: f"/v1/reports/{r.report}", resource="report", other_mode=False),
    ("GET", "/v1/balance/transactions"): Route(lambda r: "/v1/balance/transactions"),
    ("GET", "/v1/balance/transactions/{transaction_id}"): Route(
        lambda r: f"/v1/balance/transactions/{r.balance_transaction}", resource="balance transaction"
    ),
    ("POST", "/payouts"): Route(lambda r: "/payouts", lambda r: payout_body()),
    ("POST", "/v1/payouts"): Route(
        lambda r: "/v1/payouts",
        lambda r: {
            "payout_id": str(ULID()),
            "money": {"amount": "100.00", "currency": "MZN"},
            "method": "bank",
            "beneficiary": {"name": "Ana Machava", "account": "0003 0108 0016 3671 0237 1"},
        },
    ),
    ("GET", "/payouts/{payout_id}"): Route(lambda r: f"/payouts/{r.payout}", resource="payout"),
    ("GET", "/v1/payouts/{payout_id}"): Route(lambda r: f"/v1/payouts/{r.payout}", resource="payout"),
    ("POST", "/v1/payouts/{payout_id}/cancel"): Route(lambda r: f"/v1/payouts/{r.payout}/cancel", resource="payout"),
    ("POST", "/v1/payout-batches"): Route(
        lambda r: "/v1/payout-batches", lambda r: {"currency": "MZN", "lines": [payout_body()]}
    ),
    ("GET", "/v1/payout-batches/{batch_id}"): Route(lambda r: f"/v1/payout-batches/{r.batch}", resource="payout batch"),
    ("POST", "/v1/payout-batches/{batch_id}/close"): Route(
        lambda r: f"/v1/payout-batches/{r.batch}/close", resource="payout batch"
    ),
    ("POST", "/v1/payout-batches/{batch_id}/release"): Route(
        lambda r: f"/v1/payout-batches/{r.batch}/release", resource="payout batch"
    ),
    ("POST", "/v1/name-lookups"): Route(lambda r: "/v1/name-lookups", lambda r: lookup_body()),
    ("POST", "/v1/name-lookups/{lookup_id}/select"): Route(
        lambda r: f"/v1/name-lookups/{r.lookup}/select", lambda r: {"candidate_id": "cand_1"}, "name lookup"
    ),
    ("POST", "/v1/psp/transactions"): Route(lambda r: "/v1/psp/transactions", lambda r: psp_body()),
    ("GET", "/v1/psp/transactions"): Route(lambda r: "/v1/psp/transactions"),
    ("GET", "/v1/psp/transactions/{transaction_id}"): Route(
        lambda r: f"/v1/psp/transactions/{r.psp_transaction}", resource="PSP transaction"
    ),
    ("POST", "/v1/cash-deposits/intents"): Route(
        lambda r: "/v1/cash-deposits/intents",
        lambda r: {"lookup_id": r.lookup, "money": {"amount": "2.00", "currency": "MZN"}},
        "name lookup",
    ),
    ("GET", "/v1/cash-deposits/intents/{intent_id}"): Route(
        lambda r: f"/v1/cash-deposits/intents/{r.intent}", resource="cash-deposit intent"
    ),
    ("POST", "/v1/cash-deposits"): Route(
        lambda r: "/v1/cash-deposits", lambda r: {"intent_id": r.intent}, "cash-deposit intent"
    ),
    ("GET", "/v1/cash-deposits"): Route(lambda r: "/v1/cash-deposits"),
    ("GET", "/v1/cash-deposits/{deposit_id}"): Route(
        lambda r: f"/v1/cash-deposits/{r.deposit}", resource="cash deposit"
    ),
    ("GET", "/v1/disputes"): Route(lambda r: "/v1/disputes"),
    ("GET", "/v1/disputes/{dispute_id}"): Route(lambda r: f"/v1/disputes/{r.dispute}", resource="dispute"),
    ("POST", "/v1/disputes/{dispute_id}/evidence"): Route(
        lambda r: f"/v1/disputes/{r.dispute}/evidence", lambda r: {"text": "mine"}, "dispute"
    ),
    ("POST", "/v1/disputes/{dispute_id}/accept"): Route(
        lambda r: f"/v1/disputes/{r.dispute}/accept", resource="dispute"
    ),
    ("POST", "/v1/bill-payments/quotes"): Route(lambda r: "/v1/bill-payments/quotes", lambda r: quote_body()),
    ("GET", "/v1/bill-payments/quotes/{quote_id}"): Route(
        lambda r: f"/v1/bill-payments/quotes/{r.quote}", resource="bill quote"
    ),
    ("POST", "/v1/bill-payments"): Route(lambda r: "/v1/bill-payments", lambda r: {"quote_id": r.quote}, "bill quote"),
    ("GET", "/v1/bill-payments/{payment_id}"): Route(
        lambda r: f"/v1/bill-payments/{r.bill_payment}", resource="bill payment"
    ),
    ("POST", "/v1/bill-payments/{payment_id}/resend"): Route(
        lambda r: f"/v1/bill-payments/{r.bill_payment}/resend", lambda r: {"channel": "email"}, "bill payment"
    ),
    ("POST", "/v1/payers/{payer_id}/subscriptions"): Route(
        lambda r: "/v1/payers/cliente-1/subscriptions",
        lambda r: {**quote_body(), "consent": {"accepted": True, "terms_version": "v1"}},
    ),
    ("GET", "/v1/payers/{payer_id}/subscriptions"): Route(lambda r: "/v1/payers/cliente-1/subscriptions"),
    # not billers' accounts: 403 not_a_biller before any invoice is looked at (tests/e2e/test_biller_api.py)
    ("PATCH", "/v1/biller/invoices/{number}"): Route(
        lambda r: "/v1/biller/invoices/FT2026-000101", lambda r: {"description": "x"}
    ),
    ("PUT", "/v1/biller/invoices/{number}/document"): Route(
        lambda r: "/v1/biller/invoices/FT2026-000101/document", lambda r: {"description": "x"}
    ),
    ("GET", "/v1/events"): Route(lambda r: "/v1/events"),
    ("GET", "/v1/events/{event_id}"): Route(lambda r: f"/v1/events/{r.event}", resource="event"),
    ("POST", "/v1/admin/webhooks/verify"): Route(lambda r: "/v1/admin/webhooks/verify", lambda r: {"id": "evt"}),
}
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})  # compared before and after each request
WITH_RESOURCE = sorted(key for key, route in ROUTES.items() if route.resource)
KEYED = sorted(ROUTES)


def gateway_routes() -> set[tuple[str, str]]:
    paths = documents()["gateway"]["paths"]
    return {(method.upper(), path) for path, item in paths.items() for method in item}


def test_every_gateway_route_is_in_the_matrix() -> None:
    assert gateway_routes() == set(ROUTES) | PUBLIC


def assert_problem(response: requests.Response, status: int, title: str, code: str, detail: str, **ext: Any) -> None:
    assert response.status_code == status, (response.request.method, response.request.url, response.text)
    assert response.headers["Content-Type"] == "application/problem+json"
    assert response.json() == problem(status, title, code, detail, **ext)


# ---------------------------------------------------------------- another account's resources
@pytest.mark.parametrize(("method", "path"), WITH_RESOURCE)
def test_another_accounts_resource_is_not_found(world: World, method: str, path: str) -> None:
    route = ROUTES[(method, path)]
    before = world.victim.snapshot() if method in WRITES else None
    response = route.call(world.platform, method, world.victim.test)
    assert_problem(response, 404, "Not Found", "not_found", f"No such {route.resource}.")
    if before is not None:  # a read: checked once, by test_nothing_of_the_targets_changed
        assert world.victim.snapshot() == before


@pytest.mark.parametrize(("method", "path"), WITH_RESOURCE)
def test_a_connected_accounts_resource_is_not_found_without_naming_it(world: World, method: str, path: str) -> None:
    """A connection lets the platform act for the account when it says so, never implicitly."""
    route = ROUTES[(method, path)]
    response = route.call(world.platform, method, world.suspended.test)
    assert_problem(response, 404, "Not Found", "not_found", f"No such {route.resource}.")


# ---------------------------------------------------------------- the other mode's resources
@pytest.mark.parametrize(("method", "path"), [key for key in WITH_RESOURCE if ROUTES[key].other_mode])
def test_the_other_modes_resource_is_the_wrong_environment(world: World, method: str, path: str) -> None:
    """The platform's own test resources, named with its live key: 401 wrong_environment (README: Modes)."""
    route = ROUTES[(method, path)]
    before = world.platform.snapshot() if method in WRITES else None
    response = route.call(world.platform, method, world.platform.test, mode="live")
    assert_problem(
        response, 401, "Unauthorized", "wrong_environment", "A live key cannot reach test data; use a test key."
    )
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="mzpay"'
    if before is not None:
        assert world.platform.snapshot() == before


# ---------------------------------------------------------------- ?account_id=
def target_of(world: World, which: str) -> tuple[str, Resources]:
    """(the account id named, the resource ids the request uses)."""
    if which == "unrelated":
        return world.victim.account_id, world.victim.test
    if which == "other region":
        return world.far.account_id, world.far.test
    if which == "nonexistent":
        return NOWHERE, world.victim.test
    return world.suspended.account_id, world.suspended.test


def storage_of(stack: RunningStack, account_id: str) -> list[dict[str, Any]]:
    """Every item of the mz payments, events and idempotency tables that belongs to `account_id`:
    its keys or its account_id name it (every item an account owns does: the stores key them by
    account, or carry account_id). Filtered by DynamoDB, so the scan sends back only those. A scan
    reads the whole table, and the stack keeps every item its earlier tests wrote: tests/conftest.py
    runs this module first on its worker, while the tables are small."""
    found = []
    client = stack.aws("dynamodb")
    for table in ("PaymentsTable", "EventsTable", "IdempotencyTable"):
        pages = client.get_paginator("scan").paginate(
            TableName=stack.state["resources"]["mz"][table],
            FilterExpression="contains(pk, :a) OR contains(sk, :a) OR account_id = :a",
            ExpressionAttributeValues={":a": {"S": account_id}},
        )
        found += [item for page in pages for item in page["Items"]]
    return sorted(found, key=str)


@pytest.mark.parametrize("which", ["unrelated", "other region", "nonexistent", "suspended"])
@pytest.mark.parametrize(("method", "path"), KEYED)
def test_acting_for_an_account_that_is_not_connected_and_active(
    stack: RunningStack, world: World, method: str, path: str, which: str
) -> None:
    account_id, ids = target_of(world, which)
    route = ROUTES[(method, path)]
    before = storage_of(stack, account_id) if method in WRITES else None
    response = route.call(world.platform, method, ids, query=f"?account_id={account_id}")
    if which == "suspended":
        assert_problem(response, 403, "Forbidden", "account_suspended", "This account is suspended: KYC review")
    else:
        assert_problem(response, 404, "Not Found", "not_found", "No such account.")
    if before is not None:
        assert storage_of(stack, account_id) == before


def test_nothing_of_the_targets_changed(stack: RunningStack, world: World) -> None:
    """After the whole matrix: what each attacked tenant sees of itself (balance, payment, refund,
    payout, events, key) is what it saw before it, and storage holds nothing new for the others.
    The matrix's writes compare before and after each request too; its reads (which change
    nothing when they hold) are checked here, once: a read that changed anything fails this."""
    assert world.victim.snapshot() == world.baseline["victim"]
    assert world.platform.snapshot() == world.baseline["platform"]  # the other mode's reads, its own data
    assert world.far.snapshot() == world.baseline["far"]
    assert storage_of(stack, world.suspended.account_id) == world.baseline["suspended"]
    assert storage_of(stack, NOWHERE) == world.baseline["nowhere"] == []
    assert world.baseline["victim"]["key"]["status"] == "active"  # never rolled by the platform


# ---------------------------------------------------------------- the positive case
def test_a_connected_active_account_is_reached_and_what_is_created_is_its(world: World) -> None:
    platform, shop = world.platform, world.connected
    acting = f"?account_id={shop.account_id}"
    made = shop.furnish(query=acting)  # charge, refund, payout, name lookup, events: all for the shop
    own = shop.call("GET", f"/v1/payments/{made.payment}")
    assert own.status_code == 200 and own.json()["provider_payment_id"] == made.payment
    assert platform.call("GET", f"/v1/payments/{made.payment}", query=acting).json() == own.json()
    assert_problem(
        platform.call("GET", f"/v1/payments/{made.payment}"), 404, "Not Found", "not_found", "No such payment."
    )
    assert shop.call("GET", f"/v1/refunds/{made.refund}").status_code == 200
    # the lists: the platform acting for the shop sees the shop's, its own list never holds them
    lists = (
        "/v1/payments",
        "/v1/refunds",
        "/v1/payouts",
        "/v1/bill-payments",
        "/v1/payout-batches",
        "/v1/cash-deposits",
    )
    for path, size in [(path, "page_size") for path in lists] + [
        ("/v1/disputes", "limit"),  # the two lists that had a page size before the filters came
        ("/v1/psp/transactions", "limit"),
    ]:
        theirs = shop.call("GET", path)
        assert theirs.status_code == 200 and theirs.json()["data"], theirs.text
        assert platform.call("GET", path, query=acting).json() == theirs.json()
        own = platform.call("GET", path + f"?{size}=100")
        assert own.status_code == 200, own.text
        assert not {str(item) for item in theirs.json()["data"]} & {str(item) for item in own.json()["data"]}
    deposits = shop.call("GET", "/v1/cash-deposits").json()["data"]
    assert [deposit["deposit_id"] for deposit in deposits] == [made.deposit]  # a deposit: not among the payouts
    assert made.deposit not in [
        payout["provider_payout_id"] for payout in shop.call("GET", "/v1/payouts").json()["data"]
    ]
    assert made.payment in [p["provider_payment_id"] for p in shop.call("GET", "/v1/payments").json()["data"]]
    assert shop.call("GET", f"/v1/payouts/{made.payout}").status_code == 200
    extra = platform.call("POST", "/charges", charge_body("7.00"), query=acting)
    assert extra.status_code == 200 and extra.json()["status"] == "succeeded"
    balance = {"mode": "test", "balances": [{"currency": "MZN", "held": "0.00", "fees": "0.00"}]}

    def available(amount: str) -> dict[str, Any]:
        return {**balance, "balances": [{**balance["balances"][0], "available": amount}]}  # type: ignore[index]

    # 1000 - 10 (refund) - 100 (payout) - 1 (cash deposit) + 5 (a disputed payment, won)
    # - 25 (bill payment: 20 + a 5 fee) + 7: the shop's
    assert shop.call("GET", "/v1/balance").json() == available("876.00")
    assert platform.call("GET", "/v1/balance", query=acting).json() == available("876.00")
    assert platform.call("GET", "/v1/balance").json() == available("869.00")  # the platform's own, untouched
    # its balance transactions, read by the platform for it, add up to that balance
    moves = platform.call("GET", "/v1/balance/transactions", query=acting + "&page_size=100").json()
    assert moves == shop.call("GET", "/v1/balance/transactions?page_size=100").json() and not moves["has_more"]
    assert sum(Decimal(row["net"]) for row in moves["data"]) == Decimal("876.00")
    assert moves["data"][0]["balance_after"] == {"available": "876.00", "held": "0.00"}
    newest = moves["data"][0]["id"]
    assert platform.call("GET", f"/v1/balance/transactions/{newest}", query=acting).json() == moves["data"][0]
    assert_problem(
        platform.call("GET", f"/v1/balance/transactions/{newest}"),
        404,
        "Not Found",
        "not_found",
        "No such balance transaction.",
    )
    event = shop.call("GET", f"/v1/events/{made.event}")
    assert event.status_code == 200 and event.json()["id"] == made.event
    # keys are not reached through a connection (a secret would outlive the connection)
    roll = platform.call("POST", f"/v1/api-keys/{made.key}/roll", {"overlap_seconds": 0}, query=acting)
    assert_problem(roll, 404, "Not Found", "not_found", "No such API key.")
    assert shop.call("GET", "/v1/api-keys/current").json()["status"] == "active"


def test_an_idempotency_key_is_the_acting_accounts(world: World) -> None:
    """The same Idempotency-Key and body, for the platform and then for its connected account:
    two payments, one each, never a replay of the other's."""
    platform, shop = world.platform, world.connected
    body = charge_body()
    key = str(uuid.uuid4())
    url = platform.stack.state["regions"]["mz"]["gateway"] + "/charges"
    headers = {"Authorization": f"Bearer {platform.keys['test']['key']}", "Idempotency-Key": key}
    mine = requests.post(url, json=body, headers=headers, timeout=30)
    theirs = requests.post(f"{url}?account_id={shop.account_id}", json=body, headers=headers, timeout=30)
    assert (mine.status_code, theirs.status_code) == (200, 200), theirs.text
    assert mine.json()["provider_payment_id"] != theirs.json()["provider_payment_id"]
    assert shop.call("GET", f"/v1/payments/{theirs.json()['provider_payment_id']}").status_code == 200
    assert platform.call("GET", f"/v1/payments/{mine.json()['provider_payment_id']}").status_code == 200
    assert shop.call("GET", f"/v1/payments/{mine.json()['provider_payment_id']}").status_code == 404


def test_a_removed_connection_is_not_found_from_the_next_request(world: World) -> None:
    mz = world.platform.operator
    extra = Tenant.create(world.platform.stack, mz, "Loja temporária")
    path = f"/v1/accounts/{world.platform.account_id}/connected-accounts"
    made = mz.ok("POST", path, {"account_id": extra.account_id})
    assert made == {
        "platform_account_id": world.platform.account_id,
        "connected_account_id": extra.account_id,
        "region": "mz",
        "created_at": made["created_at"],
    }
    acting = f"?account_id={extra.account_id}"
    assert world.platform.call("GET", "/v1/balance", query=acting).status_code == 200
    assert mz.ok("DELETE", f"{path}/{extra.account_id}") == {
        "platform_account_id": world.platform.account_id,
        "connected_account_id": extra.account_id,
        "connected": False,
    }
    assert_problem(
        world.platform.call("GET", "/v1/balance", query=acting), 404, "Not Found", "not_found", "No such account."
    )
    assert_problem(
        mz.call("DELETE", f"{path}/{extra.account_id}"), 404, "Not Found", "not_found", "No such connection."
    )


def test_connections_are_made_between_accounts_of_one_region_once(world: World) -> None:
    mz = world.platform.operator
    path = f"/v1/accounts/{world.platform.account_id}/connected-accounts"
    assert_problem(
        mz.call("POST", path, {"account_id": world.far.account_id}),
        400,
        "Bad Request",
        "invalid_request",
        "Only accounts of one region can be connected: the platform lives in mz, the account in regional-sa.",
    )
    assert_problem(
        mz.call("POST", path, {"account_id": world.connected.account_id}),
        409,
        "Conflict",
        "already_connected",
        "These accounts are already connected; remove the connection first.",
    )
    assert_problem(mz.call("POST", path, {"account_id": NOWHERE}), 404, "Not Found", "not_found", "No such account.")
    assert_problem(
        mz.call("POST", path, {"account_id": world.platform.account_id}),
        400,
        "Bad Request",
        "invalid_request",
        "An account cannot be connected to itself.",
    )
    listed = mz.ok("GET", path)["connected_accounts"]
    assert sorted(c["connected_account_id"] for c in listed) == sorted(
        [world.connected.account_id, world.suspended.account_id]
    )


# ---------------------------------------------------------------- the management API's PSP applications
def _png(side: int) -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (side, side)).save(out, "PNG")
    return out.getvalue()


LOGO_PNG = _png(256)


def psp_application_routes() -> list[tuple[str, str]]:
    """Every management route naming a PSP application (from the document: a new route is covered)."""
    document = documents()["management"]
    return [
        (method.upper(), path)
        for path, item in document["paths"].items()
        if path.startswith("/v1/admin/psps/{application_id}")
        for method in item
        if method in ("get", "put", "post", "patch", "delete")
    ]


def test_every_psp_application_route_is_reached() -> None:
    assert len(psp_application_routes()) == 11


@pytest.mark.parametrize(("method", "path"), psp_application_routes())
def test_another_regions_psp_application_is_not_found(stack: RunningStack, method: str, path: str) -> None:
    """Applications are the region's: the other region's id is 404 on every route, and it is unchanged."""
    mz, sa = Operator(stack, "mz"), Operator(stack, "regional-sa")
    theirs = sa.ok("POST", "/v1/admin/psps", {"legal_name": "Vodacom Moçambique, S.A."})
    concrete = path.replace("{application_id}", theirs["application_id"])
    concrete = concrete.replace("{kind}", "commercial_registration").replace("{run_id}", str(ULID()))
    if method == "PUT":  # a valid file, so that only the application is wrong
        raw, media = (LOGO_PNG, "image/png") if path.endswith("/logo") else (b"%PDF-1.4\n", "application/pdf")
        headers = {**mz.headers, "Content-Type": media}
        answer = requests.put(mz.url + concrete, data=raw, headers=headers, timeout=30)
    else:
        bodies = {"PATCH": {"legal_name": "x"}, "POST": {"decision": "approve", "reason": "x"}}
        body = bodies.get(method) if path.endswith("/review") or method == "PATCH" else {"reason": "x"}
        answer = mz.call(method, concrete, body if method in ("POST", "PATCH") else None)
    assert_problem(answer, 404, "Not Found", "not_found", "No such PSP application.")
    assert sa.ok("GET", f"/v1/admin/psps/{theirs['application_id']}") == theirs


# ---------------------------------------------------------------- the billers' API, mode by mode
def biller_invoice_routes() -> list[tuple[str, str]]:
    """Every gateway route of the billers' API (from the document: a new one is covered)."""
    return sorted(key for key in gateway_routes() if key[1].startswith("/v1/biller/"))


def test_every_billers_api_route_is_in_the_mode_check() -> None:
    assert biller_invoice_routes() == [
        ("PATCH", "/v1/biller/invoices/{number}"),
        ("PUT", "/v1/biller/invoices/{number}/document"),
    ]


def billers_call(tenant: Tenant, method: str, path: str, mode: str, body: Any) -> requests.Response:
    url = tenant.stack.state["regions"]["mz"]["gateway"] + path
    headers = {"Authorization": f"Bearer {tenant.keys[mode]['key']}"}
    if method == "PUT":  # the invoice's PDF itself
        return requests.put(url, data=body, headers={**headers, "Content-Type": "application/pdf"}, timeout=30)
    return requests.request(method, url, json=body, headers=headers, timeout=30)


@pytest.mark.parametrize(("method", "path"), biller_invoice_routes())
def test_the_billers_api_reaches_only_its_own_modes_invoice(stack: RunningStack, method: str, path: str) -> None:
    """An invoice number names one invoice per mode (docs/bills.md, Modes): what the biller's test
    key changed is not what its live key reaches (the simulated supplier answers test only, so live
    has no invoice to change: 422 biller_unavailable), and the live call leaves the test one as it was."""
    operator = Operator(stack, "mz")
    tenant = Tenant.create(stack, operator, "Águas do Matrix")
    water = "01M8A0MH8BAHW8JZV956J9ME22"
    biller = next(b for b in DATA["billers"] if any(p["product_id"] == water for p in b["products"]))
    fields = {k: v for k, v in biller.items() if k not in ("products", "biller_id")}
    made = operator.ok("POST", "/v1/billers", {**fields, "account_id": tenant.account_id})
    product = {k: v for k, v in biller["products"][0].items() if k != "product_id"}
    operator.ok("POST", f"/v1/billers/{made['biller_id']}/products", product)
    concrete = path.replace("{number}", "FT2026-000101")
    body: Any = b"%PDF-1.4\n%%EOF\n" if method == "PUT" else {"amount_due": "900.00", "description": "test"}
    changed = billers_call(tenant, method, concrete, "test", body)
    assert changed.status_code == 200, changed.text
    read = "/v1/biller/invoices/FT2026-000101"
    before = billers_call(tenant, "PATCH", read, "test", {}).json()  # an empty change reads it
    assert before == changed.json()

    live = billers_call(tenant, method, concrete, "live", body)
    assert_problem(
        live,
        422,
        "Unprocessable Content",
        "biller_unavailable",
        f"{made['name']} has no supplier configured for live payments.",
    )
    assert billers_call(tenant, "PATCH", read, "test", {}).json() == before


# ---------------------------------------------------------------- the management API's business links
BUSINESS_LINK = "/v1/accounts/{account_id}/gateway-account"


def test_the_business_link_routes_are_these() -> None:
    """A new route naming a business's gateway account joins the case below."""
    document = documents()["management"]
    assert sorted(method.upper() for method in document["paths"][BUSINESS_LINK]) == ["GET", "PUT"]


def test_a_business_link_stays_in_its_region_with_one_business_and_with_operators(stack: RunningStack) -> None:
    """Linking a gateway account to a business (docs/onboarding.md, "Linking an existing gateway
    account"): another region's account is 421 and the business is not this region's there;
    an account another business collects through is 409; a business's token, a merchant's key
    and no credential are 401 on both routes; every refusal leaves both businesses as they were."""
    from tests.e2e.collection_client import Collection

    mz, sa = Operator(stack, "mz"), Operator(stack, "regional-sa")
    collection = Collection(stack, "mz")
    collection.ensure_licence()
    businesses = [str(ULID()), str(ULID())]
    tokens = [collection.mint(account_id=business, sub=f"matrix-owner-{business}") for business in businesses]
    for token in tokens:
        assert collection.call("POST", "/v1/account/onboarding/initialize", token=token).status_code == 200
    gateway = mz.created("Escola da Matriz")["id"]
    far = sa.created("Escola do Sul")["id"]
    path = BUSINESS_LINK.format(account_id=businesses[0])

    def links() -> list[dict[str, Any]]:
        return [mz.ok("GET", BUSINESS_LINK.format(account_id=business)) for business in businesses]

    before = links()
    assert [link["gateway_account_id"] for link in before] == [None, None]

    def linked_far() -> requests.Response:
        return mz.call("PUT", path, {"gateway_account_id": far})

    elsewhere = eventually(linked_far, lambda answer: answer.status_code != 404)  # replicated, then refused
    sa_url = stack.state["regions"]["regional-sa"]["management"]
    assert_problem(
        elsewhere,
        421,
        "Misdirected Request",
        "wrong_region",
        f"This tenant is served in region regional-sa; resend the request to {sa_url}.",
        region="regional-sa",
        base_url=sa_url,
    )
    assert_problem(
        sa.call("PUT", path, {"gateway_account_id": far}), 404, "Not Found", "not_found", "No such business account."
    )
    assert_problem(sa.call("GET", path), 404, "Not Found", "not_found", "No such business account.")
    assert_problem(
        mz.call("PUT", path, {"gateway_account_id": NOWHERE}), 404, "Not Found", "not_found", "No such account."
    )
    assert links() == before

    merchant_key = mz.key(gateway)["key"]
    for credential in (tokens[0], merchant_key, None):
        headers = {"Authorization": f"Bearer {credential}"} if credential else {}
        for method, body in (("GET", None), ("PUT", {"gateway_account_id": gateway})):
            answer = requests.request(method, mz.url + path, json=body, headers=headers, timeout=30)
            assert (answer.status_code, answer.json()["code"]) == (401, "unauthorized"), answer.text
    assert links() == before

    assert mz.ok("PUT", path, {"gateway_account_id": gateway})["gateway_account_id"] == gateway
    other = BUSINESS_LINK.format(account_id=businesses[1])
    assert_problem(
        mz.call("PUT", other, {"gateway_account_id": gateway}),
        409,
        "Conflict",
        "already_connected",
        "Another business collects through this gateway account.",
    )
    assert [link["gateway_account_id"] for link in links()] == [gateway, None]


# ---------------------------------------------------------------- the collection surface's customers
# Every route of the collection API naming one customer and nothing else of it, with a body its
# model accepts: another business's customer is 404 customer_not_found on each (customers are
# the business's in both modes: docs/customers.md). POST .../payment_methods checks its body's
# partner first: tests/e2e/test_collection_payment_methods.py covers it.
CUSTOMER = "/v1/customers/{customer_id}"
CUSTOMER_ROUTES: dict[tuple[str, str], Any] = {
    ("GET", CUSTOMER): None,
    ("PUT", CUSTOMER): {"email": "matrix@example.co.mz"},
    ("DELETE", CUSTOMER): None,
    ("GET", f"{CUSTOMER}/collection-requests"): None,
    ("GET", f"{CUSTOMER}/kyc"): None,
    ("GET", f"{CUSTOMER}/kyc/logs"): None,
    ("GET", f"{CUSTOMER}/payment_methods"): None,
    ("GET", f"{CUSTOMER}/transactions"): None,
}
CHECKS_BODY_FIRST = {("POST", f"{CUSTOMER}/payment_methods")}


def test_every_route_of_one_customer_is_in_the_matrix() -> None:
    paths = documents()["collection"]["paths"]
    routes = {
        (method.upper(), path)
        for path, item in paths.items()
        if path == CUSTOMER or (path.startswith(f"{CUSTOMER}/") and path.count("{") == 1)
        for method in item
        if method in ("get", "put", "post", "delete", "patch")
    }
    assert routes == set(CUSTOMER_ROUTES) | CHECKS_BODY_FIRST


@pytest.fixture(scope="module")
def foreign_customer(stack: RunningStack) -> tuple[str, str]:
    """A customer of a business other than the demo one: (its id, its business's token)."""
    from tests.e2e.collection_client import assert_ok, licensed

    collection = licensed(stack)
    owner = collection.active_business("Loja da Matriz", "matrix-customer-owner")[1]
    customer = assert_ok(collection.call("POST", "/v1/customers", {"name": "Ana", "document_type": "bi"}, token=owner))
    return customer["id"], owner


@pytest.mark.parametrize(("method", "path"), sorted(CUSTOMER_ROUTES))
def test_another_businesss_customer_is_not_found(
    stack: RunningStack, foreign_customer: tuple[str, str], method: str, path: str
) -> None:
    from tests.e2e.collection_client import Collection, assert_error, assert_ok

    collection = Collection(stack, "mz")
    customer_id, owner = foreign_customer
    answer = collection.call(method, path.format(customer_id=customer_id), CUSTOMER_ROUTES[(method, path)])
    assert_error(answer, 404, "customer_not_found", "No such customer.")  # the demo business asked
    assert assert_ok(collection.call("GET", f"/v1/customers/{customer_id}", token=owner))["status"] == "active"

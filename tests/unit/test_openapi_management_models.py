"""The management API's answer models (mzpay.answers, indexed by mzpay.openapi.management) against the code
that builds the answers: the real use cases (mzpay.cases.access, oauth, psps, bindings, payouts,
rate_limits, webhook_deliveries, dispatch_failures; mzpay.collection.onboarding and
identity_providers for reviews and audits), their stores replaced by in-memory fakes with
deps.substitute (or, where the store builds the answer, the real store over an in-memory table),
each answer validated by its route's model after the service's own JSON encoding. Also: every
example validates, every model and field is described, ROUTES names exactly the operations of
docs/openapi/management.json, the models' enumerations are the domain's, and no model is named like
a request body of the document."""

from __future__ import annotations

import json
import typing
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import BaseModel

from mzpay import deps
from mzpay.answers import management_audit as audit_answers
from mzpay.answers.base import Answer
from mzpay.answers.psps import Psp
from mzpay.answers.reviews import BusinessAccountReview, ReviewedField
from mzpay.answers.webhook_deliveries import WebhookDeliverySummary
from mzpay.cases import access, oauth, rate_limits
from mzpay.cases import payouts as payout_cases
from mzpay.collection import identity_providers, onboarding
from mzpay.config import SERVICE_REGIONS, Settings
from mzpay.connectors import transport
from mzpay.domain.access import keys
from mzpay.domain.access import oauth as oauth_rules
from mzpay.domain.accounts import tenants as account_rules
from mzpay.domain.collection import business
from mzpay.domain.collection.access import Identity
from mzpay.domain.common.clock import iso
from mzpay.domain.common.model import Strict
from mzpay.domain.payments import routing
from mzpay.domain.payouts.limits import PayoutLimits as PayoutLimitRules
from mzpay.domain.webhooks.deliveries import Delivery
from mzpay.domain.webhooks.events import new_event
from mzpay.domain.webhooks.rules import DeliveryStatus
from mzpay.fanout import stream as fanout
from mzpay.http import account_schemas, operations_schemas
from mzpay.http.resolver import dumps
from mzpay.openapi import management as answers
from mzpay.openapi.management import ROUTES
from mzpay.operators import bindings, dispatch_failures, psps, webhook_deliveries
from mzpay.store import bindings as binding_store
from mzpay.store.directory import Account, AlreadyConnected, ApiKey, Connection
from mzpay.store.events import event_item
from mzpay.store.identity_providers import Conflict, Page
from mzpay.store.oauth import ClientChanged
from mzpay.store.payments import Payments, _routing
from mzpay.store.transitions import applied
from mzpay.webhooks import outbox, sender
from tests.unit import openapi_checks
from tests.unit import test_openapi_gateway_models as gateway_tests
from tests.unit.test_business_rules import details

DOCUMENT = openapi_checks.shipped_document("management")
PEPPER = "pepper-for-tests"
REVIEWER = Identity("reviewer-7", "https://id.example", None, frozenset({"account:review"}), "configured")
ADMIN = Identity("admin-1", "https://id.example", "acct_platform", frozenset(), "configured")
world = gateway_tests.world  # the gateway's in-memory world (payouts approved and rejected here)


def valid(model: Any, answer: Any) -> Any:
    """`answer` validated by `model` after the service's own JSON encoding (Decimal as a number); an
    answer model is written as the service writes it (the keys its use case set)."""
    if isinstance(answer, Answer):
        answer = answer.wire()
    return model.model_validate(json.loads(dumps(answer)))


# ---------------------------------------------------------------- in-memory stores
class FakeTable:
    """The few DynamoDB Table calls a store makes, in memory (a store's own code builds its answers)."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], dict[str, Any]] = {}

    def put_item(self, Item: dict[str, Any], **_: Any) -> None:
        self.items[(Item["pk"], Item["sk"])] = dict(Item)

    def get_item(self, Key: dict[str, str], **_: Any) -> dict[str, Any]:
        item = self.items.get((Key["pk"], Key["sk"]))
        return {"Item": dict(item)} if item else {}

    def delete_item(self, Key: dict[str, str], **_: Any) -> dict[str, Any]:
        old = self.items.pop((Key["pk"], Key["sk"]), None)
        return {"Attributes": old} if old else {}

    def query(self, ExpressionAttributeValues: dict[str, str], **_: Any) -> dict[str, Any]:
        pk, prefix = ExpressionAttributeValues[":pk"], ExpressionAttributeValues.get(":prefix", "")
        found = sorted((k, v) for k, v in self.items.items() if k[0] == pk and k[1].startswith(prefix))
        return {"Items": [dict(item) for _, item in found]}


class Directory(gateway_tests.Directory):
    """Accounts, connections and keys."""

    def create_account(self, account: Account) -> None:
        self.put(account.account_id, account)

    def change_account_status(self, account: Account, status: str, reason: str, now: datetime) -> Account:
        changed = replace(account, status=status, reason=reason, updated_at=iso(now), version=account.version + 1)
        return self.put(account.account_id, changed)  # type: ignore[no-any-return]

    def connect(self, connection: Connection) -> None:
        key = f"{connection.platform_account_id}>{connection.connected_account_id}"
        if key in self.items:
            raise AlreadyConnected()
        self.put(key, connection)

    def connections(self, platform_account_id: str) -> list[Connection]:
        return [c for c in self.items.values() if getattr(c, "platform_account_id", None) == platform_account_id]

    def disconnect(self, platform_account_id: str, connected_account_id: str) -> bool:
        return self.items.pop(f"{platform_account_id}>{connected_account_id}", None) is not None

    def acting_target(self, platform_account_id: str, account_id: str) -> tuple[bool, Account | None]:
        return f"{platform_account_id}>{account_id}" in self.items, self.get_account(account_id)

    def create_key(self, key: ApiKey) -> None:
        self.put(key.key_id, key)


class WebhookSecrets:
    def __init__(self) -> None:
        self.versions: dict[tuple[str, str], tuple[list[Any], int]] = {}

    def read(self, account_id: str, mode: str) -> tuple[list[Any], int]:
        return self.versions.get((account_id, mode), ([], 0))

    def encrypt(self, secret: str, _account_id: str) -> str:
        return f"sealed:{secret[-4:]}"

    def write(self, account_id: str, mode: str, versions: list[Any], read_version: int) -> None:
        self.versions[(account_id, mode)] = (versions, read_version + 1)


class OAuthClients(gateway_tests.OAuth):
    def create_client(self, client: oauth_rules.OAuthClient) -> None:
        self.put(client.client_id, client)

    def clients_of(self, account_id: str) -> list[oauth_rules.OAuthClient]:
        return [c for c in self.items.values() if getattr(c, "account_id", None) == account_id]

    def revoke_client(self, client: oauth_rules.OAuthClient, now: str, events: list[Any], _table: str) -> Any:
        if client.status == oauth_rules.ClientStatus.REVOKED:
            raise ClientChanged()
        revoked = replace(client, status=oauth_rules.ClientStatus.REVOKED, revoked_at=now)
        return self.put(client.client_id, revoked, events)


class Routing:
    """The payments table's PSP items, written by the real store's own methods."""

    set_pilot = Payments.set_pilot
    set_psp_availability = Payments.set_psp_availability

    def __init__(self) -> None:
        self.table = FakeTable()

    def routing_state(self, psp_ids: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
        return _routing(psp_ids, [item for key, item in self.table.items.items() if key[0].startswith("PSP#")])


class BusinessAccounts:
    """Business accounts of the collection surface, with the reviewers' audit records."""

    def __init__(self) -> None:
        self.items: dict[str, business.BusinessAccount] = {}
        self.audits: list[dict[str, Any]] = []
        self.events: list[Any] = []  # the events of the decisions' messages

    def get(self, account_id: str) -> business.BusinessAccount | None:
        return self.items.get(account_id)

    def create(self, account: business.BusinessAccount) -> bool:
        if account.account_id in self.items:
            return False
        self.items[account.account_id] = account
        return True

    def linked_business(self, gateway_account_id: str) -> str | None:
        return next((a.account_id for a in self.items.values() if a.gateway_account_id == gateway_account_id), None)

    def transition(
        self,
        account: business.BusinessAccount,
        changes: dict[str, Any],
        audit: dict[str, Any] | None = None,
        events: tuple[Any, list[Any]] | None = None,
    ) -> business.BusinessAccount:
        self.items[account.account_id] = after = applied(account, changes)
        if audit is not None:
            self.audits.append(dict(audit))
        self.events.extend(events[1] if events else [])  # a decision's message (docs/notifications.md)
        return after

    def reviews(self, account_id: str, limit: int, _start: Any) -> tuple[list[dict[str, Any]], None]:
        return [a for a in reversed(self.audits) if a["account_id"] == account_id][:limit], None


class IdentityProviders:
    """Identity providers and their audit records (newest first, paged like the real store)."""

    def __init__(self) -> None:
        self.records: dict[str, dict[str, Any]] = {}
        self.audits: list[dict[str, Any]] = []

    def encrypt(self, _plaintext: str, idp_id: str, field: str) -> str:
        return f"sealed:{idp_id}:{field}"

    def get(self, idp_id: str) -> dict[str, Any] | None:
        record = self.records.get(idp_id)
        return dict(record) if record else None

    def create(self, record: dict[str, Any], audit: dict[str, Any]) -> None:
        if any(r["issuer_url"] == record["issuer_url"] for r in self.records.values()):
            raise Conflict("issuer")
        self.records[record["id"]] = dict(record)
        self.audits.append(dict(audit))

    def update(self, before: dict[str, Any], after: dict[str, Any], audit: dict[str, Any]) -> None:
        self.records[before["id"]] = dict(after)
        self.audits.append(dict(audit))

    def delete(self, record: dict[str, Any], audit: dict[str, Any]) -> None:
        del self.records[record["id"]]
        self.audits.append(dict(audit))

    def page(self, size: int, start: dict[str, str] | None) -> Page:
        ids = sorted(self.records)
        ids = [i for i in ids if start is None or i > start["gsi1sk"]]
        if len(ids) <= size:
            return Page([self.records[i] for i in ids], None)
        last = ids[size - 1]
        key = {"pk": f"IDP#{last}", "sk": "IDP", "gsi1pk": "IDP", "gsi1sk": last}
        return Page([self.records[i] for i in ids[:size]], key)

    def audit_page(self, idp_id: str, size: int, start: dict[str, str] | None) -> Page:
        mine = sorted((a for a in self.audits if a["resource_id"] == idp_id), key=lambda a: (a["at"], a["id"]))[::-1]
        items = [{"pk": f"AUDIT#IDP#{idp_id}", "sk": f"{a['at']}#{a['id']}", **a} for a in mine]
        items = [i for i in items if start is None or i["sk"] < start["sk"]]
        if len(items) <= size:
            return Page(items, None)
        return Page(items[:size], {"pk": items[size - 1]["pk"], "sk": items[size - 1]["sk"]})


class Deliveries:
    """Webhook deliveries, changed as the real store's conditional updates change them."""

    def __init__(self) -> None:
        self.items: dict[str, Delivery] = {}

    def _set(self, delivery: Delivery, **changes: Any) -> Delivery:
        self.items[delivery.delivery_id] = changed = delivery.model_copy(update=changes)
        return changed

    def create(self, delivery: Delivery) -> bool:
        if delivery.delivery_id in self.items:
            return False
        self.items[delivery.delivery_id] = delivery
        return True

    def get(self, delivery_id: str) -> Delivery | None:
        return self.items.get(delivery_id)

    def mark_enqueued(self, delivery_id: str, _token: str, now: str) -> bool:
        self._set(self.items[delivery_id], enqueued_at=now, enqueue_lease=None, enqueue_lease_until=None)
        return True

    def begin_attempt(self, delivery_id: str, round_: int, owner: str, token: str, until: int, _now: int) -> Any:
        found = self.items[delivery_id]
        if found.status != DeliveryStatus.PENDING or found.round != round_:
            return None
        return self._set(found, owner=owner, lease_token=token, lease_until=until)

    def finish_attempt(self, delivery: Delivery, _token: str, attempt: Any, status: DeliveryStatus, now: str,
                       next_attempt_at: str | None, keep: int | None = None) -> Delivery:  # fmt: skip
        changes: dict[str, Any] = {
            "attempts": (*delivery.attempts, attempt)[-(keep or 10_000) :],
            "attempt_count": delivery.attempt_count + 1,
            "updated_at": now,
            "status": status,
            "lease_token": None,
            "lease_until": None,
            "next_attempt_at": next_attempt_at,
        }
        if status is not DeliveryStatus.DELIVERED:
            changes["last_error"] = attempt.error or f"http_{attempt.status_code}"
        if status is not DeliveryStatus.PENDING:
            changes[f"{status.value}_at"] = now
        return self._set(delivery, **changes)

    def dead_letter(self, delivery_id: str, _account_id: str, round_: int, now: str) -> Delivery | None:
        found = self.items[delivery_id]
        if found.status != DeliveryStatus.PENDING or found.round != round_:
            return None
        changes = {"status": DeliveryStatus.FAILED, "failed_at": now, "updated_at": now, "next_attempt_at": None}
        return self._set(found, lease_token=None, lease_until=None, **changes)

    def replay(self, delivery: Delivery, now: str, ttl: int) -> Delivery:
        changes = {"status": DeliveryStatus.PENDING, "round": delivery.round + 1, "replayed_at": now}
        changes |= {"updated_at": now, "next_attempt_at": now, "ttl": ttl, "failed_at": None, "owner": None}
        return self._set(delivery, lease_token=None, lease_until=None, **changes)

    def page(self, account_id: str, status: Any, limit: int, start: Any) -> tuple[list[Delivery], Any]:
        found = sorted(
            (d for d in self.items.values() if d.account_id == account_id and status in (None, d.status)),
            key=lambda d: d.delivery_id,
            reverse=True,
        )
        more_after = len(found) > limit
        last = found[limit - 1].delivery_id if more_after else None
        return found[:limit], (
            {"pk": last, "sk": last, "gsi1pk": f"ACC#{account_id}", "gsi1sk": last} if last else None
        )


class DispatchFailures:
    """WebhookDispatchFailureQueue: SQS messages as the store reads them."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages

    def peek(self, limit: int) -> list[dict[str, Any]]:
        return self.messages[:limit]

    def hold(self, message_id: str) -> dict[str, Any] | None:
        return next((m for m in self.messages if m["MessageId"] == message_id), None)

    def delete(self, message: dict[str, Any]) -> None:
        self.messages.remove(message)

    def release(self, _message: dict[str, Any]) -> None:
        pass


class Ops(SimpleNamespace):
    directory: Directory
    oauth: OAuthClients
    log: list[Any]
    business_accounts: BusinessAccounts
    identity_providers: IdentityProviders
    deliveries: Deliveries


@pytest.fixture
def ops(monkeypatch: pytest.MonkeyPatch) -> Iterator[Ops]:
    log: list[Any] = []
    stores = Ops(
        directory=Directory(log),
        oauth=OAuthClients(log),
        log=log,
        business_accounts=BusinessAccounts(),
        identity_providers=IdentityProviders(),
        deliveries=Deliveries(),
    )
    for module in (access, oauth):
        monkeypatch.setattr(module, "key_pepper", lambda: PEPPER)
    monkeypatch.setattr(
        binding_store, "client", lambda _name: SimpleNamespace(encrypt=lambda **_: {"CiphertextBlob": b"x"})
    )
    bound = binding_store.Bindings.__new__(binding_store.Bindings)
    bound.table, bound.key_id = FakeTable(), "alias/data"
    peers = {"regional-sa": {"gateway": "https://gw.sa.example", "management": "https://ops.sa.example"}}
    with deps.substitute(
        settings=Settings(service_region="mz", stage="test", peer_region_urls=peers),
        directory=stores.directory,
        oauth=stores.oauth,
        webhook_secrets=WebhookSecrets(),
        account_endpoints=gateway_tests.Endpoints(log),
        events=gateway_tests.Events(log),
        rate_counters=SimpleNamespace(write_override=lambda *_: None),
        limits=SimpleNamespace(write=lambda *_: None),
        payout_limits=SimpleNamespace(write=lambda *_: None),
        payments=Routing(),
        bindings=bound,
        business_accounts=stores.business_accounts,
        event_writes=SimpleNamespace(),  # the stores' fakes keep the events they are given
        identity_providers=stores.identity_providers,
        deliveries=stores.deliveries,
        delivery_queue=SimpleNamespace(send=lambda *_: None, retry_after=lambda *_: None, has_slow_lane=False),
    ):
        yield stores


def new_account(name: str = "Loja Ana") -> str:
    return valid(answers.NewAccount, access.create_account(name, "mz")).id  # type: ignore[no-any-return]


# ---------------------------------------------------------------- accounts and connections
def test_an_account_created_read_suspended_and_reactivated(ops: Ops) -> None:
    made = valid(answers.NewAccount, access.create_account("Loja Ana", "mz"))
    assert (made.status, made.reason) == ("active", "") and made.webhook_secrets.live.secret.startswith("whsec_")
    assert valid(answers.Account, access.get_account(made.id)).name == "Loja Ana"
    suspended = valid(answers.Account, access.change_account_status(made.id, "suspend", "Chargeback review"))
    assert (suspended.status, suspended.reason) == ("suspended", "Chargeback review")
    assert valid(answers.Account, access.change_account_status(made.id, "reactivate")).status == "active"


def test_connections_made_listed_and_removed(ops: Ops) -> None:
    platform, shop = new_account("Platform"), new_account("Shop")
    connection = valid(answers.Connection, access.connect_account(platform, shop))
    assert connection.connected_account_id == shop
    listed = valid(answers.ConnectionList, access.list_connections(platform))
    assert listed.connected_accounts == [connection]
    assert valid(answers.Disconnection, access.disconnect_account(platform, shop)).connected is False
    assert valid(answers.ConnectionList, access.list_connections(platform)).connected_accounts == []


# ---------------------------------------------------------------- credentials
def test_api_keys_created_and_revoked(ops: Ops) -> None:
    account = new_account()
    plain = valid(answers.NewApiKey, access.create_api_key(account, "test", ["payments:read"], None, [], []))
    assert plain.key.startswith("mzp_test_") and plain.expires_at is None
    until = datetime(2030, 1, 1, tzinfo=UTC)
    bounded = access.create_api_key(account, "live", list(keys.SCOPES), until, ["203.0.113.0/24"], ["cus_1"])
    assert valid(answers.NewApiKey, bounded).expires_at == "2030-01-01T00:00:00Z"
    revoked = valid(answers.ApiKey, access.revoke_api_key(plain.id))
    assert revoked.status == "revoked"
    assert "key" not in access.revoke_api_key(bounded.id).wire()
    valid(answers.ApiKey, ops.log[-1].data["object"])  # api_key.revoked carries the key as this route shows it


def _jwk(algorithm: Any, key: Any, kid: str | None) -> dict[str, Any]:
    jwk: dict[str, Any] = algorithm.to_jwk(key.public_key(), as_dict=True)
    return jwk | ({"kid": kid} if kid else {})


def test_oauth_clients_by_secret_by_keys_and_by_published_keys(ops: Ops, monkeypatch: pytest.MonkeyPatch) -> None:
    from cryptography.hazmat.primitives.asymmetric import ec, rsa
    from jwt.algorithms import ECAlgorithm, RSAAlgorithm

    account = new_account()
    by_secret = valid(answers.NewOAuthClient, oauth.create_client(account, "live", ["payments:read"], None, None, []))
    assert by_secret.client_secret.startswith("mzs_live_") and by_secret.secret_hint is not None
    jwks = {
        "keys": [
            _jwk(ECAlgorithm, ec.generate_private_key(ec.SECP256R1()), "k1"),
            _jwk(RSAAlgorithm, rsa.generate_private_key(public_exponent=65537, key_size=2048), None),
        ]
    }
    by_keys = oauth.create_client(account, "test", ["events:read"], "ERP", jwks, ["198.51.100.0/24"])
    assert "client_secret" not in by_keys.wire()
    parsed = valid(answers.NewOAuthClient, by_keys)
    assert [k.kty for k in parsed.jwks.keys] == ["EC", "RSA"] and parsed.secret_hint is None
    monkeypatch.setattr(oauth, "_keys_at", lambda *_, **__: jwks["keys"])
    published = oauth.create_client(account, "live", ["payments:read"], None, None, [], "https://erp.example/jwks")
    assert valid(answers.NewOAuthClient, published).jwks_uri == "https://erp.example/jwks"
    assert len(valid(answers.OAuthClientList, oauth.list_clients(account)).data) == 3
    revoked = valid(answers.OAuthClient, oauth.revoke_client(by_secret.client_id))
    assert revoked.status == "revoked" and revoked.revoked_at is not None
    valid(answers.OAuthClient, ops.log[-1].data["object"])  # oauth_client.revoked carries it too


def test_webhook_secrets_rolled(ops: Ops) -> None:
    account = new_account()  # its first secret per mode was made with it
    rolled = valid(answers.RolledWebhookSecret, access.roll_webhook_secret(account, "live"))
    assert rolled.previous_secret_id is not None and rolled.previous_expires_at is not None
    other = valid(answers.RolledWebhookSecret, access.roll_webhook_secret(new_account(), "test"))
    assert other.region == "mz"


# ---------------------------------------------------------------- limits, PSPs, bindings, payouts
def test_rate_account_and_payout_limits(ops: Ops) -> None:
    account = new_account()
    rates = account_schemas.RateLimitsIn(per_key=50, per_account=200).limits()
    assert valid(answers.RateLimits, rate_limits.set_rate_limits(account, rates)).per_key == 50
    body = {"mode": "live", "currencies": ["MZN"], "per_transaction": {"MZN": "5000.50"}, "daily": {"MZN": "100000"}}
    ceilings = operations_schemas.AccountLimitsIn.model_validate(body).limits()
    limits = valid(answers.AccountLimits, psps.set_account_limits(account, "live", ceilings))
    assert limits.per_transaction == {"MZN": "5000.50"}
    open_ended = operations_schemas.AccountLimitsIn.model_validate({"mode": "test"}).limits()
    assert valid(answers.AccountLimits, psps.set_account_limits(account, "test", open_ended)).currencies is None
    payout_body = {"mode": "live", "approval_threshold": {"MZN": "50000.00"}, "beneficiary_daily": {"USD": "900"}}
    payout_limits = operations_schemas.PayoutLimitsIn.model_validate(payout_body).limits()
    shown = valid(answers.PayoutLimits, payout_cases.set_payout_limits(account, "live", payout_limits))
    assert shown.approval_threshold == {"MZN": "50000.00"} and shown.daily == {}


def test_psps_their_availability_and_pilots(ops: Ops) -> None:
    before = valid(answers.PspList, psps.psps())
    assert [p.psp_id for p in before.psps] == [p.psp_id for p in routing.CAPABILITY_MATRIX]
    down = valid(answers.PspStatus, psps.set_psp_availability("vodacom-mpesa", False, "Provider outage"))
    assert down.available is False
    settings = {
        "merchant_ids": ["01JD0000000000000000000ACC"],
        "currencies": ["MZN"],
        "per_transaction": {"MZN": "5000"},
        "daily": {"MZN": "50000"},
        "monthly": {"MZN": "500000.00"},
    }
    pilot = operations_schemas.PilotIn.model_validate({"in_pilot": True, "settings": settings})
    piloted = psps.set_psp_pilot("tmcel-mkesh", pilot.in_pilot, pilot.settings.settings() if pilot.settings else None)
    assert valid(answers.PilotState, piloted).settings is not None
    assert valid(answers.PilotState, psps.set_psp_pilot("bci-cards", False, None)).settings is None
    after = {p.psp_id: p for p in valid(answers.PspList, psps.psps()).psps}
    assert (after["vodacom-mpesa"].available, after["tmcel-mkesh"].pilot.in_pilot) == (False, True)
    assert after["simulator"].updated_at is None and after["simulator"].limits == {}


def test_a_bill_payment_waiting_for_an_operator_is_a_reconciliation_case() -> None:
    from mzpay.domain.bills.payments import BillPayment
    from mzpay.operators import reconciliation

    waiting = BillPayment.model_construct(
        payment_id="5f1c0f0e-3b1a-4e0a-9a57-2f3b8f0c1a55",
        account_id=gateway_tests.ACCOUNT,
        mode="live",
        status="pending",
        channel_debit="150.00",
        currency="MZN",
        created_at="2026-11-20T09:00:00Z",
        reconciliation="gave_up",
        due_at="2026-11-23T09:00:00Z",
        resolution=None,
    )
    case = valid(answers.ReconciliationCase, reconciliation.case_view(waiting))
    assert (case.object, case.amount, case.waiting_since) == ("bill_payment", "150.00", "2026-11-23T09:00:00Z")


def test_connector_bindings(ops: Ops) -> None:
    account = new_account()
    credentials_in = {"api_key": "k", "public_key": "p", "service_provider_code": "171717"}
    bound = valid(answers.ConnectorBinding, bindings.bind(account, "live", "mpesa", "vodacom-mpesa", credentials_in))
    assert bound.credential_fields == sorted(credentials_in)
    assert valid(answers.ConnectorBindingList, bindings.list_bindings(account)).bindings == [bound]
    assert valid(answers.Unbinding, bindings.unbind(account, "live", "mpesa")).bound is False


def test_payouts_approved_and_rejected(world: gateway_tests.World) -> None:
    world.limits.value = PayoutLimitRules(approval_threshold={"MZN": Decimal("1000")})
    waiting = []
    for _ in range(2):
        request = gateway_tests.payout_request(gateway_tests.DESTINATIONS["mobile_wallet"], "5000.00")
        waiting.append(payout_cases.create_payout(gateway_tests.merchant(), request).provider_payout_id)
    approved = valid(answers.Payout, payout_cases.approve(waiting[0]))
    rejected = valid(answers.Payout, payout_cases.reject(waiting[1], "Not expected"))
    assert (approved.status, rejected.status, rejected.failure_message) == ("pending", "rejected", "Not expected")


# ---------------------------------------------------------------- webhook deliveries and dispatch failures
def _delivered_event(url: str) -> str:
    event = new_event(
        "payment.succeeded",
        gateway_tests.ACCOUNT,
        "live",
        "payment",
        "01JD8Z5M7B2C3D4E5F6G7H8J9K",
        {"object": {"provider_payment_id": "01JD8Z5M7B2C3D4E5F6G7H8J9K", "status": "succeeded"}},
        iso(datetime.now(UTC)),
        url,
    )
    delivery_id = outbox.dispatch(event_item(event))
    assert delivery_id is not None
    return delivery_id


def _attempt(delivery_id: str, answer: transport.PostResult, count: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sender, "_post", lambda *_: answer)
    round_ = deps.deliveries().get(delivery_id).round  # type: ignore[union-attr]
    sender.attempt(sender.Received(f"m{count}", "r", delivery_id, round_, count))


def test_webhook_deliveries_through_their_lifecycle(ops: Ops, monkeypatch: pytest.MonkeyPatch) -> None:
    now = iso(datetime.now(UTC))
    ops.directory.put(gateway_tests.ACCOUNT, Account(gateway_tests.ACCOUNT, "Loja Ana", "mz", "active", "", now, now))
    new = _delivered_event("https://shop.example/a")
    assert valid(answers.WebhookDelivery, webhook_deliveries.delivery(new)).attempts == []
    _attempt(new, transport.PostResult(500, 120, None), 1, monkeypatch)
    retrying = valid(answers.WebhookDelivery, webhook_deliveries.delivery(new))
    assert (retrying.status, retrying.last_error, retrying.attempts[0].next_attempt_at is not None) == (
        "pending",
        "http_500",
        True,
    )
    _attempt(new, transport.PostResult(200, 80, None), 2, monkeypatch)
    assert valid(answers.WebhookDelivery, webhook_deliveries.delivery(new)).delivered_at is not None
    gone = _delivered_event("https://shop.example/b")
    _attempt(gone, transport.PostResult(410, 50, None), 1, monkeypatch)
    assert valid(answers.WebhookDelivery, webhook_deliveries.delivery(gone)).status == "stopped"
    refused = _delivered_event("https://shop.example/c")
    _attempt(refused, transport.PostResult(None, 0, "ssrf_blocked"), 1, monkeypatch)
    failed = valid(answers.WebhookDelivery, webhook_deliveries.delivery(refused))
    assert (failed.status, failed.attempts[0].status_code, failed.attempts[0].error) == ("failed", None, "ssrf_blocked")
    dead = _delivered_event("https://shop.example/d")
    sender.dead_letter(json.dumps({"delivery_id": dead, "round": 0}))
    replayed = valid(answers.WebhookDelivery, webhook_deliveries.replay(dead))
    assert (replayed.status, replayed.round, replayed.replayed_at is not None) == ("pending", 1, True)
    listed = webhook_deliveries.account_deliveries(gateway_tests.ACCOUNT, None, 3, None)
    page = valid(answers.WebhookDeliveryList, listed)
    assert (len(page.data), page.has_more, page.next_page_token is not None) == (3, True, True)
    stopped = webhook_deliveries.account_deliveries(gateway_tests.ACCOUNT, DeliveryStatus.STOPPED, 50, None)
    assert [d.status for d in valid(answers.WebhookDeliveryList, stopped).data] == ["stopped"]
    assert "attempts" not in stopped.wire()["data"][0]


def _message(message_id: str, body: Any, sent_ms: int | None = 1793613600000) -> dict[str, Any]:
    attributes = {"SentTimestamp": str(sent_ms)} if sent_ms is not None else {}
    return {"MessageId": message_id, "ReceiptHandle": "r", "Body": body, "Attributes": attributes}


def test_webhook_dispatch_failures_listed_and_replayed(ops: Ops, monkeypatch: pytest.MonkeyPatch) -> None:
    event = new_event(
        "payment.succeeded", "01JD0000000000000000000ACC", "live", "payment", "p1", {}, "2026-11-02T10:00:00Z"
    )
    stream = {"event_source_arn": "arn:aws:dynamodb:af-south-1:1:table/events/stream/x", "event_id": "e1"}
    skipped = fanout.skip_message(
        event_item(event),
        fanout.Skip("webhook", "rejected_by_sqs", "InvalidParameterValue"),
        stream | {"sequence_number": "42"},
    )
    malformed = fanout.skip_message(
        None, fanout.Skip("webhook", "malformed_image", "KeyError('id')"), stream | {"sequence_number": None}
    )
    batch = {
        "requestContext": {"requestId": "r", "functionArn": "arn:f", "condition": "RetryAttemptsExhausted"},
        "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"},
        "version": "1.0",
        "timestamp": "2026-11-02T10:00:00.000Z",
        "DDBStreamBatchInfo": {
            "shardId": "shardId-1",
            "startSequenceNumber": "100",
            "endSequenceNumber": "102",
            "approximateArrivalOfFirstRecord": "2026-11-02T09:59:58Z",
            "approximateArrivalOfLastRecord": "2026-11-02T09:59:59Z",
            "batchSize": 3,
            "streamArn": "arn:aws:dynamodb:af-south-1:1:table/events/stream/x",
        },
    }
    ids = [f"5f1c0f0e-3b1a-4e0a-9a57-2f3b8f0c1a5{n}" for n in range(5)]
    queue = DispatchFailures(
        [
            _message(ids[0], json.dumps(skipped)),
            _message(ids[1], json.dumps(malformed)),
            _message(ids[2], json.dumps(batch)),
            _message(ids[3], "not json", None),
            _message(ids[4], json.dumps({"aged": True})),
        ]
    )
    with deps.substitute(dispatch_failures=queue, events=SimpleNamespace(by_key=lambda *_: None)):
        listed = valid(answers.WebhookDispatchFailureList, dispatch_failures.failures(50))
        assert [f.kind for f in listed.data] == ["skipped", "skipped", "stream_batch", "unreadable", "unreadable"]
        assert listed.data[3].sent_at is None and listed.data[2].stream.batch_size == 3
        not_found = valid(answers.WebhookDispatchReplay, dispatch_failures.replay(ids[0]))
        assert (not_found.removed, not_found.events[0].outcome) == (True, "not_found")
        monkeypatch.setattr(
            dispatch_failures, "stream_records", lambda *_: (_ for _ in ()).throw(dispatch_failures.StreamExpired())
        )
        expired = valid(answers.WebhookDispatchReplay, dispatch_failures.replay(ids[2]))
        assert expired.events[0].model_dump() == {
            "event_id": None, "event_type": None, "delivery_id": None, "outcome": "expired", "reason": None
        }  # fmt: skip
    image = event_item(event)
    again = fanout.Dispatched(None, (fanout.Skip("webhook", "rejected_by_sqs", "still too large"),))
    monkeypatch.setattr(fanout, "dispatch_event", lambda _image: again)
    queue = DispatchFailures([_message(ids[0], json.dumps(skipped))])
    with deps.substitute(dispatch_failures=queue, events=SimpleNamespace(by_key=lambda *_: image)):
        kept = valid(answers.WebhookDispatchReplay, dispatch_failures.replay(ids[0]))
    assert (kept.removed, kept.events[0].outcome, kept.events[0].reason) == (False, "skipped", "rejected_by_sqs")


# ---------------------------------------------------------------- reviews and audits of the collection surface
def test_a_business_accounts_reviews(ops: Ops) -> None:
    onboarding.initialize("acct_loja")
    onboarding.put_details("acct_loja", {"object": "account", **details()})
    onboarding.finish("acct_loja")
    problems = [{"field": "bank_details.nib", "message": "Another holder", "code": "NOT_FOUND"}]
    onboarding.decide(REVIEWER, "198.51.100.7", "acct_loja", "reject", "The NIB does not match.", problems)
    onboarding.finish("acct_loja")
    for action in ("approve", "suspend", "reactivate"):
        onboarding.decide(REVIEWER, "198.51.100.7", "acct_loja", action)
    reviews = valid(answers.BusinessAccountReviews, onboarding.reviews("acct_loja"))
    assert [r.action for r in reviews.data] == ["reactivate", "suspend", "approve", "reject"]
    assert reviews.data[1].reason == "Suspended by a reviewer." and reviews.data[3].errors[0].code == "NOT_FOUND"


IDP = {
    "name": "Acme SSO",
    "type": "saml",
    "client_id": "mzpay",
    "client_secret": "s3cr3t-value-long-enough",
    "encryption_key": "k",
    "provider_url": "https://sso.acme.example",
    "issuer_url": "https://sso.acme.example/issuer",
    "auth_url": "https://sso.acme.example/auth",
    "token_url": "https://sso.acme.example/token",
    "user_info_url": "https://sso.acme.example/userinfo",
    "jwks_uri": "https://sso.acme.example/jwks",
    "end_session_endpoint": "https://sso.acme.example/logout",
    "registration_endpoint": "https://sso.acme.example/register",
    "introspection_endpoint": "https://sso.acme.example/introspect",
    "revocation_endpoint": "https://sso.acme.example/revoke",
    "well_known_url": "https://sso.acme.example/.well-known/openid-configuration",
    "scopes": "openid profile",
    "redirect_uris": "https://portal.example/callback",
}


def test_an_identity_providers_audit_records(ops: Ops) -> None:
    made = identity_providers.create(IDP, ADMIN, "198.51.100.7").identity_provider
    update = {"id": made.id, "name": "Acme", "client_secret": "an0ther-secret-long-enough"}
    identity_providers.update(update, ADMIN, "198.51.100.8")
    identity_providers.delete(made.id, ADMIN, "198.51.100.9")
    records = valid(audit_answers.IdentityProviderAuditList, identity_providers.audit_records(made.id, 50, None))
    assert [r.action for r in records.data] == ["deleted", "updated", "created"]
    assert records.data[0].changes == {} and records.data[1].changes["client_secret"].to == "****ough"
    assert records.data[1].changes["name"].from_ == "Acme SSO"
    first = valid(audit_answers.IdentityProviderAuditList, identity_providers.audit_records(made.id, 2, None))
    assert first.has_more and first.next_page_token is not None
    rest = identity_providers.audit_records(made.id, 2, first.next_page_token)
    assert [r.action for r in valid(audit_answers.IdentityProviderAuditList, rest).data] == ["created"]


# ---------------------------------------------------------------- health, the stack, the document
def test_health_system_info_and_the_document(ops: Ops) -> None:
    from mzpay.http import api_docs
    from mzpay.version import health_report, stack_info

    assert valid(answers.Health, health_report("management")).api == "management"
    info = valid(answers.SystemInfo, stack_info())
    assert info.peer_regions["regional-sa"]["gateway"] == "https://gw.sa.example"
    document = valid(answers.OpenApiDocument, json.loads(api_docs.document("management")))
    assert document.root["info"]["title"] == "mzpay management API"


# ---------------------------------------------------------------- the models themselves
def test_every_example_validates_and_every_model_and_field_is_described() -> None:
    openapi_checks.assert_examples_valid_and_described(answers.models())


def test_routes_are_exactly_the_operations_of_the_management_document() -> None:
    document, operations = openapi_checks.document_operations(DOCUMENT)
    assert set(ROUTES) == operations  # nothing left untyped
    files = {("GET", "/v1/admin/psps/{application_id}/documents/{kind}")}  # the document itself
    assert {key for key, model in ROUTES.items() if model is None} == {
        ("GET", "/docs"),
        ("GET", "/docs/{asset}"),
    } | files
    for (method, path), model in ROUTES.items():
        if model is not None:  # the document answers with the model (regenerated: make openapi)
            responses = document["paths"][path][method.lower()]["responses"]
            success = next(answer for status, answer in responses.items() if status.startswith("2"))
            assert success["content"]["application/json"]["schema"]["$ref"].endswith(f"/{model.__name__}"), path


def every_model(models: list[type[BaseModel]]) -> set[type[BaseModel]]:
    """The models and every model their fields name, however deep."""
    found: set[type[BaseModel]] = set()

    def parts(annotation: Any) -> Iterator[Any]:
        yield annotation
        for argument in typing.get_args(annotation):
            yield from parts(argument)

    def visit(model: type[BaseModel]) -> None:
        if model not in found:
            found.add(model)
            for field in model.model_fields.values():
                for part in parts(field.annotation):
                    if isinstance(part, type) and issubclass(part, BaseModel):
                        visit(part)

    for model in models:
        visit(model)
    return found


def literal(model: type[BaseModel], field: str) -> set[Any]:
    annotation = model.model_fields[field].annotation
    while typing.get_origin(annotation) in (list, dict, typing.Union, type(int | None)):
        annotation = [a for a in typing.get_args(annotation) if a is not type(None)][-1]
    return set(typing.get_args(annotation))


def values(constants: type) -> set[str]:
    return {v for k, v in vars(constants).items() if k.isupper()}


def test_the_enumerations_are_the_domains() -> None:
    assert literal(answers.Account, "status") == values(account_rules.AccountStatus)
    assert literal(answers.Account, "region") == set(SERVICE_REGIONS) == literal(answers.Health, "service_region")
    assert literal(answers.ApiKey, "status") == values(keys.KeyStatus)
    assert literal(answers.OAuthClient, "status") == values(oauth_rules.ClientStatus)
    assert literal(answers.OAuthClient, "token_endpoint_auth_method") == values(oauth_rules.AuthMethod)
    assert literal(answers.ConnectorBinding, "method") == set(routing.BINDING_METHODS)
    psp_methods = {m for psp in routing.CAPABILITY_MATRIX for m in psp.methods}
    assert psp_methods <= set(typing.get_args(typing.get_args(Psp.model_fields["methods"].annotation)[0]))
    assert literal(WebhookDeliverySummary, "status") == {s.value for s in DeliveryStatus}
    assert literal(BusinessAccountReview, "from_status") == values(business.AccountStatus)
    assert {action for _status, action in business.TRANSITIONS} - {"finish"} == literal(BusinessAccountReview, "action")
    assert literal(ReviewedField, "code") == set(onboarding.REVIEW_ERROR_CODES)


def test_no_answer_model_is_named_like_a_request_body() -> None:
    """The generator files schemas by name: an answer named like a request body would replace it."""
    document = json.loads(DOCUMENT.read_text())
    bodies = {
        cls.__name__
        for module in (account_schemas, operations_schemas)
        for cls in vars(module).values()
        if isinstance(cls, type) and issubclass(cls, Strict)
    } | {"DeliveryStatus"}  # the deliveries list's status parameter
    ours = every_model(answers.models())
    names = {model.__name__ for model in ours}
    assert len(names) == len(ours), "two answer models share a name"
    shapes = {"Problem", "FieldError", "CollectionError", "OAuthError"}  # the generator's error shapes
    assert "CreateAccount" in bodies and (bodies | shapes) & names == set()
    assert names <= set(document["components"]["schemas"])  # regenerated

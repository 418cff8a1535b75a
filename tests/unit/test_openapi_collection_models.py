"""The collection API's answer models (mzpay.answers.collection_*, indexed by
mzpay.openapi.collection.ROUTES) against the code that builds the answers: the real use cases
(mzpay.collection.*) and domain views, their stores replaced by in-memory fakes with
deps.substitute (the uploads store is the real one over an in-memory table), each answer validated
by its route's model after the service's own JSON encoding (money, a Decimal, as a JSON number), in
many states: a request created, opened by its payer, paid, failed, changed and deleted; a business
onboarded, rejected, approved, suspended; a verification reviewed three ways. Also: every example
validates, every model and field is described, ROUTES names the operations of
docs/openapi/collection.json (only the empty-body answer left out), the models' enumerations are
the domain's, and no model is named like a request body of the document."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace
from typing import Any
from uuid import uuid4

import pytest
from pydantic import BaseModel

from devstack.licence import generate_issuer_key, issue_licence
from mzpay import deps
from mzpay.answers import collection_accounts as accounts
from mzpay.answers import collection_identity as identity
from mzpay.answers import collection_kyc as kyc_answers
from mzpay.answers import collection_licence as licence_answers
from mzpay.answers import collection_partners as partner_answers
from mzpay.answers import collection_request_parts as parts
from mzpay.answers import collection_requests as answers
from mzpay.answers import collection_system as system
from mzpay.answers import collection_transactions as transaction_answers
from mzpay.collection import (
    collection_methods,
    collection_requests,
    devices,
    files,
    identity_providers,
    kyc,
    licence,
    onboarding,
    payment_links,
    payment_methods,
    transactions,
)
from mzpay.config import Settings
from mzpay.domain.collection import business, payers
from mzpay.domain.collection import kyc as kyc_rules
from mzpay.domain.collection import licence as licence_rules
from mzpay.domain.collection import reference as collection_reference
from mzpay.domain.collection import requests as request_rules
from mzpay.domain.collection.kyc import NOTHING_MORE, Customer, KycVerification
from mzpay.domain.collection.requests import CollectionMethod, CollectionRequest
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.model import Strict
from mzpay.domain.partners import catalogue as partners
from mzpay.domain.partners import transactions as customer_transactions
from mzpay.domain.partners.payment_methods import PaymentMethod
from mzpay.domain.partners.transactions import CustomerTransaction
from mzpay.http import collection_request_schemas, collection_schemas, kyc_schemas, partner_schemas
from mzpay.http.resolver import dumps
from mzpay.openapi import collection as routes
from mzpay.openapi.collection import ROUTES
from mzpay.steps.collection_payments import reconcile_collection
from mzpay.store import files as file_store
from mzpay.store.collection_requests import account_list_key, phone_list_key
from mzpay.store.transitions import applied
from mzpay.version import health_report, version_info
from tests.unit import openapi_checks
from tests.unit.test_business_rules import details
from tests.unit.test_openapi_management_models import (
    ADMIN,
    IDP,
    REVIEWER,
    BusinessAccounts,
    Directory,
    FakeTable,
    IdentityProviders,
    WebhookSecrets,
    every_model,
    literal,
    valid,
    values,
)

DOCUMENT = openapi_checks.shipped_document("collection")
BUSINESS = "acct_loja"
PRIVATE, PUBLIC = generate_issuer_key()
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64
# Not in ROUTES on purpose: it answers 200 with an empty body, which the route documents itself.
EMPTY_BODY = {("POST", "/v1/account/onboarding/initialize")}


def stored(entity: Any) -> Any:
    """`entity` as a store reads it back (absent attributes, not nulls; numbers as Decimal)."""
    return type(entity).model_validate(entity.item())


# ---------------------------------------------------------------- in-memory stores
class Requests:
    """Collection methods and requests (lists by account and payer phone, newest first)."""

    def __init__(self) -> None:
        self.methods_by_id: dict[str, CollectionMethod] = {}
        self.requests: dict[str, CollectionRequest] = {}
        self.log: list[Any] = []

    def add_method(self, method: CollectionMethod) -> None:
        self.methods_by_id[method.method_id] = stored(method)

    def method(self, method_id: str) -> CollectionMethod | None:
        return self.methods_by_id.get(method_id)

    def methods(self, ids: list[str]) -> dict[str, CollectionMethod]:
        return {i: self.methods_by_id[i] for i in ids if i in self.methods_by_id}

    def methods_of(self, account_id: str, limit: int) -> list[CollectionMethod]:
        return [m for m in self.methods_by_id.values() if m.account_id == account_id][:limit]

    def change_method(self, method: CollectionMethod, changes: dict[str, Any]) -> CollectionMethod:
        self.methods_by_id[method.method_id] = after = stored(applied(method, changes))
        return after

    def create(self, request: CollectionRequest, events: list[Any]) -> None:
        self.requests[request.request_id] = stored(request)
        self.log += events

    def get(self, request_id: str) -> CollectionRequest | None:
        return self.requests.get(request_id)

    def transition(self, request: CollectionRequest, changes: dict[str, Any], events: list[Any]) -> CollectionRequest:
        self.requests[request.request_id] = after = stored(applied(request, changes))
        self.log += events
        return after

    def page(self, list_key: str, limit: int, start: Any) -> tuple[list[CollectionRequest], Any]:
        found = sorted(
            (
                r
                for r in self.requests.values()
                if r.status != "deleted"
                and list_key in (account_list_key(r.account_id), phone_list_key(r.mode, r.payer_phone or ""))
            ),
            key=lambda r: r.request_id,
            reverse=True,
        )
        found = [r for r in found if start is None or r.request_id < start["gsi1sk" if "gsi1sk" in start else "gsi2sk"]]
        if len(found) <= limit:
            return found, None
        last, index = found[limit - 1].request_id, "gsi2" if list_key.startswith("CRPHONE#") else "gsi1"
        return found[:limit], {"pk": f"CR#{last}", "sk": "CR", f"{index}pk": list_key, f"{index}sk": last}


class Kyc:
    def __init__(self) -> None:
        self.customers: dict[str, Customer] = {}
        self.verifications: dict[str, KycVerification] = {}
        self.events: list[Any] = []

    def register(self, customer: Customer, verification: KycVerification) -> None:
        self.customers[customer.customer_id] = stored(customer)
        self.verifications[verification.kyc_id] = stored(verification)

    def customer(self, customer_id: str) -> Customer | None:
        return self.customers.get(customer_id)

    def verification(self, kyc_id: str) -> KycVerification | None:
        return self.verifications.get(kyc_id)

    def transition(
        self, verification: KycVerification, changes: dict[str, Any], events: tuple[Any, list[Any]] | None = None
    ) -> KycVerification:
        self.verifications[verification.kyc_id] = after = stored(applied(verification, changes))
        self.events.extend(events[1] if events else [])  # an outcome's message (docs/notifications.md)
        return after


class Methods:
    """Customers' payment methods and their transactions."""

    def __init__(self) -> None:
        self.methods: dict[str, PaymentMethod] = {}
        self.transactions: dict[str, CustomerTransaction] = {}
        self.events: list[Any] = []

    def add(self, method: PaymentMethod) -> None:
        self.methods[method.pm_id] = stored(method)

    def get(self, pm_id: str) -> PaymentMethod | None:
        return self.methods.get(pm_id)

    def of_customer(self, customer_id: str, limit: int) -> list[PaymentMethod]:
        return [m for m in self.methods.values() if m.customer_id == customer_id][:limit]

    def change(self, method: PaymentMethod, changes: dict[str, Any]) -> PaymentMethod:
        self.methods[method.pm_id] = after = stored(applied(method, changes))
        return after

    def record(self, transaction: CustomerTransaction, events: tuple[Any, list[Any]] | None = None) -> None:
        self.transactions[transaction.instruction_id] = stored(transaction)
        self.events.extend(events[1] if events else [])  # the customer's message (notify_customer)

    def transaction(self, instruction_id: str) -> CustomerTransaction | None:
        return self.transactions.get(instruction_id)

    def transactions_of(self, customer_id: str, limit: int) -> list[CustomerTransaction]:
        mine = [t for t in self.transactions.values() if t.customer_id == customer_id]
        return sorted(mine, key=lambda t: t.instruction_id, reverse=True)[:limit]


class Devices:
    def __init__(self) -> None:
        self.items: dict[tuple[str, str], dict[str, Any]] = {}

    def get(self, account_id: str, device_id: str) -> dict[str, Any] | None:
        return self.items.get((account_id, device_id))

    def trust(self, account_id: str, device: dict[str, Any]) -> dict[str, Any]:
        return self.items.setdefault((account_id, device["device_id"]), dict(device))


class Licences:
    def __init__(self) -> None:
        self.record: dict[str, Any] | None = None

    def read(self) -> dict[str, Any] | None:
        return self.record

    def activate(self, record: dict[str, Any], now_epoch: int, issuer_key: str) -> bool:
        active = self.record and self.record["expires_epoch"] > now_epoch and self.record["issuer_key"] == issuer_key
        if active:
            return False
        self.record = record
        return True

    def deactivate(self) -> dict[str, Any] | None:
        old, self.record = self.record, None
        return old


class World(SimpleNamespace):
    business_accounts: BusinessAccounts
    requests: Requests
    directory: Directory
    payments: dict[str, Any]


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    monkeypatch.setenv("LICENCE_ISSUER_PUBLIC_KEY", PUBLIC)
    monkeypatch.setattr(file_store, "client", lambda _name: SimpleNamespace(put_object=lambda **_: None))
    uploads = file_store.Files.__new__(file_store.Files)
    uploads.table, uploads.bucket = FakeTable(), "mzpay-uploads-mz"
    stores = World(business_accounts=BusinessAccounts(), requests=Requests(), directory=Directory([]), payments={})
    lookups = SimpleNamespace(get=stores.payments.get)
    with deps.substitute(
        settings=Settings(service_region="mz", stage="test", licence_issuer_public_key=PUBLIC),
        business_accounts=stores.business_accounts,
        event_writes=SimpleNamespace(),  # the stores' fakes keep the events they are given
        collection_requests=stores.requests,
        directory=stores.directory,
        webhook_secrets=WebhookSecrets(),  # an approval's first signing secrets
        files=uploads,
        upload_counters=SimpleNamespace(
            take=lambda *_: None
        ),  # within limits (tests/integration/test_upload_limits.py)
        kyc=Kyc(),
        payment_methods=Methods(),
        devices=Devices(),
        licences=Licences(),
        identity_providers=IdentityProviders(),
        payments=lookups,
        payouts=lookups,
    ):
        yield stores


def onboarded(world: World, account_id: str = BUSINESS, logo: bool = True) -> None:
    """An active business with its gateway account (and, by default, a logo)."""
    from mzpay.store.directory import Account

    onboarding.initialize(account_id)
    body: dict[str, Any] = {"object": "account", **details()}
    if logo:
        body["logo"] = {"file_id": upload(account_id).id}
    onboarding.put_details(account_id, body)
    onboarding.finish(account_id)
    onboarding.decide(REVIEWER, "198.51.100.7", account_id, "approve")
    now = now_iso()
    world.directory.put(account_id, Account(account_id, "Loja", "mz", "active", "", now, now))


def multipart(fields: dict[str, str], name: str, filename: str, content: bytes) -> tuple[bytes, str]:
    boundary = "mzpay-boundary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()
    ]
    head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
    parts.append(head.encode() + b"Content-Type: application/octet-stream\r\n\r\n" + content + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def upload(account_id: str) -> accounts.UploadedFile:
    return files.upload(account_id, *multipart({"file_type": "png"}, "file", "logo.png", PNG))


# ---------------------------------------------------------------- onboarding and files
def test_a_business_onboards_is_rejected_approved_and_suspended(world: World) -> None:
    onboarding.initialize(BUSINESS)
    fresh = valid(accounts.BusinessAccount, onboarding.read_account(BUSINESS))
    assert (fresh.status, fresh.name, fresh.details.bank_details, fresh.logo) == ("pending", None, None, None)
    assert valid(accounts.OnboardingDetails, onboarding.read_details(BUSINESS)).tax_details is None
    logo = valid(accounts.UploadedFile, upload(BUSINESS))
    assert (logo.file_type, logo.file_size) == ("png", len(PNG))
    body = {"object": "account", **details(tax_details__vat_number="400339910"), "logo": {"file_id": logo.id}}
    given = valid(accounts.OnboardingDetails, onboarding.put_details(BUSINESS, body))
    assert given.business_details.country == "MZ" and given.person_of_contact.email is None
    without_optional = details(person_of_contact__phone_number=None)
    without_optional.pop("tax_details")
    partial = valid(
        accounts.OnboardingDetails, onboarding.put_details(BUSINESS, {"object": "account", **without_optional})
    )
    assert partial.tax_details is None and partial.person_of_contact.phone_number is None
    assert valid(accounts.BusinessAccount, onboarding.finish(BUSINESS)).status == "pending_review"
    assert valid(accounts.OnboardingStatus, onboarding.onboarding_status(BUSINESS)).reason == ""
    problems = [{"field": "bank_details.nib", "message": "Another holder", "code": "NOT_FOUND"}]
    rejected = onboarding.decide(REVIEWER, "198.51.100.7", BUSINESS, "reject", "The NIB does not match.", problems)
    assert valid(accounts.BusinessAccount, rejected).errors[0].field == "bank_details.nib"
    assert valid(accounts.OnboardingStatus, onboarding.onboarding_status(BUSINESS)).status == "rejected"
    onboarding.finish(BUSINESS)
    approved = valid(accounts.BusinessAccount, onboarding.decide(REVIEWER, "198.51.100.7", BUSINESS, "approve"))
    assert (approved.status, approved.errors, approved.logo.file_id) == ("active", [], logo.id)
    suspended = valid(accounts.BusinessAccount, onboarding.decide(REVIEWER, "198.51.100.7", BUSINESS, "suspend"))
    assert suspended.reason == "Suspended by a reviewer."
    back = valid(accounts.BusinessAccount, onboarding.decide(REVIEWER, "198.51.100.7", BUSINESS, "reactivate"))
    assert (back.status, back.reason) == ("active", "")


# ---------------------------------------------------------------- collection methods and requests
def request_body(methods: list[str], **extra: Any) -> dict[str, Any]:
    body = {
        "description": "November invoice",
        "collection_method_ids": methods,
        "amount": {"currency": "MZN", "value": 1500},
        "payer": {
            "first_name": "Ana",
            "last_name": "Machava",
            "legal_name": "Ana Machava",
            "vat_number": "400339910",
            "type": "individual",
            "delivery_method": "sms",
            "contact": {"phone_number": "+258841234567"},
        },
        **extra,
    }
    return collection_request_schemas.CollectionRequestIn.model_validate(body).fields()


def test_collection_methods_added_listed_and_switched(world: World) -> None:
    onboarded(world)
    mpesa = valid(answers.CollectionMethod, collection_methods.add(BUSINESS, "mpesa", None, "live"))
    assert (mpesa.name, mpesa.status) == ("M-Pesa", "active")
    valid(answers.CollectionMethod, collection_methods.add(BUSINESS, "card", "Cartões", "test"))
    assert len(valid(answers.CollectionMethodList, collection_methods.listed(BUSINESS)).data) == 2
    off = valid(answers.CollectionMethod, collection_methods.set_status(BUSINESS, mpesa.id, "inactive"))
    assert off.status == "inactive"
    assert valid(answers.CollectionMethod, collection_methods.read(BUSINESS, mpesa.id)) == off


def test_a_collection_request_through_its_lifecycle(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    onboarded(world)
    method = collection_methods.add(BUSINESS, "mpesa", None, "live").id
    extra = {
        "third_party_reference": "ERP-7781",
        "metadata": {"order": "7781"},
        "invoice_metadata": {"issue_date": "2026-11-02", "due_date": "2026-12-31", "invoice_type": "proforma"},
        "financial_details": {"line_items": "2 x bags", "products_info": {"quantity": 2, "unit_price": 750}},
        "integration_routing": {"callback_url": "https://erp.example/mzpay"},
    }
    full = collection_requests.create(BUSINESS, "user-42", request_body([method], **extra), "https://collect.example")
    created = valid(answers.CreatedCollectionRequest, full)
    assert isinstance(json.loads(dumps(full.wire()))["amount"]["value"], float)  # a JSON number
    assert created.invoice_metadata.payment_link == f"https://collect.example/pay/{created.id}"
    plain = collection_requests.create(BUSINESS, "user-42", request_body([method]), "https://collect.example")
    read = valid(answers.CollectionRequestRead, collection_requests.read(BUSINESS, plain.id))
    assert (read.collection_request.financial_details.discount, read.collection_request.biller.logo is not None) == (
        0,
        True,
    )
    valid(answers.CollectionRequest, world.requests.log[0].data["object"])  # collection_request.created
    # the payer opens the link: a checkout in process, then its payment fails, then it is paid
    monkeypatch.setattr(
        payment_links, "_checkout", lambda request, attempt, *_: (f"01JD9P{attempt:020d}", "https://pay")
    )
    payment_links.open_link(created.id, "https://gw.example")
    opened = valid(answers.CollectionRequestRead, collection_requests.read(BUSINESS, created.id)).collection_request
    assert (opened.payment_reconciliation.payment_status, opened.compliance_audit.viewed_at is not None) == (
        "in_process",
        True,
    )
    settle(world, created.id, "payment.failed")
    payer_view = valid(answers.PayerRequestRead, collection_requests.public_read(created.id))
    assert payer_view.collection_request.payment_reconciliation.payment_status == "failed"
    payment_links.open_link(created.id, "https://gw.example")
    settle(world, created.id, "payment.succeeded")
    paid = valid(answers.CollectionRequestRead, collection_requests.read(BUSINESS, created.id)).collection_request
    assert (paid.status, paid.bill_info.status, paid.payment_reconciliation.payment_type) == (
        "paid",
        "paid",
        "mobile_wallet:mpesa",
    )
    for event in world.requests.log:
        valid(answers.CollectionRequest, event.data["object"])  # every event carries the full view
    listed = valid(answers.CollectionRequestList, collection_requests.listed(BUSINESS, 1, None))
    assert listed.has_more and listed.next_page_token is not None
    rest = valid(answers.CollectionRequestList, collection_requests.listed(BUSINESS, 1, listed.next_page_token))
    assert [r.id for r in rest.items] == [created.id]
    phone = valid(answers.PayerRequestList, collection_requests.by_phone("+258841234567", created.id, 50, None))
    assert {r.status for r in phone.items} == {"pending", "paid"}
    assert (
        valid(answers.PayerRequestList, collection_requests.by_phone("+258849999999", created.id, 50, None)).items == []
    )


def settle(world: World, request_id: str, event_type: str) -> None:
    """The terminal event of the checkout's payment, as the outbox hands it to the reconciliation."""
    request = world.requests.get(request_id)
    assert request is not None
    payment = {
        "provider_payment_id": request.checkout_payment_id,
        "collection_request_id": request_id,
        "money": {"amount": "1500.00", "currency": "MZN"},
        "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"}},
        "last_updated_at": now_iso(),
    }
    image = {"type": event_type, "account_id": request.account_id, "mode": request.mode, "data": {"object": payment}}
    assert reconcile_collection(image) is not None


def test_a_collection_request_changed_moved_and_deleted(world: World) -> None:
    onboarded(world)
    onboarded(world, "acct_branch", logo=False)
    world.directory.connect(SimpleNamespace(platform_account_id=BUSINESS, connected_account_id="acct_branch"))  # type: ignore[arg-type]
    mine = collection_methods.add(BUSINESS, "emola", None, "test").id
    theirs = collection_methods.add("acct_branch", "mkesh", None, "test").id
    request_id = collection_requests.create(BUSINESS, "user-42", request_body([mine]), "https://collect.example").id
    change = collection_request_schemas.CollectionRequestChange.model_validate(
        {
            "description": "Corrected",
            "amount": {"currency": "MZN", "value": Decimal("99.5")},  # as the body's JSON parses
            "payer": {**request_body([mine])["payer"], "delivery_method": "email", "contact": {"email": "a@b.co.mz"}},
            "invoice_metadata": {"due_date": "2027-01-15"},
        }
    ).fields()
    changed = valid(
        answers.CollectionRequestChanged, collection_requests.update(BUSINESS, "user-7", request_id, change)
    )
    request = changed.collection_request
    assert (request.amount.value, request.bill_info.due_date, request.compliance_audit.user_modifier) == (
        99.5,
        "2027-01-15",
        "user-7",
    )
    moved = collection_requests.update(
        BUSINESS, "user-7", request_id, {"account_id": "acct_branch", "collection_method_ids": [theirs]}
    )
    assert valid(answers.CollectionRequestChanged, moved).collection_request.biller.logo is None
    deleted = valid(answers.DeletedCollectionRequest, collection_requests.delete("acct_branch", "user-7", request_id))
    assert deleted.deleted is True


# ---------------------------------------------------------------- customers, KYC
def test_a_customers_kyc_reviewed_three_ways(world: World) -> None:
    customer = valid(kyc_answers.Customer, kyc.register(BUSINESS, "Ana Machava", "bi"))
    assert customer.kyc.status == "initiated"
    kyc_id = customer.kyc.kyc_id
    front = multipart({"reference": "BI-1", "document_name": "BI", "type": "bi"}, "attachment", "bi.png", PNG)
    back = multipart(
        {"reference": "BI-1", "document_name": "BI", "type": "bi", "side": "back"}, "attachment", "b.png", PNG
    )
    assert valid(kyc_answers.LoggedOk, kyc.save_document(BUSINESS, kyc_id, *front)).status is True
    valid(kyc_answers.LoggedOk, kyc.save_document(BUSINESS, kyc_id, *back))
    nuit = multipart(
        {"reference": "NUIT-1", "document_name": "NUIT", "type": "item_nuit_certificate", "file_type": "pdf"},
        "attachment",
        "nuit",
        b"%PDF-1.7 ...",
    )
    valid(kyc_answers.LoggedOk, kyc.save_document(BUSINESS, kyc_id, *nuit))
    assert valid(kyc_answers.DocumentDateSaved, kyc.save_date(BUSINESS, kyc_id, "2031-05-01", "LIC-9")).saved_date
    assert valid(kyc_answers.LoggedOk, kyc.comment(BUSINESS, kyc_id, "Looks fine", "reviewer-7")).status
    assert valid(kyc_answers.KycReady, kyc.ready(BUSINESS, customer.id, kyc_id)).submit is True
    review = kyc_schemas.KycReview.model_validate(
        {
            "status": "pending",
            "reviewer_id": "reviewer-7",
            "additional_request": {"comment": "Add the NUIT", "checklist_items": ["item_nuit_certificate"]},
        }
    )
    args = (review.status, review.reviewer_id, review.rejection_reason, review.additional())
    pending = valid(kyc_answers.KycRead, kyc.review(BUSINESS, customer.id, kyc_id, *args)).kyc
    assert (pending.status, pending.submitted, pending.additional_request.checklist_items) == (
        "pending",
        False,
        ["item_nuit_certificate"],
    )
    verified = valid(
        kyc_answers.KycRead, kyc.review(BUSINESS, customer.id, kyc_id, "verified", "reviewer-7", None, NOTHING_MORE)
    )
    assert verified.kyc.additional_request is None
    assert valid(kyc_answers.KycRead, kyc.read(BUSINESS, customer.id, kyc_id)) == verified
    log = valid(kyc_answers.KycLog, kyc.customer_log(BUSINESS, customer.id)).kyclog
    assert [m.version for m in log.messages] == list(range(1, len(log.messages) + 1))
    assert {type(d).__name__ for d in log.additional_documents} == {"KycDocument", "KycDocumentDate"}
    assert valid(kyc_answers.KycLog, kyc.log(BUSINESS, kyc_id)).kyclog == log
    other = kyc.register(BUSINESS, "Rui", "passport")
    rejected = kyc.review(BUSINESS, other.id, other.kyc.kyc_id, "rejected", "reviewer-7", "Blurred", NOTHING_MORE)
    assert valid(kyc_answers.KycRead, rejected).kyc.rejection_reason == "Blurred"


# ---------------------------------------------------------------- partners, payment methods, transactions
def test_partners_and_card_logos(world: World) -> None:
    every = valid(partner_answers.PartnerList, {"object": "list", "data": partners.partners(None), "has_more": False})
    assert {t.type for p in every.data for t in p.pm_types} == set(partners.PM_TYPES)
    valid(partner_answers.PartnerRead, {"object": "partner", "partner": partners.partner("ptn_mpesa")})
    for digits in ("424242", "55555555", "378282"):
        valid(partner_answers.CardLogo, partners.card_logo(digits))


def test_payment_methods_and_their_transactions(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    onboarded(world)
    customer = kyc.register(BUSINESS, "Ana Machava", "bi").id
    wallet = payment_methods.add(
        BUSINESS, customer, "ptn_mpesa", "mobile_wallet", {"phone_number": "+258841234567"}, "test"
    )
    card_details = {
        "card_token": "tok_test_visa",
        "last4": "4242",
        "exp_month": "12",
        "exp_year": "2029",
        "brand": "visa",
    }
    card = valid(
        partner_answers.PaymentMethodResult,
        payment_methods.add(BUSINESS, customer, "ptn_card_schemes", "card", card_details),
    )
    assert card.payment_method.details["card_token"] == "tok_****visa"
    bank = {"nib": "000301080016367102371", "account_holder_name": "Ana Machava"}
    payment_methods.add(BUSINESS, customer, "ptn_bci", "bank_account", bank, "test")
    listed = valid(partner_answers.PaymentMethodList, payment_methods.listed(BUSINESS, customer))
    assert {m.type for m in listed.data} == set(partners.PM_TYPES)
    pm_id = wallet.payment_method.id
    off = payment_methods.set_status(BUSINESS, customer, card.payment_method.id, "inactive")
    assert valid(partner_answers.PaymentMethodResult, off).payment_method.status == "inactive"
    valid(partner_answers.PaymentMethodResult, payment_methods.read(BUSINESS, customer, pm_id))
    results = {}
    for kind in ("check_balance", "get_authorization", "validata"):
        body = partner_schemas.TransactionIn.model_validate({"transaction_type": kind}).model_dump()
        results[kind] = valid(
            transaction_answers.TransactionResult, transactions.process(BUSINESS, customer, pm_id, body, "m1")
        )
    assert results["check_balance"].balance.available == 10000.0
    assert results["get_authorization"].authorization.code == "AUTH4567"
    from mzpay.cases import charges, payouts

    charged = {"status": "succeeded", "provider_payment_id": "01JD9Q" + "0" * 20, "failure_code": None}
    monkeypatch.setattr(charges, "create_charge", lambda *_: SimpleNamespace(**charged, failure_message=None))
    paid_out = {"status": "pending", "provider_payout_id": "01JD9R" + "0" * 20}
    monkeypatch.setattr(payouts, "create_payout", lambda *_: SimpleNamespace(**paid_out))
    money = {"amount": 150, "description": "Top-up", "metadata": {"order": "7"}}
    for kind in ("pay_in", "pay_out", "transfer"):
        body = partner_schemas.TransactionIn.model_validate({"transaction_type": kind, **money}).model_dump()
        results[kind] = valid(
            transaction_answers.TransactionResult, transactions.process(BUSINESS, customer, pm_id, body, str(uuid4()))
        )
    assert (results["pay_in"].status, results["pay_out"].status) == ("succeeded", "pending")
    page = valid(transaction_answers.TransactionList, transactions.listed(BUSINESS, customer, {}, 1, 4))
    assert page.has_more and {t.amount for t in page.data} >= {150.0}
    one = results["pay_out"].transaction_id
    item = valid(transaction_answers.TransactionRead, transactions.read(BUSINESS, customer, one)).transaction
    assert (item.transaction_type, item.role, item.status, item.amount) == ("PAY_OUT", "sender", "pending", 150.0)
    query = valid(
        transaction_answers.TransactionRead, transactions.read(BUSINESS, customer, results["validata"].transaction_id)
    )
    assert (query.transaction.amount, query.transaction.reference) == (None, results["validata"].transaction_id)


def test_a_declined_transaction_is_kept_as_failed(world: World) -> None:
    customer = kyc.register(BUSINESS, "Ana Machava", "bi").id
    declining = {"phone_number": "+258840000001"}  # test mode: a number ending 0001 has insufficient funds
    pm_id = payment_methods.add(BUSINESS, customer, "ptn_mpesa", "mobile_wallet", declining, "test").payment_method.id
    with pytest.raises(Exception, match="insufficient funds"):
        transactions.process(BUSINESS, customer, pm_id, {"transaction_type": "check_balance"}, "m")
    (kept,) = valid(transaction_answers.TransactionList, transactions.listed(BUSINESS, customer, {}, 1, 20)).data
    assert (kept.status, kept.transaction_type) == ("failed", "BALANCE_QUERY")


# ---------------------------------------------------------------- identity providers, devices
def test_identity_providers_created_read_listed_updated_and_deleted(world: World) -> None:
    made = valid(identity.IdentityProviderResult, identity_providers.create(IDP, ADMIN, "198.51.100.7"))
    provider = made.identity_provider
    assert (provider.client_secret, provider.encryption_key, provider.updated_by) == ("****ough", "****", None)
    second = identity_providers.create({**IDP, "issuer_url": "https://other.example"}, ADMIN, "198.51.100.7")
    assert valid(identity.IdentityProviderResult, identity_providers.get(provider.id)) == made
    page = valid(identity.IdentityProviderList, identity_providers.page(1, None))
    assert page.has_more and page.next_page_token is not None
    rest = valid(identity.IdentityProviderList, identity_providers.page(1, page.next_page_token))
    assert [p.id for p in rest.data] == [second.identity_provider.id]
    updated = identity_providers.update({"id": provider.id, "name": "Acme"}, ADMIN, "198.51.100.8")
    assert valid(identity.IdentityProviderResult, updated).identity_provider.updated_ip == "198.51.100.8"
    assert valid(identity.IdentityProviderDeleted, identity_providers.delete(provider.id, ADMIN, "198.51.100.9"))


def test_devices_trusted_and_checked(world: World) -> None:
    device = collection_schemas.DeviceIn.model_validate(
        {
            "device_id": "AB" * 32,
            "user_id": "user-1",
            "device_name": "Ana's phone",
            "ip_address": "198.51.100.7",
            "created_at": "2026-11-02T10:00:00Z",
        }
    ).model_dump(mode="json")
    trusted = valid(identity.DeviceTrusted, devices.trust(BUSINESS, device))
    assert trusted.trusted == "ab" * 32 and valid(identity.DeviceTrusted, devices.trust(BUSINESS, device)) == trusted
    assert valid(identity.DeviceCheck, devices.exists(BUSINESS, "ab" * 32)).device_exists is True
    assert valid(identity.DeviceCheck, devices.exists(BUSINESS, "cd" * 32)).device_exists is False


# ---------------------------------------------------------------- licence and system
def test_the_licence_activated_read_validated_and_deactivated(world: World) -> None:
    key = issue_licence(PRIVATE, issued_to="Banco Teste", metadata={"tier": "gold"})
    assert valid(licence_answers.LicenseValidation, licence.validate(key)).valid is True
    assert valid(licence_answers.LicenseValidation, licence.validate("not-a-jwt")).license is None
    expired = issue_licence(PRIVATE, issued_to="Banco Teste", issued_at=1_700_000_000, lifetime_seconds=60)
    late = valid(licence_answers.LicenseValidation, licence.validate(expired))
    assert (late.valid, late.license.status) == (False, "expired")
    wrong = issue_licence(PRIVATE, issued_to="Banco Teste", issuer="someone-else")
    assert valid(licence_answers.LicenseValidation, licence.validate(wrong)).license.status == "invalid"
    activated = valid(licence_answers.ActivatedLicense, licence.activate(key, "admin-1", "198.51.100.7"))
    assert activated.license.metadata == {"tier": "gold"}
    assert valid(licence_answers.CurrentLicense, licence.current()).license.status == "active"
    later = datetime(2099, 1, 1, tzinfo=UTC)
    assert valid(licence_answers.CurrentLicense, licence.current(later)).license.status == "expired"
    assert valid(licence_answers.LicenseDeactivated, licence.deactivate()).success is True


def test_health_version_reference_data_and_the_document(world: World) -> None:
    from mzpay.http import api_docs

    assert valid(system.Health, health_report("collection")).api == "collection"
    assert valid(system.Version, {"object": "version", **version_info()}).version
    documents = valid(system.SupportedDocuments, collection_reference.supported_documents())
    assert [d.type for d in documents.document_types] == list(kyc_rules.DOCUMENT_TYPES)
    assert len(valid(system.Checklist, collection_reference.checklist()).items) == len(collection_reference.CHECKLIST)
    document = valid(system.OpenApiDocument, json.loads(api_docs.document("collection")))
    assert document.root["info"]["title"] == "mzpay collection API"


# ---------------------------------------------------------------- the models themselves
def all_models() -> list[type[BaseModel]]:
    return routes.models()


def test_every_example_validates_and_every_model_and_field_is_described() -> None:
    openapi_checks.assert_examples_valid_and_described(all_models())


def test_routes_are_the_operations_of_the_collection_document() -> None:
    document, operations = openapi_checks.document_operations(DOCUMENT)
    assert set(ROUTES) == operations - EMPTY_BODY and not EMPTY_BODY & set(ROUTES)
    pages = {("GET", "/pay/{request_id}"), ("GET", "/pay/assets/copy.js"), ("GET", "/docs"), ("GET", "/docs/{asset}")}
    assert {key for key, model in ROUTES.items() if model is None} == pages
    for (method, path), model in ROUTES.items():
        if model is not None:  # the document answers with the model (regenerated: make openapi)
            responses = document["paths"][path][method.lower()]["responses"]
            success = next(answer for status, answer in responses.items() if status.startswith("2"))
            assert success["content"]["application/json"]["schema"]["$ref"].endswith(f"/{model.__name__}"), path
    (empty,) = EMPTY_BODY
    assert document["paths"][empty[1]]["post"]["responses"]["200"].get("content") == {}


def test_money_is_a_json_number_on_this_surface() -> None:
    amount = parts.CollectionAmount.model_json_schema()["properties"]["value"]
    assert amount["type"] == "number"
    with pytest.raises(ValueError):
        parts.CollectionAmount.model_validate({"currency": "MZN", "value": "1500.00"})


def test_the_enumerations_are_the_domains() -> None:
    assert literal(answers.CollectionMethod, "type") == set(request_rules.METHOD_TYPES)
    assert literal(answers.CollectionMethod, "mode") == set(request_rules.MODES)
    assert literal(answers.CollectionMethod, "status") == values(request_rules.MethodStatus)
    assert literal(answers.CollectionRequest, "status") == values(request_rules.RequestStatus) - {"deleted"}
    assert literal(parts.PaymentReconciliation, "payment_status") == values(request_rules.PaymentStatus)
    assert literal(parts.Payer, "type") == set(payers.PAYER_TYPES)
    assert literal(parts.Payer, "delivery_method") == set(payers.DELIVERY_METHODS)
    assert literal(parts.InvoiceMetadata, "invoice_type") == set(request_rules.INVOICE_TYPES)
    assert literal(parts.InvoiceMetadata, "source_channel") == set(request_rules.SOURCE_CHANNELS)
    assert literal(accounts.BusinessAccount, "status") == values(business.AccountStatus)
    assert literal(accounts.AccountFieldProblem, "code") == set(onboarding.REVIEW_ERROR_CODES)
    assert literal(accounts.UploadedFile, "file_type") == set(files_types())
    assert literal(licence_answers.License, "status") == {s.value for s in licence_rules.LicenceStatus}
    assert literal(system.SupportedDocument, "type") == set(kyc_rules.DOCUMENT_TYPES)
    assert literal(system.ChecklistItem, "type") == {item["type"] for item in collection_reference.CHECKLIST}
    assert literal(kyc_answers.KycVerification, "status") == values(kyc_rules.KycStatus)
    assert literal(kyc_answers.KycVerification, "document_type") == set(kyc_rules.DOCUMENT_TYPES)
    assert literal(kyc_answers.KycDocument, "side") == set(kyc.SIDES)
    assert literal(partner_answers.PaymentMethod, "type") == set(partners.PM_TYPES)
    schemes = {scheme["scheme"] for scheme in partners._data()["card_schemes"]}
    assert literal(partner_answers.CardLogo, "scheme") == schemes
    recorded = set(customer_transactions.TYPES) - {"pay_bill"}  # refused before anything is recorded
    assert literal(transaction_answers.TransactionResult, "transaction_type") == recorded
    names = {customer_transactions.HISTORY_NAMES[t] for t in recorded}
    assert literal(transaction_answers.TransactionItem, "transaction_type") == names


def files_types() -> set[str]:
    from mzpay.domain.common.files import SIGNATURES

    return set(SIGNATURES)


def test_no_answer_model_is_named_like_a_request_body() -> None:
    """The generator files schemas by name: an answer named like a request body would replace it."""
    document = json.loads(DOCUMENT.read_text())
    names_of_modules = ("collection_request", "collection", "kyc", "licence", "onboarding", "partner")
    modules = [importlib.import_module(f"mzpay.http.{name}_schemas") for name in names_of_modules]
    bodies = {
        cls.__name__
        for module in modules
        for cls in vars(module).values()
        if isinstance(cls, type) and issubclass(cls, Strict)
    }
    ours = every_model(all_models())
    names = {model.__name__ for model in ours}
    assert len(names) == len(ours), "two answer models share a name"
    shapes = {"Problem", "FieldError", "CollectionError", "OAuthError"}  # the generator's error shapes
    assert {"CollectionRequestIn", "AdditionalRequest", "LicenseKey"} <= bodies
    assert (bodies | shapes) & names == set()
    assert names <= set(document["components"]["schemas"])  # regenerated

"""The one place that builds what the code depends on: the stack's settings, every store and queue, each made once per
execution environment on first use. A function therefore builds only what its routes touch, and nothing talks to AWS
at import time.

`reset()` forgets all of it (and every cache registered with `once` or `remembered`), for tests that move between
fake AWS environments or change the environment; nothing else reaches into a module's cache. `substitute(name=fake)`
answers a dependency built here with an in-memory fake within a `with` block (use-case tests without moto)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mzpay.config import settings as settings
from mzpay.memo import on_reset as on_reset
from mzpay.memo import once as once
from mzpay.memo import remembered as remembered
from mzpay.memo import reset as reset
from mzpay.memo import substitute as substitute

if TYPE_CHECKING:
    from mzpay.connectors.cognito import Identity
    from mzpay.ports.messaging import MessageSender
    from mzpay.store.account_names import AccountNames
    from mzpay.store.accounts import AccountEndpoints, AccountSettingsStore, Limits, PayoutLimitsStore, WebhookSecrets
    from mzpay.store.audit import AuditTrail
    from mzpay.store.bank_statements import BankStatements
    from mzpay.store.bill_payments import BillPayments
    from mzpay.store.bill_settlements import BillSettlementQueue
    from mzpay.store.bill_subscriptions import BillSubscriptions
    from mzpay.store.billers import Billers
    from mzpay.store.bills import BillQuotes
    from mzpay.store.bindings import Bindings
    from mzpay.store.business_accounts import BusinessAccounts
    from mzpay.store.cash_deposits import CashDepositIntents
    from mzpay.store.client_certs import ClientCerts
    from mzpay.store.collection_requests import CollectionRequests
    from mzpay.store.console_sessions import ConsoleSessions
    from mzpay.store.dashboard import (
        DashboardInvitations,
        DashboardResets,
        DashboardSessions,
        DashboardSettings,
        DashboardUsers,
    )
    from mzpay.store.devices import Devices
    from mzpay.store.directory import Directory
    from mzpay.store.dispatch_failures import DispatchFailureQueue
    from mzpay.store.disputes import Disputes
    from mzpay.store.events import Events, EventWrites
    from mzpay.store.evidence import EvidenceFiles
    from mzpay.store.files import Files
    from mzpay.store.fiscal import FiscalDetailsStore
    from mzpay.store.idempotency import IdempotencyStore
    from mzpay.store.identity_providers import IdentityProviders
    from mzpay.store.kyc import KycStore
    from mzpay.store.ledger import Ledger
    from mzpay.store.licence import Licences
    from mzpay.store.listings import Listings
    from mzpay.store.name_lookups import NameLookups
    from mzpay.store.notifications import (
        MessageRecords,
        NotificationDeadLetters,
        NotificationQueue,
        RecipientDays,
        SmsChannels,
        Suppressions,
    )
    from mzpay.store.oauth import OAuthStore
    from mzpay.store.partners import Partners
    from mzpay.store.payment_methods import PaymentMethods
    from mzpay.store.payments import Payments
    from mzpay.store.payout_batches import PayoutBatches
    from mzpay.store.payouts import Payouts, SettlementQueue
    from mzpay.store.pricing import FeeSchedules
    from mzpay.store.psp_applications import PspApplications
    from mzpay.store.psp_transactions import PspTransactions
    from mzpay.store.rate_limits import RateCounters, UploadCounters
    from mzpay.store.refunds import Refunds
    from mzpay.store.reports import Reports
    from mzpay.store.route_health import RouteHealth
    from mzpay.store.webhook_deliveries import DeliveryQueue, WebhookDeliveries


# ---------------------------------------------------------------- stores and queues
@once
def directory() -> Directory:
    from mzpay.store.directory import Directory

    return Directory.from_env()


@once
def client_certs() -> ClientCerts:
    from mzpay.store.client_certs import ClientCerts

    return ClientCerts.from_env()


@once
def account_endpoints() -> AccountEndpoints:
    from mzpay.store.accounts import AccountEndpoints

    return AccountEndpoints.from_env()


@once
def oauth() -> OAuthStore:
    from mzpay.store.oauth import OAuthStore

    return OAuthStore.from_env()


@once
def webhook_secrets() -> WebhookSecrets:
    from mzpay.store.accounts import WebhookSecrets

    return WebhookSecrets.from_env()


@once
def payments() -> Payments:
    from mzpay.store.payments import Payments

    return Payments.from_env()


@once
def limits() -> Limits:
    from mzpay.store.accounts import Limits

    return Limits.from_env()


@once
def fee_schedules() -> FeeSchedules:
    from mzpay.store.pricing import FeeSchedules

    return FeeSchedules.from_env()


@once
def refunds() -> Refunds:
    from mzpay.store.refunds import Refunds

    return Refunds.from_env()


@once
def ledger() -> Ledger:
    from mzpay.store.ledger import Ledger

    return Ledger.from_env()


@once
def listings() -> Listings:
    from mzpay.store.listings import Listings

    return Listings.from_env()


@once
def evidence_files() -> EvidenceFiles:
    from mzpay.store.evidence import EvidenceFiles

    return EvidenceFiles.from_env()


@once
def psp_applications() -> PspApplications:
    from mzpay.store.psp_applications import PspApplications

    return PspApplications.from_env()


@once
def disputes() -> Disputes:
    from mzpay.store.disputes import Disputes

    return Disputes.from_env()


@once
def payouts() -> Payouts:
    from mzpay.store.payouts import Payouts

    return Payouts.from_env()


@once
def psp_transactions() -> PspTransactions:
    from mzpay.store.psp_transactions import PspTransactions

    return PspTransactions.from_env()


@once
def payout_batches() -> PayoutBatches:
    from mzpay.store.payout_batches import PayoutBatches

    return PayoutBatches.from_env()


@once
def settlement_queue() -> SettlementQueue:
    from mzpay.store.payouts import SettlementQueue

    return SettlementQueue.from_env()


@once
def bill_settlement_queue() -> BillSettlementQueue:
    from mzpay.store.bill_settlements import BillSettlementQueue

    return BillSettlementQueue.from_env()


@once
def payout_limits() -> PayoutLimitsStore:
    from mzpay.store.accounts import PayoutLimitsStore

    return PayoutLimitsStore.from_env()


@once
def events() -> Events:
    from mzpay.store.events import Events

    return Events.from_env()


@once
def event_writes() -> EventWrites:
    from mzpay.store.events import EventWrites

    return EventWrites.from_env()


@once
def deliveries() -> WebhookDeliveries:
    from mzpay.store.webhook_deliveries import WebhookDeliveries

    return WebhookDeliveries.from_env()


@once
def delivery_queue() -> DeliveryQueue:
    from mzpay.store.webhook_deliveries import DeliveryQueue

    return DeliveryQueue.from_env()


@once
def account_names() -> AccountNames:
    from mzpay.store.account_names import AccountNames

    return AccountNames.from_env()


@once
def audit_trail() -> AuditTrail:
    from mzpay.store.audit import AuditTrail

    return AuditTrail.from_env()


@once
def dispatch_failures() -> DispatchFailureQueue:
    from mzpay.store.dispatch_failures import DispatchFailureQueue

    return DispatchFailureQueue.from_env()


@once
def bindings() -> Bindings:
    from mzpay.store.bindings import Bindings

    return Bindings.from_env()


@once
def name_lookups() -> NameLookups:
    from mzpay.store.name_lookups import NameLookups

    return NameLookups.from_env()


@once
def partners() -> Partners:
    from mzpay.store.partners import Partners

    return Partners.from_env()


@once
def cash_deposit_intents() -> CashDepositIntents:
    from mzpay.store.cash_deposits import CashDepositIntents

    return CashDepositIntents.from_env()


@once
def billers() -> Billers:
    from mzpay.store.billers import Billers

    return Billers.from_env()


@once
def bill_quotes() -> BillQuotes:
    from mzpay.store.bills import BillQuotes

    return BillQuotes.from_env()


@once
def bill_payments() -> BillPayments:
    from mzpay.store.bill_payments import BillPayments

    return BillPayments.from_env()


@once
def bill_subscriptions() -> BillSubscriptions:
    from mzpay.store.bill_subscriptions import BillSubscriptions

    return BillSubscriptions.from_env()


@once
def sms_channels() -> SmsChannels:
    from mzpay.store.notifications import SmsChannels

    return SmsChannels.from_env()


@once
def fiscal_details() -> FiscalDetailsStore:
    from mzpay.store.fiscal import FiscalDetailsStore

    return FiscalDetailsStore.from_env()


@once
def notification_queue() -> NotificationQueue:
    from mzpay.store.notifications import NotificationQueue

    return NotificationQueue.from_env()


@once
def message_records() -> MessageRecords:
    from mzpay.store.notifications import MessageRecords

    return MessageRecords.from_env()


@once
def recipient_days() -> RecipientDays:
    from mzpay.store.notifications import RecipientDays

    return RecipientDays.from_env()


@once
def notification_dead_letters() -> NotificationDeadLetters:
    from mzpay.store.notifications import NotificationDeadLetters

    return NotificationDeadLetters.from_env()


@once
def suppressions() -> Suppressions:
    """The region's suppression list of e-mail addresses and phone numbers."""
    from mzpay.store.notifications import Suppressions

    return Suppressions.from_env()


@once
def message_sender() -> MessageSender:
    """What sends people's e-mails (Amazon SES) and SMS (Amazon SNS), with the region's sending
    identity, configuration set and SMS sender ID."""
    from mzpay.connectors.messaging import Messenger
    from mzpay.store.aws import client

    return Messenger.from_env(client)


@once
def rate_counters() -> RateCounters:
    from mzpay.store.rate_limits import RateCounters

    return RateCounters.from_env()


@once
def idempotency() -> IdempotencyStore:
    from mzpay.store.idempotency import IdempotencyStore

    return IdempotencyStore.from_env()


@once
def licences() -> Licences:
    from mzpay.store.licence import Licences

    return Licences.from_env()


@once
def identity_providers() -> IdentityProviders:
    from mzpay.store.identity_providers import IdentityProviders

    return IdentityProviders.from_env()


@once
def devices() -> Devices:
    from mzpay.store.devices import Devices

    return Devices.from_env()


@once
def collection_requests() -> CollectionRequests:
    from mzpay.store.collection_requests import CollectionRequests

    return CollectionRequests.from_env()


@once
def bank_statements() -> BankStatements:
    from mzpay.store.bank_statements import BankStatements

    return BankStatements.from_env()


@once
def payment_methods() -> PaymentMethods:
    from mzpay.store.payment_methods import PaymentMethods

    return PaymentMethods.from_env()


@once
def business_accounts() -> BusinessAccounts:
    from mzpay.store.business_accounts import BusinessAccounts

    return BusinessAccounts.from_env()


@once
def files() -> Files:
    from mzpay.store.files import Files

    return Files.from_env()


@once
def kyc() -> KycStore:
    from mzpay.store.kyc import KycStore

    return KycStore.from_env()


@once
def console_sessions() -> ConsoleSessions:
    from mzpay.store.console_sessions import ConsoleSessions

    return ConsoleSessions.from_env()


@once
def upload_counters() -> UploadCounters:
    from mzpay.store.rate_limits import UploadCounters

    return UploadCounters.from_env()


@once
def reports() -> Reports:
    from mzpay.store.reports import Reports

    return Reports.from_env()


@once
def account_settings() -> AccountSettingsStore:
    from mzpay.store.accounts import AccountSettingsStore

    return AccountSettingsStore.from_env()


@once
def dashboard_users() -> DashboardUsers:
    from mzpay.store.dashboard import DashboardUsers

    return DashboardUsers.from_env()


@once
def dashboard_settings() -> DashboardSettings:
    from mzpay.store.dashboard import DashboardSettings

    return DashboardSettings.from_env()


@once
def dashboard_sessions() -> DashboardSessions:
    from mzpay.store.dashboard import DashboardSessions

    return DashboardSessions.from_env()


@once
def dashboard_invitations() -> DashboardInvitations:
    from mzpay.store.dashboard import DashboardInvitations

    return DashboardInvitations.from_env()


@once
def dashboard_resets() -> DashboardResets:
    from mzpay.store.dashboard import DashboardResets

    return DashboardResets.from_env()


@once
def dashboard_identity() -> Identity:
    from mzpay.connectors.cognito import Identity
    from mzpay.store.aws import client

    return Identity.from_env(client)


@once
def route_health() -> RouteHealth:
    from mzpay.store.route_health import RouteHealth

    return RouteHealth.from_env()

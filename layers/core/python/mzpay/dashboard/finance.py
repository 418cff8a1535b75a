"""The dashboard's money pages (docs/dashboard.md, "Money"): balance transactions, reports, payouts
and disputes, each through the use case of the gateway route that answers it (GET
/v1/balance/transactions, POST and GET /v1/reports, POST /payouts and GET /v1/payouts, GET
/v1/payout-batches, GET /v1/disputes with evidence and acceptance) with the user as the actor,
after its role was checked. A state change names the user on the audit trail."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from mzpay.dashboard.home import acting
from mzpay.domain.accounts.limits import MAPUTO
from mzpay.domain.common import clock
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.dashboard.sessions import Session
from mzpay.lazy import deferred_imports
from mzpay.steps import audit

if TYPE_CHECKING:
    from mzpay.answers.balance import BalanceTransactionList
    from mzpay.answers.disputes import Dispute, DisputeList
    from mzpay.answers.payouts import Payout, PayoutBatchList, PayoutList
    from mzpay.answers.reports import Report, ReportList
    from mzpay.domain.common.evidence import EvidenceRequest
    from mzpay.domain.money.reports import ReportRequest
    from mzpay.domain.payouts.rules import PayoutRequest

with deferred_imports():  # loaded by the first money page
    from mzpay.cases import balance_transactions, disputes, listings, payouts, reports

BALANCE_FILTERS = ("type", "source", "currency", "created_gte", "created_lt", "page_size", "page_token")
PAYOUT_FILTERS = ("status", "payout_id", "method", "network", "created_gte", "created_lt", "page_token")
DISPUTE_FILTERS = ("status", "payment", "created_gte", "created_lt", "page_token")
PAGE_SIZE = "25"


def _acted(session: Session, source_ip: str, kind: str, target: str, after: Mapping[str, Any]) -> None:
    """The audit trail's record of this post: the user acted on `kind` `target`, leaving it `after`."""
    audit.identify("merchant_user", session.email, source_ip)
    audit.observe(kind, target, account_id=session.account_id, after=after)


def _names(session: Session, source_ip: str) -> None:
    """The user on the audit trail (a live-mode form was confirmed before: mzpay.http.dashboard)."""
    audit.identify("merchant_user", session.email, source_ip)


# ---------------------------------------------------------------- balance transactions
def transactions(session: Session, query: Mapping[str, str]) -> BalanceTransactionList:
    """GET /v1/balance/transactions: every movement of the balance, newest first."""
    return balance_transactions.listing(acting(session, "balance:read"), query)


# ---------------------------------------------------------------- reports
def this_day() -> dict[str, str]:
    """Today in Maputo, as the report form offers it first: {start, end} (end: tomorrow)."""
    today = clock.now().astimezone(MAPUTO).date()
    return {"start": today.isoformat(), "end": (today + timedelta(days=1)).isoformat()}


def report_list(session: Session, page_token: str | None) -> ReportList:
    """GET /v1/reports: the account's reports in the session's mode, newest first."""
    return reports.listing(acting(session, "reports:read"), PAGE_SIZE, page_token)


def request_report(session: Session, source_ip: str, request: ReportRequest) -> Report:
    """POST /v1/reports: a pending report; the report builder writes its file."""
    _names(session, source_ip)
    created = reports.create(acting(session, "reports:write"), request)
    _acted(session, source_ip, "report", created.report_id, created.wire())
    return created


def report_link(session: Session, report_id: str) -> str:
    """GET /v1/reports/{id}'s download link (presigned, five minutes); 409 while it has none."""
    link = reports.read(acting(session, "reports:read"), report_id).url
    if link is None:
        raise ServiceError(409, "report_not_ready", "The report has no file: it is still pending, or it failed.")
    return link


# ---------------------------------------------------------------- payouts
def payout_list(session: Session, query: Mapping[str, str]) -> PayoutList:
    """GET /v1/payouts: the account's payouts, newest first, by the list's filters."""
    return listings.payouts(acting(session, "balance:read"), {**query, "page_size": PAGE_SIZE})


def batch_list(session: Session, page_token: str | None) -> PayoutBatchList:
    """GET /v1/payout-batches: the account's payout batches, newest first."""
    chosen = {"page_size": PAGE_SIZE, **({"page_token": page_token} if page_token else {})}
    return listings.payout_batches(acting(session, "balance:read"), chosen)


def payout(session: Session, provider_payout_id: str) -> Payout:
    """GET /v1/payouts/{id}."""
    return payouts.read_payout(acting(session, "balance:read"), provider_payout_id)


def create_payout(session: Session, source_ip: str, request: PayoutRequest) -> Payout:
    """POST /payouts: the money held and sent, or waiting for an operator's approval above the
    account's threshold. The form's payout_id, issued with the page, makes a second post of the
    same form the same payout (as the API's payout_id does)."""
    _names(session, source_ip)
    created = payouts.create_payout(acting(session, "payouts:write"), request)
    _acted(session, source_ip, "payout", created.provider_payout_id, created.wire())
    return created


# ---------------------------------------------------------------- disputes
def dispute_list(session: Session, query: Mapping[str, str]) -> DisputeList:
    """GET /v1/disputes: the account's disputes, newest first, by the list's filters."""
    return listings.disputes(acting(session, "payments:read"), {**query, "limit": PAGE_SIZE})


def dispute(session: Session, dispute_id: str) -> Dispute:
    """GET /v1/disputes/{id}."""
    return disputes.read(acting(session, "payments:read"), dispute_id)


def submit_evidence(session: Session, source_ip: str, dispute_id: str, request: EvidenceRequest) -> Dispute:
    """POST /v1/disputes/{id}/evidence: given once while the dispute needs a response."""
    _names(session, source_ip)
    answered = disputes.submit_evidence(acting(session, "disputes:write"), dispute_id, request)
    _acted(session, source_ip, "dispute", dispute_id, answered.wire())
    return answered


def accept_dispute(session: Session, source_ip: str, dispute_id: str) -> Dispute:
    """POST /v1/disputes/{id}/accept: the merchant concedes; the payer keeps the money."""
    _names(session, source_ip)
    accepted = disputes.accept(acting(session, "disputes:write"), dispute_id)
    _acted(session, source_ip, "dispute", dispute_id, accepted.wire())
    return accepted

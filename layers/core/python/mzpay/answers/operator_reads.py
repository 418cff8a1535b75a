"""The console's reads that no API lists (mzpay.operators.operator_reads): the payouts and payout batches
waiting for approval, an account's recent payments, a payment with its events and refunds, an
account's disputes. Each row is the gateway's model plus what the console shows beside it (its account,
its mode); the lists are the management API's envelope (`mzpay.answers.base.Paged`: the keys
mzpay.domain.common.page_tokens.page builds, `object` included, which the gateway's `Page` leaves
out). Pages for people: in no OpenAPI document."""

from __future__ import annotations

from pydantic import Field

from mzpay.answers.base import Amount, Answer, BelongsTo, Paged, TestOrLive, Timestamp
from mzpay.answers.events import Event
from mzpay.answers.payments import PaymentView
from mzpay.answers.payouts import Payout, PayoutBatch
from mzpay.answers.refunds import RefundResult


class Owned(Answer):
    """What the console shows beside a payout, batch or payment of any account: whose it is."""

    account_id: BelongsTo


class OwnedInMode(Owned):
    """Whose it is, and in which mode (for a model that does not say its mode)."""

    mode: TestOrLive


class ShownDestination(Answer):
    """A destination in one line for an approver: its number masked but for the last four characters."""

    type: str = Field(description="The destination's type (mobile_wallet, bank_transfer, ...).")
    number: str | None = Field(description="The phone, NIB or address, masked but for its last four characters.")
    network: str | None = Field(description="The wallet's or the crypto address's network.")
    name: str | None = Field(description="The beneficiary's name, when the destination has one.")


class PayoutAwaitingApproval(Payout, OwnedInMode):
    """A payout waiting for an operator's approval, with its account and mode, its description,
    its destination in one line and the account's available balance in its currency."""

    description: str | None = Field(description="The merchant's description of the payout.")
    shown_destination: ShownDestination = Field(description="The destination, its number masked.")
    available: Amount = Field(description="The account's available balance in the payout's currency.")


class PayoutsAwaitingApproval(Paged[PayoutAwaitingApproval]):
    """The payouts waiting for approval across accounts, oldest first."""


class BatchAwaitingApproval(PayoutBatch, Owned):
    """A payout batch waiting for an operator's approval, with its account (its mode is the batch's)."""


class BatchesAwaitingApproval(Paged[BatchAwaitingApproval]):
    """The payout batches waiting for approval across accounts, oldest first."""


class OperatorPayment(PaymentView, OwnedInMode):
    """A payment of any account of this region, with its account, mode, events (oldest first) and refunds."""

    created_at: Timestamp = Field(description="When the payment was created.")
    events: list[Event] = Field(description="Its events, oldest first.")
    refunds: list[RefundResult] = Field(description="Its refunds.")

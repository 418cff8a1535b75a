"""What operators read in the console that no API lists: the payouts and payout batches waiting
for approval across accounts, a payment with its events and refunds, an account's disputes; and
the account (`as_account`) through which the console reads and asks what the merchant's own use
cases answer (its lists, balance transactions and reports: mzpay.cases.listings,
mzpay.cases.balance_transactions, mzpay.cases.reports). Every read is of this region's accounts
(another region's is 421, an unknown one 404); nothing here changes state."""

from __future__ import annotations

from mzpay import deps
from mzpay.answers import operator_reads as answers
from mzpay.domain.access.principal import Principal
from mzpay.domain.common import page_tokens
from mzpay.domain.common.errors import FieldError, ServiceError, found, invalid_field
from mzpay.domain.common.ids import is_ulid
from mzpay.domain.money.amounts import format_amount
from mzpay.domain.payments.rules import view as payment_view
from mzpay.domain.payouts.batches import batch_view
from mzpay.domain.payouts.rules import destination_summary, payout_view
from mzpay.steps.accounts import home_account
from mzpay.steps.refunds import refund_result
from mzpay.store.ledger import available
from mzpay.store.payout_batches import AWAITING_APPROVAL as AWAITING_BATCHES
from mzpay.store.payouts import AWAITING_APPROVAL as AWAITING_PAYOUTS

PAGE = 25  # rows a console list shows at once
MODES = ("test", "live")


def _invalid_token() -> ServiceError:
    message = "not a page_token this list gave"
    return invalid_field("page_token", message)


def _mode(mode: str) -> str:
    if mode not in MODES:
        message = "test or live"
        error = FieldError("mode", "invalid_value", message)
        raise ServiceError(400, "invalid_request", f"mode: {message}.", errors=[error])
    return mode


def _queue_start(page_token: str | None, queue: str) -> dict[str, str] | None:
    if not page_token:
        return None
    start = page_tokens.decode(
        page_token[: page_tokens.MAX_TOKEN],
        lambda key: set(key) == {"pk", "sk", "gsi1pk", "gsi1sk"} and key["gsi1pk"] == queue,
    )
    if start is None:
        raise _invalid_token()
    return start


def payouts_awaiting_approval(page_token: str | None = None) -> answers.PayoutsAwaitingApproval:
    """The payouts an operator must approve or reject, oldest first, with their account and mode,
    description, destination in one line (its number masked: domain.payouts.rules.destination_summary)
    and the account's available balance in the payout's currency (what approving would draw on)."""
    found, last = deps.payouts().awaiting_approval(PAGE, _queue_start(page_token, AWAITING_PAYOUTS.name))
    balances = {
        (account_id, mode): {item["currency"]: item for item in deps.ledger().balances(account_id, mode)}
        for account_id, mode in {(p.account_id, p.mode) for p in found}
    }  # one read of an account's balances per account and mode shown, however many of its payouts wait
    rows = [
        {
            **payout_view(p),
            "account_id": p.account_id,
            "mode": p.mode,
            "description": p.description,
            "shown_destination": destination_summary(p.destination),
            "available": {
                "amount": format_amount(available(balances[p.account_id, p.mode].get(p.currency)), p.currency),
                "currency": p.currency,
            },
        }
        for p in found
    ]
    return answers.PayoutsAwaitingApproval.of(page_tokens.page(rows, last))


def batches_awaiting_approval(page_token: str | None = None) -> answers.BatchesAwaitingApproval:
    """The payout batches an operator must approve or reject, oldest first, with their account."""
    found, last = deps.payout_batches().awaiting_approval(PAGE, _queue_start(page_token, AWAITING_BATCHES.name))
    rows = [{**batch_view(b), "account_id": b.account_id} for b in found]
    return answers.BatchesAwaitingApproval.of(page_tokens.page(rows, last))


def as_account(account_id: str, mode: str) -> Principal:
    """The account (of this region) itself in `mode`, as the merchant's use cases take it: the
    operator reads and asks what the account's own key could, no more."""
    account = home_account(account_id)
    return Principal.of_account(account.account_id, _mode(mode))


def payment_for_operator(provider_payment_id: str) -> answers.OperatorPayment:
    """A payment of any account of this region with its events (oldest first) and refunds."""
    payment = found(deps.payments().get(provider_payment_id) if is_ulid(provider_payment_id) else None, "payment")
    home_account(payment.account_id)
    events, _ = deps.events().page(payment.account_id, payment.mode, 100, None, resource_id=provider_payment_id)
    return answers.OperatorPayment.of(
        {
            **payment_view(payment),
            "account_id": payment.account_id,
            "mode": payment.mode,
            "created_at": payment.created_at,
            "events": [event.envelope() for event in reversed(events)],
            "refunds": [refund_result(refund) for refund in deps.refunds().of_payment(provider_payment_id)],
        }
    )

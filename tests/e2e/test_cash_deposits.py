"""Cash deposits at partner agents over HTTP through the local stack (issue 16, item 4): an
operator makes an account a partner, its agent looks a payer up, selects the holder of an
ambiguous answer, opens an intent and confirms the cash; the payer's wallet is credited through
the settlement queue, the partner's balance pays for it, and the webhooks follow. Every spec code
of the flow (not_a_partner, option_locked, lookup_used, deposit_refused) and its races."""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.test_charges import Merchant, created, events_of, wallet
from tests.e2e.test_payouts import funded, settled
from tests.e2e.test_refunds import assert_ledger_balances, balance
from tests.e2e.test_webhooks import Receiver
from tests.expected import problem

pytestmark = pytest.mark.e2e

PAYER = "+258841234567"  # resolves: Ana Machava
AMBIGUOUS = "+258840000002"  # three candidates
FAILS = "+258840000001"  # the simulated provider fails the payout that credits it


def make_partner(stack: RunningStack, shop: Merchant, partner: bool = True) -> requests.Response:
    management = stack.state["regions"]["mz"]["management"]
    return requests.put(
        f"{management}/v1/accounts/{shop.account['id']}/partner",
        json={"partner": partner},
        headers={"Authorization": f"Bearer {stack.state['operator_token']}"},
        timeout=30,
    )


def partner(stack: RunningStack, amount: str = "5000.00") -> Merchant:
    shop = funded(stack, amount)
    assert make_partner(stack, shop).status_code == 200
    return shop


def lookup(shop: Merchant, phone: str = PAYER, key: str | None = None) -> dict[str, Any]:
    body = {"type": "mobile_wallet", "mobile_wallet": wallet(phone)["mobile_wallet"]}
    answer = shop.call("POST", "/v1/name-lookups", body, key=key)
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def intent(shop: Merchant, lookup_id: str, amount: str = "500.00", currency: str = "MZN") -> requests.Response:
    body = {"lookup_id": lookup_id, "money": {"amount": amount, "currency": currency}}
    return shop.call("POST", "/v1/cash-deposits/intents", body)


def confirm(shop: Merchant, intent_id: str, idempotency_key: str | None = "fresh", **extra: Any) -> requests.Response:
    return shop.call("POST", "/v1/cash-deposits", {"intent_id": intent_id, **extra}, idempotency_key=idempotency_key)


def finished(shop: Merchant, deposit_id: str) -> dict[str, Any]:
    settled(shop, deposit_id)  # the payout that carries it
    return shop.call("GET", f"/v1/cash-deposits/{deposit_id}", idempotency_key=None).json()  # type: ignore[no-any-return]


def test_an_operator_makes_an_account_a_partner(stack: RunningStack) -> None:
    shop = Merchant(stack)
    answer = make_partner(stack, shop)
    assert answer.status_code == 200
    assert answer.json() == {
        "account_id": shop.account["id"],
        "partner": True,
        "updated_at": answer.json()["updated_at"],
    }
    assert make_partner(stack, shop, False).json()["partner"] is False
    management = stack.state["regions"]["mz"]["management"]
    unknown = requests.put(
        f"{management}/v1/accounts/01JD8Z5K3M2N4P6Q7R8S9T0VWX/partner",
        json={"partner": True},
        headers={"Authorization": f"Bearer {stack.state['operator_token']}"},
        timeout=30,
    )
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"
    merchant_key = requests.put(
        f"{management}/v1/accounts/{shop.account['id']}/partner",
        json={"partner": True},
        headers={"Authorization": f"Bearer {shop.test_key}"},
        timeout=30,
    )
    assert merchant_key.status_code == 401


def test_a_deposit_credits_the_wallet_from_the_partners_balance(stack: RunningStack, receiver: Receiver) -> None:
    shop = partner(stack)
    found = lookup(shop)
    assert found["status"] == "resolved" and found["expires_at"] > found["created_at"]
    opened = intent(shop, found["lookup_id"])
    body = created(opened)
    ana = {"money": {"amount": "500.00", "currency": "MZN"}, "wallet": {"network": "mpesa", "phone_number": PAYER}}
    assert body == {
        "intent_id": body["intent_id"],
        "lookup_id": found["lookup_id"],
        "status": "open",
        **ana,
        "name": "Ana Machava",
        "deposit_id": None,
        "metadata": {},
        "expires_at": found["expires_at"],
        "created_at": body["created_at"],
    }
    url = receiver.endpoint()
    deposited = confirm(shop, body["intent_id"], callback_url=url, metadata={"agent": "A-17"})
    deposit = created(deposited)
    assert deposit == {
        "deposit_id": deposit["deposit_id"],
        "intent_id": body["intent_id"],
        "status": "pending",
        **ana,
        "name": "Ana Machava",
        "failure_code": None,
        "failure_message": None,
        "metadata": {"agent": "A-17"},
        "created_at": deposit["created_at"],
        "updated_at": deposit["updated_at"],
    }
    done = finished(shop, deposit["deposit_id"])
    assert done["status"] == "succeeded"
    used = shop.call("GET", f"/v1/cash-deposits/intents/{body['intent_id']}", idempotency_key=None).json()
    assert (used["status"], used["deposit_id"]) == ("used", deposit["deposit_id"])
    # the partner's balance paid the payer's wallet; the ledger still balances
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "4500.00", "held": "0.00", "fees": "0.00"}]
    assert_ledger_balances(stack, shop)
    arrivals = receiver.wait_for(url, 2)
    kinds = [json.loads(a.body)["type"] for a in arrivals]
    assert kinds == ["cash_deposit.created", "cash_deposit.succeeded"]
    assert json.loads(arrivals[1].body)["data"]["object"] == {**done}
    assert sorted(events_of(stack, deposit["deposit_id"])) == [
        "cash_deposit.created",
        "cash_deposit.succeeded",
        "payout.created",
        "payout.in_transit",
        "payout.paid",
        "payout.submitted",
    ]


def test_a_deposit_the_provider_refuses_gives_the_money_back(stack: RunningStack, receiver: Receiver) -> None:
    shop = partner(stack, "300.00")
    url = receiver.endpoint()
    opened = intent(shop, lookup(shop, FAILS)["lookup_id"], "200.00").json()
    deposit = confirm(shop, opened["intent_id"], callback_url=url).json()
    done = finished(shop, deposit["deposit_id"])
    assert done["status"] == "failed" and done["failure_code"]
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "300.00", "held": "0.00", "fees": "0.00"}]
    kinds = [json.loads(a.body)["type"] for a in receiver.wait_for(url, 2)]
    assert kinds == ["cash_deposit.created", "cash_deposit.failed"]


def test_a_key_of_an_account_that_is_not_a_partner_is_refused(stack: RunningStack) -> None:
    shop = funded(stack)
    found = lookup(shop)
    refused = problem(
        403,
        "Forbidden",
        "not_a_partner",
        "This account is not a partner: cash deposits are for partner agent networks.",
    )
    assert intent(shop, found["lookup_id"]).json() == refused
    assert confirm(shop, "01JD8Z5K3M2N4P6Q7R8S9T0VWX").json() == refused
    # a partner no more: its open intent cannot be confirmed
    agent = partner(stack)
    opened = intent(agent, lookup(agent)["lookup_id"]).json()
    make_partner(stack, agent, False)
    assert confirm(agent, opened["intent_id"]).json() == refused
    assert balance(agent)["balances"] == [{"currency": "MZN", "available": "5000.00", "held": "0.00", "fees": "0.00"}]


def test_an_ambiguous_lookup_is_selected_then_locked_by_its_deposit(stack: RunningStack) -> None:
    shop = partner(stack)
    found = lookup(shop, AMBIGUOUS)
    assert found["status"] == "ambiguous"
    unselected = intent(shop, found["lookup_id"])
    assert unselected.json() == problem(
        409,
        "Conflict",
        "invalid_state",
        "Cannot start a deposit from a name lookup that is ambiguous; select the holder.",
    )
    select = f"/v1/name-lookups/{found['lookup_id']}/select"
    assert shop.call("POST", select, {"candidate_id": "cand_2"}).json()["name"] == "Ana Maria Machava"
    corrected = shop.call("POST", select, {"candidate_id": "cand_3"})
    assert corrected.status_code == 200 and corrected.json()["name"] == "Anabela Machava"
    opened = intent(shop, found["lookup_id"])
    assert opened.status_code == 201 and opened.json()["name"] == "Anabela Machava"
    locked = shop.call("POST", select, {"candidate_id": "cand_1"})
    assert locked.json() == problem(
        409,
        "Conflict",
        "option_locked",
        "A cash deposit started from this lookup: its selection can no longer change.",
    )
    assert shop.call("POST", select, {"candidate_id": "cand_3"}).status_code == 200  # the same pick
    deposit = confirm(shop, opened.json()["intent_id"]).json()
    assert finished(shop, deposit["deposit_id"])["name"] == "Anabela Machava"


def test_selections_racing_an_intent_never_change_the_holder_it_names(stack: RunningStack) -> None:
    """An intent is written on condition that the lookup is still as it was read: a selection
    landing first makes it 409 invalid_state (read and retry), one landing after it is locked out."""
    shop = partner(stack)
    found = lookup(shop, AMBIGUOUS)
    select = f"/v1/name-lookups/{found['lookup_id']}/select"
    assert shop.call("POST", select, {"candidate_id": "cand_1"}).status_code == 200

    def act(i: int) -> requests.Response:
        if i % 2 == 0:
            return intent(shop, found["lookup_id"])
        return shop.call("POST", select, {"candidate_id": "cand_2"})

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(act, range(6)))
    for answer in answers:
        assert answer.status_code in (200, 201) or answer.json()["code"] in ("invalid_state", "option_locked")
    opened = intent(shop, found["lookup_id"])  # whatever happened, the lookup now holds one intent
    assert opened.status_code in (200, 201), opened.text
    named = opened.json()["name"]
    other = "cand_2" if named == "Ana Machava" else "cand_1"
    assert shop.call("POST", select, {"candidate_id": other}).json()["code"] == "option_locked"
    intents = {a.json()["intent_id"] for i, a in enumerate(answers) if i % 2 == 0 and a.status_code in (200, 201)}
    assert intents <= {opened.json()["intent_id"]}


def test_a_lookup_starts_one_deposit(stack: RunningStack) -> None:
    shop = partner(stack)
    found = lookup(shop)
    first = intent(shop, found["lookup_id"], "100.00")
    assert first.status_code == 201
    again = intent(shop, found["lookup_id"], "100.0")
    assert again.status_code == 200 and again.json() == first.json()
    other = intent(shop, found["lookup_id"], "150.00")
    assert other.json() == problem(
        409,
        "Conflict",
        "lookup_used",
        "This lookup already started a deposit of 100.00 MZN; look the payer up again for another amount.",
    )
    usd = intent(shop, found["lookup_id"], "100.00", "USD")
    assert usd.status_code == 409 and usd.json()["code"] == "lookup_used"


def test_racing_intents_of_one_lookup_open_one(stack: RunningStack) -> None:
    shop = partner(stack)
    found = lookup(shop)
    with ThreadPoolExecutor(5) as pool:
        answers = list(pool.map(lambda i: intent(shop, found["lookup_id"], f"{100 + i}.00"), range(5)))
    assert sorted(a.status_code for a in answers) == [201, 409, 409, 409, 409], [a.text for a in answers]
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"lookup_used"}


@pytest.mark.parametrize(
    ("amount", "currency", "detail"),
    [
        ("0.50", "MZN", "A wallet deposit is from 1.00 to 125000.00 MZN, with at most 2 fraction digits."),
        ("125000.01", "MZN", "A wallet deposit is from 1.00 to 125000.00 MZN, with at most 2 fraction digits."),
        ("10.001", "MZN", "A wallet deposit is from 1.00 to 125000.00 MZN, with at most 2 fraction digits."),
        ("10.00", "USD", "A wallet takes deposits in MZN, not USD."),
    ],
)
def test_an_amount_outside_the_wallets_limits_is_refused(
    stack: RunningStack, amount: str, currency: str, detail: str
) -> None:
    shop = partner(stack)
    found = lookup(shop)
    assert intent(shop, found["lookup_id"], amount, currency).json() == problem(
        422, "Unprocessable Content", "deposit_refused", detail
    )
    assert intent(shop, found["lookup_id"], "10.00").status_code == 201  # nothing was kept of the refusal


def test_an_expired_lookup_or_a_bank_account_is_refused(stack: RunningStack) -> None:
    shop = partner(stack)
    found = lookup(shop)
    past = "2026-01-01T00:00:00Z"
    stack.aws("dynamodb").update_item(  # fifteen minutes pass
        TableName=stack.state["resources"]["mz"]["PaymentsTable"],
        Key={"pk": {"S": f"LOOKUP#{found['lookup_id']}"}, "sk": {"S": "LOOKUP"}},
        UpdateExpression="SET expires_at = :past",
        ExpressionAttributeValues={":past": {"S": past}},
    )
    assert intent(shop, found["lookup_id"]).json() == problem(
        422, "Unprocessable Content", "deposit_refused", f"The lookup expired at {past}; look the payer up again."
    )
    bank = shop.call(
        "POST",
        "/v1/name-lookups",
        {"type": "bank_transfer", "bank_transfer": {"account": "0003 0108 0016 3671 0237 1"}},
    ).json()
    assert intent(shop, bank["lookup_id"]).json() == problem(
        422,
        "Unprocessable Content",
        "deposit_refused",
        "Cash deposits credit mobile wallets; this lookup is of a bank account.",
    )


def test_an_intent_is_confirmed_once(stack: RunningStack) -> None:
    shop = partner(stack)
    opened = intent(shop, lookup(shop)["lookup_id"], "250.00").json()
    key = str(uuid.uuid4())
    first = confirm(shop, opened["intent_id"], idempotency_key=key)
    assert first.status_code == 201
    replay = confirm(shop, opened["intent_id"], idempotency_key=key)
    assert replay.json() == first.json() and replay.headers["Idempotent-Replayed"] == "true"
    second = confirm(shop, opened["intent_id"])
    assert second.json() == problem(
        409, "Conflict", "invalid_state", f"This intent was already deposited ({first.json()['deposit_id']})."
    )
    no_key = confirm(shop, opened["intent_id"], idempotency_key=None)
    assert no_key.status_code == 400 and no_key.json()["code"] == "idempotency_key_required"
    finished(shop, first.json()["deposit_id"])
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "4750.00", "held": "0.00", "fees": "0.00"}]


def test_racing_confirmations_deposit_once(stack: RunningStack) -> None:
    shop = partner(stack)
    opened = intent(shop, lookup(shop)["lookup_id"], "300.00").json()
    with ThreadPoolExecutor(5) as pool:
        answers = list(pool.map(lambda _: confirm(shop, opened["intent_id"]), range(5)))
    made = {a.json()["deposit_id"] for a in answers if a.status_code == 201}
    assert len(made) == 1, [a.text for a in answers]
    assert all(a.json()["code"] == "invalid_state" for a in answers if a.status_code != 201)
    finished(shop, made.pop())
    assert balance(shop)["balances"] == [{"currency": "MZN", "available": "4700.00", "held": "0.00", "fees": "0.00"}]


def test_a_deposit_needs_the_partners_balance(stack: RunningStack) -> None:
    shop = partner(stack, "100.00")
    opened = intent(shop, lookup(shop)["lookup_id"], "100.01").json()
    answer = confirm(shop, opened["intent_id"])
    assert answer.json() == problem(
        422, "Unprocessable Content", "insufficient_balance", "The available balance does not cover 100.01 MZN."
    )
    still = shop.call("GET", f"/v1/cash-deposits/intents/{opened['intent_id']}", idempotency_key=None).json()
    assert still["status"] == "open"


def test_another_accounts_or_modes_deposits_are_not_found(stack: RunningStack) -> None:
    shop = partner(stack)
    opened = intent(shop, lookup(shop)["lookup_id"], "20.00").json()
    deposit = confirm(shop, opened["intent_id"]).json()
    other = partner(stack)
    for path, what in (
        (f"/v1/cash-deposits/intents/{opened['intent_id']}", "cash-deposit intent"),
        (f"/v1/cash-deposits/{deposit['deposit_id']}", "cash deposit"),
    ):
        assert other.call("GET", path, idempotency_key=None).json() == problem(
            404, "Not Found", "not_found", f"No such {what}."
        )
    assert confirm(other, opened["intent_id"]).json() == problem(
        404, "Not Found", "not_found", "No such cash-deposit intent."
    )
    mine = lookup(shop)
    assert intent(other, mine["lookup_id"]).json() == problem(404, "Not Found", "not_found", "No such name lookup.")
    live = shop.call("GET", f"/v1/cash-deposits/{deposit['deposit_id']}", key=shop.live_key, idempotency_key=None)
    assert live.status_code == 401 and live.json()["code"] == "wrong_environment"
    # an ordinary payout is not a deposit
    payout = shop.call(
        "POST",
        "/payouts",
        {"payout_id": str(uuid.uuid4()), "money": {"amount": "5.00", "currency": "MZN"}, "destination": wallet(PAYER)},
    ).json()
    assert shop.call(
        "GET", f"/v1/cash-deposits/{payout['provider_payout_id']}", idempotency_key=None
    ).json() == problem(404, "Not Found", "not_found", "No such cash deposit.")


# ---------------------------------------------------------------- the list (docs/lists.md)
def test_a_partner_lists_its_deposits_by_status_wallet_and_intent(stack: RunningStack) -> None:
    shop = partner(stack)
    done = finished(
        shop, confirm(shop, intent(shop, lookup(shop)["lookup_id"], "30.00").json()["intent_id"]).json()["deposit_id"]
    )
    failed_intent = intent(shop, lookup(shop, FAILS)["lookup_id"], "40.00").json()
    failed = finished(shop, confirm(shop, failed_intent["intent_id"], metadata={"till": "7"}).json()["deposit_id"])
    assert (done["status"], failed["status"]) == ("succeeded", "failed")
    payout = shop.call(  # an ordinary payout of the partner: among its payouts, never its deposits
        "POST",
        "/payouts",
        {"payout_id": str(uuid.uuid4()), "money": {"amount": "5.00", "currency": "MZN"}, "destination": wallet(PAYER)},
    ).json()

    def listed(query: str = "") -> list[str]:
        answer = shop.call("GET", f"/v1/cash-deposits{query}", idempotency_key=None)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert set(body) == {"data", "has_more", "next_page_token"}
        return [deposit["deposit_id"] for deposit in body["data"]]

    everything = shop.call("GET", "/v1/cash-deposits", idempotency_key=None).json()
    assert everything["data"] == [failed, done] and not everything["has_more"]  # newest first, as read one by one
    assert listed("?status=succeeded") == [done["deposit_id"]]
    assert listed("?status=failed") == [failed["deposit_id"]]
    assert listed("?status=pending") == []
    assert listed("?network=mpesa&amount_gte=35") == [failed["deposit_id"]]
    assert listed("?metadata[till]=7") == [failed["deposit_id"]]
    assert listed(f"?intent_id={failed_intent['intent_id']}") == [failed["deposit_id"]]
    assert listed(f"?intent_id={payout['payout_id']}") == []  # a payout's own id names no deposit
    first = shop.call("GET", "/v1/cash-deposits?page_size=1", idempotency_key=None).json()
    assert [d["deposit_id"] for d in first["data"]] == [failed["deposit_id"]] and first["has_more"]
    assert listed(f"?page_size=1&page_token={first['next_page_token']}") == [done["deposit_id"]]
    payouts = [p["provider_payout_id"] for p in shop.call("GET", "/v1/payouts", idempotency_key=None).json()["data"]]
    assert payouts == [payout["provider_payout_id"]]
    for query, field in (("status=paid", "status"), ("payout_id=x", "payout_id"), ("page_size=101", "page_size")):
        refused = shop.call("GET", f"/v1/cash-deposits?{query}", idempotency_key=None)
        assert (refused.status_code, refused.json()["code"], refused.json()["errors"][0]["field"]) == (
            400,
            "invalid_request",
            field,
        )
    # another partner, the other mode, an account that is not a partner
    assert partner(stack).call("GET", "/v1/cash-deposits", idempotency_key=None).json()["data"] == []
    assert shop.call("GET", "/v1/cash-deposits", key=shop.live_key, idempotency_key=None).json()["data"] == []
    assert funded(stack).call("GET", "/v1/cash-deposits", idempotency_key=None).json() == problem(
        403,
        "Forbidden",
        "not_a_partner",
        "This account is not a partner: cash deposits are for partner agent networks.",
    )

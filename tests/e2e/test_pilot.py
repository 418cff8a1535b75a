"""Pilot settings over HTTP: a PSP in pilot carries live traffic only within the rules its
operator set; each broken rule is 422 pilot_limit naming it, recorded as transaction.rejected."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.test_charges import Merchant, card, rejections, wallet
from tests.e2e.test_connectors import bind, operator
from tests.expected import pilot_settings, problem_for
from tests.providers.mpesa_sandbox import MpesaSandbox

pytestmark = pytest.mark.e2e


def set_pilot(stack: RunningStack, psp_id: str, body: dict[str, Any]) -> requests.Response:
    management = stack.state["regions"]["mz"]["management"]
    return requests.put(f"{management}/v1/psps/{psp_id}/pilot", json=body, headers=operator(stack), timeout=30)


def settings(per_transaction: str, daily: str, monthly: str, currencies: tuple[str, ...] = ("MZN",)) -> dict[str, Any]:
    return pilot_settings(["loja-1", "loja-2"], per_transaction, daily, monthly, currencies)


def pilot_refusal(response: requests.Response, rule: str, detail: str) -> None:
    assert response.json() == problem_for(
        422, "pilot_limit", detail, rule=rule, rejection_id=response.json()["rejection_id"]
    )


@pytest.fixture
def mpesa_pilot(stack: RunningStack) -> Iterator[tuple[Merchant, MpesaSandbox]]:
    """A merchant whose live M-Pesa goes to the sandbox, with vodacom-mpesa in pilot; graduated after."""
    with MpesaSandbox() as sandbox:
        shop = Merchant(stack)
        assert bind(stack, shop, {"psp_id": "vodacom-mpesa", "credentials": sandbox.credentials()}).status_code == 200
        try:
            yield shop, sandbox
        finally:
            assert set_pilot(stack, "vodacom-mpesa", {"in_pilot": False}).status_code == 200


PHONES = itertools.count(100)


def live(shop: Merchant, ending: str = "0000", amount: str = "100.00", **extra: Any) -> requests.Response:
    """A live M-Pesa charge from a fresh payer number (the risk stage counts attempts per phone);
    the sandbox answers by the number's last four digits."""
    return shop.charge(wallet(f"+25884{next(PHONES):03d}{ending}"), amount=amount, key=shop.live_key, **extra)


def test_a_pilot_psp_without_settings_refuses_every_live_transaction(stack: RunningStack) -> None:
    shop = Merchant(stack)
    response = shop.charge(wallet("+258820000000", "mkesh"), key=shop.live_key, metadata={"merchant_id": "loja-1"})
    pilot_refusal(
        response, "settings_missing", "tmcel-mkesh is in pilot and its pilot settings are not set; try later."
    )
    assert rejections(stack, response.json()["rejection_id"]) == [
        {"type": "transaction.rejected", "code": "pilot_limit", "rule": "settings_missing"}
    ]
    assert shop.charge(wallet("+258820000000", "mkesh")).json()["status"] == "succeeded"  # test mode: no pilot
    listed = requests.get(f"{stack.state['regions']['mz']['management']}/v1/psps", headers=operator(stack), timeout=30)
    pilots = {p["psp_id"]: p["pilot"] for p in listed.json()["psps"]}
    assert pilots["tmcel-mkesh"] == {"psp_id": "tmcel-mkesh", "in_pilot": True, "settings": None, "updated_at": None}


def test_merchant_allow_list_per_transaction_and_daily_window(
    stack: RunningStack, mpesa_pilot: tuple[Merchant, MpesaSandbox]
) -> None:
    shop, _ = mpesa_pilot
    written = set_pilot(
        stack, "vodacom-mpesa", {"in_pilot": True, "settings": settings("100.00", "250.00", "10000.00")}
    )
    assert written.json() == {
        "psp_id": "vodacom-mpesa",
        "in_pilot": True,
        "settings": {
            "merchant_ids": ["loja-1", "loja-2"],
            "currencies": ["MZN"],
            "per_transaction": {"MZN": "100.00"},
            "daily": {"MZN": "250.00"},
            "monthly": {"MZN": "10000.00"},
        },
        "updated_at": written.json()["updated_at"],
    }
    not_allowed = "vodacom-mpesa is in pilot: metadata.merchant_id must name a merchant of its pilot."
    pilot_refusal(live(shop), "merchant_not_allowed", not_allowed)
    pilot_refusal(live(shop, metadata={"merchant_id": "loja-9"}), "merchant_not_allowed", not_allowed)
    allowed = {"metadata": {"merchant_id": "loja-1"}}
    pilot_refusal(
        live(shop, amount="100.01", **allowed),
        "per_transaction",
        "vodacom-mpesa is in pilot: at most 100.00 MZN per transaction.",
    )
    daily = "vodacom-mpesa is in pilot: its daily total (250.00 MZN a day) would be exceeded."
    assert live(shop, **allowed).json()["status"] == "succeeded"  # 100
    assert live(shop, **allowed).json()["status"] == "succeeded"  # 200
    pilot_refusal(live(shop, amount="60.00", **allowed), "daily", daily)
    failed = live(shop, "0001", amount="50.00", **allowed).json()
    assert (failed["status"], failed["failure_code"]) == ("failed", "insufficient_funds")  # given back
    assert live(shop, amount="50.00", **allowed).json()["status"] == "succeeded"  # 250
    pilot_refusal(live(shop, amount="1.00", **allowed), "daily", daily)

    graduated = set_pilot(stack, "vodacom-mpesa", {"in_pilot": False})
    assert graduated.json() == {
        "psp_id": "vodacom-mpesa",
        "in_pilot": False,
        "settings": None,
        "updated_at": graduated.json()["updated_at"],
    }
    assert live(shop, amount="500.00").json()["status"] == "succeeded"  # no pilot rules any more


def test_concurrent_charges_never_pass_the_monthly_window(
    stack: RunningStack, mpesa_pilot: tuple[Merchant, MpesaSandbox]
) -> None:
    shop, _ = mpesa_pilot
    month = settings("100.00", "100000.00", "100000.00")
    assert set_pilot(stack, "vodacom-mpesa", {"in_pilot": True, "settings": month}).status_code == 200
    allowed = {"metadata": {"merchant_id": "loja-2"}}
    assert live(shop, amount="50.00", **allowed).json()["status"] == "succeeded"
    # The month's total so far is whatever earlier tests left (this stack is shared): read it.
    total = stack.aws("dynamodb").scan(
        TableName=stack.state["resources"]["mz"]["PaymentsTable"],
        FilterExpression="begins_with(pk, :p)",
        ExpressionAttributeValues={":p": {"S": "PILOT#vodacom-mpesa#MZN#M#"}},
    )["Items"][0]["total"]["N"]
    room = 250  # exactly five more 50.00 charges fit
    ceiling = f"{float(total) + room:.2f}"
    month["monthly"] = {"MZN": ceiling}
    assert set_pilot(stack, "vodacom-mpesa", {"in_pilot": True, "settings": month}).status_code == 200
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda _: live(shop, amount="50.00", **allowed), range(10)))
    assert sorted(a.status_code for a in answers) == [200] * 5 + [422] * 5
    assert {a.json()["status"] for a in answers if a.status_code == 200} == {"succeeded"}
    for refused in (a for a in answers if a.status_code == 422):
        pilot_refusal(
            refused,
            "monthly",
            f"vodacom-mpesa is in pilot: its monthly total ({ceiling} MZN a month) would be exceeded.",
        )


def test_a_pilot_limited_to_other_currencies_refuses_the_rest(stack: RunningStack) -> None:
    shop = Merchant(stack)
    try:
        assert (
            set_pilot(
                stack, "bci-cards", {"in_pilot": True, "settings": settings("100.00", "500.00", "900.00", ("USD",))}
            ).status_code
            == 200
        )
        response = shop.charge(
            card("tok_live_0000000001"), amount="50.00", key=shop.live_key, metadata={"merchant_id": "loja-1"}
        )
        pilot_refusal(response, "currency", "bci-cards is in pilot for USD only.")
        usd = shop.charge(
            card("tok_live_0000000001"),
            amount="50.00",
            currency="USD",
            key=shop.live_key,
            metadata={"merchant_id": "loja-1"},
        )
        assert usd.json()["code"] == "no_connector_binding"  # past the pilot: nothing bound for cards
    finally:
        set_pilot(stack, "bci-cards", {"in_pilot": False})


def test_pilot_settings_are_validated(stack: RunningStack) -> None:
    incomplete = settings("100.00", "250.00", "1000.00")
    incomplete["monthly"] = {}
    response = set_pilot(stack, "vodacom-mpesa", {"in_pilot": True, "settings": incomplete})
    assert response.json() == problem_for(
        400,
        "missing_ceiling",
        "The request has invalid fields: settings.",
        errors=[{"field": "settings", "code": "missing_ceiling", "message": "monthly needs a ceiling for MZN"}],
    )
    simulator = set_pilot(stack, "simulator", {"in_pilot": True})
    assert simulator.json()["errors"] == [{"field": "psp_id", "code": "invalid_value", "message": "a live PSP"}]
    assert set_pilot(stack, "nope", {"in_pilot": True}).json() == problem_for(404, "not_found", "No such PSP.")


def pilot_total(stack: RunningStack, window: str) -> float:
    """What vodacom-mpesa's pilot window of today (D) or this month (M) holds (the stack is shared)."""
    items = stack.aws("dynamodb").scan(
        TableName=stack.state["resources"]["mz"]["PaymentsTable"],
        FilterExpression="begins_with(pk, :p)",
        ExpressionAttributeValues={":p": {"S": f"PILOT#vodacom-mpesa#MZN#{window}#"}},
    )["Items"]
    return float(items[0]["total"]["N"]) if items else 0.0


def test_live_payouts_and_deposit_intents_count_with_payments(
    stack: RunningStack, mpesa_pilot: tuple[Merchant, MpesaSandbox]
) -> None:
    """Spec, pilot_limit: daily and monthly count payments, payouts, bill payments and deposit
    intents together."""
    shop, sandbox = mpesa_pilot
    allowed = {"metadata": {"merchant_id": "loja-1"}}
    pilot = settings("1000.00", "100000.00", "100000.00")
    assert set_pilot(stack, "vodacom-mpesa", {"in_pilot": True, "settings": pilot}).status_code == 200
    assert live(shop, amount="900.00", **allowed).json()["status"] == "succeeded"  # the live balance
    ceiling = f"{pilot_total(stack, 'D') + 300:.2f}"  # room for 300.00 more today
    pilot["daily"] = {"MZN": ceiling}
    assert set_pilot(stack, "vodacom-mpesa", {"in_pilot": True, "settings": pilot}).status_code == 200
    daily = f"vodacom-mpesa is in pilot: its daily total ({ceiling} MZN a day) would be exceeded."

    def payout(amount: str, **extra: Any) -> requests.Response:
        body = {
            "payout_id": str(uuid.uuid4()),
            "money": {"amount": amount, "currency": "MZN"},
            "destination": wallet("+258840000000"),
            **extra,
        }
        return shop.call("POST", "/payouts", body, key=shop.live_key)

    pilot_refusal(
        payout("10.00"),
        "merchant_not_allowed",
        "vodacom-mpesa is in pilot: metadata.merchant_id must name a merchant of its pilot.",
    )
    assert payout("200.00", **allowed).json()["status"] == "pending"  # 200 of 300
    pilot_refusal(payout("150.00", **allowed), "daily", daily)
    # a deposit intent of a partner counts too
    management = stack.state["regions"]["mz"]["management"]
    made = requests.put(
        f"{management}/v1/accounts/{shop.account['id']}/partner",
        json={"partner": True},
        headers=operator(stack),
        timeout=30,
    )
    assert made.status_code == 200
    sandbox.names["258841234567"] = "Jo*o Mach**a"
    body = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258841234567"}}
    found = shop.call("POST", "/v1/name-lookups", body, key=shop.live_key).json()
    assert found["name"] == "Jo*o Mach**a"

    def intent(amount: str) -> requests.Response:
        money = {"amount": amount, "currency": "MZN"}
        return shop.call(
            "POST",
            "/v1/cash-deposits/intents",
            {"lookup_id": found["lookup_id"], "money": money, **allowed},
            key=shop.live_key,
        )

    pilot_refusal(intent("100.01"), "daily", daily)
    opened = intent("100.00")  # 300 of 300
    assert opened.status_code == 201 and opened.json()["name"] == "Jo*o Mach**a"
    pilot_refusal(live(shop, amount="1.00", **allowed), "daily", daily)  # payments share the window

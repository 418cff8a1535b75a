"""The merchant's lists over HTTP through the local stack (docs/lists.md): a merchant finds its
payments, refunds and payouts by every filter, newest first, page by page with sealed tokens;
every bad query is 400 naming its field; another account, the other mode and a key restricted
to customers see only their own. (The tenancy matrix, tests/e2e/test_tenancy_matrix.py, also
calls every list route with another account, the other mode and ?account_id=.)"""

from __future__ import annotations

from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from tests.e2e.test_charges import Merchant, card, wallet
from tests.e2e.test_payouts import manage, settled
from tests.e2e.test_refunds import refund
from tests.expected import field_errors, problem

pytestmark = pytest.mark.e2e


def listed(shop: Merchant, path: str, key: str | None = None) -> dict[str, Any]:
    answer = shop.call("GET", path, key=key, idempotency_key=None)
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def ids(page: dict[str, Any], name: str = "provider_payment_id") -> list[str]:
    return [item[name] for item in page["data"]]


def refused(answer: requests.Response, field: str, code: str, message: str) -> None:
    assert answer.status_code == 400, answer.text
    assert answer.json() == problem(
        400, "Bad Request", "invalid_request", f"{field}: {message}.", errors=field_errors((field, code, message))
    )


@pytest.fixture(scope="module")
def shop(stack: RunningStack) -> dict[str, Any]:
    """One merchant's payments (newest last): a wallet payment of a customer with metadata, a
    failed one, a card payment, an e-Mola one; and another merchant's payment."""
    merchant = Merchant(stack)
    made: list[dict[str, Any]] = []
    for source, amount, extra in (
        (wallet("+258840000000"), "100.00", {"metadata": {"order": "A-1"}, "customer": {"id": "cust-1"}}),
        (wallet("+258840000001"), "250.00", {}),
        (card("tok_test_visa"), "30.00", {}),
        (wallet("+258860000000", "emola"), "75.00", {}),
    ):
        answer = merchant.charge(source, amount, **extra)
        assert answer.status_code == 200, answer.text
        made.append(answer.json())
    assert [p["status"] for p in made] == ["succeeded", "failed", "succeeded", "succeeded"]
    other = Merchant(stack)
    theirs = other.charge(wallet("+258840000000"), "100.00", metadata={"order": "A-1"})
    assert theirs.status_code == 200, theirs.text
    return {"merchant": merchant, "made": made, "other": other, "theirs": theirs.json()}


def test_the_list_is_newest_first_and_each_item_is_the_payments_read(shop: dict[str, Any]) -> None:
    merchant, made = shop["merchant"], shop["made"]
    page = listed(merchant, "/v1/payments")
    assert ids(page) == [p["provider_payment_id"] for p in reversed(made)]
    assert (page["has_more"], page["next_page_token"]) == (False, None)
    for item in page["data"]:
        assert item == listed(merchant, f"/v1/payments/{item['provider_payment_id']}")
    assert shop["theirs"]["provider_payment_id"] not in ids(page)


def test_pages_follow_their_token_to_the_end(shop: dict[str, Any]) -> None:
    merchant, made = shop["merchant"], shop["made"]
    first = listed(merchant, "/v1/payments?page_size=3")
    assert first["has_more"] is True and len(first["data"]) == 3
    second = listed(merchant, f"/v1/payments?page_size=3&page_token={first['next_page_token']}")
    assert (len(second["data"]), second["has_more"], second["next_page_token"]) == (1, False, None)
    assert ids(first) + ids(second) == [p["provider_payment_id"] for p in reversed(made)]
    token = first["next_page_token"]
    message = "not a page_token this list gave for these filters"
    # the token of other filters, of another merchant, tampered: refused, nothing else read
    refused(
        merchant.call("GET", f"/v1/payments?status=failed&page_token={token}"), "page_token", "invalid_value", message
    )
    refused(
        shop["other"].call("GET", f"/v1/payments?page_size=3&page_token={token}"),
        "page_token",
        "invalid_value",
        message,
    )
    refused(merchant.call("GET", f"/v1/refunds?page_token={token}"), "page_token", "invalid_value", message)
    tampered = token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB")
    refused(
        merchant.call("GET", f"/v1/payments?page_size=3&page_token={tampered}"), "page_token", "invalid_value", message
    )


@pytest.mark.parametrize(
    ("query", "which"),
    [
        ("status=failed", [1]),
        ("status=succeeded", [3, 2, 0]),
        ("metadata[order]=A-1", [0]),
        ("customer_id=cust-1", [0]),
        ("amount_gte=50&amount_lte=100", [3, 0]),
        ("amount_gte=100.01", [1]),
        ("method=card", [2]),
        ("method=mobile_wallet&network=emola", [3]),
        ("network=mpesa&status=succeeded", [0]),
        ("currency=MZN&page_size=100", [3, 2, 1, 0]),
        ("currency=USD", []),
        ("created_gte=2099-01-01T00:00:00Z", []),
        ("created_lt=2020-01-01T00:00:00%2B02:00", []),
        ("created_gte=2020-01-01&created_lt=2099-01-01", [3, 2, 1, 0]),
    ],
)
def test_each_filter_finds_what_it_names(shop: dict[str, Any], query: str, which: list[int]) -> None:
    made = shop["made"]
    page = listed(shop["merchant"], f"/v1/payments?{query}")
    assert ids(page) == [made[i]["provider_payment_id"] for i in which]
    assert page["has_more"] is False


def test_the_merchants_own_payment_id_finds_its_payment(shop: dict[str, Any]) -> None:
    merchant, made = shop["merchant"], shop["made"]
    page = listed(merchant, f"/v1/payments?payment_id={made[2]['payment_id']}")
    assert page == {
        "data": [listed(merchant, f"/v1/payments/{made[2]['provider_payment_id']}")],
        "has_more": False,
        "next_page_token": None,
    }
    assert listed(merchant, f"/v1/payments?payment_id={shop['theirs']['payment_id']}")["data"] == []  # another's
    refused(
        merchant.call("GET", f"/v1/payments?payment_id={made[2]['payment_id']}&status=failed"),
        "payment_id",
        "invalid_value",
        "finds one object: send it without other filters or a page_token",
    )


@pytest.mark.parametrize(
    ("query", "field", "code", "message"),
    [
        ("colour=red", "colour", "unknown_field", "not a filter of this list"),
        ("page_size=0", "page_size", "invalid_value", "an integer from 1 to 100"),
        ("page_size=101", "page_size", "invalid_value", "an integer from 1 to 100"),
        (
            "created_gte=yesterday",
            "created_gte",
            "invalid_value",
            "an ISO 8601 date and time, such as 2026-11-01T00:00:00Z",
        ),
        ("created_gte=2026-11-02&created_lt=2026-11-01", "created_gte", "invalid_value", "before created_lt"),
        ("status=paid", "status", "invalid_value", None),
        ("method=cash", "method", "invalid_value", None),
        ("metadata[a]=1&metadata[b]=2", "metadata[b]", "invalid_value", "one metadata[key] filter at a time"),
        ("amount_gte=-5", "amount_gte", "invalid_value", "a decimal amount of at most two decimals, not negative"),
    ],
)
def test_a_bad_query_is_refused_naming_its_field(
    shop: dict[str, Any], query: str, field: str, code: str, message: str | None
) -> None:
    answer = shop["merchant"].call("GET", f"/v1/payments?{query}", idempotency_key=None)
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert (body["code"], body["errors"][0]["field"], body["errors"][0]["code"]) == ("invalid_request", field, code)
    if message is not None:
        refused(answer, field, code, message)


def test_the_other_mode_and_another_merchant_see_none_of_it(shop: dict[str, Any]) -> None:
    merchant, other = shop["merchant"], shop["other"]
    assert listed(merchant, "/v1/payments", key=merchant.live_key) == {
        "data": [],
        "has_more": False,
        "next_page_token": None,
    }
    assert ids(listed(other, "/v1/payments")) == [shop["theirs"]["provider_payment_id"]]
    assert listed(other, "/v1/refunds")["data"] == [] and listed(other, "/v1/payouts")["data"] == []


def test_refunds_and_payouts_are_listed_and_a_payments_refunds(shop: dict[str, Any]) -> None:
    merchant, made = shop["merchant"], shop["made"]
    paid = made[0]["provider_payment_id"]
    first, second = refund(merchant, paid, "10.00"), refund(merchant, paid, "20.00")
    assert (first.status_code, second.status_code) == (200, 200), second.text
    other_refund = refund(merchant, made[2]["provider_payment_id"], "5.00")
    assert other_refund.status_code == 200, other_refund.text
    everything = listed(merchant, "/v1/refunds")
    expected = [other_refund.json(), second.json(), first.json()]
    assert everything["data"] == [listed(merchant, f"/v1/refunds/{r['provider_refund_id']}") for r in expected]
    of_payment = listed(merchant, f"/v1/payments/{paid}/refunds")
    assert ids(of_payment, "provider_refund_id") == [
        second.json()["provider_refund_id"],
        first.json()["provider_refund_id"],
    ]
    assert ids(listed(merchant, f"/v1/refunds?payment={paid}&amount_lte=15"), "provider_refund_id") == [
        first.json()["provider_refund_id"]
    ]
    not_found = shop["other"].call("GET", f"/v1/payments/{paid}/refunds", idempotency_key=None)
    assert not_found.status_code == 404 and not_found.json()["code"] == "not_found"
    refused(
        merchant.call("GET", f"/v1/payments/{paid}/refunds?payment={paid}"),
        "payment",
        "unknown_field",
        "not a filter of this list",
    )

    payout_id = str(ULID())
    payout = merchant.call(
        "POST",
        "/payouts",
        {
            "payout_id": payout_id,
            "money": {"amount": "12.00", "currency": "MZN"},
            "destination": wallet("+258840000000"),
        },
    )
    assert payout.status_code == 200, payout.text
    done = settled(merchant, payout.json()["provider_payout_id"])
    payouts = listed(merchant, "/v1/payouts")
    assert payouts == {"data": [done], "has_more": False, "next_page_token": None}
    assert listed(merchant, "/v1/payouts?status=paid&method=mobile_wallet&network=mpesa")["data"] == [done]
    assert listed(merchant, "/v1/payouts?status=failed")["data"] == []
    assert listed(merchant, f"/v1/payouts?payout_id={payout_id}")["data"] == [done]
    forbidden = merchant.call("GET", "/v1/payouts", key=merchant.reader, idempotency_key=None)
    assert forbidden.status_code == 403 and forbidden.json()["code"] == "insufficient_scope"
    assert ids(listed(merchant, "/v1/payments", key=merchant.reader)) == [
        p["provider_payment_id"] for p in reversed(made)
    ]


def test_a_key_restricted_to_customers_lists_only_theirs(stack: RunningStack, shop: dict[str, Any]) -> None:
    merchant, made = shop["merchant"], shop["made"]
    created = manage(
        stack,
        "POST",
        f"/v1/accounts/{merchant.account['id']}/api-keys",
        {"mode": "test", "allowed_customers": ["cust-1"]},
    )
    assert created.status_code == 201, created.text
    key = created.json()["key"]
    assert ids(listed(merchant, "/v1/payments", key=key)) == [made[0]["provider_payment_id"]]
    assert ids(listed(merchant, "/v1/payments?customer_id=cust-1", key=key)) == [made[0]["provider_payment_id"]]
    other_customer = merchant.call("GET", "/v1/payments?customer_id=cust-2", key=key, idempotency_key=None)
    assert other_customer.status_code == 403 and other_customer.json()["code"] == "customer_not_allowed"
    by_id = listed(merchant, f"/v1/payments?payment_id={made[2]['payment_id']}", key=key)
    assert by_id["data"] == []  # not its customer's

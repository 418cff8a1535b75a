"""GET /v1/balance/transactions and /{id} through the refunds function's handler (in-process moto,
the stack of template.yaml): the answer whole, pages with filters, tokens bound to the account,
mode and filters, bad input named, the scope, and tenancy (another account, the other mode,
?account_id= for a connected account)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ulid import ULID

from mzpay import deps
from mzpay.cases import access, charges, refunds
from mzpay.domain.access.principal import Principal
from mzpay.domain.payments.charges import ChargeRequest, Money
from tests.events import rest_event
from tests.expected import field_errors, problem
from tests.integration.support import function_app, functions_stack

WALLET = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}}
FEE_CARD = {"type": "card", "card": {"token": "tok_test_fee"}}
LIST = "/v1/balance/transactions"
ONE = "/v1/balance/transactions/{transaction_id}"


@dataclass
class Shop:
    account_id: str
    payments: list[str]
    refund: str


@dataclass
class World:
    handler: Any
    shop: Shop  # two charges (one with a provider fee) and a refund, in test mode
    other: Shop  # another account, the same
    platform: str  # an account connected to `other`


def principal(account_id: str, mode: str = "test") -> Principal:
    return Principal(
        account_id, mode, frozenset({"payments:write", "refunds:write"}), "k", frozenset(), None, account_id
    )


def furnish() -> Shop:
    account_id = access.create_account("Loja", "mz").id
    key = principal(account_id)
    made = []
    for amount, source in (("100.00", WALLET), ("200.00", FEE_CARD)):
        request = {"payment_id": str(ULID()), "money": {"amount": amount, "currency": "MZN"}, "source": source}
        made.append(charges.create_charge(key, ChargeRequest.model_validate({**request, "country": "MZ"})).wire())
    money = Money.model_validate({"amount": "30.00", "currency": "MZN"})
    refund = refunds.create_refund(key, made[0]["provider_payment_id"], str(ULID()), money, None).wire()
    return Shop(account_id, [str(m["provider_payment_id"]) for m in made], str(refund["provider_refund_id"]))


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with functions_stack("GatewayPaymentsFunction", "GatewayRefundsFunction", "GatewayAccessFunction"):
        shop, other = furnish(), furnish()
        platform = access.create_account("Plataforma", "mz").id
        access.connect_account(platform, other.account_id)
        handler = function_app("gateway_refunds", "gateway_refunds_balance_transactions").lambda_handler
        yield World(handler, shop, other, platform)


def call(
    world: World,
    account_id: str,
    path: str,
    query: dict[str, str] | None = None,
    mode: str = "test",
    scopes: str = "balance:read",
    resource: str = LIST,
    customers: str = "",
) -> tuple[int, dict[str, Any]]:
    key = {"account_id": account_id, "mode": mode, "scopes": scopes, "key_id": str(ULID())}
    context = {
        "requestId": "r-1",
        "stage": "prod",
        "identity": {"sourceIp": "198.51.100.7"},
        "authorizer": {**key, **({"allowed_customers": customers} if customers else {})},
    }
    parameters = {"transaction_id": path.rsplit("/", 1)[1]} if resource == ONE else None
    event = rest_event("GET", path, query=query, resource=resource, path_parameters=parameters, context=context)
    answer = world.handler(event, None)
    return answer["statusCode"], json.loads(answer["body"])


def entries(shop: Shop) -> list[dict[str, Any]]:
    return deps.ledger().entries(shop.account_id, "test", "MZN")


def bad(field: str, message: str) -> tuple[int, dict[str, Any]]:
    return 400, problem(
        400,
        "Bad Request",
        "invalid_request",
        f"{field}: {message}.",
        errors=field_errors((field, "invalid_value", message)),
    )


# ---------------------------------------------------------------- the answer
def test_the_list_is_the_ledger_newest_first_with_the_balance_after_each(world: World) -> None:
    shop = world.shop
    ids = [f"btx_{e['sk'][4:]}" for e in reversed(entries(shop))]
    events = [e["event_id"] for e in reversed(entries(shop))]
    created = [e["created_at"] for e in reversed(entries(shop))]
    status, page = call(world, shop.account_id, LIST)
    assert status == 200
    common = {"currency": "MZN", "provider_fee": "0.00", "service_fee": "0.00", "fee": "0.00"}
    assert page == {
        "data": [
            {
                **common,
                "id": ids[0],
                "type": "refund",
                "kind": "refund.succeeded",
                "amount": "0.00",
                "net": "0.00",
                "held": "-30.00",
                "source": shop.refund,
                "event_id": events[0],
                "created_at": created[0],
                "balance_after": {"available": "265.00", "held": "0.00"},
            },
            {
                **common,
                "id": ids[1],
                "type": "refund",
                "kind": "refund.created",
                "amount": "-30.00",
                "net": "-30.00",
                "held": "30.00",
                "source": shop.refund,
                "event_id": events[1],
                "created_at": created[1],
                "balance_after": {"available": "265.00", "held": "30.00"},
            },
            {
                **common,
                "id": ids[2],
                "type": "charge",
                "kind": "payment.captured",
                "amount": "200.00",
                "fee": "5.00",
                "provider_fee": "5.00",
                "net": "195.00",
                "held": "0.00",
                "source": shop.payments[1],
                "event_id": events[2],
                "created_at": created[2],
                "balance_after": {"available": "295.00", "held": "0.00"},
            },
            {
                **common,
                "id": ids[3],
                "type": "charge",
                "kind": "payment.captured",
                "amount": "100.00",
                "net": "100.00",
                "held": "0.00",
                "source": shop.payments[0],
                "event_id": events[3],
                "created_at": created[3],
                "balance_after": {"available": "100.00", "held": "0.00"},
            },
        ],
        "has_more": False,
        "next_page_token": None,
    }
    balance = refunds.balance(principal(shop.account_id)).wire()["balances"]
    assert balance == [{"currency": "MZN", "available": "265.00", "held": "0.00", "fees": "5.00"}]
    status, one = call(world, shop.account_id, f"{LIST}/{ids[2]}", resource=ONE)
    assert (status, one) == (200, page["data"][2])


def test_pages_with_a_filter_carry_on_where_the_last_one_stopped(world: World) -> None:
    shop = world.shop
    _, whole = call(world, shop.account_id, LIST)
    status, first = call(world, shop.account_id, LIST, {"type": "charge", "page_size": "1"})
    assert (status, first["data"], first["has_more"]) == (200, [whole["data"][2]], True)
    query = {"type": "charge", "page_size": "1", "page_token": first["next_page_token"]}
    status, second = call(world, shop.account_id, LIST, query)
    assert (status, second) == (200, {"data": [whole["data"][3]], "has_more": False, "next_page_token": None})
    # a source: the refund's two movements; a window of time: all, or none before the first
    _, by_source = call(world, shop.account_id, LIST, {"source": shop.refund})
    assert by_source["data"] == whole["data"][:2]
    window = {"created_gte": "2000-01-01T00:00:00Z", "created_lt": "2999-01-01T00:00:00+02:00", "currency": "MZN"}
    assert call(world, shop.account_id, LIST, window)[1]["data"] == whole["data"]
    assert call(world, shop.account_id, LIST, {"created_lt": "2000-01-01T00:00:00Z"})[1]["data"] == []


def test_a_token_is_bound_to_its_account_mode_and_filters_and_cannot_be_altered(world: World) -> None:
    shop = world.shop
    token = call(world, shop.account_id, LIST, {"type": "charge", "page_size": "1"})[1]["next_page_token"]
    refused = bad("page_token", "not a page_token this list gave for these filters")
    assert call(world, shop.account_id, LIST, {"type": "refund", "page_token": token}) == refused
    assert call(world, shop.account_id, LIST, {"page_token": token}) == refused
    assert call(world, world.other.account_id, LIST, {"type": "charge", "page_token": token}) == refused
    assert call(world, shop.account_id, LIST, {"type": "charge", "page_token": token}, mode="live") == refused
    body, tag = token.split(".")
    altered = body[:-2] + ("AA" if body[-2:] != "AA" else "BB") + "." + tag
    assert call(world, shop.account_id, LIST, {"type": "charge", "page_token": altered}) == refused
    assert call(world, shop.account_id, LIST, {"type": "charge", "page_token": "x" * 3000}) == refused


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"limit": "5"}, "limit", "not a parameter of this list"),
        ({"page_size": "0"}, "page_size", "an integer from 1 to 100"),
        ({"page_size": "101"}, "page_size", "an integer from 1 to 100"),
        ({"page_size": "ten"}, "page_size", "an integer from 1 to 100"),
        ({"currency": "mzn"}, "currency", "an ISO 4217 code such as MZN"),
        (
            {"type": "fee"},
            "type",
            "one of charge, refund, refund_failure, payout, payout_failure, dispute, dispute_reversal, "
            "bill_payment, bill_payment_failure, service_fee, adjustment",
        ),
        ({"created_gte": "yesterday"}, "created_gte", "an ISO 8601 date-time such as 2026-11-29T08:00:00Z"),
        ({"created_lt": "2026-13-01"}, "created_lt", "an ISO 8601 date-time such as 2026-11-29T08:00:00Z"),
        (
            {"created_gte": "2026-11-29T08:00:00Z", "created_lt": "2026-11-29T08:00:00Z"},
            "created_gte",
            "before created_lt",
        ),
        ({"source": "a b"}, "source", "a payment, refund, payout, dispute or bill payment id (at most 64)"),
    ],
)
def test_bad_input_is_400_naming_the_parameter(world: World, query: dict[str, str], field: str, message: str) -> None:
    assert call(world, world.shop.account_id, LIST, query) == bad(field, message)


# ---------------------------------------------------------------- who sees what
def test_a_key_without_balance_read_is_refused(world: World) -> None:
    refused = (
        403,
        problem(
            403,
            "Forbidden",
            "insufficient_scope",
            "This API key lacks the scope balance:read.",
            missing_scope="balance:read",
        ),
    )
    assert call(world, world.shop.account_id, LIST, scopes="payments:read refunds:write") == refused
    one = f"{LIST}/btx_{entries(world.shop)[0]['sk'][4:]}"
    assert call(world, world.shop.account_id, one, scopes="payments:read", resource=ONE) == refused
    # a key restricted to customers: the balance is the whole account's, as GET /v1/balance
    whole = "This API key is restricted to customers, and this route acts for the whole account."
    for path, resource in ((LIST, LIST), (one, ONE)):
        assert call(world, world.shop.account_id, path, resource=resource, customers="cust_1") == (
            403,
            problem(403, "Forbidden", "customer_not_allowed", whole),
        )


def test_another_accounts_transaction_is_not_found_and_the_other_mode_sees_none(world: World) -> None:
    theirs = f"{LIST}/btx_{entries(world.other)[0]['sk'][4:]}"
    not_found = (404, problem(404, "Not Found", "not_found", "No such balance transaction."))
    assert call(world, world.shop.account_id, theirs, resource=ONE) == not_found
    assert call(world, world.shop.account_id, f"{LIST}/btx_nothing", resource=ONE) == not_found
    assert call(world, world.shop.account_id, f"{LIST}/{ULID()}", resource=ONE) == not_found
    assert call(world, world.shop.account_id, LIST, mode="live") == (
        200,
        {"data": [], "has_more": False, "next_page_token": None},
    )
    mine = f"{LIST}/btx_{entries(world.shop)[0]['sk'][4:]}"
    assert call(world, world.shop.account_id, mine, mode="live", resource=ONE) == (
        401,
        problem(401, "Unauthorized", "wrong_environment", "A live key cannot reach test data; use a test key."),
    )


def test_a_platform_lists_a_connected_accounts_transactions_by_naming_it(world: World) -> None:
    acting = {"account_id": world.other.account_id}
    status, theirs = call(world, world.platform, LIST, acting, scopes="balance:read accounts:write")
    assert (status, theirs) == call(world, world.other.account_id, LIST)
    assert [Decimal(row["net"]) for row in theirs["data"]] == [Decimal(0), Decimal("-30"), Decimal("195"), Decimal(100)]
    one = theirs["data"][0]["id"]
    assert call(world, world.platform, f"{LIST}/{one}", acting, scopes="balance:read accounts:write", resource=ONE) == (
        200,
        theirs["data"][0],
    )
    assert call(world, world.platform, LIST, scopes="balance:read accounts:write")[1]["data"] == []  # its own: none
    assert call(
        world, world.platform, LIST, {"account_id": world.shop.account_id}, scopes="balance:read accounts:write"
    ) == (
        404,
        problem(404, "Not Found", "not_found", "No such account."),
    )


def test_an_interval_is_read_oldest_first_by_created_at(world: World) -> None:
    """The reports' reader: the entries made in [start, end), oldest first, streamed."""
    ledger, shop = deps.ledger(), world.shop
    kept = entries(shop)
    assert (
        list(ledger.entries_between(shop.account_id, "test", "MZN", "2000-01-01T00:00:00Z", "2999-01-01T00:00:00Z"))
        == kept
    )
    assert (
        list(ledger.entries_between(shop.account_id, "test", "MZN", "2000-01-01T00:00:00Z", kept[0]["created_at"]))
        == []
    )
    last = kept[-1]["created_at"]
    since_last = list(ledger.entries_between(shop.account_id, "test", "MZN", last, "2999-01-01T00:00:00+00:00"))
    assert since_last == [e for e in kept if e["created_at"] >= last] and since_last[-1] == kept[-1]
    assert list(ledger.entries_between(world.other.account_id, "live", "MZN", "2000-01-01", "2999-01-01")) == []


def test_a_balance_written_between_the_two_readings_is_read_again_and_one_that_keeps_moving_is_503(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first page reads the balance item before and after the newest entries: an entry landing
    in between (here, as if: the item's count moves) makes it read again, three times at most."""
    shop, ledger = world.shop, type(deps.ledger())
    real, readings = ledger.balances, []

    def moving(store: Any, account_id: str, mode: str, moves: int) -> list[dict[str, Any]]:
        readings.append(account_id)
        count = min(len(readings), moves)  # the count moves for the first `moves` readings, then stays
        return [{**item, "entries": count} for item in real(store, account_id, mode)]

    _, steady = call(world, shop.account_id, LIST)
    monkeypatch.setattr(ledger, "balances", lambda store, account_id, mode: moving(store, account_id, mode, 2))
    assert call(world, shop.account_id, LIST) == (200, steady)
    assert len(readings) == 4  # (1, 2) differ, (2, 2) agree
    readings.clear()
    monkeypatch.setattr(ledger, "balances", lambda store, account_id, mode: moving(store, account_id, mode, 99))
    assert call(world, shop.account_id, LIST) == (
        503,
        problem(503, "Service Unavailable", "service_unavailable", "The balance keeps changing; retry."),
    )
    assert len(readings) == 6


NAMES = st.sampled_from(["page_size", "page_token", "currency", "type", "created_gte", "created_lt", "source", "x"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.dictionaries(NAMES | st.text(min_size=1, max_size=8), st.text(max_size=40), max_size=4))
def test_any_query_is_a_page_or_a_400_naming_a_parameter(world: World, query: dict[str, str]) -> None:
    status, body = call(world, world.shop.account_id, LIST, query)
    if status == 200:
        assert set(body) == {"data", "has_more", "next_page_token"}
    else:
        assert (status, body["code"]) == (400, "invalid_request"), body
        assert body["errors"][0]["field"] in {name[:64] for name in query}, (query, body)
    status, body = call(world, world.shop.account_id, f"{LIST}/{''.join(query)[:40] or 'x'}", resource=ONE)
    assert (status, body["code"]) == (404, "not_found"), body

"""Platform connections in the tenant directory (mzpay.store.directory, mzpay.access) against
in-process moto: the items, the acting read, and concurrent writers racing for one connection."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from devstack.moto_server import atomic_dynamodb
from mzpay.cases import access
from mzpay.domain.common.errors import ServiceError
from mzpay.store.directory import AlreadyConnected, Connection, Directory
from tests.integration.races import race
from tests.integration.support import directory_table
from tests.integration.test_directory import account, all_items, items_with_prefix

TABLE = "mzpay-directory"
PLATFORM = "01JPAYM0000000000000000001"
SHOP = "01JSH0P0000000000000000000"
OTHER = "01J0THER000000000000000000"
SA_SHOP = "01JSASH0P00000000000000000"
CREATED = "2026-03-01T12:00:00Z"


@pytest.fixture
def directory(monkeypatch: pytest.MonkeyPatch) -> Iterator[Directory]:
    with directory_table(monkeypatch, TABLE, SERVICE_REGION="mz", STAGE="test"):
        store = Directory.from_env()
        for account_id in (PLATFORM, SHOP, OTHER):
            store.create_account(account(account_id))
        store.create_account(account(SA_SHOP, home_region="regional-sa"))
        yield store


def refused(call: Callable[..., Any], *args: Any) -> tuple[Any, ...]:
    with pytest.raises(ServiceError) as caught:
        call(*args)
    return (caught.value.status, caught.value.code, caught.value.message, caught.value.extensions)


def connection(platform: str = PLATFORM, connected: str = SHOP, region: str = "mz") -> Connection:
    return Connection(platform, connected, region, CREATED)


def test_a_connection_is_an_item_and_its_mirror(directory: Directory) -> None:
    directory.connect(connection())
    data = {"platform_account_id": PLATFORM, "connected_account_id": SHOP, "region": "mz", "created_at": CREATED}
    links = sorted((i for i in all_items() if i["sk"].startswith(("CONNECTED#", "PLATFORM#"))), key=lambda i: i["sk"])
    assert links == [
        {"pk": f"ACCOUNT#{PLATFORM}", "sk": f"CONNECTED#{SHOP}", **data},
        {"pk": f"ACCOUNT#{SHOP}", "sk": f"PLATFORM#{PLATFORM}", **data},
    ]
    assert directory.connections(PLATFORM) == [connection()]
    assert directory.connections(SHOP) == []  # the mirror is not a connection of the shop's
    assert directory.acting_target(PLATFORM, SHOP) == (True, account(SHOP))
    assert directory.acting_target(SHOP, PLATFORM) == (False, account(PLATFORM))  # one way only
    assert directory.acting_target(PLATFORM, OTHER) == (False, account(OTHER))
    assert directory.acting_target(PLATFORM, "01JN0SXCHACC0XNT0000000000") == (False, None)


def test_a_connection_is_created_once(directory: Directory) -> None:
    directory.connect(connection())
    before = all_items()
    with pytest.raises(AlreadyConnected):
        directory.connect(Connection(PLATFORM, SHOP, "mz", "2026-03-02T00:00:00Z"))
    assert all_items() == before


@pytest.mark.parametrize(
    "candidate",
    [
        connection(connected="01JN0SXCHACC0XNT0000000000"),  # an account that is gone
        connection(connected=SA_SHOP),  # an account of another region
        connection(platform="01JN0SXCHACC0XNT0000000000"),
    ],
)
def test_a_connection_needs_both_accounts_in_its_region_in_the_same_transaction(
    directory: Directory, candidate: Connection
) -> None:
    before = all_items()
    assert refused(directory.connect, candidate) == (
        409,
        "invalid_state",
        "An account changed meanwhile; read it and retry.",
        {},
    )
    assert all_items() == before


def test_disconnect_removes_both_items_once(directory: Directory) -> None:
    before = all_items()
    directory.connect(connection())
    assert directory.disconnect(PLATFORM, SHOP) is True
    assert all_items() == before
    assert directory.disconnect(PLATFORM, SHOP) is False
    assert directory.acting_target(PLATFORM, SHOP) == (False, account(SHOP))


# ---------------------------------------------------------------- the use cases
def test_operators_connect_accounts_of_this_region_only(directory: Directory) -> None:
    made = access.connect_account(PLATFORM, SHOP).wire()
    assert made["platform_account_id"] == PLATFORM and made["connected_account_id"] == SHOP and made["region"] == "mz"
    assert refused(access.connect_account, PLATFORM, SHOP) == (
        409,
        "already_connected",
        "These accounts are already connected; remove the connection first.",
        {},
    )
    assert refused(access.connect_account, PLATFORM, SA_SHOP) == (
        400,
        "invalid_request",
        "Only accounts of one region can be connected: the platform lives in mz, the account in regional-sa.",
        {},
    )
    assert refused(access.connect_account, PLATFORM, PLATFORM)[:2] == (400, "invalid_request")
    assert refused(access.connect_account, PLATFORM, "x" * 5000) == (404, "not_found", "No such account.", {})
    assert access.list_connections(PLATFORM).wire() == {"connected_accounts": [made]}
    assert len(items_with_prefix(f"ACCOUNT#{PLATFORM}")) == 2  # the account and one connection


def test_acting_reaches_only_a_connected_active_account_of_this_region(directory: Directory) -> None:
    access.connect_account(PLATFORM, SHOP)
    access.ensure_may_act_for(PLATFORM, SHOP)
    for named in (OTHER, SA_SHOP, "01JN0SXCHACC0XNT0000000000", "not-an-id", "x" * 5000):
        assert refused(access.ensure_may_act_for, PLATFORM, named) == (404, "not_found", "No such account.", {})
    assert refused(access.ensure_may_act_for, SHOP, PLATFORM)[:2] == (404, "not_found")
    shop = directory.get_account(SHOP)
    assert shop is not None
    directory.change_account_status(shop, "suspended", "KYC review", datetime(2026, 3, 1, tzinfo=UTC))
    assert refused(access.ensure_may_act_for, PLATFORM, SHOP) == (
        403,
        "account_suspended",
        "This account is suspended: KYC review",
        {},
    )
    assert access.disconnect_account(PLATFORM, SHOP).wire() == {
        "platform_account_id": PLATFORM,
        "connected_account_id": SHOP,
        "connected": False,
    }
    assert refused(access.ensure_may_act_for, PLATFORM, SHOP)[:2] == (404, "not_found")
    assert refused(access.disconnect_account, PLATFORM, SHOP) == (404, "not_found", "No such connection.", {})


# ---------------------------------------------------------------- races
def test_concurrent_connections_of_one_pair_create_it_exactly_once(directory: Directory) -> None:
    with atomic_dynamodb():
        outcomes = race(10, lambda i: directory.connect(Connection(PLATFORM, SHOP, "mz", f"2026-03-01T12:00:{i:02d}Z")))
    winners = [i for i, (kind, _) in enumerate(outcomes) if kind == "ok"]
    assert len(winners) == 1, outcomes
    assert [type(value) for kind, value in outcomes if kind == "error"] == [AlreadyConnected] * 9
    stamp = f"2026-03-01T12:00:{winners[0]:02d}Z"
    assert directory.connections(PLATFORM) == [Connection(PLATFORM, SHOP, "mz", stamp)]
    mirror = [i for i in items_with_prefix(f"ACCOUNT#{SHOP}") if i["sk"] == f"PLATFORM#{PLATFORM}"]
    assert [i["created_at"] for i in mirror] == [stamp]  # the mirror is the winner's, never a loser's


def test_concurrent_removals_remove_once(directory: Directory) -> None:
    directory.connect(connection())
    with atomic_dynamodb():
        outcomes = race(10, lambda i: directory.disconnect(PLATFORM, SHOP))
    assert sorted(value for _, value in outcomes) == [False] * 9 + [True]
    assert [i for i in all_items() if i["sk"].startswith(("CONNECTED#", "PLATFORM#"))] == []


def test_a_removal_racing_acting_requests_is_seen_whole(directory: Directory) -> None:
    """While an operator removes the connection, each acting check sees it present or absent,
    never half; after the removal every check is 404."""
    directory.connect(connection())

    def work(i: int) -> Any:
        if i == 0:
            return access.disconnect_account(PLATFORM, SHOP).wire()
        try:
            access.ensure_may_act_for(PLATFORM, SHOP)
            return "admitted"
        except ServiceError as error:
            return (error.status, error.code)

    with atomic_dynamodb():
        outcomes = race(12, work)
    assert outcomes[0] == ("ok", {"platform_account_id": PLATFORM, "connected_account_id": SHOP, "connected": False})
    assert {value for _, value in outcomes[1:]} <= {"admitted", (404, "not_found")}
    assert refused(access.ensure_may_act_for, PLATFORM, SHOP)[:2] == (404, "not_found")


def test_a_connection_racing_a_suspension_of_its_account_is_still_refused_while_suspended(
    directory: Directory,
) -> None:
    shop = directory.get_account(SHOP)
    assert shop is not None

    def work(i: int) -> Any:
        if i == 0:
            return directory.change_account_status(shop, "suspended", "fraud", datetime(2026, 3, 1, tzinfo=UTC))
        return directory.connect(connection())

    with atomic_dynamodb():
        outcomes = race(2, work)
    assert [kind for kind, _ in outcomes] == ["ok", "ok"]  # the suspension does not move the region
    assert refused(access.ensure_may_act_for, PLATFORM, SHOP) == (
        403,
        "account_suspended",
        "This account is suspended: fraud",
        {},
    )

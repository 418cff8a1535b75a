"""The name-lookup use cases in-process, against an in-memory store (deps.substitute): the
answers, tenancy (selecting another account's lookup is 404, the other mode's 401) and the one
selection that wins a race. The same store in DynamoDB is exercised end to end in tests/e2e/test_payouts.py."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from mzpay import deps
from mzpay.cases import name_lookups
from mzpay.domain.access.principal import Principal
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payouts.name_lookups import AMBIGUOUS_NAMES, DEFAULT_NAME, NameLookup, NameLookupRequest
from mzpay.store.name_lookups import SelectionLost

ACCOUNT = "01JD0000000000000000000ACC"
OTHER = "01JD0000000000000000000OTH"


class InMemoryNameLookups:
    """NameLookups with the same contract: create once, a transition conditioned on the status
    and version it read (SelectionLost otherwise), atomically."""

    def __init__(self) -> None:
        self.items: dict[str, NameLookup] = {}
        self.lock = threading.Lock()
        self.before_write: threading.Barrier | None = None

    def create(self, lookup: NameLookup) -> None:
        with self.lock:
            assert lookup.lookup_id not in self.items
            self.items[lookup.lookup_id] = lookup

    def get(self, lookup_id: str) -> NameLookup | None:
        with self.lock:
            return self.items.get(lookup_id)

    def transition(self, lookup: NameLookup, changes: dict[str, Any]) -> NameLookup:
        if self.before_write is not None:  # both racers have read before either writes
            self.before_write.wait(timeout=5)
        with self.lock:
            stored = self.items[lookup.lookup_id]
            if (stored.status, stored.version) != (lookup.status, lookup.version):
                raise SelectionLost()
            after = stored.changed(changes)
            self.items[lookup.lookup_id] = after
            return after


@pytest.fixture
def store() -> Iterator[InMemoryNameLookups]:
    fake = InMemoryNameLookups()
    with deps.substitute(name_lookups=fake):
        yield fake


def merchant(account_id: str = ACCOUNT, mode: str = "test") -> Principal:
    return Principal(account_id, mode, frozenset({"payouts:write"}), "key", frozenset(), None, account_id)


NIB = "000301080016367102371"  # valid MOD 97-10


def wallet(phone: str) -> NameLookupRequest:
    return NameLookupRequest.model_validate(
        {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": phone}}
    )


def refused(call: Any) -> tuple[int, str]:
    with pytest.raises(ServiceError) as caught:
        call()
    return caught.value.status, caught.value.code


def test_a_resolved_lookup_names_the_holder_and_is_kept(store: InMemoryNameLookups) -> None:
    answer = name_lookups.create_lookup(merchant(), wallet("+258841230001")).wire()
    assert {k: answer[k] for k in ("type", "status", "name", "candidates")} == {
        "type": "mobile_wallet",
        "status": "resolved",
        "name": DEFAULT_NAME,
        "candidates": [{"candidate_id": "cand_1", "name": DEFAULT_NAME}],
    }
    kept = store.items[answer["lookup_id"]]
    assert (kept.account_id, kept.mode, kept.version) == (ACCOUNT, "test", 1)
    assert kept.view() == answer


def test_an_ambiguous_lookup_is_selected_and_locked_once_a_deposit_started(store: InMemoryNameLookups) -> None:
    answer = name_lookups.create_lookup(merchant(), wallet("+258841230002")).wire()
    assert (answer["status"], [c["name"] for c in answer["candidates"]]) == ("ambiguous", list(AMBIGUOUS_NAMES))
    selected = name_lookups.select(merchant(), answer["lookup_id"], "cand_2").wire()
    assert (selected["status"], selected["name"]) == ("selected", AMBIGUOUS_NAMES[1])
    assert store.items[answer["lookup_id"]].version == 2
    assert name_lookups.select(merchant(), answer["lookup_id"], "cand_2").wire() == selected  # the same pick: no write
    assert store.items[answer["lookup_id"]].version == 2
    again = name_lookups.select(merchant(), answer["lookup_id"], "cand_1").wire()  # the agent corrects its pick
    assert (again["status"], again["name"], store.items[answer["lookup_id"]].version) == (
        "selected",
        AMBIGUOUS_NAMES[0],
        3,
    )
    lookup_id = answer["lookup_id"]
    store.items[lookup_id] = store.items[lookup_id].changed(
        {"deposit": {"intent_id": "i", "amount": "5.00", "currency": "MZN"}}
    )
    assert refused(lambda: name_lookups.select(merchant(), lookup_id, "cand_3").wire()) == (409, "option_locked")
    assert name_lookups.select(merchant(), lookup_id, "cand_1").wire()["name"] == AMBIGUOUS_NAMES[0]
    assert store.items[lookup_id].name == AMBIGUOUS_NAMES[0]


def test_an_unknown_candidate_is_a_400_and_changes_nothing(store: InMemoryNameLookups) -> None:
    answer = name_lookups.create_lookup(merchant(), wallet("+258841230002")).wire()
    assert refused(lambda: name_lookups.select(merchant(), answer["lookup_id"], "cand_9").wire()) == (
        400,
        "invalid_request",
    )
    assert store.items[answer["lookup_id"]].status == "ambiguous"


def test_another_accounts_lookup_is_404_and_the_other_modes_401(store: InMemoryNameLookups) -> None:
    lookup_id = name_lookups.create_lookup(merchant(), wallet("+258841230002")).wire()["lookup_id"]
    assert refused(lambda: name_lookups.select(merchant(OTHER), lookup_id, "cand_1").wire()) == (404, "not_found")
    assert refused(lambda: name_lookups.select(merchant(mode="live"), lookup_id, "cand_1").wire()) == (
        401,
        "wrong_environment",
    )
    assert refused(lambda: name_lookups.select(merchant(), "not-a-ulid", "cand_1").wire()) == (404, "not_found")
    assert store.items[lookup_id].status == "ambiguous"


class NothingBound:
    """The account's live connector bindings: none."""

    def credentials(self, account_id: str, mode: str, method: str) -> None:
        return None


def test_a_live_lookup_needs_a_bound_provider_and_a_refused_one_keeps_nothing(store: InMemoryNameLookups) -> None:
    """(A live lookup through a bound M-Pesa connector: tests/e2e/test_live_mpesa.py.)"""
    with deps.substitute(bindings=NothingBound()):
        assert refused(lambda: name_lookups.create_lookup(merchant(mode="live"), wallet("+258841230001")).wire()) == (
            409,
            "no_connector_binding",
        )
        bank = NameLookupRequest.model_validate({"type": "bank_transfer", "bank_transfer": {"account": NIB}})
        assert refused(lambda: name_lookups.create_lookup(merchant(mode="live"), bank).wire()) == (422, "not_supported")
    assert refused(lambda: name_lookups.create_lookup(merchant(), wallet("+258841230009")).wire()) == (
        502,
        "upstream_error",
    )
    assert store.items == {}


def test_of_two_racing_selections_exactly_one_wins(store: InMemoryNameLookups) -> None:
    answer = name_lookups.create_lookup(merchant(), wallet("+258841230002")).wire()
    store.before_write = threading.Barrier(2)

    def choose(candidate: str) -> tuple[str, Any]:
        try:
            return "ok", name_lookups.select(merchant(), answer["lookup_id"], candidate).wire()
        except ServiceError as lost:
            return lost.code, None

    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(choose, ["cand_1", "cand_3"]))
    assert sorted(kind for kind, _ in outcomes) == ["invalid_state", "ok"]
    winner = next(value for kind, value in outcomes if kind == "ok")
    kept = store.items[answer["lookup_id"]]
    assert (kept.status, kept.name, kept.version) == ("selected", winner["name"], 2)


def test_substitute_refuses_a_name_deps_does_not_build() -> None:
    with pytest.raises(KeyError), deps.substitute(no_such_store=object()):
        pass

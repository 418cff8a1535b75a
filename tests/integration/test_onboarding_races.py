"""Business onboarding against the stack of template.yaml in moto: every state change of a
business account is one conditional write, so of racing changes exactly one lands (two finishes,
approve against reject, suspend against approve, reactivate against reactivate), the loser is
answered as if it came after, and each landed decision leaves exactly one audit record."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.answers.collection_accounts import BusinessAccount
from mzpay.collection import onboarding
from mzpay.domain.collection.access import Identity
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import new_prefixed_id
from mzpay.steps import business
from tests.integration.races import race
from tests.integration.support import function_stack
from tests.unit.test_business_rules import details

REVIEWER = Identity("reviewer-1", "https://issuer.example", None, frozenset({"account:review"}), "configured")


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with function_stack("CollectionOnboardingFunction", monkeypatch) as provisioned:
        yield provisioned


def submitted() -> str:
    """A business that initialized, gave its details and finished (pending_review)."""
    account_id = new_prefixed_id("acct")
    onboarding.initialize(account_id)
    onboarding.put_details(account_id, {"object": "account", **details()})
    assert onboarding.finish(account_id).status == "pending_review"
    return account_id


def outcomes_of(results: list[tuple[str, Any]]) -> list[str]:
    return sorted(value.status if kind == "ok" else f"{value.status} {value.code}" for kind, value in results)


def decide(account_id: str, action: str) -> BusinessAccount:
    reason = "Documents unreadable." if action in ("reject", "suspend") else None
    return onboarding.decide(REVIEWER, "203.0.113.9", account_id, action, reason)


def test_initialize_twice_changes_nothing_and_details_wait_for_it(stack: ProvisionedStack) -> None:
    account_id = new_prefixed_id("acct")
    with pytest.raises(ServiceError) as early:
        onboarding.put_details(account_id, {"object": "account", **details()})
    assert (early.value.status, early.value.code) == (404, "not_found")
    onboarding.initialize(account_id)
    onboarding.initialize(account_id)
    account = deps.business_accounts().get(account_id)
    assert account is not None and (account.status, account.version) == ("pending", 1)


def test_two_racing_finishes_one_lands(stack: ProvisionedStack) -> None:
    account_id = new_prefixed_id("acct")
    onboarding.initialize(account_id)
    onboarding.put_details(account_id, {"object": "account", **details()})
    with atomic_dynamodb():
        results = race(2, lambda _: onboarding.finish(account_id))
    assert outcomes_of(results) == ["400 invalid_request", "pending_review"]
    account = deps.business_accounts().get(account_id)
    assert account is not None and (account.status, account.version) == ("pending_review", 3)


@pytest.mark.parametrize(
    ("actions", "setup"),
    [
        (("approve", "reject"), []),
        (("suspend", "approve"), ["approve"]),
        (("reactivate", "reactivate"), ["approve", "suspend"]),
    ],
)
def test_racing_decisions_one_lands_with_one_audit_record(
    stack: ProvisionedStack, actions: tuple[str, str], setup: list[str]
) -> None:
    account_id = submitted()
    for action in setup:
        decide(account_id, action)
    before = deps.business_accounts().get(account_id)
    assert before is not None
    with atomic_dynamodb():
        results = race(2, lambda index: decide(account_id, actions[index]))
    landed = [value for kind, value in results if kind == "ok"]
    lost = [value for kind, value in results if kind == "error"]
    assert len(landed) == 1 and len(lost) == 1, results
    assert (lost[0].status, lost[0].code) == (400, "invalid_request")
    after = deps.business_accounts().get(account_id)
    assert after is not None and after.version == before.version + 1 and after.status == landed[0].status
    records, _ = deps.business_accounts().reviews(account_id, 50, None)
    assert len(records) == len(setup) + 1
    newest = records[0]
    assert (newest["from_status"], newest["to_status"], newest["source_ip"]) == (
        before.status,
        after.status,
        "203.0.113.9",
    )
    assert newest["reviewer"] == {
        "kind": "administrator",
        "subject": "reviewer-1",
        "issuer": "https://issuer.example",
        "account_id": None,
    }


def test_details_racing_finish_never_change_a_submitted_account(stack: ProvisionedStack) -> None:
    account_id = new_prefixed_id("acct")
    onboarding.initialize(account_id)
    onboarding.put_details(account_id, {"object": "account", **details()})
    changed = details(business_details__legal_name="Another Name Lda")

    def work(index: int) -> Any:
        if index == 0:
            return onboarding.finish(account_id)
        return onboarding.put_details(account_id, {"object": "account", **changed})

    with atomic_dynamodb():
        results = race(2, work)
    account = deps.business_accounts().get(account_id)
    assert account is not None and account.status == "pending_review"
    finished = results[0]
    assert finished[0] == "ok"
    if results[1][0] == "ok":  # the details landed first: finish submitted them
        assert account.details["business_details"]["legal_name"] == "Another Name Lda"
    else:  # finish landed first: the details were refused and nothing changed
        assert (results[1][1].status, results[1][1].code) == (400, "invalid_request")
        assert account.details["business_details"]["legal_name"] == "Loja Machava Lda"


def test_a_reviewer_never_decides_on_its_own_account(stack: ProvisionedStack) -> None:
    account_id = submitted()
    own = Identity("reviewer-2", "https://issuer.example", account_id, frozenset({"account:review"}), "configured")
    with pytest.raises(ServiceError) as refused:
        onboarding.decide(own, "203.0.113.9", account_id, "approve")
    assert (refused.value.status, refused.value.code) == (403, "forbidden")
    account = deps.business_accounts().get(account_id)
    assert account is not None and account.status == "pending_review"
    assert deps.business_accounts().reviews(account_id, 50, None)[0] == []


def test_only_an_active_account_passes_the_gate(stack: ProvisionedStack) -> None:
    account_id = submitted()
    for action, allowed in (("approve", True), ("suspend", False), ("reactivate", True)):
        decide(account_id, action)
        if allowed:
            assert business.require_active(account_id).status == "active"
        else:
            with pytest.raises(ServiceError) as refused:
                business.require_active(account_id)
            assert (refused.value.status, refused.value.code, refused.value.extensions["account_status"]) == (
                403,
                "forbidden",
                "suspended",
            )
    with pytest.raises(ServiceError) as unknown:
        business.require_active(new_prefixed_id("acct"))
    assert unknown.value.extensions["account_status"] == "not_onboarded"

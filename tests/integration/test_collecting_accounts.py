"""Approving a business opens the gateway account it collects through (docs/onboarding.md, "From
approval to collecting"), against the stack of template.yaml in moto: the account has the
business's id, its legal name and this region, with a first webhook signing secret per mode, and
the business can add collection methods at once. Approving twice, two racing approvals and a retry
after a fault mid-way each leave one account with one secret per mode."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ReadTimeoutError

from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.domain.common.errors import ServiceError
from mzpay.store.business_accounts import BusinessAccounts
from mzpay.store.directory import Account
from tests.integration.races import race
from tests.integration.test_onboarding_races import decide, outcomes_of, stack, submitted
from tests.unit.test_business_rules import details

__all__ = ["stack"]  # the fixture: CollectionOnboardingFunction's stack

LONG_AGO = "2026-01-01T00:00:00Z"
LEGAL_NAME = details()["business_details"]["legal_name"]


def account_items(account_id: str) -> list[str]:
    """The kinds of the directory's items of the account: the account, its name's index entry."""
    items = deps.directory().table.scan()["Items"]
    return sorted(item["pk"].split("#", 1)[0] for item in items if item.get("account_id") == account_id)


def secrets_of(account_id: str) -> dict[str, list[str]]:
    return {mode: [v.secret_id for v in deps.webhook_secrets().read(account_id, mode)[0]] for mode in ("test", "live")}


def assert_one_account(account_id: str) -> Account:
    account = deps.directory().get_account(account_id)
    assert account is not None
    assert (account.name, account.home_region, account.status) == (LEGAL_NAME, "mz", "active")
    assert account_items(account_id) == ["ACCOUNT", "ACCOUNT_NAMES"]
    assert [len(ids) for ids in secrets_of(account_id).values()] == [1, 1]
    return account


def test_approval_opens_the_gateway_account(stack: ProvisionedStack) -> None:
    """(The business then adds collection methods: tests/e2e/test_onboarding_to_paid.py.)"""
    account_id = submitted()
    assert deps.directory().get_account(account_id) is None
    assert decide(account_id, "approve").status == "active"
    assert_one_account(account_id)


def test_approving_again_changes_nothing(stack: ProvisionedStack) -> None:
    account_id = submitted()
    decide(account_id, "approve")
    before = (assert_one_account(account_id), secrets_of(account_id))
    with pytest.raises(ServiceError) as again:
        decide(account_id, "approve")
    assert (again.value.status, again.value.code) == (400, "invalid_request")
    assert (assert_one_account(account_id), secrets_of(account_id)) == before


def test_two_racing_approvals_open_one_account(stack: ProvisionedStack) -> None:
    account_id = submitted()
    with atomic_dynamodb():
        results = race(2, lambda _: decide(account_id, "approve"))
    assert outcomes_of(results) == ["400 invalid_request", "active"]
    assert_one_account(account_id)
    assert len(deps.business_accounts().reviews(account_id, 10, None)[0]) == 1


def test_a_retry_after_a_fault_mid_way_finishes_with_the_same_account(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The account and its secrets are written, then the decision's write times out: the
    business is still pending_review, and the retry approves it through the same account."""
    account_id = submitted()

    def times_out(*args: Any, **kwargs: Any) -> Any:
        raise ReadTimeoutError(endpoint_url="http://dynamodb")

    with monkeypatch.context() as patched:
        patched.setattr(BusinessAccounts, "transition", times_out)
        with pytest.raises(ReadTimeoutError):
            decide(account_id, "approve")
    opened = assert_one_account(account_id)
    secrets = secrets_of(account_id)
    business = deps.business_accounts().get(account_id)
    assert business is not None and business.status == "pending_review"
    assert decide(account_id, "approve").status == "active"
    assert assert_one_account(account_id) == opened
    assert secrets_of(account_id) == secrets


def test_a_gateway_account_made_first_with_the_business_id_is_kept(stack: ProvisionedStack) -> None:
    """The local demo's way: an operator's account whose id the business's token names."""
    account_id = submitted()
    made = Account(account_id, "Loja Antiga", "mz", "active", "", LONG_AGO, LONG_AGO)
    deps.directory().create_account(made)
    assert decide(account_id, "approve").status == "active"
    assert deps.directory().get_account(account_id) == made
    assert [len(ids) for ids in secrets_of(account_id).values()] == [1, 1]


def test_a_business_whose_account_lives_in_another_region_is_not_approved_here(stack: ProvisionedStack) -> None:
    account_id = submitted()
    elsewhere = Account(account_id, "Loja Sul", "regional-sa", "active", "", LONG_AGO, LONG_AGO)
    deps.directory().create_account(elsewhere)
    with pytest.raises(ServiceError) as refused:
        decide(account_id, "approve")
    assert (refused.value.status, refused.value.code) == (421, "wrong_region")
    assert refused.value.headers["Service-Region"] == "regional-sa"
    business = deps.business_accounts().get(account_id)
    assert business is not None and business.status == "pending_review"
    assert secrets_of(account_id) == {"test": [], "live": []}

"""Operators link an existing gateway account to a business (docs/onboarding.md, "Linking an
existing gateway account"), against the stack of template.yaml in moto: the business then
collects through it and its approval opens no account of its own; another region's account, an
account another business collects through, and a business that collects already are refused,
each leaving everything as it was; of two racing links of one account exactly one lands."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ulid import ULID

from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import access
from mzpay.collection import onboarding
from mzpay.domain.common.errors import ServiceError
from mzpay.operators import business_links
from mzpay.steps.business import business_of, gateway_account_of
from mzpay.store.directory import Account
from tests.integration.races import race
from tests.integration.support import function_stack
from tests.integration.test_onboarding_races import decide, outcomes_of, submitted
from tests.unit.test_business_rules import details

LONG_AGO = "2026-01-01T00:00:00Z"


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with function_stack("ManagementAccountsFunction", monkeypatch) as provisioned:
        yield provisioned


def gateway_account(name: str = "Loja Existente") -> str:
    return access.create_account(name, "mz").id


def refused(status: int, code: str, message: str, call: object) -> None:
    with pytest.raises(ServiceError) as error:
        call()  # type: ignore[operator]
    assert (error.value.status, error.value.code, error.value.message) == (status, code, message)


def test_a_linked_business_collects_through_the_account_and_approval_opens_none(stack: ProvisionedStack) -> None:
    business, gateway = submitted(), gateway_account()
    assert business_links.read(business).model_dump() == {
        "object": "business_gateway_account",
        "business_account_id": business,
        "gateway_account_id": None,
        "how": None,
        "region": "mz",
    }
    linked = business_links.link(business, gateway).model_dump()
    assert linked == {
        "object": "business_gateway_account",
        "business_account_id": business,
        "gateway_account_id": gateway,
        "how": "linked",
        "region": "mz",
    }
    assert decide(business, "approve").status == "active"
    assert deps.directory().get_account(business) is None  # no account of its own id
    assert business_links.read(business).model_dump() == linked
    assert (gateway_account_of(business), business_of(gateway)) == (gateway, business)


def test_the_same_link_again_changes_nothing(stack: ProvisionedStack) -> None:
    business, gateway = submitted(), gateway_account()
    first = business_links.link(business, gateway)
    before = deps.business_accounts().get(business)
    assert business_links.link(business, gateway) == first
    assert deps.business_accounts().get(business) == before


def test_an_approved_business_reads_the_account_its_approval_opened(stack: ProvisionedStack) -> None:
    business = submitted()
    decide(business, "approve")
    answer = business_links.read(business).model_dump()
    assert (answer["gateway_account_id"], answer["how"]) == (business, "opened")


def test_another_regions_account_is_refused(stack: ProvisionedStack) -> None:
    business = submitted()
    theirs = str(ULID())
    deps.directory().create_account(Account(theirs, "Loja Sul", "regional-sa", "active", "", LONG_AGO, LONG_AGO))
    before = deps.business_accounts().get(business)
    with pytest.raises(ServiceError) as error:
        business_links.link(business, theirs)
    assert (error.value.status, error.value.code) == (421, "wrong_region")
    assert error.value.headers["Service-Region"] == "regional-sa"
    assert deps.business_accounts().get(business) == before
    assert deps.business_accounts().linked_business(theirs) is None


def test_an_account_another_business_collects_through_is_refused(stack: ProvisionedStack) -> None:
    first, second, gateway = submitted(), submitted(), gateway_account()
    business_links.link(first, gateway)
    before = deps.business_accounts().get(second)
    message = "Another business collects through this gateway account."
    refused(409, "already_connected", message, lambda: business_links.link(second, gateway))
    assert deps.business_accounts().get(second) == before
    assert deps.business_accounts().linked_business(gateway) == first


def test_the_account_another_business_s_approval_opened_is_refused(stack: ProvisionedStack) -> None:
    approved, other = submitted(), submitted()
    decide(approved, "approve")
    message = "Another business collects through this gateway account."
    refused(409, "already_connected", message, lambda: business_links.link(other, approved))


def test_a_business_that_collects_already_keeps_its_account(stack: ProvisionedStack) -> None:
    business, gateway = submitted(), gateway_account()
    decide(business, "approve")
    message = f"The business already collects through account {business}."
    refused(409, "invalid_state", message, lambda: business_links.link(business, gateway))
    assert gateway_account_of(business) == business
    assert deps.business_accounts().linked_business(gateway) is None


def test_unknown_business_or_account_is_not_found(stack: ProvisionedStack) -> None:
    business, gateway = submitted(), gateway_account()
    refused(404, "not_found", "No such business account.", lambda: business_links.link("acct_nobody", gateway))
    refused(404, "not_found", "No such business account.", lambda: business_links.read("acct_nobody"))
    refused(404, "not_found", "No such account.", lambda: business_links.link(business, str(ULID())))


def test_approving_a_business_whose_id_another_business_collects_through_is_refused(stack: ProvisionedStack) -> None:
    """An operator linked the gateway account of id X to business C before business X onboarded."""
    owner, later = submitted(), str(ULID())
    deps.directory().create_account(Account(later, "Loja Partilhada", "mz", "active", "", LONG_AGO, LONG_AGO))
    business_links.link(owner, later)
    onboarding.initialize(later)
    onboarding.put_details(later, {"object": "account", **details()})
    onboarding.finish(later)
    message = "The gateway account with this business's id collects for another business; link another one to it."
    refused(409, "invalid_state", message, lambda: decide(later, "approve"))
    account = deps.business_accounts().get(later)
    assert account is not None and (account.status, account.gateway_account_id) == ("pending_review", None)


def test_two_businesses_racing_for_one_account_one_links_it(stack: ProvisionedStack) -> None:
    businesses, gateway = [submitted(), submitted()], gateway_account()
    with atomic_dynamodb():
        results = race(2, lambda index: business_links.link(businesses[index], gateway))
    assert outcomes_of([(kind, value) for kind, value in results if kind == "error"]) == ["409 already_connected"]
    (winner,) = [value.business_account_id for kind, value in results if kind == "ok"]
    assert deps.business_accounts().linked_business(gateway) == winner
    loser = next(b for b in businesses if b != winner)
    account = deps.business_accounts().get(loser)
    assert account is not None and account.gateway_account_id is None


def test_two_racing_links_of_one_business_one_lands(stack: ProvisionedStack) -> None:
    business, gateways = submitted(), [gateway_account("Loja A"), gateway_account("Loja B")]
    with atomic_dynamodb():
        results = race(2, lambda index: business_links.link(business, gateways[index]))
    (won,) = [value.gateway_account_id for kind, value in results if kind == "ok"]
    (lost,) = [value for kind, value in results if kind == "error"]
    assert (lost.status, lost.code, lost.message) == (
        409,
        "invalid_state",
        f"The business already collects through account {won}.",
    )
    assert [deps.business_accounts().linked_business(g) for g in gateways].count(business) == 1

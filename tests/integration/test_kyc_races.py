"""KYC against the stack of template.yaml in moto: a verification changes by one conditional
write, so of two racing reviews exactly one lands (the other is refused as if it came after),
and concurrent log messages each get their own version, none lost."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ulid import ULID

from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.collection import kyc
from mzpay.domain.collection.kyc import NOTHING_MORE
from tests.integration.races import race
from tests.integration.support import function_stack


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with function_stack("CollectionKycFunction", monkeypatch) as provisioned:
        yield provisioned


def test_two_racing_reviews_one_lands(stack: ProvisionedStack) -> None:
    account = str(ULID())
    customer = kyc.register(account, "Ana Machava", "passport")
    customer_id, kyc_id = customer.id, customer.kyc.kyc_id

    def review(index: int) -> object:
        if index == 0:
            return kyc.review(account, customer_id, kyc_id, "verified", "rev-1", None, NOTHING_MORE)
        return kyc.review(account, customer_id, kyc_id, "rejected", "rev-2", "Blurred photo.", NOTHING_MORE)

    with atomic_dynamodb():
        outcomes = race(2, review)
    landed = [value for kind, value in outcomes if kind == "ok"]
    lost = [value for kind, value in outcomes if kind == "error"]
    assert len(landed) == 1 and len(lost) == 1, outcomes
    assert (lost[0].status, lost[0].code) == (400, "invalid_request")  # type: ignore[attr-defined]
    stored = deps.kyc().verification(kyc_id)
    assert stored is not None and stored.status == landed[0].kyc.status  # type: ignore[attr-defined]
    assert [m["version"] for m in stored.messages] == [1, 2] and stored.version == 2


def test_concurrent_comments_all_land_with_their_own_versions(stack: ProvisionedStack) -> None:
    account = str(ULID())
    kyc_id = kyc.register(account, "Rita Sitoe", "bi").kyc.kyc_id
    with atomic_dynamodb():
        outcomes = race(3, lambda index: kyc.comment(account, kyc_id, f"note {index}", None))
    assert all(kind == "ok" for kind, _ in outcomes), outcomes
    stored = deps.kyc().verification(kyc_id)
    assert stored is not None
    assert [m["version"] for m in stored.messages] == [1, 2, 3, 4]
    assert sorted(m["message"] for m in stored.messages[1:]) == ["note 0", "note 1", "note 2"]

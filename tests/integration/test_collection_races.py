"""Every conditional write of the collection surface under concurrency (in-process moto):
licence activation and deactivation, a device's first trust, an issuer claimed by two
providers, and concurrent updates of one provider (none lost, each audited)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from devstack.licence import generate_issuer_key, issue_licence, one_line
from devstack.moto_server import atomic_dynamodb
from devstack.provision import ProvisionedStack
from mzpay import config
from mzpay.collection import devices, identity_providers, licence
from mzpay.connectors import oidc as signin
from mzpay.domain.collection.access import Identity
from mzpay.domain.common.errors import ServiceError
from tests.integration.races import race
from tests.integration.support import provisioned_stack, reset_mzpay_caches

PRIVATE, PUBLIC = generate_issuer_key()
ADMIN = Identity("admin", "https://idp", None, frozenset(), "configured")  # the installation's administrator


def reset_collection_caches() -> None:
    reset_mzpay_caches()
    signin.KEY_SETS.clear()


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with provisioned_stack({"OperatorTokenSecret": "t"}) as provisioned:
        environment = provisioned.functions["CollectionIdentityFunction"].environment
        for name in ("COLLECTION_TABLE", "DATA_KEY_ID"):
            monkeypatch.setenv(name, environment[name])
        monkeypatch.setenv("LICENCE_ISSUER_PUBLIC_KEY", one_line(PUBLIC))
        monkeypatch.delenv("OIDC_ISSUER", raising=False)
        reset_collection_caches()
        yield provisioned
        reset_collection_caches()


def outcome_codes(outcomes: list[tuple[str, object]]) -> list[object]:
    return sorted(
        (200 if kind == "ok" else value.status) if isinstance(value, ServiceError) or kind == "ok" else repr(value)
        for kind, value in outcomes
    )


def test_of_concurrent_activations_exactly_one_wins(stack: ProvisionedStack) -> None:
    keys = [issue_licence(PRIVATE, issued_to=f"racer {i}") for i in range(10)]
    with atomic_dynamodb():
        outcomes = race(10, lambda i: licence.activate(keys[i], "admin", "10.0.0.1"))
    assert outcome_codes(outcomes) == [200] + [409] * 9
    winner = next(result for kind, result in outcomes if kind == "ok")
    assert licence.current().license == winner.license  # type: ignore[attr-defined]


def test_an_activation_replaces_an_expired_licence_but_not_an_active_one(stack: ProvisionedStack) -> None:
    old = issue_licence(PRIVATE, issued_to="old", issued_at=1_700_000_000, lifetime_seconds=60)
    licence.activate(old, "admin", "10.0.0.1", now=datetime.fromtimestamp(1_700_000_010, UTC))
    assert licence.current(now=datetime.fromtimestamp(1_700_000_100, UTC)).wire()["license"]["status"] == "expired"
    new = issue_licence(PRIVATE, issued_to="new")
    assert licence.activate(new, "admin", "10.0.0.1").wire()["license"]["issued_to"] == "new"
    with pytest.raises(ServiceError) as again:
        licence.activate(issue_licence(PRIVATE, issued_to="third"), "admin", "10.0.0.1")
    assert (again.value.status, again.value.code) == (409, "already_exists")


def test_a_licence_verified_by_a_rotated_out_key_is_invalid_and_replaceable(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    licence.activate(issue_licence(PRIVATE, issued_to="before rotation"), "admin", "10.0.0.1")
    private, public = generate_issuer_key()
    monkeypatch.setenv("LICENCE_ISSUER_PUBLIC_KEY", public)
    config.reload()  # a new key is a new execution environment's setting
    assert licence.current().wire()["license"]["status"] == "invalid"
    with pytest.raises(ServiceError) as gate:
        licence.require_active()
    assert (gate.value.status, gate.value.code) == (401, "license_invalid")
    licence.activate(issue_licence(private, issued_to="after rotation"), "admin", "10.0.0.1")
    assert licence.require_active().issued_to == "after rotation"


def test_of_concurrent_deactivations_one_wins(stack: ProvisionedStack) -> None:
    licence.activate(issue_licence(PRIVATE, issued_to="x"), "admin", "10.0.0.1")
    with atomic_dynamodb():
        outcomes = race(6, lambda i: licence.deactivate())
    assert outcome_codes(outcomes) == [200] + [404] * 5


def test_a_devices_first_trust_wins(stack: ProvisionedStack) -> None:
    def trust(index: int) -> object:
        device = {"device_id": "e" * 64, "user_id": f"usr_{index % 2}", "device_name": "p", "ip_address": "1.1.1.1"}
        return devices.trust("acc_1", device | {"created_at": "2026-01-01T00:00:00Z"})

    with atomic_dynamodb():
        outcomes = race(8, trust)
    winners = [result for kind, result in outcomes if kind == "ok"]
    assert len(winners) == 4 and outcome_codes(outcomes) == [200] * 4 + [409] * 4  # the winner's user, 4 times
    assert devices.exists("acc_1", "E" * 64).wire() == {"object": "device", "device_exists": True}


def saml(name: str, issuer: str) -> dict[str, str]:
    body = {
        "name": name,
        "type": "saml",
        "client_id": "c",
        "client_secret": "s" * 20,
        "encryption_key": "k" * 20,
        "provider_url": "https://p.example",
        "scopes": "openid",
        "redirect_uris": "https://p.example/cb",
        "well_known_url": "https://p.example/meta",
    }
    for field in ("auth_url", "token_url", "user_info_url", "end_session_endpoint", "jwks_uri"):
        body[field] = f"https://p.example/{field}"
    for field in ("registration_endpoint", "introspection_endpoint", "revocation_endpoint"):
        body[field] = f"https://p.example/{field}"
    return body | {"issuer_url": issuer}


def test_an_issuer_claimed_by_concurrent_creations_goes_to_one(stack: ProvisionedStack) -> None:
    with atomic_dynamodb():
        outcomes = race(6, lambda i: identity_providers.create(saml(f"n{i}", "https://same"), ADMIN, "10.0.0.1"))
    assert outcome_codes(outcomes) == [200] + [409] * 5
    assert len(identity_providers.page(100, None).data) == 1


def test_concurrent_updates_of_one_provider_all_land_and_are_all_audited(stack: ProvisionedStack) -> None:
    created = identity_providers.create(saml("p", "https://one"), ADMIN, "10.0.0.1").wire()["identity_provider"]
    fields = ["name", "client_id", "scopes", "provider_url"]
    values = ["Renamed", "client-2", "openid email", "https://p2.example"]
    with atomic_dynamodb():
        outcomes = race(
            4, lambda i: identity_providers.update({"id": created["id"], fields[i]: values[i]}, ADMIN, "ip")
        )
    assert outcome_codes(outcomes) == [200] * 4
    final = identity_providers.get(created["id"]).wire()["identity_provider"]
    assert [final[f] for f in fields] == values
    audit = identity_providers.audit_records(created["id"], 100, None).wire()["data"]
    assert sorted(r["action"] for r in audit) == ["created"] + ["updated"] * 4
    assert sorted(next(iter(r["changes"])) for r in audit if r["action"] == "updated") == sorted(fields)


def test_racing_binding_changes_leave_the_provider_and_its_sign_in_pointer_agreeing(stack: ProvisionedStack) -> None:
    from mzpay import deps
    from mzpay.http.collection_auth import provider_for

    created = identity_providers.create(saml("b", "https://bound"), ADMIN, "ip").wire()["identity_provider"]
    changes = [{"account_ids": ["acc_A"]}, {"account_ids": ["acc_B", "acc_C"]}, {"name": "N"}, {"account_ids": []}]
    with atomic_dynamodb():
        outcomes = race(4, lambda i: identity_providers.update({"id": created["id"], **changes[i]}, ADMIN, "ip"))
    assert outcome_codes(outcomes) == [200] * 4
    final = identity_providers.get(created["id"]).wire()["identity_provider"]
    pointer = deps.identity_providers().by_issuer("https://bound")
    assert pointer is not None and pointer["account_ids"] == final["account_ids"]
    assert final["name"] == "N" and final["account_ids"] in (["acc_A"], ["acc_B", "acc_C"], [])
    audit = identity_providers.audit_records(created["id"], 100, None).wire()["data"]
    assert sorted(r["action"] for r in audit) == ["created"] + ["updated"] * 4
    assert provider_for("https://bound") is None  # saml: never a bearer-token provider, bound or not


def test_moving_an_issuer_frees_the_old_one(stack: ProvisionedStack) -> None:
    first = identity_providers.create(saml("a", "https://a"), ADMIN, "ip").wire()["identity_provider"]
    identity_providers.update({"id": first["id"], "issuer_url": "https://b"}, ADMIN, "ip")
    assert identity_providers.create(saml("c", "https://a"), ADMIN, "ip").wire()["identity_provider"]["issuer_url"] == (
        "https://a"
    )
    with pytest.raises(ServiceError) as taken:
        identity_providers.update({"id": first["id"], "issuer_url": "https://a"}, ADMIN, "ip")
    assert (taken.value.status, taken.value.code) == (409, "already_exists")


def test_of_concurrent_deletions_of_a_provider_one_wins_and_one_deletion_is_audited(stack: ProvisionedStack) -> None:
    created = identity_providers.create(saml("gone", "https://gone"), ADMIN, "ip").wire()["identity_provider"]
    with atomic_dynamodb():
        outcomes = race(5, lambda i: identity_providers.delete(created["id"], ADMIN, "ip"))
    assert outcome_codes(outcomes) == [200] + [404] * 4
    audit = identity_providers.audit_records(created["id"], 100, None).wire()["data"]
    assert [record["action"] for record in audit] == ["deleted", "created"]
    assert identity_providers.create(saml("again", "https://gone"), ADMIN, "ip").wire()["identity_provider"]["id"]

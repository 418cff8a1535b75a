"""The conditional writes of merchant access, part 2, raced against in-process moto: an operator
and a leak report revoking one key at once (one api_key.revoked), two racing switches of an
account's mutual TLS (one lands, the other is told the account changed), and the first two
certificate issuances of a region (one client CA)."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from cryptography import x509

from devstack.moto_server import atomic_dynamodb, atomic_secrets
from mzpay import deps
from mzpay.cases import access, client_certs
from mzpay.domain.access.principal import Principal
from mzpay.domain.common.errors import ServiceError
from mzpay.steps import credentials
from tests.integration import test_merchant_authorizer as merchant_tests
from tests.integration.races import race
from tests.integration.test_merchant_authorizer import ACCOUNT_ID, REGION

authorizer = merchant_tests.authorizer  # the fixture: directory, pepper, accounts and events tables in moto
CA_SECRET = "mzpay/mz/client-ca"


@pytest.fixture
def with_ca(authorizer: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("CLIENT_CA_SECRET", CA_SECRET)
    deps.reset()
    return authorizer


def principal() -> Principal:
    return Principal.of_account(ACCOUNT_ID, "test")


def test_an_operator_and_a_leak_report_revoking_one_key_record_one_event(authorizer: Any) -> None:
    created = access.create_api_key(ACCOUNT_ID, "test", ["payments:read"], None, [], [])
    key = deps.directory().get_key(created.id)
    assert key is not None

    def revoke(index: int) -> str:
        return credentials.revoke_key(key, "operator" if index else "secret_scanning").status

    with atomic_dynamodb():
        results = race(2, revoke)
    outcomes = sorted(value if kind == "ok" else value.code for kind, value in results)
    assert outcomes == ["invalid_state", "revoked"]
    (event,) = deps.events().table.scan()["Items"]
    assert (event["type"], event["resource_id"]) == ("api_key.revoked", created.id)


def test_two_racing_mtls_switches_from_one_read_land_once(with_ca: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both requests read the account at the same version; its conditional write lets one land."""
    before = deps.directory().get_account(ACCOUNT_ID)
    assert before is not None and before.mtls_required is False
    monkeypatch.setattr(client_certs, "home_account", lambda *_args: before)  # both read it as it was

    with atomic_dynamodb():
        results = race(2, lambda _: client_certs.set_mtls(principal(), False, None))
    landed = [value for kind, value in results if kind == "ok"]
    lost = [value for kind, value in results if kind == "error"]
    assert [answer.wire() for answer in landed] == [{"account_id": ACCOUNT_ID, "required": False}]
    assert [(e.status, e.code) for e in lost if isinstance(e, ServiceError)] == [(409, "invalid_state")]
    after = deps.directory().get_account(ACCOUNT_ID)
    assert after is not None and after.version == before.version + 1


def test_the_first_issuances_of_a_region_share_one_ca(with_ca: Any) -> None:
    with atomic_dynamodb(), atomic_secrets():
        issued = race(3, lambda _: client_certs.issue(principal(), None))
    assert all(kind == "ok" for kind, _ in issued), issued
    stored = boto3.client("secretsmanager", region_name=REGION).get_secret_value(SecretId=CA_SECRET)["SecretString"]
    cas = {answer.ca_certificate for _, answer in issued}
    assert cas == {json.loads(stored)["certificate"]}
    ca = x509.load_pem_x509_certificate(issued[0][1].ca_certificate.encode())
    for _, answer in issued:
        x509.load_pem_x509_certificate(answer.certificate.encode()).verify_directly_issued_by(ca)
    assert deps.client_certs().count_of(ACCOUNT_ID) == 3

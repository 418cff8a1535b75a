"""Mutual TLS over the local stack: the gateway also listens over TLS (a client certificate optional
at the TLS layer, handed to the authorizer as API Gateway does); a merchant gets certificates
from the region's client CA, requires them with PUT /v1/mtls, and from then on a request without
one of its certificates is 401 client_certificate_required."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from devstack.launcher import RunningStack
from tests.e2e import test_access as access_tests
from tests.e2e.management_client import Operator
from tests.e2e.test_access import assert_problem

pytestmark = pytest.mark.e2e
mz = access_tests.mz  # the fixture: the mz management API as an operator
REQUIRED = "A client certificate of this account is required (mutual TLS)."


class Merchant:
    """An account with a key, calling the gateway over plain HTTP or over TLS with a certificate."""

    def __init__(self, stack: RunningStack, operator: Operator, folder: Path) -> None:
        self.stack, self.folder = stack, folder
        self.account_id = operator.account()["id"]
        self.key = operator.key(self.account_id, scopes=["api_keys:write", "payments:read"])["key"]
        self.http = stack.state["regions"]["mz"]["gateway"]
        self.https = stack.state["tls"]["gateway"]["mz"]
        self.server_ca = folder / "server-ca.pem"
        self.server_ca.write_text(stack.state["tls"]["ca_certificate"])

    def call(
        self, method: str, path: str, body: Any = None, tls: bool = False, cert: tuple[Path, Path] | None = None
    ) -> requests.Response:
        url = (self.https if tls else self.http) + path
        return requests.request(
            method,
            url,
            json=body,
            headers={"Authorization": f"Bearer {self.key}"},
            cert=(str(cert[0]), str(cert[1])) if cert else None,
            verify=str(self.server_ca) if tls else True,
            timeout=30,
        )

    def certificate(self, name: str) -> tuple[Path, Path, dict[str, Any]]:
        """A certificate issued without a CSR: (certificate file, key file, the answer)."""
        issued = self.call("POST", "/v1/client-certificates", {})
        assert issued.status_code == 201, issued.text
        body = issued.json()
        cert_file, key_file = self.folder / f"{name}.pem", self.folder / f"{name}.key"
        cert_file.write_text(body["certificate"])
        key_file.write_text(body["private_key"])
        return cert_file, key_file, body


@pytest.fixture
def merchant(stack: RunningStack, mz: Operator, tmp_path: Path) -> Iterator[Merchant]:
    yield Merchant(stack, mz, tmp_path)


def test_a_certificate_is_issued_from_a_csr_or_with_a_key_made_once(merchant: Merchant) -> None:
    cert_file, _key_file, issued = merchant.certificate("made")
    certificate = x509.load_pem_x509_certificate(issued["certificate"].encode())
    ca = x509.load_pem_x509_certificate(issued["ca_certificate"].encode())
    assert certificate.issuer == ca.subject
    ca.public_key().verify(  # type: ignore[call-arg, union-attr]
        certificate.signature, certificate.tbs_certificate_bytes, ec.ECDSA(certificate.signature_hash_algorithm)
    )
    fingerprint = certificate.fingerprint(hashes.SHA256()).hex()
    assert issued == {
        "id": fingerprint,
        "account_id": merchant.account_id,
        "fingerprint_sha256": fingerprint,
        "serial_number": format(certificate.serial_number, "x"),
        "subject": f"CN={merchant.account_id},O=mzpay merchant",
        "not_before": issued["not_before"],
        "not_after": issued["not_after"],
        "status": "active",
        "created_at": issued["created_at"],
        "certificate": issued["certificate"],
        "ca_certificate": issued["ca_certificate"],
        "private_key": issued["private_key"],
    }
    assert issued["private_key"].startswith("-----BEGIN PRIVATE KEY-----") and cert_file.exists()
    # from a CSR: the merchant's key, the subject ours, no private key in the answer
    key = ec.generate_private_key(ec.SECP256R1())
    csr = (
        x509.CertificateSigningRequestBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "anything I like")]))
        .sign(key, hashes.SHA256())
        .public_bytes(serialization.Encoding.PEM)
        .decode()
    )
    from_csr = merchant.call("POST", "/v1/client-certificates", {"csr": csr})
    assert from_csr.status_code == 201, from_csr.text
    assert "private_key" not in from_csr.json()
    signed = x509.load_pem_x509_certificate(from_csr.json()["certificate"].encode())
    assert signed.public_key() == key.public_key()
    assert signed.subject.rfc4514_string() == f"CN={merchant.account_id},O=mzpay merchant"
    assert_problem(
        merchant.call("POST", "/v1/client-certificates", {"csr": "-----BEGIN CERTIFICATE REQUEST-----\nnope"}),
        400,
        "Bad Request",
        "invalid_request",
        "csr: not a PEM certificate signing request.",
        errors=[{"field": "csr", "code": "invalid_value", "message": "not a PEM certificate signing request"}],
    )


def test_once_required_only_a_request_with_one_of_its_certificates_is_served(
    merchant: Merchant, stack: RunningStack, mz: Operator
) -> None:
    cert_file, key_file, _ = merchant.certificate("mine")
    mine = (cert_file, key_file)
    assert merchant.call("GET", "/v1/mtls").json() == {"account_id": merchant.account_id, "required": False}
    # enabling it without presenting a certificate would lock the merchant out: refused
    assert_problem(
        merchant.call("PUT", "/v1/mtls", {"required": True}),
        409,
        "Conflict",
        "client_certificate_required",
        "Present a client certificate of this account to require one: the request that enables mutual TLS "
        "shows that it works.",
    )
    assert merchant.call("GET", "/v1/api-keys/current").status_code == 200  # still off
    enabled = merchant.call("PUT", "/v1/mtls", {"required": True}, tls=True, cert=mine)
    assert enabled.status_code == 200 and enabled.json() == {"account_id": merchant.account_id, "required": True}
    for answer in (
        merchant.call("GET", "/v1/api-keys/current"),  # plain HTTP: no certificate can be presented
        merchant.call("GET", "/v1/api-keys/current", tls=True),  # TLS without a certificate
    ):
        assert_problem(answer, 401, "Unauthorized", "client_certificate_required", REQUIRED)
    served = merchant.call("GET", "/v1/api-keys/current", tls=True, cert=mine)
    assert served.status_code == 200 and served.json()["account_id"] == merchant.account_id
    # another account's certificate, from the same CA, is not this account's
    other = Merchant(stack, mz, merchant.folder)
    theirs = other.certificate("theirs")[:2]
    assert_problem(
        merchant.call("GET", "/v1/api-keys/current", tls=True, cert=theirs),  # type: ignore[arg-type]
        401,
        "Unauthorized",
        "client_certificate_required",
        REQUIRED,
    )
    assert other.call("GET", "/v1/api-keys/current", tls=True, cert=theirs).status_code == 200  # type: ignore[arg-type]
    # a certificate of another CA does not get past the TLS handshake
    stranger = self_signed(merchant.folder)
    with pytest.raises(requests.exceptions.SSLError):
        merchant.call("GET", "/v1/api-keys/current", tls=True, cert=stranger)
    disabled = merchant.call("PUT", "/v1/mtls", {"required": False}, tls=True, cert=mine)
    assert disabled.status_code == 200 and disabled.json()["required"] is False
    assert merchant.call("GET", "/v1/api-keys/current").status_code == 200


def self_signed(folder: Path) -> tuple[Path, Path]:
    from datetime import UTC, datetime, timedelta

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "stranger")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=1))
        .not_valid_after(now + timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "stranger.pem", folder / "stranger.key"
    cert_file.write_text(cert.public_bytes(serialization.Encoding.PEM).decode())
    key_file.write_text(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
    )
    return cert_file, key_file

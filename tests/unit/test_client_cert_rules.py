"""Client certificates (mzpay.domain.access.client_certs): the region's CA, issuance from a CSR or a
key made here, the fingerprint the authorizer reads off a presented PEM, and when one counts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from mzpay.domain.access.client_certs import (
    CertStatus,
    ClientCertificate,
    counts,
    csr_public_key,
    described,
    fingerprint_of,
    issue,
    new_ca,
    new_key_pair,
)

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
ACCOUNT = "01JACC0000000000000000000A"


def csr_of(key: object) -> str:
    builder = x509.CertificateSigningRequestBuilder().subject_name(
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ignored")])
    )
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM).decode()  # type: ignore[arg-type]


def test_an_issued_certificate_names_the_account_and_chains_to_the_ca() -> None:
    ca_key, ca_pem = new_ca("mz", NOW)
    ca = x509.load_pem_x509_certificate(ca_pem.encode())
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    public, private_pem = new_key_pair()
    pem = issue(ca_key, ca_pem, ACCOUNT, public, NOW)
    cert = x509.load_pem_x509_certificate(pem.encode())
    cert.verify_directly_issued_by(ca)
    assert cert.subject.rfc4514_string() == f"CN={ACCOUNT},O=mzpay merchant"
    assert cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value == x509.ExtendedKeyUsage(
        [ExtendedKeyUsageOID.CLIENT_AUTH]
    )
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.UniformResourceIdentifier) == [f"urn:mzpay:account:{ACCOUNT}"]
    assert cert.not_valid_after_utc - NOW == timedelta(days=397)
    assert private_pem.startswith("-----BEGIN PRIVATE KEY-----")
    facts = described(pem)
    assert facts["fingerprint"] == cert.fingerprint(hashes.SHA256()).hex() == fingerprint_of(pem)
    assert facts["serial_number"] == format(cert.serial_number, "x")


def test_a_csr_gives_its_key_when_it_is_strong_and_signed() -> None:
    ec_key = ec.generate_private_key(ec.SECP256R1())
    assert csr_public_key(csr_of(ec_key)) == ec_key.public_key()
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert csr_public_key(csr_of(rsa_key)) == rsa_key.public_key()
    with pytest.raises(ValueError, match="RSA of 2048 bits or more, or EC P-256 or P-384"):
        csr_public_key(csr_of(ec.generate_private_key(ec.SECP521R1())))
    with pytest.raises(ValueError, match="not a PEM certificate signing request"):
        csr_public_key("-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n")
    with pytest.raises(ValueError, match="too large"):
        csr_public_key("x" * 20000)


def test_a_presented_certificate_counts_only_for_its_account_while_active_and_valid() -> None:
    record = ClientCertificate(
        fingerprint="f" * 64,
        account_id=ACCOUNT,
        home_region="mz",
        serial_number="1",
        subject="CN=x",
        not_before="2026-01-01T00:00:00Z",
        not_after="2027-01-01T00:00:00Z",
        status=CertStatus.ACTIVE,
        created_at="2026-01-01T00:00:00Z",
    )
    assert counts(record, ACCOUNT, NOW)
    assert not counts(record, "01JACC0000000000000000000B", NOW)
    assert not counts(None, ACCOUNT, NOW)
    assert not counts(ClientCertificate(**{**record.item(), "status": CertStatus.REVOKED}), ACCOUNT, NOW)
    assert not counts(record, ACCOUNT, datetime(2027, 1, 1, tzinfo=UTC))
    assert not counts(record, ACCOUNT, datetime(2025, 12, 31, tzinfo=UTC))
    assert fingerprint_of("not a certificate") is None
    assert fingerprint_of("-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----") is None

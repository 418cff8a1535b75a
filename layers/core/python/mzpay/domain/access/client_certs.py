"""Merchant client certificates for mutual TLS (docs/access.md, "Mutual TLS"): the region's
private client CA, certificates it issues to an account (from the merchant's CSR, or with a key
pair made here and answered once), and what a presented certificate must be to count: issued to
the account, recorded, not revoked, within its validity. Pure rules (cryptography), no storage."""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cryptography import x509

CA_YEARS = 10
CERT_DAYS = 397  # the longest validity browsers accept for TLS certificates; merchants roll yearly
MAX_CSR_BYTES = 16 * 1024
ACCOUNT_URI = "urn:mzpay:account:{account_id}"


class CertStatus:
    ACTIVE = "active"
    REVOKED = "revoked"


@dataclass
class ClientCertificate:
    """A certificate issued to an account, recorded by the SHA-256 fingerprint of its DER."""

    fingerprint: str
    account_id: str
    home_region: str
    serial_number: str
    subject: str
    not_before: str
    not_after: str
    status: str
    created_at: str

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> ClientCertificate:
        return cls(**{name: item[name] for name in cls.__dataclass_fields__})

    def item(self) -> dict[str, Any]:
        return asdict(self)

    def public(self) -> dict[str, Any]:
        return {
            "id": self.fingerprint,
            "account_id": self.account_id,
            "fingerprint_sha256": self.fingerprint,
            "serial_number": self.serial_number,
            "subject": self.subject,
            "not_before": self.not_before,
            "not_after": self.not_after,
            "status": self.status,
            "created_at": self.created_at,
        }


# The authorizer only fingerprints a presented certificate (no cryptography import on its cold
# start); making and reading certificates loads cryptography on first use.
def _pem(cert: x509.Certificate) -> str:
    from cryptography.hazmat.primitives import serialization

    return cert.public_bytes(serialization.Encoding.PEM).decode()


def _private_pem(key: Any) -> str:
    from cryptography.hazmat.primitives import serialization

    encoding, private_format = serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8
    return str(key.private_bytes(encoding, private_format, serialization.NoEncryption()).decode())


def new_ca(region: str, now: datetime) -> tuple[str, str]:
    """(private key PEM, certificate PEM) of a new client CA for `region` (EC P-256)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "mzpay"),
            x509.NameAttribute(NameOID.COMMON_NAME, f"mzpay client CA {region}"),
        ]
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=365 * CA_YEARS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )  # keyCertSign, cRLSign
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return private.decode(), _pem(cert)


def csr_public_key(csr_pem: str) -> Any:
    """The public key of a merchant's CSR whose signature verifies: RSA of 2048 bits or more, or
    EC P-256 / P-384. ValueError saying why not (its subject is ignored: we name the account)."""
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    if len(csr_pem.encode()) > MAX_CSR_BYTES:
        raise ValueError("the CSR is too large")
    try:
        csr = x509.load_pem_x509_csr(csr_pem.encode())
    except ValueError as exc:
        raise ValueError("not a PEM certificate signing request") from exc
    if not csr.is_signature_valid:
        raise ValueError("the CSR's signature does not verify")
    key = csr.public_key()
    if isinstance(key, rsa.RSAPublicKey) and key.key_size >= 2048:
        return key
    if isinstance(key, ec.EllipticCurvePublicKey) and key.curve.name in ("secp256r1", "secp384r1"):
        return key
    raise ValueError("the key is RSA of 2048 bits or more, or EC P-256 or P-384")


def new_key_pair() -> tuple[Any, str]:
    """A key pair made for a merchant who sent no CSR: (public key, private key PEM, answered once)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return key.public_key(), private.decode()


def issue(ca_key_pem: str, ca_cert_pem: str, account_id: str, public_key: Any, now: datetime) -> str:
    """A client certificate (PEM) for `account_id`: CN and a URI SAN name the account, clientAuth
    only, CERT_DAYS long, signed by the region's CA."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    ca_key = serialization.load_pem_private_key(ca_key_pem.encode(), password=None)
    ca_cert = x509.load_pem_x509_certificate(ca_cert_pem.encode())
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    cert = (
        x509.CertificateBuilder()
        .subject_name(
            x509.Name(
                [
                    x509.NameAttribute(NameOID.ORGANIZATION_NAME, "mzpay merchant"),
                    x509.NameAttribute(NameOID.COMMON_NAME, account_id),
                ]
            )
        )
        .issuer_name(ca_cert.subject)
        .public_key(public_key)
        .serial_number(int.from_bytes(secrets.token_bytes(16), "big") >> 1)
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=CERT_DAYS))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .add_extension(
            x509.SubjectAlternativeName([x509.UniformResourceIdentifier(ACCOUNT_URI.format(account_id=account_id))]),
            critical=False,
        )
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return _pem(cert)


def described(cert_pem: str) -> dict[str, Any]:
    """fingerprint (SHA-256 of the DER, hex), serial_number (hex), subject, not_before, not_after."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    cert = x509.load_pem_x509_certificate(cert_pem.encode())
    return {
        "fingerprint": hashlib.sha256(cert.public_bytes(serialization.Encoding.DER)).hexdigest(),
        "serial_number": format(cert.serial_number, "x"),
        "subject": cert.subject.rfc4514_string(),
        "not_before": cert.not_valid_before_utc,
        "not_after": cert.not_valid_after_utc,
    }


def fingerprint_of(cert_pem: str) -> str | None:
    """The SHA-256 fingerprint (of the DER) of a presented certificate's PEM, or None when it is
    not one; no parsing beyond the PEM armour (the TLS layer verified the chain)."""
    begin, end = "-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----"
    start, stop = cert_pem.find(begin), cert_pem.find(end)
    if start < 0 or stop < start:
        return None
    try:
        der = base64.b64decode("".join(cert_pem[start + len(begin) : stop].split()), validate=True)
    except (binascii.Error, ValueError):
        return None
    return hashlib.sha256(der).hexdigest() if der else None


def thumbprint(fingerprint: str) -> str:
    """RFC 8705's `x5t#S256` of a certificate from its fingerprint (hex SHA-256 of the DER): the
    same digest, base64url without padding."""
    return base64.urlsafe_b64encode(bytes.fromhex(fingerprint)).rstrip(b"=").decode()


def counts(record: ClientCertificate | None, account_id: str, now: datetime) -> bool:
    """True when the presented certificate's record makes it a valid certificate of `account_id`."""
    if record is None or record.account_id != account_id or record.status != CertStatus.ACTIVE:
        return False
    return record.not_before <= now.strftime("%Y-%m-%dT%H:%M:%SZ") < record.not_after

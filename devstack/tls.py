"""TLS for the local stack's gateway, as API Gateway's mutual TLS on a custom domain does it:
a server certificate for 127.0.0.1 and localhost (signed by a local CA that tests trust), a client
certificate optional at the TLS layer and verified against the region's client CA (a presented
certificate that does not chain to it fails the handshake), and the certificate a client
presented handed to the event as `requestContext.identity.clientCert`. Never shipped."""

from __future__ import annotations

import ipaddress
import ssl
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from devstack.requestlog import RequestLines

PEER_CERT_KEY = "mzpay.client_cert_der"


def _pem_key(key: Any) -> str:
    return str(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
    )


class ServerCertificates:
    """A local CA and, signed by it, the server certificate every local TLS listener presents."""

    def __init__(self) -> None:
        now = datetime.now(UTC)
        self.ca_key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "mzpay local TLS CA")])
        self.ca = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(self.ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(minutes=5))
            .not_valid_after(now + timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .sign(self.ca_key, hashes.SHA256())
        )
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(name)
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(minutes=5))
            .not_valid_after(now + timedelta(days=30))
            .add_extension(
                x509.SubjectAlternativeName(
                    [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
                ),
                critical=False,
            )
            .sign(self.ca_key, hashes.SHA256())
        )
        self._folder = tempfile.TemporaryDirectory(prefix="mzpay-tls-")
        self.cert_file = Path(self._folder.name) / "server.pem"
        self.key_file = Path(self._folder.name) / "server.key"
        self.cert_file.write_text(self.cert.public_bytes(serialization.Encoding.PEM).decode())
        self.key_file.write_text(_pem_key(self.key))
        self.key_file.chmod(0o600)

    @property
    def ca_pem(self) -> str:
        return self.ca.public_bytes(serialization.Encoding.PEM).decode()

    def context(self, client_ca_pem: str) -> ssl.SSLContext:
        """A server context asking for (not requiring) a client certificate of `client_ca_pem`."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.cert_file, self.key_file)
        context.load_verify_locations(cadata=client_ca_pem)
        context.verify_mode = ssl.CERT_OPTIONAL
        return context


class ClientCertHandler(RequestLines):
    """Puts the DER of the certificate the client presented (if any) into the WSGI environ."""

    def make_environ(self) -> Any:
        environ = super().make_environ()
        getpeercert = getattr(self.connection, "getpeercert", None)
        der = getpeercert(binary_form=True) if getpeercert else None
        if der:
            environ[PEER_CERT_KEY] = der
        return environ


def client_cert_context(der: bytes) -> dict[str, Any]:
    """requestContext.identity.clientCert as API Gateway writes it for a presented certificate."""
    cert = x509.load_der_x509_certificate(der)
    stamp = "%b %d %H:%M:%S %Y GMT"
    return {
        "clientCertPem": cert.public_bytes(serialization.Encoding.PEM).decode(),
        "subjectDN": cert.subject.rfc4514_string(),
        "issuerDN": cert.issuer.rfc4514_string(),
        "serialNumber": format(cert.serial_number, "X"),
        "validity": {
            "notBefore": cert.not_valid_before_utc.strftime(stamp),
            "notAfter": cert.not_valid_after_utc.strftime(stamp),
        },
    }

"""A secret-scanning provider's key endpoint on loopback, for the local stack and tests (never
shipped): it publishes one ECDSA P-256 public key the way code hosts do (`GET /keys`:
`{public_keys: [{key_identifier, key, is_current}]}`), and signs reports with its private key
(`sign`), so the whole path of POST /secret-scanning/github runs locally."""

from __future__ import annotations

import base64
import json
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from werkzeug.wrappers import Request, Response

from devstack.threads import LoopbackServer

KEY_IDENTIFIER = "local-secret-scanning-key-1"


def signature(body: bytes, private_pem: str) -> str:
    """A report's signature header value: base64 of the DER ECDSA P-256 / SHA-256 signature."""
    key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return base64.b64encode(key.sign(body, ec.ECDSA(hashes.SHA256()))).decode()


class KeyServer(LoopbackServer):
    thread_name = "secret-scanning-keys"

    def __init__(self, host: str, port: int) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        super().__init__(host, port)
        self.url = f"http://{host}:{port}/keys"

    @property
    def private_pem(self) -> str:
        return self.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()

    def public_pem(self) -> str:
        return (
            self.key.public_key()
            .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            .decode()
        )

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        if request.method == "GET" and request.path == "/keys":
            keys = {"public_keys": [{"key_identifier": KEY_IDENTIFIER, "key": self.public_pem(), "is_current": True}]}
            response = Response(json.dumps(keys), 200, content_type="application/json")
        else:
            response = Response("{}", 404, content_type="application/json")
        return response(environ, start_response)

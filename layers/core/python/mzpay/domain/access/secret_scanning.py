"""Secret-scanning reports (docs/access.md, "Leaked credentials"): a code host that finds one of
our credentials in a public place POSTs a report to /secret-scanning/<provider>, the scheme public
code hosts use (GitHub's partner program): the raw body is a JSON list of
`{token, type, url, source}`, signed with ECDSA P-256 / SHA-256, the signature (base64 DER) and
the signing key's identifier in two headers; the provider publishes its public keys at a URL.
Pure rules here: the report's shape, the signature check, the answer."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

MAX_REPORT_BYTES = 512 * 1024
MAX_ITEMS = 1000
MAX_TOKEN = 512
MAX_FIELD = 2048
TRUE_POSITIVE, FALSE_POSITIVE = "true_positive", "false_positive"
KEY_ID_HEADER = "Github-Public-Key-Identifier"
SIGNATURE_HEADER = "Github-Public-Key-Signature"
FORWARDED_HEADER = "Service-Forwarded-From"  # a report a peer region passed on (never passed on again)


@dataclass(frozen=True)
class Reported:
    token: str
    type: str
    url: str
    source: str

    def where(self) -> dict[str, str]:
        """Where it was found, as the audit event records it (never the token)."""
        return {"type": self.type, "url": self.url, "source": self.source}


def parse_report(body: bytes) -> list[Reported]:
    """The report's items; ValueError saying why it cannot be read."""
    if len(body) > MAX_REPORT_BYTES:
        raise ValueError(f"the report is larger than {MAX_REPORT_BYTES} bytes")
    try:
        items = json.loads(body)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError("the report is not JSON") from exc
    if not isinstance(items, list) or len(items) > MAX_ITEMS:
        raise ValueError(f"the report is a JSON list of at most {MAX_ITEMS} items")
    found = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("token"), str) or not item["token"]:
            raise ValueError(f"item {index} has no token")
        fields = {name: item.get(name) or "" for name in ("type", "url", "source")}
        if len(item["token"]) > MAX_TOKEN or any(not isinstance(v, str) or len(v) > MAX_FIELD for v in fields.values()):
            raise ValueError(f"item {index} has a field that is not a string or too long")
        found.append(Reported(item["token"], **fields))
    return found


def signature_valid(body: bytes, signature: str, public_key_pem: str) -> bool:
    """True when `signature` (base64 DER ECDSA) signs `body` with the P-256 key `public_key_pem`."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    try:
        key = serialization.load_pem_public_key(public_key_pem.encode())
        if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name != "secp256r1":
            return False
        key.verify(base64.b64decode(signature, validate=True), body, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError, binascii.Error, TypeError):
        return False
    return True


def public_keys(document: dict[str, Any]) -> dict[str, str]:
    """key_identifier -> PEM of a provider's published keys (`{public_keys: [{key_identifier,
    key, is_current}]}`); ValueError when the document has none."""
    keys = document.get("public_keys")
    if not isinstance(keys, list):
        raise ValueError("no public_keys")
    found = {
        str(k["key_identifier"]): str(k["key"])
        for k in keys
        if isinstance(k, dict) and isinstance(k.get("key_identifier"), str) and isinstance(k.get("key"), str)
    }
    if not found:
        raise ValueError("no usable public key")
    return found


def answer(item: Reported, label: str) -> dict[str, str]:
    """One line of the answer: the token as reported, its type, and our verdict."""
    return {"token_raw": item.token, "token_type": item.type, "label": label}

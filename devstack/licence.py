"""Licence keys for development and tests: an Ed25519 issuer key pair and licence JWTs signed
with it (jti, sub, iss, iat, exp, capabilities, metadata). The local stack makes a key pair at
start-up, configures its public half (LicenceIssuerPublicKey) and keeps the private half in
.local/stack.json only: nothing secret lives in the repository.

    python -m devstack.licence issue --to "Banco Demo" --days 30 --capability kyc:read ...
        (signs with the running local stack's issuer key, from .local/stack.json)
    python -m devstack.licence keygen --out DIR
        (a key pair of your own: DIR/licence-issuer.pem, DIR/licence-issuer.pub.pem)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from mzpay.domain.collection.access import KNOWN_CAPABILITIES

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ISSUER = "mzpay-licensing"


def generate_issuer_key() -> tuple[str, str]:
    """(private PEM, public PEM) of a new Ed25519 issuer key."""
    key = ed25519.Ed25519PrivateKey.generate()
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


def one_line(pem: str) -> str:
    """A PEM as one line (a CloudFormation parameter): line breaks become spaces."""
    return " ".join(pem.split())


def issue_licence(
    private_pem: str,
    *,
    issued_to: str,
    capabilities: list[str] | tuple[str, ...] = KNOWN_CAPABILITIES,
    metadata: dict[str, Any] | None = None,
    issuer: str = DEFAULT_ISSUER,
    lifetime_seconds: int = 365 * 86400,
    issued_at: int | None = None,
    licence_id: str | None = None,
    extra_claims: dict[str, Any] | None = None,
    algorithm: str = "EdDSA",
) -> str:
    """A licence JWT signed with `private_pem`."""
    key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    now = int(time.time()) if issued_at is None else issued_at
    claims = {
        "jti": licence_id or f"lic_{uuid.uuid4().hex}",
        "sub": issued_to,
        "iss": issuer,
        "iat": now,
        "exp": now + lifetime_seconds,
        "capabilities": list(capabilities),
        "metadata": metadata or {},
        **(extra_claims or {}),
    }
    return jwt.encode(claims, key, algorithm=algorithm)  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="devstack.licence", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    issue = commands.add_parser("issue", help="print a licence JWT")
    issue.add_argument("--key", type=Path, help="issuer private key (PEM); default: the running local stack's")
    issue.add_argument("--stack-file", type=Path, default=ROOT / ".local" / "stack.json")
    issue.add_argument("--to", required=True, help="whom the licence is issued to (sub)")
    issue.add_argument("--days", type=float, default=365.0)
    issue.add_argument("--capability", action="append", help=f"repeatable; default: {' '.join(KNOWN_CAPABILITIES)}")
    issue.add_argument("--metadata", default="{}", help="a JSON object")
    issue.add_argument("--issuer", default=DEFAULT_ISSUER)
    keygen = commands.add_parser("keygen", help="write a new issuer key pair")
    keygen.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)

    if args.command == "keygen":
        private, public = generate_issuer_key()
        args.out.mkdir(parents=True, exist_ok=True)
        secret = args.out / "licence-issuer.pem"
        secret.write_text(private, encoding="utf-8")
        secret.chmod(0o600)
        (args.out / "licence-issuer.pub.pem").write_text(public, encoding="utf-8")
        print(f"{secret}\n{args.out / 'licence-issuer.pub.pem'}")
        return 0
    if args.key:
        private = args.key.read_text(encoding="utf-8")
    else:
        private = json.loads(args.stack_file.read_text(encoding="utf-8"))["licence_issuer"]["signing_key"]
    print(
        issue_licence(
            private,
            issued_to=args.to,
            capabilities=args.capability or KNOWN_CAPABILITIES,
            metadata=json.loads(args.metadata),
            issuer=args.issuer,
            lifetime_seconds=int(args.days * 86400),
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

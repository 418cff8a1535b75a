"""Client certificates in the tenant directory, and the region's client CA in Secrets Manager.

Items (pk, sk):
  CERT#<sha256 fingerprint>, CERT        a certificate issued to an account (what the authorizer reads)
  ACCOUNT#<account_id>, CERT#<fingerprint> the account's list of its certificates (written with it)
An account's `mtls_required` flag lives on its ACCOUNT item (mzpay.store.directory.Account).

The CA (`{key, certificate}` PEM, JSON) is one secret per region, made by the first issuance
(create-if-absent: of two racing first issuances one creates it, the other reads it).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from mzpay.config import optional_env
from mzpay.domain.access.client_certs import ClientCertificate
from mzpay.store.aws import client, env, error_code, is_conditional_failure
from mzpay.store.base import TableStore, put_new

MAX_CERTS_PER_ACCOUNT = 20


class MtlsChanged(Exception):
    """The account changed since it was read."""


class ClientCerts(TableStore):
    def __init__(self, table_name: str, ca_secret_name: str | None) -> None:
        super().__init__(table_name)
        self.ca_secret_name = ca_secret_name

    @classmethod
    def from_env(cls) -> ClientCerts:
        # the authorizer reads certificates only: it has no CA secret
        return cls(env("DIRECTORY_TABLE"), optional_env("CLIENT_CA_SECRET"))

    def ca(self, create: Callable[[], tuple[str, str]]) -> tuple[str, str]:
        """(key PEM, certificate PEM) of the region's CA, made with `create` if there is none yet."""
        if not self.ca_secret_name:
            raise RuntimeError("CLIENT_CA_SECRET is not set for this function")
        secrets = client("secretsmanager")
        try:
            value = secrets.get_secret_value(SecretId=self.ca_secret_name)["SecretString"]
        except Exception as exc:
            if error_code(exc) != "ResourceNotFoundException":
                raise
            key, certificate = create()
            try:
                secrets.create_secret(
                    Name=self.ca_secret_name,
                    SecretString=json.dumps({"key": key, "certificate": certificate}),
                    Description="mzpay merchant client CA (mutual TLS)",
                )
                return key, certificate
            except Exception as lost:
                if error_code(lost) != "ResourceExistsException":
                    raise
                value = secrets.get_secret_value(SecretId=self.ca_secret_name)["SecretString"]
        stored = json.loads(value)
        return str(stored["key"]), str(stored["certificate"])

    def add(self, cert: ClientCertificate) -> None:
        pointer = {"pk": f"ACCOUNT#{cert.account_id}", "sk": f"CERT#{cert.fingerprint}"}
        self.client.transact_write_items(
            TransactItems=[
                put_new(self.name, item)
                for item in ({"pk": f"CERT#{cert.fingerprint}", "sk": "CERT", **cert.item()}, pointer)
            ]
        )

    def get(self, fingerprint: str) -> ClientCertificate | None:
        if len(fingerprint) != 64:
            return None
        item = self.table.get_item(Key={"pk": f"CERT#{fingerprint}", "sk": "CERT"}, ConsistentRead=True).get("Item")
        return ClientCertificate.from_item(item) if item else None

    def count_of(self, account_id: str) -> int:
        answer = self.table.query(
            KeyConditionExpression="pk = :pk AND begins_with(sk, :sk)",
            ExpressionAttributeValues={":pk": f"ACCOUNT#{account_id}", ":sk": "CERT#"},
            Select="COUNT",
            ConsistentRead=True,
        )
        return int(answer.get("Count", 0))

    def set_mtls(self, account_id: str, required: bool, version: int) -> None:
        """The account's mtls_required, if the account still has the version read (MtlsChanged)."""
        try:
            self.table.update_item(
                Key={"pk": f"ACCOUNT#{account_id}", "sk": "ACCOUNT"},
                UpdateExpression="SET mtls_required = :required, version = :next",
                ConditionExpression="version = :read",
                ExpressionAttributeValues={":required": required, ":next": version + 1, ":read": version},
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                raise MtlsChanged() from exc
            raise

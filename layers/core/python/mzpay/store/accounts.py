"""Regional account data (the tenant's home region only): webhook signing secrets, encrypted
with the stack's KMS key. Items: pk ACCOUNT#<id>, sk WHSEC#<mode>."""

from __future__ import annotations

import base64
import dataclasses
from decimal import Decimal
from typing import Any

from mzpay.domain.accounts.limits import AccountLimits
from mzpay.domain.accounts.settings import AccountSettings
from mzpay.domain.common.clock import iso, parse_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.payouts.limits import PayoutLimits
from mzpay.domain.webhooks.secrets import SecretVersion
from mzpay.store.aws import client, env, is_conditional_failure
from mzpay.store.base import InAccountsTable, SealedTableStore


class WebhookSecrets(SealedTableStore):
    @classmethod
    def from_env(cls) -> WebhookSecrets:
        return cls(env("ACCOUNTS_TABLE"), env("DATA_KEY_ID"))

    def encrypt(self, plaintext: str, account_id: str) -> str:
        blob = client("kms").encrypt(
            KeyId=self.key_id, Plaintext=plaintext.encode(), EncryptionContext={"account_id": account_id}
        )["CiphertextBlob"]
        return base64.b64encode(blob).decode()

    def decrypt(self, ciphertext: str, account_id: str) -> str:
        plaintext = client("kms").decrypt(
            CiphertextBlob=base64.b64decode(ciphertext), EncryptionContext={"account_id": account_id}
        )["Plaintext"]
        return bytes(plaintext).decode()

    def read(self, account_id: str, mode: str) -> tuple[list[SecretVersion], int]:
        item = self.table.get_item(Key={"pk": f"ACCOUNT#{account_id}", "sk": f"WHSEC#{mode}"}, ConsistentRead=True).get(
            "Item"
        )
        if item is None:
            return [], 0
        versions = [
            SecretVersion(
                v["secret_id"],
                v["ciphertext"],
                parse_iso(v["created_at"]),  # type: ignore[arg-type]
                parse_iso(v.get("expires_at")),
            )
            for v in item.get("versions", [])
        ]
        return versions, int(item["version"])

    def write(self, account_id: str, mode: str, versions: list[SecretVersion], read_version: int) -> None:
        """Replace the versions, conditioned on the item not having changed since it was read."""
        condition = "attribute_not_exists(pk)" if read_version == 0 else "version = :read"
        values: dict[str, Any] = {":read": read_version} if read_version else {}
        try:
            self.table.put_item(
                Item={
                    "pk": f"ACCOUNT#{account_id}",
                    "sk": f"WHSEC#{mode}",
                    "version": read_version + 1,
                    "versions": [_version_item(v) for v in versions],
                },
                ConditionExpression=condition,
                **({"ExpressionAttributeValues": values} if values else {}),
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                raise ServiceError(409, "invalid_state", "The webhook secrets changed meanwhile; retry.") from exc
            raise


def _version_item(version: SecretVersion) -> dict[str, Any]:
    item = {"secret_id": version.secret_id, "ciphertext": version.ciphertext, "created_at": iso(version.created_at)}
    if version.expires_at is not None:
        item["expires_at"] = iso(version.expires_at)
    return item


class Limits(InAccountsTable):
    """Account ceilings per mode: pk ACCOUNT#<id>, sk LIMITS#<mode>."""

    @staticmethod
    def key(account_id: str, mode: str) -> dict[str, str]:
        return {"pk": f"ACCOUNT#{account_id}", "sk": f"LIMITS#{mode}"}

    def read(self, account_id: str, mode: str) -> AccountLimits:
        return self.parse(self.table.get_item(Key=self.key(account_id, mode)).get("Item"))

    @staticmethod
    def parse(item: dict[str, Any] | None) -> AccountLimits:
        """The ceilings an item holds (none: no ceilings)."""
        if item is None:
            return AccountLimits()
        currencies = item.get("currencies")
        return AccountLimits(
            currencies=frozenset(currencies) if currencies is not None else None,
            per_transaction={c: Decimal(v) for c, v in (item.get("per_transaction") or {}).items()},
            daily={c: Decimal(v) for c, v in (item.get("daily") or {}).items()},
        )

    def write(self, account_id: str, mode: str, limits: AccountLimits) -> None:
        public = limits.public()
        self.table.put_item(Item={"pk": f"ACCOUNT#{account_id}", "sk": f"LIMITS#{mode}", **public})


class PayoutLimitsStore(InAccountsTable):
    """Payout limits per mode: pk ACCOUNT#<id>, sk PAYOUTLIMITS#<mode>."""

    def read(self, account_id: str, mode: str) -> PayoutLimits:
        item = self.table.get_item(Key={"pk": f"ACCOUNT#{account_id}", "sk": f"PAYOUTLIMITS#{mode}"}).get("Item")
        return PayoutLimits.from_public(item or {})

    def write(self, account_id: str, mode: str, limits: PayoutLimits) -> None:
        self.table.put_item(Item={"pk": f"ACCOUNT#{account_id}", "sk": f"PAYOUTLIMITS#{mode}", **limits.public()})


class AccountEndpoints(InAccountsTable):
    """Where an account's own events (its credentials revoked) are posted, per mode: pk
    ACCOUNT#<id>, sk ENDPOINT#<mode>, {url, updated_at}."""

    @staticmethod
    def _key(account_id: str, mode: str) -> dict[str, str]:
        return {"pk": f"ACCOUNT#{account_id}", "sk": f"ENDPOINT#{mode}"}

    def read(self, account_id: str, mode: str) -> dict[str, str] | None:
        item = self.table.get_item(Key=self._key(account_id, mode), ConsistentRead=True).get("Item")
        return {"url": item["url"], "updated_at": item["updated_at"]} if item else None

    def write(self, account_id: str, mode: str, url: str, now: str) -> None:
        self.table.put_item(Item={**self._key(account_id, mode), "url": url, "updated_at": now})

    def delete(self, account_id: str, mode: str) -> None:
        self.table.delete_item(Key=self._key(account_id, mode))


class AccountSettingsStore(InAccountsTable):
    """The account's own settings (mzpay.domain.accounts.settings): pk ACCOUNT#<id>, sk SETTINGS."""

    @staticmethod
    def _key(account_id: str) -> dict[str, str]:
        return {"pk": f"ACCOUNT#{account_id}", "sk": "SETTINGS"}

    def read(self, account_id: str) -> AccountSettings:
        item = self.table.get_item(Key=self._key(account_id), ConsistentRead=True).get("Item")
        if item is None:
            return AccountSettings()
        return AccountSettings(
            brand_colour=item.get("brand_colour"),
            notification_language=str(item.get("notification_language", "pt")),
            sender_name=item.get("sender_name"),
            dashboard_ip_allowlist=tuple(item.get("dashboard_ip_allowlist") or ()),
            updated_at=item.get("updated_at"),
            updated_by=item.get("updated_by"),
        )

    def write(self, account_id: str, settings: AccountSettings) -> None:
        values = {name: value for name, value in dataclasses.asdict(settings).items() if value not in (None, ())}
        values["dashboard_ip_allowlist"] = list(settings.dashboard_ip_allowlist)
        self.table.put_item(Item={**self._key(account_id), **values})

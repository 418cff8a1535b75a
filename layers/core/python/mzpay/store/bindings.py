"""Connector bindings: which PSP an account's live traffic of a method goes to, and the
credentials it signs in with, encrypted with the stack's KMS key under an encryption context
of (account, mode, method) so a blob can only ever be opened for the binding it was made for.
Items in the accounts table: pk ACCOUNT#<id>, sk BINDING#<mode>#<method>."""

from __future__ import annotations

import base64
import json
from typing import Any

from mzpay.memo import remembered
from mzpay.store.aws import client, env, is_conditional_failure
from mzpay.store.base import SealedTableStore


def _context(account_id: str, mode: str, method: str) -> dict[str, str]:
    return {"account_id": account_id, "mode": mode, "binding_method": method}


@remembered(maxsize=256)
def _decrypt(ciphertext: str, account_id: str, mode: str, method: str) -> str:
    """One KMS call per binding version and warm environment (the blob changes when rebound)."""
    plaintext = client("kms").decrypt(
        CiphertextBlob=base64.b64decode(ciphertext), EncryptionContext=_context(account_id, mode, method)
    )["Plaintext"]
    return bytes(plaintext).decode()


def _key(account_id: str, mode: str, method: str) -> dict[str, str]:
    return {"pk": f"ACCOUNT#{account_id}", "sk": f"BINDING#{mode}#{method}"}


def _public(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in ("pk", "sk", "ciphertext", "further_routes")}


class Bindings(SealedTableStore):
    @classmethod
    def from_env(cls) -> Bindings:
        return cls(env("ACCOUNTS_TABLE"), env("DATA_KEY_ID"))

    def _seal(self, account_id: str, mode: str, method: str, credentials: dict[str, str]) -> str:
        """The credentials encrypted under the binding's context, base64."""
        blob = client("kms").encrypt(
            KeyId=self.key_id,
            Plaintext=json.dumps(credentials, sort_keys=True).encode(),
            EncryptionContext=_context(account_id, mode, method),
        )["CiphertextBlob"]
        return base64.b64encode(blob).decode()

    def bind(
        self, account_id: str, mode: str, method: str, psp_id: str, credentials: dict[str, str], now: str
    ) -> dict[str, Any]:
        """Bind (or rebind) the method; the credentials are encrypted, the answer never holds them."""
        sealed = self._seal(account_id, mode, method, credentials)
        previous = self.table.get_item(Key=_key(account_id, mode, method), ConsistentRead=True).get("Item")
        item = {
            **_key(account_id, mode, method),
            "account_id": account_id,
            "mode": mode,
            "method": method,
            "psp_id": psp_id,
            "credential_fields": sorted(credentials),
            "ciphertext": sealed,
            "created_at": previous["created_at"] if previous else now,
            "updated_at": now,
        }
        if previous and previous.get("further_routes"):  # rebinding keeps the method's further routes
            item["further_routes"] = True
        self.table.put_item(Item=item)
        return _public(item)

    def of_account(self, account_id: str) -> list[dict[str, Any]]:
        response = self.table.query(
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={":pk": f"ACCOUNT#{account_id}", ":prefix": "BINDING#"},
            ConsistentRead=True,
        )
        return [_public(item) for item in response.get("Items", [])]

    def unbind(self, account_id: str, mode: str, method: str) -> bool:
        old = self.table.delete_item(Key=_key(account_id, mode, method), ReturnValues="ALL_OLD").get("Attributes")
        return old is not None

    def bound_psp(self, account_id: str, mode: str, method: str) -> str | None:
        """The PSP bound to the account for `method` (its credentials left sealed), if any."""
        item = self.table.get_item(Key=_key(account_id, mode, method)).get("Item")
        return None if item is None else str(item["psp_id"])

    def credentials(self, account_id: str, mode: str, method: str) -> tuple[str, dict[str, str]] | None:
        """The bound PSP and its decrypted credentials, or None when nothing is bound."""
        found = self.binding(account_id, mode, method)
        return None if found is None else (found[0], found[1])

    def binding(self, account_id: str, mode: str, method: str) -> tuple[str, dict[str, str], bool] | None:
        """The bound PSP, its decrypted credentials and whether the method has further routes."""
        item = self.table.get_item(Key=_key(account_id, mode, method)).get("Item")
        if item is None:
            return None
        credentials = json.loads(_decrypt(item["ciphertext"], account_id, mode, method))
        return item["psp_id"], credentials, bool(item.get("further_routes"))

    # ---- a method's further routes (routing by health): pk ACCOUNT#<id>, sk ALTROUTE#<mode>#<method>#<psp>

    def bind_route(
        self,
        account_id: str,
        mode: str,
        method: str,
        psp_id: str,
        credentials: dict[str, str],
        preference: int,
        cost_bps: int,
        now: str,
    ) -> dict[str, Any]:
        """Bind a further route of the method (another connector carrying it), sealed like a binding."""
        sealed = self._seal(account_id, mode, method, credentials)
        item = {
            **_route_key(account_id, mode, method, psp_id),
            "account_id": account_id,
            "mode": mode,
            "method": method,
            "psp_id": psp_id,
            "preference": preference,
            "cost_bps": cost_bps,
            "credential_fields": sorted(credentials),
            "ciphertext": sealed,
            "updated_at": now,
        }
        try:  # the binding says the method has further routes (a charge looks for them only then)
            self.table.update_item(
                Key=_key(account_id, mode, method),
                UpdateExpression="SET further_routes = :yes",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeValues={":yes": True},
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                raise LookupError("the method is not bound") from exc
            raise
        self.table.put_item(Item=item)
        return _public(item)

    def routes(self, account_id: str, mode: str, method: str) -> list[dict[str, Any]]:
        """The method's further routes (psp_id, preference, cost_bps), credentials left sealed."""
        response = self.table.query(
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={":pk": f"ACCOUNT#{account_id}", ":prefix": f"ALTROUTE#{mode}#{method}#"},
        )
        return [_public(item) for item in response.get("Items", [])]

    def route_credentials(self, account_id: str, mode: str, method: str, psp_id: str) -> dict[str, str] | None:
        item = self.table.get_item(Key=_route_key(account_id, mode, method, psp_id)).get("Item")
        if item is None:
            return None
        return dict(json.loads(_decrypt(item["ciphertext"], account_id, mode, method)))


def _route_key(account_id: str, mode: str, method: str, psp_id: str) -> dict[str, str]:
    return {"pk": f"ACCOUNT#{account_id}", "sk": f"ALTROUTE#{mode}#{method}#{psp_id}"}

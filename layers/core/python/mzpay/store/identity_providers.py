"""Identity providers of the collection surface in the CollectionTable:

| pk | sk | holds |
|---|---|---|
| `IDP#<id>` | `IDP` | the provider (secrets KMS-encrypted, with hints), version; gsi1 `IDP` / `<id>` lists them |
| `IDPISSUER#<issuer_url>` | `IDPISSUER` | the issuer's provider (unique): type, jwks_uri, bound account_ids |
| `AUDIT#IDP#<id>` | `<at>#<audit id>` | one audit record per create, update and delete |

Every change is one transaction: the provider conditioned on its version, its issuer pointer
conditioned on the issuer being free, and the audit record, together or not at all.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from mzpay.store.aws import client, env, in_index, index_entry, query_up_to
from mzpay.store.base import SealedTableStore, put_new

LIST_KEY = "IDP"
_POINTER_FIELDS = ("idp_id", "type", "jwks_uri", "account_ids")


class Conflict(Exception):
    """A transaction lost: `what` is "version" (changed meanwhile), "issuer" (taken) or "gone"."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def idp_key(idp_id: str) -> dict[str, str]:
    return {"pk": f"IDP#{idp_id}", "sk": "IDP"}


def issuer_key(issuer_url: str) -> dict[str, str]:
    return {"pk": f"IDPISSUER#{issuer_url}", "sk": "IDPISSUER"}


def audit_partition(idp_id: str) -> str:
    return f"AUDIT#IDP#{idp_id}"


@dataclass(frozen=True)
class Page:
    items: list[dict[str, Any]]
    last_key: dict[str, str] | None  # where the next page starts, None when there is none


def _cancelled(exc: BaseException) -> list[str] | None:
    """The cancellation reason codes of a cancelled transaction, else None."""
    response = getattr(exc, "response", {}) or {}
    if response.get("Error", {}).get("Code") != "TransactionCanceledException":
        return None
    return [reason.get("Code", "None") for reason in response.get("CancellationReasons") or []]


class IdentityProviders(SealedTableStore):
    @classmethod
    def from_env(cls) -> IdentityProviders:
        return cls(env("COLLECTION_TABLE"), env("DATA_KEY_ID"))

    # ------------------------------------------------------------------ secrets
    def encrypt(self, plaintext: str, idp_id: str, field: str) -> str:
        """KMS-encrypt one secret, bound to its provider and field (encryption context)."""
        blob = client("kms").encrypt(
            KeyId=self.key_id, Plaintext=plaintext.encode(), EncryptionContext={"idp_id": idp_id, "field": field}
        )["CiphertextBlob"]
        return base64.b64encode(blob).decode()

    # ------------------------------------------------------------------ reads
    def get(self, idp_id: str) -> dict[str, Any] | None:
        return self.table.get_item(Key=idp_key(idp_id), ConsistentRead=True).get("Item")  # type: ignore[no-any-return]

    def by_issuer(self, issuer_url: str) -> dict[str, Any] | None:
        """The pointer of the provider owning `issuer_url` (idp_id, type, jwks_uri, account_ids)."""
        return self.table.get_item(Key=issuer_key(issuer_url)).get("Item")  # type: ignore[no-any-return]

    def page(self, size: int, start: dict[str, str] | None) -> Page:
        """Up to `size` providers in creation order after `start`."""
        after = {"ExclusiveStartKey": start} if start else {}
        items = query_up_to(self.table, size + 1, **in_index(LIST_KEY), **after)  # one more: does a page follow?
        if len(items) <= size:
            return Page(items, None)
        last = items[size - 1]
        return Page(items[:size], {name: last[name] for name in ("pk", "sk", "gsi1pk", "gsi1sk")})

    def audit_page(self, idp_id: str, size: int, start: dict[str, str] | None) -> Page:
        """Up to `size` audit records of a provider, newest first."""
        query: dict[str, Any] = {
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": audit_partition(idp_id)},
            "ScanIndexForward": False,
            "Limit": size + 1,
        }
        if start:
            query["ExclusiveStartKey"] = start
        items = self.table.query(**query).get("Items", [])
        if len(items) <= size:
            return Page(items, None)
        last = items[size - 1]
        return Page(items[:size], {"pk": last["pk"], "sk": last["sk"]})

    # ------------------------------------------------------------------ writes
    def _put_audit(self, idp_id: str, audit: dict[str, Any]) -> dict[str, Any]:
        item = {"pk": audit_partition(idp_id), "sk": f"{audit['at']}#{audit['id']}", **audit}
        return put_new(self.name, item)

    def _put_pointer(self, record: dict[str, Any], *, replace_own: bool) -> dict[str, Any]:
        item = {**issuer_key(record["issuer_url"]), **{"idp_id": record["id"]}}
        item |= {name: record.get(name) for name in _POINTER_FIELDS[1:]}
        item["account_ids"] = list(record.get("account_ids") or [])  # sign-in reads the binding here
        condition = "attribute_not_exists(pk)" + (" OR idp_id = :id" if replace_own else "")
        put: dict[str, Any] = {"TableName": self.name, "Item": item, "ConditionExpression": condition}
        if replace_own:
            put["ExpressionAttributeValues"] = {":id": record["id"]}
        return {"Put": put}

    def _transact(self, items: list[dict[str, Any]], reasons: dict[int, str]) -> None:
        try:
            self.client.transact_write_items(TransactItems=items)
        except Exception as exc:
            codes = _cancelled(exc)
            if codes is None:
                raise
            for index, what in reasons.items():
                if index < len(codes) and codes[index] == "ConditionalCheckFailed":
                    raise Conflict(what) from exc
            raise

    def create(self, record: dict[str, Any], audit: dict[str, Any]) -> None:
        """The provider, its issuer pointer and the audit record; Conflict("issuer") when
        another provider has the issuer."""
        item = {**idp_key(record["id"]), **index_entry(LIST_KEY, record["id"]), **record, "version": 1}
        self._transact(
            [
                put_new(self.name, item),
                self._put_pointer(record, replace_own=False),
                self._put_audit(record["id"], audit),
            ],
            {1: "issuer", 0: "version"},
        )

    def update(self, before: dict[str, Any], after: dict[str, Any], audit: dict[str, Any]) -> None:
        """Replace the provider if it is still at `before`'s version; move or refresh its issuer
        pointer; add the audit record. Conflict("version") or Conflict("issuer")."""
        item = {**after, "version": int(before["version"]) + 1}
        items: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self.name,
                    "Item": item,
                    "ConditionExpression": "version = :version",
                    "ExpressionAttributeValues": {":version": int(before["version"])},
                }
            }
        ]
        reasons = {0: "version"}
        if after["issuer_url"] != before["issuer_url"]:
            items.append({"Delete": {"TableName": self.name, "Key": issuer_key(before["issuer_url"])}})
            items.append(self._put_pointer(after, replace_own=False))
            reasons[2] = "issuer"
        elif any(after.get(name) != before.get(name) for name in _POINTER_FIELDS[1:]):
            items.append(self._put_pointer(after, replace_own=True))
            reasons[1] = "issuer"
        items.append(self._put_audit(after["id"], audit))
        self._transact(items, reasons)

    def delete(self, record: dict[str, Any], audit: dict[str, Any]) -> None:
        """Remove the provider and its issuer pointer, and audit it; Conflict("gone") when it
        was removed meanwhile."""
        self._transact(
            [
                {
                    "Delete": {
                        "TableName": self.name,
                        "Key": idp_key(record["id"]),
                        "ConditionExpression": "attribute_exists(pk)",
                    }
                },
                {
                    "Delete": {
                        "TableName": self.name,
                        "Key": issuer_key(record["issuer_url"]),
                        "ConditionExpression": "attribute_not_exists(pk) OR idp_id = :id",
                        "ExpressionAttributeValues": {":id": record["id"]},
                    }
                },
                self._put_audit(record["id"], audit),
            ],
            {0: "gone"},
        )

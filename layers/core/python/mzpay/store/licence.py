"""The collection surface's activated licence: one item of the CollectionTable
(pk LICENCE, sk ACTIVE) holding the licence key, its id and expiry, and which issuer key
verified it. Activation is one conditional write, so of concurrent activations one wins."""

from __future__ import annotations

from typing import Any

from mzpay.store.aws import is_conditional_failure, landed
from mzpay.store.base import InCollectionTable

KEY = {"pk": "LICENCE", "sk": "ACTIVE"}


class Licences(InCollectionTable):
    def read(self) -> dict[str, Any] | None:
        """The activated licence (strongly consistent: a deactivation counts at once)."""
        return self.table.get_item(Key=KEY, ConsistentRead=True).get("Item")  # type: ignore[no-any-return]

    def activate(self, record: dict[str, Any], now_epoch: int, issuer_key: str) -> bool:
        """Store `record` unless a licence is already active: none stored, or the stored one
        expired (expires_epoch <= now) or was verified by another issuer key (now invalid).
        False when an active licence is there."""
        return landed(
            lambda: self.table.put_item(
                Item={**KEY, **record},
                ConditionExpression="attribute_not_exists(pk) OR expires_epoch <= :now OR issuer_key <> :key",
                ExpressionAttributeValues={":now": now_epoch, ":key": issuer_key},
            )
        )

    def deactivate(self) -> dict[str, Any] | None:
        """Remove the stored licence; what it was, or None when there was none."""
        try:
            answer = self.table.delete_item(Key=KEY, ConditionExpression="attribute_exists(pk)", ReturnValues="ALL_OLD")
        except Exception as exc:
            if is_conditional_failure(exc):
                return None
            raise
        return answer.get("Attributes")  # type: ignore[no-any-return]

"""Trusted devices of the collection surface, per account: CollectionTable items
pk DEVICE#<account>#<device_id>, sk DEVICE. The first trust of a device wins (one conditional
write); trusting it again for the same user changes nothing."""

from __future__ import annotations

from typing import Any

from mzpay.store.aws import is_conditional_failure
from mzpay.store.base import InCollectionTable


def device_key(account_id: str, device_id: str) -> dict[str, str]:
    return {"pk": f"DEVICE#{account_id}#{device_id}", "sk": "DEVICE"}


class Devices(InCollectionTable):
    def get(self, account_id: str, device_id: str) -> dict[str, Any] | None:
        return self.table.get_item(Key=device_key(account_id, device_id), ConsistentRead=True).get(  # type: ignore[no-any-return]
            "Item"
        )

    def trust(self, account_id: str, device: dict[str, Any]) -> dict[str, Any]:
        """Store `device` unless the account already trusts it; the stored device either way."""
        key = device_key(account_id, device["device_id"])
        try:
            self.put_new_item({**key, **device})
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            existing = self.get(account_id, device["device_id"])
            if existing is None:  # removed meanwhile: never happens today (no route removes one)
                raise
            return existing
        return {**key, **device}

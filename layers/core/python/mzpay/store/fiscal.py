"""An account's fiscal details as its receipts show them, in the payments table:
FISCAL#<account_id>/DETAILS (set by operators; one set for both modes: a business has one legal
identity)."""

from __future__ import annotations

from mzpay.domain.payments.fiscal import FiscalDetails
from mzpay.store.base import InPaymentsTable, keyed

_fiscal_key = keyed("FISCAL", "DETAILS")


class FiscalDetailsStore(InPaymentsTable):
    """An account's fiscal details (mzpay.domain.payments.fiscal), kept as their JSON."""

    def get(self, account_id: str) -> tuple[FiscalDetails, str] | None:
        """The details and when they were set; None when none were."""
        item = self.table.get_item(Key=_fiscal_key(account_id), ConsistentRead=True).get("Item")
        if not item:
            return None
        return FiscalDetails.model_validate_json(str(item["details"])), str(item["updated_at"])

    def put(self, account_id: str, details: FiscalDetails, now: str) -> None:
        self.table.put_item(Item={**_fiscal_key(account_id), "details": details.model_dump_json(), "updated_at": now})

    def delete(self, account_id: str) -> None:
        self.table.delete_item(Key=_fiscal_key(account_id))

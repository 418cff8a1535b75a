"""Customers and their KYC verifications in CollectionTable: CUST#<customer_id>/CUSTOMER and
KYC#<kyc_id>/KYC (the verification with its log's messages). A customer and its first
verification are created in one transaction; a verification changes by a conditional write on
its status and version (of two racing reviews exactly one lands)."""

from __future__ import annotations

from typing import Any

from mzpay.domain.kyc import Customer, KycVerification
from mzpay.store.aws import env, is_conditional_failure
from mzpay.store.base import TableStore
from mzpay.store.transitions import applied, versioned_update


class VerificationChanged(Exception):
    """The verification moved since it was read."""


def _customer_key(customer_id: str) -> dict[str, str]:
    return {"pk": f"CUST#{customer_id}", "sk": "CUSTOMER"}


def _kyc_key(kyc_id: str) -> dict[str, str]:
    return {"pk": f"KYC#{kyc_id}", "sk": "KYC"}


class KycStore(TableStore):
    @classmethod
    def from_env(cls) -> KycStore:
        return cls(env("COLLECTION_TABLE"))

    def register(self, customer: Customer, verification: KycVerification) -> None:
        puts = [
            {
                "Put": {
                    "TableName": self.name,
                    "Item": {**key, **item},
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            }
            for key, item in (
                (_customer_key(customer.customer_id), customer.item()),
                (_kyc_key(verification.kyc_id), verification.item()),
            )
        ]
        self.client.transact_write_items(TransactItems=puts)

    def customer(self, customer_id: str) -> Customer | None:
        item = self.table.get_item(Key=_customer_key(customer_id), ConsistentRead=True).get("Item")
        return None if item is None else Customer.model_validate(item)

    def verification(self, kyc_id: str) -> KycVerification | None:
        item = self.table.get_item(Key=_kyc_key(kyc_id), ConsistentRead=True).get("Item")
        return None if item is None else KycVerification.model_validate(item)

    def transition(self, verification: KycVerification, changes: dict[str, Any]) -> KycVerification:
        update = versioned_update(self.name, _kyc_key(verification.kyc_id), verification, changes)["Update"]
        try:
            self.client.update_item(**update)
        except Exception as exc:
            if is_conditional_failure(exc):
                raise VerificationChanged() from exc
            raise
        return applied(verification, changes)

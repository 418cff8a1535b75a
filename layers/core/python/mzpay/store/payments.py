"""Payments and their events in DynamoDB.

Payments table: PAY#<provider_payment_id>/PAYMENT (the payment, with status and version) and
PAYID#<account>#<mode>#<payment_id>/PAYID (the merchant's payment_id, unique per account and
mode: the guard that makes a charge happen once). Events table: ACC#<account>#<mode>/EVT#<id>,
also indexed by resource (gsi1: RES#<resource_id>). A creation and every transition is ONE
TransactWriteItems with the event(s) it records.
"""

from __future__ import annotations

from typing import Any

from mzpay.domain.errors import ServiceError
from mzpay.store.aws import env, is_conditional_failure, table


class PaymentIdTaken(Exception):
    """Another request already created the payment with this payment_id."""


def event_item(event: dict[str, Any]) -> dict[str, Any]:
    return {
        "pk": f"ACC#{event['account_id']}#{event['mode']}",
        "sk": f"EVT#{event['id']}",
        "gsi1pk": f"RES#{event['resource_id']}",
        "gsi1sk": f"EVT#{event['id']}",
        **event,
    }


class Payments:
    def __init__(self, payments_table: str, events_table: str) -> None:
        self.table = table(payments_table)
        self.client = self.table.meta.client
        self.name = payments_table
        self.events_name = events_table

    @classmethod
    def from_env(cls) -> Payments:
        return cls(env("PAYMENTS_TABLE"), env("EVENTS_TABLE"))

    def _event_puts(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {
                "Put": {
                    "TableName": self.events_name,
                    "Item": event_item(e),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            }
            for e in events
        ]

    def create(self, payment: dict[str, Any], events: list[dict[str, Any]]) -> None:
        """The payment, its payment_id claim and its events, or PaymentIdTaken."""
        claim = {
            "pk": f"PAYID#{payment['account_id']}#{payment['mode']}#{payment['payment_id']}",
            "sk": "PAYID",
            "provider_payment_id": payment["provider_payment_id"],
            "fingerprint": payment["fingerprint"],
        }
        try:
            self.client.transact_write_items(
                TransactItems=[
                    {
                        "Put": {
                            "TableName": self.name,
                            "Item": {"pk": f"PAY#{payment['provider_payment_id']}", "sk": "PAYMENT", **payment},
                            "ConditionExpression": "attribute_not_exists(pk)",
                        }
                    },
                    {"Put": {"TableName": self.name, "Item": claim, "ConditionExpression": "attribute_not_exists(pk)"}},
                    *self._event_puts(events),
                ]
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                raise PaymentIdTaken() from exc
            raise

    def get(self, provider_payment_id: str) -> dict[str, Any] | None:
        item = self.table.get_item(Key={"pk": f"PAY#{provider_payment_id}", "sk": "PAYMENT"}, ConsistentRead=True).get(
            "Item"
        )
        return dict(item) if item else None

    def by_payment_id(self, account_id: str, mode: str, payment_id: str) -> dict[str, Any] | None:
        claim = self.table.get_item(
            Key={"pk": f"PAYID#{account_id}#{mode}#{payment_id}", "sk": "PAYID"}, ConsistentRead=True
        ).get("Item")
        if claim is None:
            return None
        payment = self.get(claim["provider_payment_id"])  # written with the claim, in one transaction
        return None if payment is None else {**payment, "_claim": dict(claim)}

    def transition(
        self, payment: dict[str, Any], changes: dict[str, Any], events: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """Apply `changes` if the payment is still in the status and version it was read with;
        else 409 invalid_state (a concurrent request changed it first)."""
        names = {f"#f{i}": key for i, key in enumerate(changes)}
        values = {f":v{i}": value for i, value in enumerate(changes.values())}
        assignments = ", ".join(f"#f{i} = :v{i}" for i in range(len(changes)))
        try:
            self.client.transact_write_items(
                TransactItems=[
                    {
                        "Update": {
                            "TableName": self.name,
                            "Key": {"pk": f"PAY#{payment['provider_payment_id']}", "sk": "PAYMENT"},
                            "UpdateExpression": f"SET {assignments}, #version = #version + :one",
                            "ConditionExpression": "#status = :expected_status AND #version = :expected_version",
                            "ExpressionAttributeNames": {**names, "#status": "status", "#version": "version"},
                            "ExpressionAttributeValues": {
                                **values,
                                ":one": 1,
                                ":expected_status": payment["status"],
                                ":expected_version": payment["version"],
                            },
                        }
                    },
                    *self._event_puts(events),
                ]
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                raise ServiceError(
                    409, "invalid_state", "The payment changed meanwhile (another request moved it first)."
                ) from exc
            raise
        return {**payment, **changes, "version": int(payment["version"]) + 1}

    # ------------------------------------------------------------------ routing state
    def unavailable_psps(self, psp_ids: list[str]) -> set[str]:
        """Which of `psp_ids` an operator marked unavailable (one BatchGetItem)."""
        if not psp_ids:
            return set()
        keys = [{"pk": f"PSP#{psp_id}", "sk": "STATUS"} for psp_id in psp_ids]
        response = self.client.batch_get_item(RequestItems={self.name: {"Keys": keys, "ConsistentRead": True}})
        items = response.get("Responses", {}).get(self.name, [])
        return {item["psp_id"] for item in items if not item.get("available", True)}

    def set_psp_availability(self, psp_id: str, available: bool, reason: str, now: str) -> dict[str, Any]:
        item = {
            "pk": f"PSP#{psp_id}",
            "sk": "STATUS",
            "psp_id": psp_id,
            "available": available,
            "reason": reason,
            "updated_at": now,
        }
        self.table.put_item(Item=item)
        return {k: v for k, v in item.items() if k not in ("pk", "sk")}

    def psp_status(self, psp_id: str) -> dict[str, Any]:
        item = self.table.get_item(Key={"pk": f"PSP#{psp_id}", "sk": "STATUS"}, ConsistentRead=True).get("Item")
        if item is None:
            return {"psp_id": psp_id, "available": True, "reason": "", "updated_at": None}
        return {k: v for k, v in item.items() if k not in ("pk", "sk")}

    def record_rejection(self, event: dict[str, Any]) -> None:
        """A refusal before any provider call leaves its event and nothing else."""
        self.client.put_item(TableName=self.events_name, Item=event_item(event))

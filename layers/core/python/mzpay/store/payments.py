"""Payments and their events in DynamoDB.

Payments table: PAY#<provider_payment_id>/PAYMENT (the payment, with status and version) and
PAYID#<account>#<mode>#<payment_id>/PAYID (the merchant's payment_id, unique per account and
mode: the guard that makes a charge happen once). Events table: ACC#<account>#<mode>/EVT#<id>,
also indexed by resource (gsi1: RES#<resource_id>). A creation and every transition is ONE
TransactWriteItems with the event(s) it records.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from mzpay.domain.errors import ServiceError
from mzpay.store.aws import env, is_conditional_failure, table


class PaymentIdTaken(Exception):
    """Another request already created the payment with this payment_id."""


class DailyCeilingReached(Exception):
    """The account's daily total would pass its ceiling."""


@dataclass(frozen=True)
class DailyReservation:
    """Raise the counter `key` by `amount` if the total stays within `ceiling`."""

    key: str
    amount: Decimal
    ceiling: Decimal


def _counter_key(key: str) -> dict[str, str]:
    return {"pk": key, "sk": "TOTAL"}


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

    def _releases(self, payment: dict[str, Any], amount: Decimal) -> list[dict[str, Any]]:
        if amount <= 0 or not payment.get("daily_key"):
            return []
        return [
            {
                "Update": {
                    "TableName": self.name,
                    "Key": _counter_key(payment["daily_key"]),
                    "UpdateExpression": "ADD #total :release",
                    "ExpressionAttributeNames": {"#total": "total"},
                    "ExpressionAttributeValues": {":release": -amount},
                }
            }
        ]

    def create(
        self, payment: dict[str, Any], events: list[dict[str, Any]], daily: DailyReservation | None = None, ttl: int = 0
    ) -> None:
        """The payment, its payment_id claim, its events and (with a daily ceiling) the raised
        daily total: all or nothing. PaymentIdTaken or DailyCeilingReached otherwise."""
        claim = {
            "pk": f"PAYID#{payment['account_id']}#{payment['mode']}#{payment['payment_id']}",
            "sk": "PAYID",
            "provider_payment_id": payment["provider_payment_id"],
            "fingerprint": payment["fingerprint"],
        }
        items: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self.name,
                    "Item": {"pk": f"PAY#{payment['provider_payment_id']}", "sk": "PAYMENT", **payment},
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            {"Put": {"TableName": self.name, "Item": claim, "ConditionExpression": "attribute_not_exists(pk)"}},
        ]
        if daily is not None:
            items.append(
                {
                    "Update": {
                        "TableName": self.name,
                        "Key": _counter_key(daily.key),
                        "UpdateExpression": "ADD #total :amount SET #ttl = :ttl",
                        "ConditionExpression": "attribute_not_exists(#total) OR #total <= :room",
                        "ExpressionAttributeNames": {"#total": "total", "#ttl": "ttl"},
                        "ExpressionAttributeValues": {
                            ":amount": daily.amount,
                            ":room": daily.ceiling - daily.amount,
                            ":ttl": ttl,
                        },
                    }
                }
            )
        try:
            self.client.transact_write_items(TransactItems=[*items, *self._event_puts(events)])
        except Exception as exc:
            if not is_conditional_failure(exc):
                raise
            reasons = [r.get("Code") for r in getattr(exc, "response", {}).get("CancellationReasons") or []]
            if (
                daily is not None
                and len(reasons) > 2
                and reasons[2] == "ConditionalCheckFailed"
                and "ConditionalCheckFailed" not in reasons[:2]
            ):
                raise DailyCeilingReached() from exc
            raise PaymentIdTaken() from exc

    def daily_total(self, key: str) -> Decimal:
        item = self.table.get_item(Key=_counter_key(key), ConsistentRead=True).get("Item")
        return Decimal(item["total"]) if item else Decimal(0)

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
        self,
        payment: dict[str, Any],
        changes: dict[str, Any],
        events: list[dict[str, Any]],
        release: Decimal = Decimal(0),
    ) -> dict[str, Any]:
        """Apply `changes` if the payment is still in the status and version it was read with;
        else 409 invalid_state (a concurrent request changed it first). `release` gives back that
        much of the payment's daily reservation, in the same transaction."""
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
                    *self._releases(payment, release),
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

    def count_attempt(self, key: str, limit: int, ttl: int) -> bool:
        """Count one more attempt under `key`; False (and nothing counted) once `limit` is reached."""
        try:
            self.table.update_item(
                Key=_counter_key(key),
                UpdateExpression="ADD #count :one SET #ttl = :ttl",
                ConditionExpression="attribute_not_exists(#count) OR #count < :limit",
                ExpressionAttributeNames={"#count": "count", "#ttl": "ttl"},
                ExpressionAttributeValues={":one": 1, ":limit": limit, ":ttl": ttl},
            )
        except Exception as exc:
            if is_conditional_failure(exc):
                return False
            raise
        return True

    def record_rejection(self, event: dict[str, Any]) -> None:
        """A refusal before any provider call leaves its event and nothing else."""
        self.client.put_item(TableName=self.events_name, Item=event_item(event))

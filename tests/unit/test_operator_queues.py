"""The operators' queues (mzpay.store.transitions.Queue): the index keys a waiting entity carries,
and the versioned update that puts it in or takes it out in the same write as its status."""

from __future__ import annotations

from typing import Any

from mzpay.domain.common.entity import Entity
from mzpay.store.transitions import Queue, queued, versioned_update

QUEUE = Queue("THINGS#AWAITING", "waiting")
KEY = {"pk": "T#1", "sk": "THING"}


class Thing(Entity):
    created_at: str = "2026-11-25T10:00:00Z"
    due_at: str | None = None


def update(before: Thing, changes: dict[str, Any]) -> dict[str, Any]:
    return queued(versioned_update("table", KEY, before, changes), before, before.with_changes(changes), QUEUE, "T1")


def test_only_a_waiting_entity_has_queue_keys_sorted_by_creation() -> None:
    assert QUEUE.keys(Thing(status="waiting", version=1), "T1") == {
        "gsi1pk": "THINGS#AWAITING",
        "gsi1sk": "2026-11-25T10:00:00Z#T1",
    }
    assert QUEUE.keys(Thing(status="done", version=1), "T1") == {}


def test_entering_the_waiting_status_sets_the_keys_in_the_same_update() -> None:
    body = update(Thing(status="open", version=3), {"status": "waiting"})["Update"]
    assert body["UpdateExpression"] == "SET #qk0 = :qk0, #qk1 = :qk1, #f0 = :v0, #version = #version + :one"
    assert {k: v for k, v in body["ExpressionAttributeNames"].items() if k.startswith("#qk")} == {
        "#qk0": "gsi1pk",
        "#qk1": "gsi1sk",
    }
    assert (body["ExpressionAttributeValues"][":qk0"], body["ExpressionAttributeValues"][":qk1"]) == (
        "THINGS#AWAITING",
        "2026-11-25T10:00:00Z#T1",
    )
    assert body["ConditionExpression"] == "#status = :expected_status AND #version = :expected_version"


def test_leaving_it_removes_the_keys_beside_what_the_change_removes() -> None:
    body = update(Thing(status="waiting", version=3), {"status": "done"})["Update"]
    assert body["UpdateExpression"] == "SET #f0 = :v0, #version = #version + :one REMOVE #qk0, #qk1"
    body = update(Thing(status="waiting", version=3, due_at="x"), {"status": "done", "due_at": None})["Update"]
    assert body["UpdateExpression"] == "SET #f0 = :v0, #version = #version + :one REMOVE #qk0, #qk1, #r0"
    assert body["ExpressionAttributeNames"]["#r0"] == "due_at"


def test_a_change_that_keeps_the_status_leaves_the_queue_alone() -> None:
    plain = versioned_update("table", KEY, Thing(status="waiting", version=3), {"due_at": "y"})
    assert update(Thing(status="waiting", version=3), {"due_at": "y"}) == plain

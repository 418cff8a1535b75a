"""The items of a PSP's routing state in the payments table, written by operators (PUT
/v1/psps/{id}/availability and /pilot) and by an approved onboarding application:
PSP#<psp_id>/STATUS (available, reason) and PSP#<psp_id>/PILOT (in_pilot, settings)."""

from __future__ import annotations

from typing import Any


def status_item(psp_id: str, available: bool, reason: str, now: str) -> dict[str, Any]:
    return {
        "pk": f"PSP#{psp_id}",
        "sk": "STATUS",
        "psp_id": psp_id,
        "available": available,
        "reason": reason,
        "updated_at": now,
    }


def pilot_item(psp_id: str, pilot: dict[str, Any]) -> dict[str, Any]:
    """`pilot`: PilotState.public()."""
    return {"pk": f"PSP#{psp_id}", "sk": "PILOT", "psp_id": psp_id, **pilot}

"""The one clock and the one timestamp format: UTC ISO 8601 with a Z, to the second (so that
deadlines compare as strings)."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """UTC ISO 8601 to the second with a Z, whatever offset `moment` came with."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def now_iso() -> str:
    return iso(now())


def parse_iso(text: str | None) -> datetime | None:
    """The moment `text` names (None for None or empty)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None

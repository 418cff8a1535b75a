"""Sections of the benchmark, the printed table and bench/results.json."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import ROOT

Row = dict[str, Any]


@dataclass(frozen=True)
class Column:
    """One column of a section's table: a row key, its heading and how to format its values."""

    key: str
    title: str
    fmt: str = ""  # format spec for numbers, e.g. ".1f"


@dataclass(frozen=True)
class Section:
    """One kind of measurement: `run` returns its rows (one per case); rows go to results.json
    under `key` and to the table with `columns`."""

    key: str
    title: str
    columns: Sequence[Column]
    run: Callable[[], list[Row]]


def _cell(value: Any, column: Column) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)) and column.fmt:
        return format(value, column.fmt)
    return "" if value is None else str(value)


def render_table(title: str, columns: Sequence[Column], rows: Sequence[Row]) -> str:
    """`rows` as an aligned text table under `title`: text left-aligned, numbers right-aligned."""
    cells = [[_cell(row.get(column.key), column) for column in columns] for row in rows]
    widths = [max([len(column.title)] + [len(line[i]) for line in cells]) for i, column in enumerate(columns)]
    numeric = [any(isinstance(row.get(column.key), (int, float)) for row in rows) for column in columns]

    def line(values: Sequence[str]) -> str:
        padded = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric, strict=True)]
        return "  ".join(padded).rstrip()

    header = line([column.title for column in columns])
    rule = "  ".join("-" * width for width in widths)
    return "\n".join([title, "=" * len(title), header, rule, *(line(values) for values in cells)])


def _git(*args: str) -> str | None:
    try:
        result = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def metadata() -> dict[str, Any]:
    """Where and when the numbers were taken."""
    commit = _git("rev-parse", "HEAD")
    changes = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "git_commit": commit,
        "git_dirty": None if changes is None else bool(changes),
    }


def write_results(path: Path, meta: dict[str, Any], results: dict[str, Any]) -> None:
    """results.json: the metadata and every section's rows (or its error)."""
    path.write_text(json.dumps({"metadata": meta, **results}, indent=2) + "\n", encoding="utf-8")

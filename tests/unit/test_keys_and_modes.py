"""Modes never meet (issue 30, item 4): every storage key the package builds is listed in
docs/architecture.md ("Keys and modes") with where its mode is, and a key said to hold the mode is
built with it everywhere. A new key prefix, or a per-mode key built without the mode (as bill
invoices once were: INVOICE#<biller>#<number>), fails here until the table says why."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "layers" / "core" / "python" / "mzpay"
TABLE = ROOT / "docs" / "architecture.md"
PREFIX = re.compile(r"^([A-Z][A-Z0-9_]*)#")
KINDS = ("key", "partition", "record", "shared")


def built_keys(package: Path = PACKAGE) -> dict[tuple[str, str], set[bool]]:
    """(prefix, module) -> whether each f-string of that prefix there (and each `keyed(prefix,
    ...)` key) is built with a `mode`."""
    found: dict[tuple[str, str], set[bool]] = defaultdict(set)
    for path in sorted(package.rglob("*.py")):
        module = path.relative_to(package).as_posix()
        if module.startswith(("openapi/", "answers/")):  # examples in documents, not storage
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "keyed":  # store.base.keyed
                prefix = node.args[0]
                if isinstance(prefix, ast.Constant) and isinstance(prefix.value, str):
                    found[(prefix.value, module)].add(False)  # `<prefix>#<id>`: no mode
                continue
            if not isinstance(node, ast.JoinedStr) or not node.values:
                continue
            head = node.values[0]
            if not isinstance(head, ast.Constant) or not isinstance(head.value, str):
                continue
            match = PREFIX.match(head.value)
            if match is None:
                continue
            names = {
                name.id if isinstance(name, ast.Name) else name.attr
                for part in node.values
                if isinstance(part, ast.FormattedValue)
                for name in ast.walk(part.value)
                if isinstance(name, ast.Name | ast.Attribute)
            }
            found[(match.group(1), module)].add("mode" in names)
    return found


def documented() -> list[tuple[str, list[str], str, str]]:
    """The rows of the table: (prefix, modules, kind, why)."""
    text = TABLE.read_text(encoding="utf-8").split("## Keys and modes", 1)[1]
    rows = []
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`"):
            continue
        prefix = cells[0].strip("`").rstrip("#")
        kind, _, why = cells[3].partition(":")
        rows.append((prefix, [m.strip() for m in cells[1].split(",")], kind.split(" (")[0].strip(), why.strip()))
    return rows


def test_the_table_is_read() -> None:
    rows = documented()
    assert len(rows) > 50
    assert ("INVOICE", ["store/bills.py"], "key", "") in [(p, m, k, "") for p, m, k, _ in rows]


def test_every_key_prefix_is_in_the_table_once_per_module() -> None:
    rows = documented()
    for (prefix, module), _modes in built_keys().items():
        matching = [row for row in rows if row[0] == prefix and module in row[1]]
        assert len(matching) == 1, f"{prefix}# built in {module}: add it to docs/architecture.md, Keys and modes"


def test_every_row_names_a_key_that_is_built() -> None:
    built = built_keys()
    for prefix, modules, kind, _why in documented():
        assert kind in KINDS, (prefix, kind)
        for module in modules:
            assert (prefix, module) in built, f"{prefix}# is no longer built in {module}: drop it from the table"


def mode_violations(built: dict[tuple[str, str], set[bool]]) -> list[str]:
    problems = []
    for prefix, modules, kind, why in documented():
        modes = set().union(*(built.get((prefix, module), set()) for module in modules))
        if kind == "key" and modes != {True}:
            problems.append(f"{prefix}# is per mode but built without the mode")
        if kind != "key" and True in modes:
            problems.append(f"{prefix}# is built with the mode: say `key` in the table")
        if kind == "shared" and not why:
            problems.append(f"{prefix}# is shared by both modes: the table must say why")
    return problems


def test_a_per_mode_key_is_built_with_the_mode_everywhere_and_only_there() -> None:
    assert mode_violations(built_keys()) == []


def test_the_old_invoice_key_of_both_modes_is_caught(tmp_path: Path) -> None:
    """The check itself: a store building the invoice key without the mode (as before issue 30)."""
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "bills.py").write_text(
        'def invoice_key(biller_id, number):\n    return {"pk": f"INVOICE#{biller_id}#{number}", "sk": "INVOICE"}\n'
    )
    built = {**built_keys(), ("INVOICE", "store/bills.py"): built_keys(tmp_path)[("INVOICE", "store/bills.py")]}
    assert mode_violations(built) == ["INVOICE# is per mode but built without the mode"]

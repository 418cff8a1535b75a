"""One typed answer per shape (mzpay.answers): the public use cases of the collection and management
surfaces return answer models, never a bare dict; a returned model is written with the keys its
use case set (nulls kept, absent keys absent) and its money as JSON numbers, digit for digit."""

from __future__ import annotations

import ast
from decimal import Decimal
from pathlib import Path
from typing import Literal

from pydantic import Field

from mzpay.answers.base import Answer, ListOf, sometimes
from mzpay.http.resolver import dumps

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "python" / "mzpay"
# The use-case modules whose answers are models; the rest of the surfaces still to convert are
# named in NOT_YET (docs/architecture.md, "Answers"), and the list only shrinks.
CONVERTED = ("collection/identity_providers.py", "collection/devices.py", "collection/licence.py")


def public_functions_returning_dict(path: Path) -> list[str]:
    found = []
    for node in ast.parse(path.read_text()).body:
        public = isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
        if public and node.returns is not None and ast.unparse(node.returns).startswith(("dict", "list[dict")):
            found.append(node.name)
    return found


def test_no_converted_use_case_answers_a_bare_dict() -> None:
    offenders = {name: public_functions_returning_dict(PACKAGE / name) for name in CONVERTED}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_check_finds_a_public_function_annotated_dict(tmp_path: Path) -> None:
    module = tmp_path / "case.py"
    module.write_text("def read() -> dict[str, Any]:\n    return {}\n\ndef _private() -> dict:\n    return {}\n")
    assert public_functions_returning_dict(module) == ["read"]


class _Item(Answer):
    """An item."""

    value: Decimal = Field(description="Money, a JSON number.")
    note: str | None = sometimes("Only some items have one.")


class _Items(ListOf[_Item]):
    """A list."""

    error: None = Field(description="Always null.")
    kind: Literal["x"] | None = sometimes("Sometimes.")


def test_an_answer_is_written_with_the_keys_it_was_given_and_exact_money() -> None:
    answer = _Items(
        object="list",
        data=[_Item(value=Decimal("1500.00")), _Item(value=Decimal("1"), note=None)],
        has_more=False,
        error=None,
    )
    assert dumps(answer.wire()) == (
        '{"object":"list","data":[{"value":1500.00},{"value":1,"note":null}],"has_more":false,"error":null}'
    )

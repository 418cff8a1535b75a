"""One typed answer per shape (mzpay.answers): the public use cases of the collection surface
(mzpay.collection) return answer models, never a bare dict, and its routes document them; a
returned model is written with the keys its use case set (nulls kept, absent keys absent) and its
money as JSON numbers, digit for digit."""

from __future__ import annotations

import ast
from decimal import Decimal
from pathlib import Path
from typing import Literal

import pytest
from pydantic import Field, ValidationError

from mzpay.answers.base import Answer, ListOf, Number, sometimes
from mzpay.answers.collection_request_parts import CollectionAmount
from mzpay.answers.collection_system import OpenApiDocument
from mzpay.http.resolver import dumps
from mzpay.openapi.collection import ROUTES

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "python" / "mzpay"
# Public functions of mzpay.collection that still answer a dict: the management API's answers,
# converted with that surface's models (mzpay.openapi.management*). The set only shrinks: a stale
# entry fails the test too.
NOT_YET: frozenset[str] = frozenset()


def public_functions_returning_dict(path: Path) -> list[str]:
    found = []
    for node in ast.parse(path.read_text()).body:
        public = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_")
        if public and node.returns is not None and ast.unparse(node.returns).startswith(("dict", "list[dict", "Dict")):
            found.append(node.name)
    return found


def collection_dict_answers() -> set[str]:
    """module.function of every public function of mzpay.collection annotated to return a dict."""
    return {
        f"{path.stem}.{name}"
        for path in sorted((PACKAGE / "collection").glob("*.py"))
        for name in public_functions_returning_dict(path)
    }


def test_no_collection_use_case_answers_a_bare_dict() -> None:
    assert collection_dict_answers() - NOT_YET == set()


def test_a_converted_use_case_leaves_the_list() -> None:
    assert NOT_YET - collection_dict_answers() == set()


def test_every_collection_route_answers_a_model_of_the_answers_package() -> None:
    models = [model for model in ROUTES.values() if model is not None and model is not OpenApiDocument]
    assert models and all(issubclass(model, Answer) for model in models)
    assert {model.__module__.rsplit(".", 1)[0] for model in models} == {"mzpay.answers"}


def test_the_check_finds_a_public_function_annotated_dict(tmp_path: Path) -> None:
    module = tmp_path / "case.py"
    module.write_text("def read() -> dict[str, Any]:\n    return {}\n\ndef _private() -> dict:\n    return {}\n")
    assert public_functions_returning_dict(module) == ["read"]


class _Item(Answer):
    """An item."""

    value: Number = Field(description="Money, a JSON number.")
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


def test_collection_money_is_a_decimal_written_digit_for_digit() -> None:
    for text in ("150", "150.0", "150.00", "1500.50"):
        amount = CollectionAmount.of({"currency": "MZN", "value": Decimal(text)})
        assert isinstance(amount.value, Decimal)
        assert dumps(amount.wire()) == f'{{"currency":"MZN","value":{text}}}'
    assert CollectionAmount.model_json_schema()["properties"]["value"]["type"] == "number"
    with pytest.raises(ValidationError):
        CollectionAmount.of({"currency": "MZN", "value": "150.00"})  # never text

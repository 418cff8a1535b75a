"""One typed answer per shape (issue 31 item 3), on the gateway: a public use case of mzpay.cases
returns an answer model of mzpay.answers (or another typed value), never a bare dict; the models sit
below the use cases; the gateway's answers carry no top-level `object` and its lists share one
envelope (`mzpay.answers.base.Page`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import BaseModel

from mzpay.answers.base import Answer, Page, sometimes
from mzpay.openapi.gateway import ROUTES

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "python" / "mzpay"

# The use cases that still answer a dict: none now (the last, the console's operator_reads, answer models);
# a new use case never joins it (the test fails on it), and an entry with no such use case fails too.
NOT_CONVERTED: frozenset[str] = frozenset()


def dict_answers() -> set[str]:
    """module.function of every public use case of mzpay.cases and mzpay.operators annotated to
    return a dict."""
    found = set()
    for path in sorted([*(PACKAGE / "cases").glob("*.py"), *(PACKAGE / "operators").glob("*.py")]):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"):
                returns = ast.unparse(node.returns) if node.returns else ""
                if returns == "dict" or returns.startswith(("dict[", "Dict", "tuple[dict")):
                    found.add(f"{path.stem}.{node.name}")
    return found


def test_no_new_use_case_answers_a_bare_dict() -> None:
    assert dict_answers() - NOT_CONVERTED == set()


def test_a_converted_use_case_leaves_the_list() -> None:
    assert NOT_CONVERTED - dict_answers() == set()


def test_the_walk_sees_a_dict_annotation() -> None:  # the check itself can fail
    tree = ast.parse("def answer() -> dict[str, Any]: ...")
    assert ast.unparse(tree.body[0].returns).startswith("dict[")  # type: ignore[attr-defined]


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update([node.module, *(f"{node.module}.{alias.name}" for alias in node.names)])
    return names


def test_the_answers_sit_below_the_use_cases_and_above_the_domain() -> None:
    above = ("mzpay.cases", "mzpay.collection", "mzpay.steps", "mzpay.http", "mzpay.store", "mzpay.deps")
    for path in (PACKAGE / "answers").glob("*.py"):
        assert not [name for name in imports(path) if name.startswith(above)], path.name
    for path in [*(PACKAGE / "domain").rglob("*.py"), *(PACKAGE / "store").rglob("*.py")]:
        assert not [name for name in imports(path) if name.startswith("mzpay.answers")], path.name


GATEWAY_ANSWERS = [model for model in dict.fromkeys(ROUTES.values()) if isinstance(model, type)]
# A payout batch is the management API's answer too (its approvals): its `object` goes with that API's.
SHARED_WITH_MANAGEMENT = {"PayoutBatch"}


@pytest.mark.parametrize(
    "model",
    [model for model in GATEWAY_ANSWERS if model.__name__ not in SHARED_WITH_MANAGEMENT],
    ids=lambda model: model.__name__,
)
def test_a_gateway_answer_has_no_object_discriminator(model: type[BaseModel]) -> None:
    assert "object" not in model.model_fields
    for example in model.model_json_schema().get("examples") or []:
        assert "object" not in example


def test_the_payout_batch_keeps_its_object_with_the_management_api() -> None:
    shared = [model for model in GATEWAY_ANSWERS if model.__name__ in SHARED_WITH_MANAGEMENT]
    assert [model.__name__ for model in shared] == ["PayoutBatch"]
    assert "object" in shared[0].model_fields


@pytest.mark.parametrize("model", GATEWAY_ANSWERS, ids=lambda model: model.__name__)
def test_every_gateway_list_is_the_one_envelope(model: type[BaseModel]) -> None:
    fields = model.model_fields
    if "data" in fields and "list" in str(fields["data"].annotation).lower():
        assert issubclass(model, Page), model.__name__


def test_an_answer_sends_the_keys_it_was_built_with() -> None:
    class Shown(Answer):
        always: str | None
        sometimes_there: int | None = None

    assert Shown(always=None).model_dump() == {"always": None}
    assert Shown(always="a", sometimes_there=None).model_dump() == {"always": "a", "sometimes_there": None}
    assert Shown.of({"always": "a", "sometimes_there": 2}).model_dump(mode="json") == {
        "always": "a",
        "sometimes_there": 2,
    }
    with pytest.raises(ValueError):
        Shown.of({"always": "a", "object": "shown"})


def test_a_nested_answer_left_out_is_left_out() -> None:
    class Inner(Answer):
        value: str

    class Outer(Answer):
        inner: Inner = sometimes("sometimes there")
        other: Inner = sometimes("sometimes there")

    assert Outer(inner=Inner(value="x")).model_dump() == {"inner": {"value": "x"}}
    assert Outer.of({"other": {"value": "y"}}).model_dump(mode="json") == {"other": {"value": "y"}}


@pytest.mark.parametrize("model", GATEWAY_ANSWERS, ids=lambda model: model.__name__)
def test_each_example_goes_out_as_it_came_in(model: type[BaseModel]) -> None:
    """An answer model built from its documented example writes the example back, key for key."""
    for example in model.model_json_schema().get("examples") or []:
        assert model.model_validate(example).model_dump(mode="json") == example


def test_a_balance_a_dispute_overdrew_is_answered() -> None:
    """A dispute takes its money even from a spent balance: available goes below zero."""
    from mzpay.answers.balance import Balance

    overdrawn = {
        "mode": "test",
        "balances": [{"currency": "MZN", "available": "-80.00", "held": "0.00", "fees": "0.00"}],
    }
    assert Balance.of(overdrawn).model_dump(mode="json") == overdrawn

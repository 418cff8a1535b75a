"""Checks every surface's OpenAPI answer models and document pass, written once."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

VERBS = ("get", "put", "post", "delete", "patch")


def assert_examples_valid_and_described(models: Iterable[type[BaseModel]]) -> None:
    """Every model has examples that validate, and a description on itself, on each model it
    defines and on every field; every object schema refuses members it does not declare."""
    for model in models:
        schema = model.model_json_schema()
        assert schema.get("examples"), model.__name__
        for example in schema["examples"]:
            model.model_validate(example)
        for name, part in [(model.__name__, schema), *schema.get("$defs", {}).items()]:
            assert part.get("description"), name
            for field, spec in part.get("properties", {}).items():
                assert spec.get("description"), f"{name}.{field}"
            if "properties" in part:
                assert part["additionalProperties"] is False, name


def document_operations(path: Path) -> tuple[dict[str, Any], set[tuple[str, str]]]:
    """The OpenAPI document at `path` and its operations as (METHOD, path) pairs."""
    document = json.loads(path.read_text())
    operations = {(m.upper(), route) for route, item in document["paths"].items() for m in item if m in VERBS}
    return document, operations


def shipped_document(surface: str) -> Path:
    """The surface's OpenAPI document: shipped in the layer (served at /openapi.json), or the copy
    docs/openapi links to."""
    root = Path(__file__).resolve().parents[2]
    layer = root / "layers/core/python/mzpay/openapi/documents" / f"{surface}.json"
    return next(path for path in (layer, root / "docs/openapi" / f"{surface}.json") if path.exists())


def request_body_models(surface: str) -> dict[tuple[str, str], type[BaseModel]]:
    """(METHOD, path) -> the pydantic model a route of `surface` really takes as its body: the
    `Annotated[Model, Body()]` (or `Model | None`) parameter of the route's function, read from the
    functions the template puts behind the surface's API."""
    import inspect
    import typing

    from aws_lambda_powertools.event_handler.openapi.params import Body

    from devstack.modules import load_module
    from devstack.template import load_template

    root = Path(__file__).resolve().parents[2]
    api = f"{surface.capitalize()}Api"
    found: dict[tuple[str, str], type[BaseModel]] = {}
    for logical_id, resource in load_template(root / "template.yaml")["Resources"].items():
        events = (resource["Properties"].get("Events") or {}).values() if "Properties" in resource else []
        if resource["Type"] != "AWS::Serverless::Function" or not any(
            e["Type"] == "Api" and e["Properties"]["RestApiId"]["Ref"] == api for e in events
        ):
            continue
        props = resource["Properties"]
        module_name = props["Handler"].rpartition(".")[0]
        module = load_module(root / props["CodeUri"] / f"{module_name}.py", f"body_models_{logical_id}")
        app = module.app
        for route in [*app._static_routes, *app._dynamic_routes]:  # Powertools' route tables
            hints = typing.get_type_hints(inspect.unwrap(route.func), include_extras=True)
            for hint in hints.values():
                if typing.get_origin(hint) is not typing.Annotated or not any(
                    isinstance(mark, Body) for mark in hint.__metadata__
                ):
                    continue
                model = next(a for a in (typing.get_args(hint.__origin__) or (hint.__origin__,)) if a is not type(None))
                methods = route.method if isinstance(route.method, list | tuple) else [route.method]
                for method in methods:
                    found[(str(method).upper(), route.openapi_path)] = model
    return found

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

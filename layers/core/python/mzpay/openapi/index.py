"""What the three route tables (gateway, collection, management) share: the type of an entry, the
routes every API answers about itself, and the models a table names."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, RootModel

from mzpay.answers.base import Answer

Success = type[Answer] | type[RootModel[Any]]
# (method, path) -> the model of its success answer; None: a page for people or its files (HTML, CSS, JS).
Routes = dict[tuple[str, str], Success | None]


def about_routes(health: Success, document: Success) -> Routes:
    """The routes of an API about itself: its health, its OpenAPI document and the /docs page."""
    return {
        ("GET", "/health"): health,
        ("GET", "/openapi.json"): document,
        ("GET", "/docs"): None,
        ("GET", "/docs/{asset}"): None,
    }


def models_of(*answers: Iterable[Success | None]) -> list[type[BaseModel]]:
    """Every model named, once each, in order."""
    return list({model: None for models in answers for model in models if model is not None})

"""The service's words for a field that failed validation: every API answers "amount must be an
object with the fields amount (required) and currency, e.g. {...}", never a library's raw text
("Input should be a valid dictionary or instance of CaptureMoney").

`message(item, model)` words one pydantic error (a dict of `ValidationError.errors()`); `model`
is the request body's model when known, so that a wrong shape can name the expected one.
`example(model)` is a body model's first documented example (json_schema_extra "examples"),
which the OpenAPI documents show as well.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from pydantic_core.core_schema import ErrorType

BUILTIN_TYPES = frozenset(typing.get_args(ErrorType))  # pydantic's own error types
_OBJECT = frozenset({"dict_type", "model_type", "model_attributes_type", "mapping_type", "dataclass_type"})
_ARRAY = frozenset({"list_type", "tuple_type", "set_type", "frozen_set_type", "iterable_type"})
_WHOLE = frozenset({"int_type", "int_parsing", "int_from_float", "int_parsing_size"})
_NUMBER = frozenset({"float_type", "float_parsing", "decimal_type", "decimal_parsing", "finite_number"})
_DATETIME = frozenset({"datetime_type", "datetime_parsing", "datetime_from_date_parsing", "datetime_object_invalid"})
_DATETIME_EXAMPLE = "2026-11-25T10:00:00Z"

# error type -> words after the field's name ({...} filled from the error's context)
_WORDS: dict[str, str] = {
    "missing": "is required",
    "extra_forbidden": "is not a field of this request",
    "string_type": "must be a string",
    "string_unicode": "must be text",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "string_too_long": "must be at most {max_length} characters",
    "too_short": "must have at least {min_length} items",
    "too_long": "must have at most {max_length} items",
    "string_pattern_mismatch": "does not have the expected format (pattern {pattern})",
    "greater_than": "must be greater than {gt}",
    "greater_than_equal": "must be at least {ge}",
    "less_than": "must be less than {lt}",
    "less_than_equal": "must be at most {le}",
    "multiple_of": "must be a multiple of {multiple_of}",
    "decimal_max_places": "must have at most {decimal_places} decimal places",
    "decimal_max_digits": "must have at most {max_digits} digits",
    "decimal_whole_digits": "has too many digits before the decimal point",
    "literal_error": "must be one of {expected}",
    "enum": "must be one of {expected}",
    "union_tag_invalid": "must have {discriminator} one of {expected_tags}",
    "union_tag_not_found": "needs its {discriminator}",
    "timezone_aware": f"needs a time zone, e.g. {_DATETIME_EXAMPLE}",
    "timezone_naive": "must not have a time zone",
    "date_type": "must be a date in ISO 8601, e.g. 2026-11-25",
    "date_parsing": "must be a date in ISO 8601, e.g. 2026-11-25",
    "date_from_datetime_parsing": "must be a date in ISO 8601, e.g. 2026-11-25",
    "uuid_type": "must be a UUID",
    "uuid_parsing": "must be a UUID",
    "url_type": "must be a URL",
    "url_parsing": "must be a URL",
    "url_scheme": "must be a URL with the scheme {expected_schemes}",
    "url_too_long": "must be a URL of at most {max_length} characters",
    "url_syntax_violation": "must be a URL",
    "none_required": "must be null",
}
# our own validators' messages, as pydantic prefixes them
_OWN_PREFIXES = ("Value error, ", "Assertion failed, ")


def message(item: Mapping[str, Any], field: str, model: type[BaseModel] | None = None) -> str:
    """The words for one pydantic error `item` of `field` (its dotted path)."""
    kind = str(item.get("type", ""))
    ctx = item.get("ctx") or {}
    if kind not in BUILTIN_TYPES:  # PydanticCustomError('invalid_phone', ...): already our words
        return str(item.get("msg", "")) or f"{field} is not valid"
    if kind in ("value_error", "assertion_error"):
        text = str(item.get("msg", ""))
        for prefix in _OWN_PREFIXES:
            text = text.removeprefix(prefix)
        return text or f"{field} is not valid"
    if kind in _OBJECT:
        return f"{field} must be an object" + _shape(expected_model(model, item.get("loc", ())))
    if kind in _ARRAY:
        return f"{field} must be an array"
    if kind in _WHOLE:
        return f"{field} must be a whole number"
    if kind in _NUMBER:
        return f"{field} must be a number"
    if kind in _DATETIME:
        return f"{field} must be a date and time in ISO 8601 with a time zone, e.g. {_DATETIME_EXAMPLE}"
    if kind == "string_too_short":
        minimum = ctx.get("min_length", 1)
        return f"{field} must not be empty" if minimum == 1 else f"{field} must be at least {minimum} characters"
    words = _WORDS.get(kind)
    if words is None:
        return f"{field} is not valid"
    try:
        return f"{field} {words.format(**ctx)}"
    except (KeyError, IndexError, ValueError):
        return f"{field} {words.split(' {', 1)[0]}"


def example(model: type[BaseModel] | None) -> Any:
    """The model's first documented example, or None."""
    if model is None:
        return None
    extra = model.model_config.get("json_schema_extra")
    examples = extra.get("examples") if isinstance(extra, dict) else None
    return examples[0] if isinstance(examples, list) and examples else None


def body_hint(model: type[BaseModel] | None) -> str:
    """ " A body of this request looks like {...}." for a route whose body model has an example."""
    sample = example(model)
    return "" if sample is None else f" A body of this request looks like {json.dumps(sample)}."


def expected_model(model: type[BaseModel] | None, loc: Any) -> type[BaseModel] | None:
    """The model expected at `loc` (('body', 'amount') -> CaptureMoney) inside `model`, if any."""
    parts = list(loc or ())
    if parts and parts[0] == "body":
        parts = parts[1:]
    current: Any = model
    for part in parts:
        current = model_in(current)
        if current is None:
            return None
        if isinstance(part, int):
            continue  # an item of a list: the list's item type was taken by _model_in
        field = current.model_fields.get(part)
        if field is None:
            return None
        current = field.annotation
    return model_in(current)


def model_in(annotation: Any) -> type[BaseModel] | None:
    """The model of an annotation: itself, inside Optional/Annotated, or the item of a list."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return model_in(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType, list, tuple):
        models = [m for m in (model_in(arg) for arg in typing.get_args(annotation)) if m is not None]
        return models[0] if len(models) == 1 else None
    return None


def _shape(model: type[BaseModel] | None) -> str:
    if model is None:
        return ""
    names = [f"{name} (required)" if field.is_required() else name for name, field in model.model_fields.items()]
    if not names:
        return ""
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    sample = example(model)
    return f" with the fields {listed}" + ("" if sample is None else f", e.g. {json.dumps(sample)}")

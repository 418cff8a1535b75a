"""The base of every answer model and the wire types the surfaces share.

Conventions: every model refuses keys it does not name; a key that is always there is required
(`X | None` when it may be null); a key present in some answers only is `sometimes(...)`: optional
without a documented default, and left out of the answer when the use case does not set it."""

from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

Timestamp = Annotated[
    str,
    Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$", json_schema_extra={"format": "date-time"}),
]
Mode = Literal["test", "live"]
Item = TypeVar("Item")


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def sometimes(description: str) -> Any:
    """A key that some answers leave out (never null when it is there, unless its type says so)."""
    return Field(default=None, description=description, json_schema_extra=_no_default)


def examples(*answers: dict[str, Any]) -> ConfigDict:
    return ConfigDict(json_schema_extra={"examples": list(answers)})


class Answer(BaseModel):
    """The base of every answer: a key the model does not name is refused."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    def wire(self) -> dict[str, Any]:
        """The answer as the service writes it: the keys it was given (money stays Decimal)."""
        return self.model_dump(mode="python", by_alias=True, exclude_unset=True)


class ListOf(Answer, Generic[Item]):
    """The list envelope of the collection and management surfaces: a list answer subclasses it
    with its item model (describing `data` for it) and adds the page keys it has (next_page_token,
    error)."""

    object: Literal["list"] = Field(description="Always list.")
    data: list[Item] = Field(description="The items of this page.")
    has_more: bool = Field(description="Whether another page follows.")

"""The base of every answer model (`Answer`), the wire types (money as decimal strings on the gateway,
as JSON numbers on the collection surface, `Number`; UTC times),
`sometimes` for a key some answers leave out, the keys many answers share (`CreatedAt`, `UpdatedAt`,
`AccountId`, ...: a type that carries its description), the gateway's one list envelope (`Page`) and the
collection and management surfaces' (`ListOf`, `Paged` when it pages by token).

Every model refuses keys it does not name (`additionalProperties: false`). A key that is always
there is required (`X | None` when it may be null); a key present in some answers only is optional
without a default (`sometimes`): an answer sends exactly the keys it was built with (an unset
`sometimes` key is absent from the JSON, a key set to None is null)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Generic, Literal, Self, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    WithJsonSchema,
    model_serializer,
)

Timestamp = Annotated[
    str,
    Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$", json_schema_extra={"format": "date-time"}),
]
DecimalText = Annotated[str, Field(pattern=r"^(0|[1-9]\d*)(\.\d+)?$")]  # money: "150.00", never a JSON number
SignedDecimalText = Annotated[str, Field(pattern=r"^-?(0|[1-9]\d*)(\.\d+)?$")]  # a balance a dispute overdrew


def _a_number(value: Any) -> Any:
    if isinstance(value, str | bool):  # money on this surface is never text (nor a boolean)
        raise ValueError("a JSON number")
    return value


def _json_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() and value.as_tuple().exponent == 0 else float(value)


# Money on the collection surface: a JSON number, kept a Decimal end to end and written digit for
# digit (the service writes answers in pydantic's Python mode and simplejson with use_decimal:
# 1500.00 stays 1500.00, 150 stays 150); documented as `type: number`. pydantic's own JSON mode,
# which the service does not use, writes a number too (1500.0: its digits are not kept there).
Number = Annotated[
    Decimal,
    BeforeValidator(_a_number),
    PlainSerializer(_json_number, when_used="json"),
    WithJsonSchema({"type": "number"}),
]
Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
Mode = Literal["test", "live"]
Region = Literal["mz", "regional-sa"]  # a service region

# Keys many answers share, described once (a key's description is part of its type).
CreatedAt = Annotated[Timestamp, Field(description="When it was created.")]
UpdatedAt = Annotated[Timestamp, Field(description="When it last changed.")]
AccountId = Annotated[str, Field(description="The account.")]
AlwaysNull = Annotated[None, Field(description="Always null.")]
ByteSize = Annotated[int, Field(description="Its size in bytes.")]
YourMetadata = Annotated[dict[str, str], Field(description="Your metadata ({} when none).")]
When = Annotated[Timestamp, Field(description="When.")]
MadeAt = Annotated[Timestamp, Field(description="When it was made.")]
TestOrLive = Annotated[Mode, Field(description="test or live.")]
TheCurrency = Annotated[Currency, Field(description="The currency.")]
ItsName = Annotated[str, Field(description="Its name.")]
BelongsTo = Annotated[str, Field(description="The account it belongs to.")]
BusinessAccountId = Annotated[str, Field(description="The business account.")]
AlwaysTrue = Annotated[Literal[True], Field(description="Always true.")]
AlwaysFalse = Annotated[Literal[False], Field(description="Always false.")]
ListObject = Annotated[Literal["list"], Field(description="Always list.")]
HasMore = Annotated[bool, Field(description="Whether another page follows.")]
NextPageToken = Annotated[str | None, Field(description="Send it as page_token for the next page; null at the end.")]
WhyFailed = Annotated[str | None, Field(description="Why it failed; else null.")]
FailureInWords = Annotated[str | None, Field(description="The failure in plain words; else null.")]
FailureExplained = Annotated[str | None, Field(description="The failure explained in plain words.")]

ULID = "01JD8Z5K3M2N4P6Q7R8S9T0VWX"
ACCOUNT = "01JC0A1B2C3D4E5F6G7H8J9K0M"


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def sometimes(description: str) -> Any:
    """A key that some answers leave out (never null when it is there, unless its type says so)."""
    return Field(default=None, description=description, json_schema_extra=_no_default)


def examples(*answers: dict[str, Any]) -> ConfigDict:
    return ConfigDict(json_schema_extra={"examples": list(answers)})


class Answer(BaseModel):
    """The base of every answer: a key the model does not name is refused; serialized, it has the
    keys it was built with, no more (see the module's docstring)."""

    model_config = ConfigDict(extra="forbid", defer_build=True, json_schema_mode_override="validation")

    @model_serializer(mode="wrap")
    def _as_built(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if not isinstance(self, BaseModel) or not isinstance(data, dict):  # a `sometimes` model left unset: None
            return data
        fields = type(self).model_fields
        kept: set[str | None] = set(self.model_fields_set)  # by name, and by the alias a key is written under
        kept |= {
            alias for name in self.model_fields_set for alias in (fields[name].alias, fields[name].serialization_alias)
        }
        return {key: value for key, value in data.items() if key in kept}

    def wire(self) -> dict[str, Any]:
        """The answer as the service writes it: the keys it was built with (money stays Decimal)."""
        return self.model_dump(mode="python", by_alias=True, exclude_unset=True)

    @classmethod
    def of(cls, view: dict[str, Any]) -> Self:
        """The answer of a domain object's view (its keys checked against the model)."""
        return cls.model_validate(view)


class BoolAnswer(Answer):
    """The collection surface's `{"object": "bool", <key>: true}`: what it did is done (a subclass names
    the key)."""

    object: Literal["bool"] = Field(description="Always bool.")


class Amount(Answer):
    """An amount of money and its currency."""

    amount: DecimalText = Field(description='A decimal string with the currency\'s fraction digits, e.g. "150.00".')
    currency: Currency = Field(description="The ISO 4217 currency code, e.g. MZN.")


class AmountRange(Answer):
    """The smallest and largest amount something takes (a method's or a PSP's limits in one currency)."""

    min_amount: DecimalText = Field(description="The smallest amount.")
    max_amount: DecimalText = Field(description="The largest amount.")


Item = TypeVar("Item", bound=BaseModel)


class Page(Answer, Generic[Item]):
    """The gateway's list envelope: a page of items, and how to ask for the next page (a list that
    pages by token says `next_page_token`, the events list `next_cursor`; a list that never pages,
    neither)."""

    data: list[Item] = Field(description="The items of this page.")
    has_more: bool = sometimes("Whether another page follows (a list that pages).")
    next_page_token: str | None = sometimes("Pass as page_token for the next page; null on the last.")
    next_cursor: str | None = sometimes("Send it as starting_after for the next page; null at the end.")


class ListOf(Answer, Generic[Item]):
    """The list envelope of the collection and management surfaces: a list answer subclasses it
    with its item model (describing `data` for it) and adds the page keys it has (a list that pages by
    token subclasses `Paged`; error)."""

    object: ListObject
    data: list[Item] = Field(description="The items of this page.")
    has_more: HasMore


class Paged(ListOf[Item], Generic[Item]):
    """A list of the collection or management surface that pages by token: the envelope and the token of
    the next page."""

    next_page_token: NextPageToken


class PagedAnswer(Paged[Item], Generic[Item]):
    """A page of the collection surface, whose answers say `error` (null): the envelope, the next
    page's token and the error."""

    error: AlwaysNull


def page_example(item: dict[str, Any]) -> ConfigDict:
    """The example of a one-page `PagedAnswer` holding `item`."""
    return examples({"object": "list", "data": [item], "has_more": False, "next_page_token": None, "error": None})

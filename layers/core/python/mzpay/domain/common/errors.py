"""Errors of the service: a stable code, the HTTP status the spec gives it, a message for
people, per-field errors and extra members. The domain raises them without knowing HTTP;
`mzpay.http` renders them in each surface's shape."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar


@dataclass(frozen=True)
class FieldError:
    """One failed field of a request: dot-notation path, field code, message for people."""

    field: str
    code: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field, "code": self.code, "message": self.message}


class ServiceError(Exception):
    """A request that ends with an error answer. `extensions` become extra problem members
    (rule, rejection_id, missing_scope...) or collection `metadata`."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        errors: Sequence[FieldError] = (),
        headers: Mapping[str, str] | None = None,
        **extensions: Any,
    ) -> None:
        super().__init__(message)
        self.status = int(status)
        self.code = code
        self.message = message
        self.errors = tuple(errors)
        self.headers = dict(headers or {})
        self.extensions = extensions


def raise_field_errors(errors: list[FieldError], subject: str) -> None:
    """400 for the rules across fields of a `subject` (charge, payout) that failed, if any: one
    failed field answers its own code with its message as the detail (amount_too_low names the
    limit, ...); several answer invalid_request listing them."""
    if not errors:
        return
    codes = {error.code for error in errors}
    code = codes.pop() if len(codes) == 1 else "invalid_request"
    if len(errors) == 1:
        detail = f"{errors[0].field}: {errors[0].message}."
    else:
        detail = f"The {subject} has invalid fields: {', '.join(error.field for error in errors)}."
    raise ServiceError(400, code, detail, errors=errors)


def invalid_field(
    field: str, message: str, code: str = "invalid_request", field_code: str = "invalid_value"
) -> ServiceError:
    """400 `code` for one refused `field`: the detail `<field>: <message>.` and one errors item
    (`field_code`, `message`)."""
    return ServiceError(400, code, f"{field}: {message}.", errors=[FieldError(field, field_code, message)])


def refused_field(code: str, field: str, detail: str, message: str) -> ServiceError:
    """400 `code` for one refused `field`: `detail` for people, and one errors item with the same
    code and `message`."""
    return ServiceError(400, code, detail, errors=[FieldError(field, code, message)])


def field_refusal(problems: list[FieldError]) -> ServiceError:
    """400 for a collection-surface body with field problems: missing_field when every problem is
    an absence (code REQUIRED), else validation_error; one metadata.errors item per problem."""
    only_missing = all(problem.code == "REQUIRED" for problem in problems)
    names = ", ".join(problem.field for problem in problems)
    return ServiceError(
        400,
        "missing_field" if only_missing else "validation_error",
        f"The request has problems: {names}.",
        errors=problems,
    )


T = TypeVar("T")


def allowed_move(transitions: Mapping[tuple[str, str], T], current: str, action: str, refusal: str) -> T:
    """What a state machine's `transitions` give `action` from the status `current` (the status
    it leads to, or those it may reach); else 409 invalid_state saying `refusal`."""
    allowed = transitions.get((current, action))
    if allowed is None:
        raise ServiceError(409, "invalid_state", refusal)
    return allowed


class OfAccount(Protocol):
    """A record of one account."""

    @property
    def account_id(self) -> str: ...


A = TypeVar("A", bound=OfAccount)


def found_of(account_id: str, record: A | None, what: str, code: str = "not_found") -> A:
    """`record` when it is `account_id`'s; 404 `code` ("No such `what`.") for none or another
    account's (which is as good as none)."""
    if record is None or record.account_id != account_id:
        raise ServiceError(404, code, f"No such {what}.")
    return record


def found(entity: T | None, what: str) -> T:
    """`entity`, read by the id the request names; 404 not_found ("No such `what`.") when there
    is none."""
    if entity is None:
        raise ServiceError(404, "not_found", f"No such {what}.")
    return entity


def ensure_room(held: int, most: int, owner: str, things: str) -> None:
    """400 invalid_request ("An account has at most 10 OAuth clients.") when `owner` holds `most`
    of `things` already (`held`)."""
    if held >= most:
        raise ServiceError(400, "invalid_request", f"{owner} has at most {most} {things}.")

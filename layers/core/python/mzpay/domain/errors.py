"""Errors of the service: a stable code, the HTTP status the spec gives it, a message for
people, per-field errors and extra members. The domain raises them without knowing HTTP;
`mzpay.http` renders them in each surface's shape."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


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

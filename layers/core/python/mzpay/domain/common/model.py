"""The one strict base model of every request body: unknown fields are refused (`extra="forbid"`),
and a model's validator is built on first use rather than at import (`defer_build`), so a
function pays only for the models its routes use. Stored entities: domain.common.entity."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class StrictText(Strict):
    """Strict, with surrounding whitespace of every string stripped (operator and collection bodies)."""

    model_config = ConfigDict(str_strip_whitespace=True)


WALLET_EXAMPLE = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}}
"""The mobile wallet the request examples pay from and to."""


def examples(*bodies: Any) -> ConfigDict:
    """The model_config of a model documented by these example bodies (its OpenAPI `examples`)."""
    return ConfigDict(json_schema_extra={"examples": list(bodies)})

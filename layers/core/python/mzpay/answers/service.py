"""The answers of the gateway's service routes: its health, its OpenAPI document and the
secret-scanning labels, and the receipt of a provider's callback."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, RootModel

from mzpay.answers.about import ApiDocument, HealthOf, document_example, health_example
from mzpay.answers.base import Answer, examples


class Health(HealthOf[Literal["gateway"]]):
    """The API is up: which API, region and build answered."""

    model_config = health_example("gateway")


class SecretScanningLabel(Answer):
    """The verdict on one reported token."""

    token_raw: str = Field(description="The token as reported.")
    token_type: str = Field(description="The type the report gave it.")
    label: Literal["true_positive", "false_positive"] = Field(description="true_positive: ours, now revoked.")


class SecretScanningLabels(RootModel[list[SecretScanningLabel]]):
    """One label per reported token, in the report's order."""

    model_config = ConfigDict(
        defer_build=True,
        json_schema_extra={
            "examples": [[{"token_raw": "mzp_live_abc", "token_type": "mzpay_api_key", "label": "false_positive"}]]
        },
    )


class ProviderCallbackReceipt(Answer):
    """A provider's callback was taken: whether it changed the payment, and the payment's status."""

    model_config = examples({"received": True, "applied": True, "status": "succeeded"})

    received: bool = Field(description="Always true: the callback verified and names one of our payments.")
    applied: bool = Field(description="False when the payment was no longer open (a duplicate or a replay).")
    status: str = Field(description="The payment's status after the callback.")


class OpenApiDocument(ApiDocument):
    """This API's OpenAPI 3.1 document (what the /docs page shows)."""

    model_config = document_example("gateway")

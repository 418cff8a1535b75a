"""The management API's answers about itself: health, the stack's information (mzpay.version) and its
OpenAPI document."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.about import BUILD, ApiDocument, BuildInfo, HealthOf, document_example, health_example
from mzpay.answers.base import Answer, Region, examples


class Health(HealthOf[Literal["management"]]):
    """The API is up: which API, region and build answered."""

    model_config = health_example("management")


class SystemInfo(Answer):
    """Which region, stage and build answer, and where the peer regions are."""

    model_config = examples(
        {
            "service_region": "mz",
            "stage": "prod",
            "peer_regions": {"regional-sa": {"gateway": "https://gw.sa.mzpay.example"}},
            "build": BUILD,
        }
    )

    service_region: Region = Field(description="This stack's region.")
    stage: str = Field(description="The stage, e.g. prod.")
    peer_regions: dict[str, dict[str, str]] = Field(description="Per peer region, the URL of each of its APIs.")
    build: BuildInfo = Field(description="The build this stack runs.")


class OpenApiDocument(ApiDocument):
    """This API's OpenAPI 3.1 document (what the /docs page shows)."""

    model_config = document_example("management")

"""The management API's answers about itself: health, the stack's information (mzpay.version) and its
OpenAPI document."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.about import ApiDocument, HealthOf, document_example, health_example
from mzpay.answers.base import Answer, Region, examples


class Health(HealthOf[Literal["management"]]):
    """The API is up: which API, region and build answered."""

    model_config = health_example("management")


class BuildInfo(Answer):
    """The build the stack runs."""

    version: str = Field(description="The service's version.")
    git_commit: str = Field(description="The commit it was built from (unknown when not recorded).")
    build_date: str = Field(description="When it was built (unknown when not recorded).")
    go_version: str = Field(description="The runtime (kept under this name for clients of the spec): python3.x.y.")
    runtime_version: str = Field(description="The runtime, e.g. python3.12.7.")
    platform: str = Field(description="The operating system and architecture, e.g. linux/arm64.")


class SystemInfo(Answer):
    """Which region, stage and build answer, and where the peer regions are."""

    model_config = examples(
        {
            "service_region": "mz",
            "stage": "prod",
            "peer_regions": {"regional-sa": {"gateway": "https://gw.sa.mzpay.example"}},
            "build": {
                "version": "0.1.0",
                "git_commit": "37a8898",
                "build_date": "2026-11-01T08:00:00Z",
                "go_version": "python3.12.7",
                "runtime_version": "python3.12.7",
                "platform": "linux/arm64",
            },
        }
    )

    service_region: Region = Field(description="This stack's region.")
    stage: str = Field(description="The stage, e.g. prod.")
    peer_regions: dict[str, dict[str, str]] = Field(description="Per peer region, the URL of each of its APIs.")
    build: BuildInfo = Field(description="The build this stack runs.")


class OpenApiDocument(ApiDocument):
    """This API's OpenAPI 3.1 document (what the /docs page shows)."""

    model_config = document_example("management")

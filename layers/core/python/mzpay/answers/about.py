"""What every API answers about itself, declared once for the three (mzpay.answers.service, system,
collection_system name theirs): its health (`HealthOf`, the API's name as a literal), its OpenAPI
document (`ApiDocument`; each API's example names it) and the build that runs (`BuildInfo`: the
management API's system info nests it, the collection API's version is it with an `object`)."""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import ConfigDict, Field, RootModel

from mzpay.answers.base import Answer, Region, examples

Api = TypeVar("Api", bound=str)


class HealthOf(Answer, Generic[Api]):
    """The API is up: which API, region and build answered (an API's Health names the API)."""

    status: Literal["ok"] = Field(description="Always ok.")
    api: Api = Field(description="The API that answered.")
    service_region: Region = Field(description="The region that answered.")
    version: str = Field(description="The service's version.")


def health_example(api: str) -> ConfigDict:
    return examples({"status": "ok", "api": api, "service_region": "mz", "version": "0.1.0"})


class BuildInfo(Answer):
    """The build the stack runs."""

    version: str = Field(description="The service's version.")
    git_commit: str = Field(description="The commit it was built from (unknown when not recorded).")
    build_date: str = Field(description="When it was built (unknown when not recorded).")
    go_version: str = Field(description="The runtime (kept under this name for clients of the spec): python3.x.y.")
    runtime_version: str = Field(description="The runtime, e.g. python3.12.7.")
    platform: str = Field(description="The operating system and architecture, e.g. linux/arm64.")


BUILD = {
    "version": "0.1.0",
    "git_commit": "37a8898",
    "build_date": "2026-11-01T08:00:00Z",
    "go_version": "python3.12.7",
    "runtime_version": "python3.12.7",
    "platform": "linux/arm64",
}


class ApiDocument(RootModel[dict[str, Any]]):
    """This API's OpenAPI 3.1 document (what the /docs page shows)."""

    model_config = ConfigDict(defer_build=True)


def document_example(api: str) -> ConfigDict:
    return examples({"openapi": "3.1.0", "info": {"title": f"mzpay {api} API", "version": "1.0.0"}, "paths": {}})

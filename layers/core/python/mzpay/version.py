"""Build and runtime information served by `GET /v1/version` and the health routes."""

from __future__ import annotations

import platform
import sys
from typing import Any

from mzpay import __version__
from mzpay.deps import settings


def runtime_version() -> str:
    """The interpreter that runs the service, e.g. 'python3.12.7'."""
    return "python" + ".".join(str(part) for part in sys.version_info[:3])


def version_info() -> dict[str, str]:
    """The spec's Version info. The service runs on Python, so `go_version` carries the
    Python version for clients built against the spec, and `runtime_version` says the same
    under an honest name."""
    current = settings()
    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(machine, machine)
    return {
        "version": __version__,
        "git_commit": current.git_commit,
        "build_date": current.build_date,
        "go_version": runtime_version(),
        "runtime_version": runtime_version(),
        "platform": f"{sys.platform}/{arch}",
    }


def health_report(api: str) -> dict[str, str]:
    """What a health route answers: the API, its service region and the build it runs."""
    return {"status": "ok", "api": api, "service_region": settings().service_region, "version": __version__}


def stack_info() -> dict[str, Any]:
    """For operators: which region, stage and build answer, and where the peer regions are."""
    current = settings()
    return {
        "service_region": current.service_region,
        "stage": current.stage,
        "peer_regions": current.peer_region_urls,
        "build": version_info(),
    }

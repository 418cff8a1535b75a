"""Stack settings, read once per execution environment from the function's environment."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from urllib.parse import urlsplit

SERVICE_REGIONS = ("mz", "regional-sa")
API_NAMES = ("gateway", "collection", "management")


@dataclass(frozen=True)
class Settings:
    """What a function knows about the stack it runs in."""

    service_region: str
    stage: str
    peer_region_urls: dict[str, dict[str, str]] = field(default_factory=dict)
    git_commit: str = "unknown"
    build_date: str = "unknown"
    # secret-scanning provider -> the URL of its public keys (SECRET_SCANNING_KEYS_URLS)
    secret_scanning_keys_urls: dict[str, str] = field(default_factory=dict)


def parse_peer_region_urls(text: str) -> dict[str, dict[str, str]]:
    """Parse `PeerRegionUrls`: comma-separated `<region>.<api>=<base url>` entries.

    >>> parse_peer_region_urls("regional-sa.gateway=https://gw.sa.example")
    {'regional-sa': {'gateway': 'https://gw.sa.example'}}
    """
    peers: dict[str, dict[str, str]] = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        key, sep, url = entry.partition("=")
        region, dot, api = key.strip().rpartition(".")
        url = url.strip()
        if not sep or not dot or region not in SERVICE_REGIONS or api not in API_NAMES:
            raise ValueError(f"PeerRegionUrls entry {entry!r} is not '<region>.<api>=<url>'")
        parts = urlsplit(url)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise ValueError(f"PeerRegionUrls entry {entry!r} has no http(s) URL with a host")
        peers.setdefault(region, {})[api] = url.rstrip("/")
    return peers


def parse_provider_urls(text: str) -> dict[str, str]:
    """Parse `SecretScanningKeysUrls`: comma-separated `<provider>=<https URL>` entries.

    >>> parse_provider_urls("github=https://api.github.com/meta/public_keys/secret_scanning")
    {'github': 'https://api.github.com/meta/public_keys/secret_scanning'}
    """
    providers: dict[str, str] = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        name, sep, url = (piece.strip() for piece in entry.partition("="))
        if not sep or not name.isidentifier() or urlsplit(url).scheme not in ("https", "http"):
            raise ValueError(f"SecretScanningKeysUrls entry {entry!r} is not '<provider>=<url>'")
        providers[name] = url
    return providers


def read_settings() -> Settings:
    """The settings of this execution environment, validated (mzpay.deps.settings keeps them)."""
    region = os.environ.get("SERVICE_REGION", "")
    if region not in SERVICE_REGIONS:
        raise RuntimeError(f"SERVICE_REGION must be one of {SERVICE_REGIONS}, got {region!r}")
    return Settings(
        service_region=region,
        stage=os.environ.get("STAGE", "prod"),
        peer_region_urls=parse_peer_region_urls(os.environ.get("PEER_REGION_URLS", "")),
        git_commit=os.environ.get("GIT_COMMIT") or "unknown",
        build_date=os.environ.get("BUILD_DATE") or "unknown",
        secret_scanning_keys_urls=parse_provider_urls(os.environ.get("SECRET_SCANNING_KEYS_URLS", "")),
    )

"""The stack's settings: the one place of the layer that reads the function's environment.

`settings()` reads it once per execution environment (on first use, then cached) into one
validated pydantic model, `Settings`: the stack (region, stage, peers, build), the resources
template.yaml names for the function (tables, queues, buckets, keys, secrets; absent where a
function has none) and the stack's tuning (limits, retry schedule, local-stack switches). No
other module reads `os.environ` (tests/unit/test_config.py checks the layer's source).

Stores name what they need with `env("PAYMENTS_TABLE")` (a required resource: RuntimeError when
the function has none) or `optional_env("WEBHOOK_SLOW_QUEUE_URL")`; both answer from the model,
and devstack.code_reach reads those names to derive each function's IAM grants.

Tests: `mzpay.deps.reset()` (or `reload()` here) forgets the settings, so the next `settings()`
reads the environment again; tests/conftest.py does it before every test, so a test that sets
variables with monkeypatch before its first read sees them. Each local-stack function runs in its
own worker process with its own environment (devstack.lambdas), so per-function settings hold.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from mzpay.memo import once, reset

SERVICE_REGIONS = ("mz", "regional-sa")
API_NAMES = ("gateway", "collection", "management")


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


class Settings(BaseModel):
    """What a function knows about the stack it runs in. Each field is read from the environment
    variable of the same name in upper case (`payments_table` <- PAYMENTS_TABLE); an empty
    variable counts as unset."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="ignore", alias_generator=str.upper)

    # ---- the stack
    service_region: str
    stage: str = "prod"
    peer_region_urls: dict[str, dict[str, str]] = Field(default_factory=dict)
    git_commit: str = "unknown"
    build_date: str = "unknown"
    # secret-scanning provider -> the URL of its public keys (SECRET_SCANNING_KEYS_URLS)
    secret_scanning_keys_urls: dict[str, str] = Field(default_factory=dict)

    # ---- the resources template.yaml names for the function (None: this function has none)
    accounts_table: str | None = None
    dashboard_user_pool_id: str | None = None  # the merchant dashboard's Cognito user pool
    dashboard_client_id: str | None = None  # ... and its app client (server-side sign-in)
    audit_table: str | None = None
    collection_table: str | None = None
    directory_table: str | None = None
    events_table: str | None = None
    idempotency_table: str | None = None
    payments_table: str | None = None
    upload_counters_table: str | None = None
    webhook_deliveries_table: str | None = None
    notification_queue_url: str | None = None
    notification_dead_letter_queue_url: str | None = None
    payout_settlement_queue_url: str | None = None
    pay_bill_settlement_queue_url: str | None = None
    report_queue_url: str | None = None
    webhook_queue_url: str | None = None
    webhook_slow_queue_url: str | None = None
    webhook_dead_letter_queue_url: str | None = None
    webhook_dispatch_failure_queue_url: str | None = None
    uploads_bucket: str | None = None
    reports_bucket: str | None = None
    data_key_id: str | None = None
    client_ca_secret: str | None = None
    key_pepper_secret: str | None = None
    operator_token_secret_arn: str | None = None

    # ---- messages to people (docs/notifications.md): the region's SES sending identity and
    # configuration set, and its SMS sender ID (none where the country allows none)
    ses_identity: str | None = None
    ses_from_address: str | None = None
    ses_configuration_set: str | None = None
    sms_sender_id: str | None = None
    test_mode_messages: Literal["record", "deliver"] = (
        "record"  # deliver: test-mode messages are sent too (the local stack's moto)
    )
    # at most this many messages per recipient per Maputo day (0: no cap), and no SMS in these
    # Maputo hours ("HH:MM-HH:MM", "" for none); None: mzpay.domain.messages.courtesy's defaults
    messages_daily_cap: int | None = None
    sms_quiet_hours: str | None = None
    reminder_days_before_due: int = 3  # a collection request's reminder, days before its due date

    # ---- public addresses (else the execute-api one of the request)
    public_gateway_url: str | None = None
    public_collection_url: str | None = None

    # ---- tuning (None: the documented default of the module that uses it)
    rate_limit_per_key: int | None = None
    rate_limit_per_account: int | None = None
    upload_limit_per_minute: int | None = None
    upload_limit_per_day: int | None = None
    upload_bytes_per_day: int | None = None
    reconcile_first_seconds: int | None = None
    webhook_retry_base_seconds: int | None = None
    webhook_retry_time_scale: str | None = None  # a float; the local stack's per-URL override is read beside it
    operator_ip_allowlist: str = ""
    powertools_metrics_namespace: str | None = None
    # AWS client timeouts in seconds (None: mzpay.store.aws's, fit for AWS: 2 s to connect, 5 s to
    # read); the local stack gives its functions longer ones, its moto being slower than AWS
    aws_connect_timeout_seconds: float | None = None
    aws_read_timeout_seconds: float | None = None
    # routing by health (docs/connectors.md#routing-by-health): the outcome counters' buckets and
    # shards, how long an execution environment trusts what it read, and the circuit's thresholds
    route_bucket_seconds: int = Field(default=10, ge=1)
    route_shards: int = Field(default=8, ge=1, le=16)
    route_read_seconds: float = Field(default=2.0, ge=0)
    route_window_seconds: int = Field(default=60, ge=1)
    route_min_volume: int = Field(default=5, ge=1)
    route_failure_rate: float = Field(default=0.5, gt=0, le=1)
    route_cooldown_seconds: int = Field(default=30, ge=0)
    route_probe_charges: int = Field(default=3, ge=1)
    route_consecutive_failures: int = Field(default=5, ge=1)

    # ---- sign-in and licences of the collection API
    oidc_issuer: str = ""
    oidc_jwks_uri: str = ""
    oidc_audience: str | None = None
    licence_issuer: str | None = None
    licence_issuer_public_key: str = ""

    # ---- the local stack only (its receivers and issuer run on localhost)
    webhook_allow_loopback: bool = False
    oidc_allow_loopback: bool = False

    @field_validator("peer_region_urls", mode="before")
    @classmethod
    def _peers(cls, value: Any) -> Any:
        return parse_peer_region_urls(value) if isinstance(value, str) else value

    @field_validator("secret_scanning_keys_urls", mode="before")
    @classmethod
    def _providers(cls, value: Any) -> Any:
        return parse_provider_urls(value) if isinstance(value, str) else value

    @field_validator("webhook_allow_loopback", "oidc_allow_loopback", mode="before")
    @classmethod
    def _switch(cls, value: Any) -> Any:
        """Only `true` (any case) turns a switch on; any other text leaves it off."""
        return value.lower() == "true" if isinstance(value, str) else value


VARIABLES = frozenset(name.upper() for name in Settings.model_fields)


def read_settings(environment: Mapping[str, str] | None = None) -> Settings:
    """The settings of `environment` (this process's environment by default), validated."""
    source = os.environ if environment is None else environment
    region = source.get("SERVICE_REGION", "")
    if region not in SERVICE_REGIONS:
        raise RuntimeError(f"SERVICE_REGION must be one of {SERVICE_REGIONS}, got {region!r}")
    return Settings.model_validate({name: source[name] for name in VARIABLES if source.get(name)})


@once
def settings() -> Settings:
    """This execution environment's settings, read and validated once (until `reload()`)."""
    return read_settings()


def reload() -> None:
    """Forget the settings (and everything built from them: mzpay.deps.reset); tests only."""
    reset()


def optional_env(name: str) -> str | None:
    """The setting of the environment variable `name` as text, None where this function has none."""
    if name not in VARIABLES:
        raise KeyError(f"{name} is not a setting of mzpay.config.Settings")
    value = getattr(settings(), name.lower())
    return None if value is None or value == "" else str(value)


def env(name: str) -> str:
    """A resource the function needs (declared in template.yaml): RuntimeError when it has none."""
    value = optional_env(name)
    if not value:
        raise RuntimeError(f"{name} is not set for this function")
    return value

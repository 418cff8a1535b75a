"""Stack settings from the function's environment."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from mzpay import deps
from mzpay.config import VARIABLES, Settings, env, optional_env, parse_peer_region_urls
from mzpay.deps import settings

STACK_VARIABLES = ("SERVICE_REGION", "STAGE", "PEER_REGION_URLS", "GIT_COMMIT", "BUILD_DATE")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    for name in STACK_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    deps.reset()
    yield monkeypatch
    deps.reset()


# ---------------------------------------------------------------- PeerRegionUrls


def test_parse_peer_region_urls_groups_entries_by_region_and_api() -> None:
    text = (
        "regional-sa.gateway=https://gw.sa.example,"
        "regional-sa.collection=https://col.sa.example/,"
        "regional-sa.management=https://mgmt.sa.example/prod//,"
        "mz.gateway=http://127.0.0.1:3000"
    )
    assert parse_peer_region_urls(text) == {
        "regional-sa": {
            "gateway": "https://gw.sa.example",
            "collection": "https://col.sa.example",
            "management": "https://mgmt.sa.example/prod",
        },
        "mz": {"gateway": "http://127.0.0.1:3000"},
    }


def test_parse_peer_region_urls_ignores_whitespace_and_empty_entries() -> None:
    text = "  regional-sa.gateway = https://gw.sa.example/ ,, \n regional-sa.collection=\thttps://col.sa.example ,"
    assert parse_peer_region_urls(text) == {
        "regional-sa": {"gateway": "https://gw.sa.example", "collection": "https://col.sa.example"}
    }


@pytest.mark.parametrize("text", ["", " ", ",", " , , "])
def test_parse_peer_region_urls_of_nothing_is_empty(text: str) -> None:
    assert parse_peer_region_urls(text) == {}


def test_parse_peer_region_urls_keeps_the_docstring_example() -> None:
    assert parse_peer_region_urls("regional-sa.gateway=https://gw.sa.example") == {
        "regional-sa": {"gateway": "https://gw.sa.example"}
    }


@pytest.mark.parametrize(
    "text",
    [
        "eu-west.gateway=https://gw.eu.example",  # unknown region
        "MZ.gateway=https://gw.mz.example",  # regions are lower case
        "mz.billing=https://billing.mz.example",  # unknown api
        "mz.Gateway=https://gw.mz.example",
        "gateway=https://gw.mz.example",  # no region
        "mz=https://gw.mz.example",  # no api
        "mz.gateway https://gw.mz.example",  # missing '='
        "mz.gateway",
        "regional-sa.gateway=https://gw.sa.example,mz.collection",  # one bad entry spoils the lot
    ],
)
def test_parse_peer_region_urls_refuses_entries_that_are_not_region_api_url(text: str) -> None:
    with pytest.raises(ValueError, match=re.escape("is not '<region>.<api>=<url>'")):
        parse_peer_region_urls(text)


@pytest.mark.parametrize(
    "text",
    [
        "mz.gateway=ftp://gw.mz.example",
        "mz.gateway=gw.mz.example",
        "mz.gateway=//gw.mz.example",
        "mz.gateway=",
    ],
)
def test_parse_peer_region_urls_refuses_a_non_http_url(text: str) -> None:
    with pytest.raises(ValueError, match=re.escape("has no http(s) URL")):
        parse_peer_region_urls(text)


@pytest.mark.parametrize("text", ["mz.gateway=https://", "mz.gateway=http://", "mz.gateway=https:///"])
def test_parse_peer_region_urls_refuses_a_url_without_a_host(text: str) -> None:
    """'https://' is accepted today and stored as 'https:' (rstrip('/') eats the '//')."""
    with pytest.raises(ValueError):
        parse_peer_region_urls(text)


# ---------------------------------------------------------------- settings()


def test_settings_reads_the_stack_environment(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("SERVICE_REGION", "regional-sa")
    clean_env.setenv("STAGE", "staging")
    clean_env.setenv("PEER_REGION_URLS", "mz.gateway=https://gw.mz.example/,mz.management=https://mgmt.mz.example")
    clean_env.setenv("GIT_COMMIT", "abc1234")
    clean_env.setenv("BUILD_DATE", "2026-11-21T00:00:00Z")
    assert settings() == Settings(
        service_region="regional-sa",
        stage="staging",
        peer_region_urls={"mz": {"gateway": "https://gw.mz.example", "management": "https://mgmt.mz.example"}},
        git_commit="abc1234",
        build_date="2026-11-21T00:00:00Z",
    )


def test_settings_defaults_stage_peers_and_build(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("SERVICE_REGION", "mz")
    clean_env.setenv("GIT_COMMIT", "")
    clean_env.setenv("BUILD_DATE", "")
    assert settings() == Settings(
        service_region="mz", stage="prod", peer_region_urls={}, git_commit="unknown", build_date="unknown"
    )


def test_settings_are_read_once_until_the_dependencies_are_reset(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("SERVICE_REGION", "mz")
    first = settings()
    clean_env.setenv("SERVICE_REGION", "regional-sa")
    assert settings() is first
    deps.reset()
    assert settings().service_region == "regional-sa"


def test_settings_refuse_a_missing_service_region(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(RuntimeError, match=re.escape("SERVICE_REGION must be one of ('mz', 'regional-sa'), got ''")):
        settings()


@pytest.mark.parametrize("region", ["", "MZ", "za", "regional_sa", " mz", "af-south-1"])
def test_settings_refuse_an_unknown_service_region(clean_env: pytest.MonkeyPatch, region: str) -> None:
    clean_env.setenv("SERVICE_REGION", region)
    with pytest.raises(RuntimeError, match=re.escape(f"got {region!r}")):
        settings()


def test_settings_refuse_malformed_peer_region_urls(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("SERVICE_REGION", "mz")
    clean_env.setenv("PEER_REGION_URLS", "regional-sa.gateway")
    with pytest.raises(ValueError, match="PeerRegionUrls entry"):
        settings()


# ---------------------------------------------------------------- one place reads the environment
PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "python" / "mzpay"


def environment_reads(source: str) -> list[int]:
    """The lines of `source` that read the process environment (os.environ, os.getenv, environ)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb", "getenvb"):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            lines.extend(node.lineno for alias in node.names if alias.name in ("environ", "getenv"))
    return lines


def test_only_the_settings_module_reads_the_environment() -> None:
    readers = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "config.py" or path.parent != PACKAGE
        if (lines := environment_reads(path.read_text()))
    }
    assert readers == {}


@pytest.mark.parametrize(
    "source", ["import os\nx = os.environ['A']", "import os\nx = os.getenv('A')", "from os import environ"]
)
def test_the_environment_check_sees_every_spelling(source: str) -> None:
    assert environment_reads(source) != []


def test_every_store_resource_is_a_setting() -> None:
    """env("X")/optional_env("X") name a field of Settings (a typo fails here, not in Lambda)."""
    named = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            called = getattr(node, "func", None)
            if getattr(called, "id", None) in ("env", "optional_env") and isinstance(node.args[0], ast.Constant):
                named.add(node.args[0].value)
    assert named and named <= VARIABLES


def test_a_store_resource_the_function_lacks_is_refused(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("SERVICE_REGION", "mz")
    clean_env.delenv("PAYMENTS_TABLE", raising=False)
    clean_env.setenv("WEBHOOK_SLOW_QUEUE_URL", "")
    with pytest.raises(RuntimeError, match="PAYMENTS_TABLE is not set for this function"):
        env("PAYMENTS_TABLE")
    assert optional_env("WEBHOOK_SLOW_QUEUE_URL") is None
    with pytest.raises(KeyError):
        optional_env("NOT_A_SETTING")


def test_settings_validate_the_tuning(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("SERVICE_REGION", "mz")
    clean_env.setenv("RATE_LIMIT_PER_KEY", "many")
    with pytest.raises(ValueError, match="RATE_LIMIT_PER_KEY"):
        settings()


def test_aws_clients_keep_awss_timeouts_unless_the_stack_sets_longer_ones(clean_env: pytest.MonkeyPatch) -> None:
    from mzpay.store import aws

    clean_env.setenv("SERVICE_REGION", "mz")
    clean_env.delenv("AWS_CONNECT_TIMEOUT_SECONDS", raising=False)
    clean_env.delenv("AWS_READ_TIMEOUT_SECONDS", raising=False)
    _, config = aws.session_and_config()
    assert (config.connect_timeout, config.read_timeout) == (2, 5)
    deps.reset()
    clean_env.setenv("AWS_CONNECT_TIMEOUT_SECONDS", "10")
    clean_env.setenv("AWS_READ_TIMEOUT_SECONDS", "20")  # the local stack's (devstack.stack.LOCAL_AWS_TIMEOUTS)
    _, config = aws.session_and_config()
    assert (config.connect_timeout, config.read_timeout) == (10, 20)

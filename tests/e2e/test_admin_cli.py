"""mzpay-admin against the local stack (both regions): readable output, raw JSON, secrets shown once,
problem documents as error lines, the 421 hint, and the `python -m mzpay_admin` entry point."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from devstack.launcher import ROOT, RunningStack

sys.path.insert(0, str(ROOT / "tools"))

from mzpay_admin.cli import main, run

pytestmark = pytest.mark.e2e

ULID = r"[0-9A-HJKMNP-TV-Z]{26}"
TIMESTAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
TEST_KEY = re.compile(r"^mzp_test_[0-9A-Za-z]{38}$")
WEBHOOK_SECRET = re.compile(r"^whsec_[0-9A-Za-z_-]{20,}$")
DEFAULT_SCOPES = (
    "payments:read, payments:write, refunds:write, payouts:read, payouts:write, events:read, balance:read, "
    "api_keys:write"
)
KEY_WARNING = "warning: the API key secret is shown only once; store it now, it cannot be retrieved again.\n"
SECRET_WARNING = "warning: the webhook signing secret is shown only once; store it now, it cannot be retrieved again.\n"
REPLICATION_WAIT_SECONDS = 5.0


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


Admin = Callable[..., Run]


@pytest.fixture(scope="module")
def local_stack(stack: RunningStack) -> RunningStack:
    """The session's stack (both regions): every test makes its own accounts."""
    return stack


@pytest.fixture(autouse=True)
def _no_connection_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MZPAY_MANAGEMENT_URL", raising=False)
    monkeypatch.delenv("MZPAY_OPERATOR_TOKEN", raising=False)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Admin:
    """mzpay-admin in-process with exactly these arguments."""

    def run(*argv: str) -> Run:
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


@pytest.fixture
def admin(local_stack: RunningStack, cli: Admin) -> Admin:
    """mzpay-admin in-process against a region of the local stack, through --region and its stack file."""

    def run(*argv: str, region: str = "mz") -> Run:
        return cli("--region", region, "--stack-file", str(local_stack.state_file), *argv)

    return run


def management(stack: RunningStack, region: str) -> str:
    return str(stack.state["regions"][region]["management"])


def fields(out: str) -> dict[str, str]:
    """The `field:  value` lines of `out` as a dict (values as printed)."""
    pairs = {}
    for line in out.splitlines():
        match = re.fullmatch(r"([^:\s]+):\s+(.*)", line)
        assert match, f"not a field line: {line!r}"
        pairs[match.group(1)] = match.group(2)
    return pairs


def assert_lines(text: str, patterns: list[str]) -> None:
    """Each line of `text` matches its pattern (in order), and there are no other lines."""
    lines = text.splitlines()
    assert len(lines) == len(patterns), text
    for line, pattern in zip(lines, patterns, strict=True):
        assert re.fullmatch(pattern, line), f"{line!r} does not match {pattern!r}"


def account_lines(
    account_id: str, name: str, region: str, status: str, reason: str, created: bool = False
) -> list[str]:
    """The account as the CLI prints it; a creation also prints the first webhook secrets, once."""
    pad = " " * (len("webhook_secrets.test.secret_id:") - len("created_at:")) if created else ""
    lines = [
        rf"id:          {pad}{account_id}",
        rf"name:        {pad}{re.escape(name)}",
        rf"region:      {pad}{region}",
        rf"status:      {pad}{status}",
        rf"reason:      {pad}{re.escape(reason)}",
        rf"created_at:  {pad}{TIMESTAMP}",
        rf"updated_at:  {pad}{TIMESTAMP}",
    ]
    if created:
        for mode in ("test", "live"):
            lines += [
                rf"webhook_secrets\.{mode}\.secret_id:  {ULID}",
                rf"webhook_secrets\.{mode}\.secret:     whsec_[A-Za-z0-9_-]{{43}}",
            ]
    return lines


def create_account(admin: Admin, name: str, region: str = "mz") -> str:
    result = admin("accounts", "create", "--name", name, "--region", region, region=region)
    assert result.code == 0, result.err
    return fields(result.out)["id"]


def in_other_region(admin: Admin, *argv: str, region: str = "regional-sa") -> Run:
    """A command about an mz tenant sent to another region. The directory replicates between
    regions asynchronously: that region answers 404 until the item reached it, then 421."""
    deadline = time.monotonic() + REPLICATION_WAIT_SECONDS
    while True:
        result = admin(*argv, region=region)
        if not result.err.startswith("error 404 not_found:") or time.monotonic() > deadline:
            return result
        time.sleep(0.1)


# ---------------------------------------------------------------------------------------- info
def test_info_shows_the_region_its_peers_and_the_build(local_stack: RunningStack, cli: Admin) -> None:
    peer = local_stack.state["regions"]["mz"]
    token = local_stack.state["operator_token"]
    result = cli("--url", management(local_stack, "regional-sa"), f"--token={token}", "info")
    assert result.code == 0 and result.err == ""
    assert_lines(
        result.out,
        [
            r"service_region:              regional-sa",
            r"stage:                       prod",
            rf"peer_regions\.mz\.gateway:     {peer['gateway']}",
            rf"peer_regions\.mz\.collection:  {peer['collection']}",
            rf"peer_regions\.mz\.management:  {peer['management']}",
            r"build\.version:               0\.1\.0",
            r"build\.git_commit:            ([0-9a-f]{7,40}|unknown)",
            rf"build\.build_date:            {TIMESTAMP}",
            r"build\.go_version:            python3\.\d+\.\d+",
            r"build\.runtime_version:       python3\.\d+\.\d+",
            r"build\.platform:              [\w-]+/\w+",
        ],
    )


# ---------------------------------------------------------------------------------------- accounts
def test_account_create_show_suspend_reactivate(admin: Admin) -> None:
    created = admin("accounts", "create", "--name", "Loja do Bairro, Lda", "--region", "mz")
    assert created.code == 0 and created.err == ""
    account_id = fields(created.out)["id"]
    assert_lines(created.out, account_lines(ULID, "Loja do Bairro, Lda", "mz", "active", "-", created=True))

    shown = admin("accounts", "show", account_id)  # the secrets were shown once, at creation
    assert (shown.code, shown.err) == (0, "")
    assert_lines(shown.out, account_lines(account_id, "Loja do Bairro, Lda", "mz", "active", "-"))

    suspended = admin("accounts", "suspend", account_id, "--reason", "KYC documents expired")
    assert suspended.code == 0 and suspended.err == ""
    assert_lines(
        suspended.out, account_lines(account_id, "Loja do Bairro, Lda", "mz", "suspended", "KYC documents expired")
    )

    again = admin("accounts", "suspend", account_id, "--reason", "twice")
    assert (again.code, again.out) == (1, "")
    assert again.err == "error 409 invalid_state: Cannot suspend an account that is suspended.\n"

    reactivated = admin("accounts", "reactivate", account_id)
    assert reactivated.code == 0 and reactivated.err == ""
    assert_lines(reactivated.out, account_lines(account_id, "Loja do Bairro, Lda", "mz", "active", "-"))
    assert fields(reactivated.out)["created_at"] == fields(created.out)["created_at"]


def test_json_prints_the_api_answer_as_is(admin: Admin) -> None:
    account_id = create_account(admin, "JSON Lda")
    result = admin("--json", "accounts", "show", account_id)
    assert result.code == 0 and result.err == ""
    assert result.out.count("\n") == 1
    body = json.loads(result.out)
    assert list(body) == ["id", "name", "region", "status", "reason", "created_at", "updated_at"]
    assert body["id"] == account_id and body["name"] == "JSON Lda" and body["region"] == "mz"
    assert body["status"] == "active" and body["reason"] == ""

    after_the_command = admin("accounts", "show", account_id, "--json")
    assert json.loads(after_the_command.out) == body


def test_control_characters_stay_on_their_line(admin: Admin) -> None:
    created = admin("accounts", "create", "--name", "Linha 1\nLinha 2\x1b[31m", "--region", "mz")
    assert created.code == 0
    assert created.out.splitlines()[1] == r"name:                            Linha 1\nLinha 2\x1b[31m"
    raw = admin("--json", "accounts", "show", fields(created.out)["id"])
    assert json.loads(raw.out)["name"] == "Linha 1\nLinha 2\x1b[31m"


def test_an_unknown_account_is_a_404_error_line(admin: Admin) -> None:
    result = admin("accounts", "show", "01HZZZZZZZZZZZZZZZZZZZZZZZ")
    assert (result.code, result.out, result.err) == (1, "", "error 404 not_found: No such account.\n")

    raw = admin("--json", "accounts", "show", "01HZZZZZZZZZZZZZZZZZZZZZZZ")
    assert (raw.code, raw.err) == (1, "error 404 not_found: No such account.\n")
    problem = json.loads(raw.out)  # with --json the problem document goes to stdout as well
    assert (problem["status"], problem["code"], problem["detail"]) == (404, "not_found", "No such account.")


def test_wrong_region_names_the_home_region_and_its_url(local_stack: RunningStack, admin: Admin) -> None:
    account_id = create_account(admin, "Residency Lda", region="mz")
    home = management(local_stack, "mz")
    result = in_other_region(admin, "accounts", "show", account_id)
    assert (result.code, result.out) == (1, "")
    assert result.err == (
        f"error 421 wrong_region: This tenant is served in region mz; resend the request to {home}.\n"
        f"hint: this tenant lives in region mz; its management API is {home}; "
        f"rerun with --region mz (local stack) or --url {home}\n"
    )

    in_the_wrong_region = admin("accounts", "create", "--name", "Elsewhere", "--region", "mz", region="regional-sa")
    assert in_the_wrong_region.code == 1
    assert in_the_wrong_region.err.startswith("error 421 wrong_region: This tenant is served in region mz;")


# ---------------------------------------------------------------------------------------- API keys
def test_keys_create_shows_the_secret_once_and_revoke(admin: Admin) -> None:
    account_id = create_account(admin, "Keys Lda")
    created = admin(
        "keys",
        "create",
        account_id,
        "--mode",
        "test",
        "--scope",
        "payments:write",
        "--scope",
        "payments:read",
        "--expires-at",
        "2030-01-01T00:00:00Z",
        "--ip",
        "10.0.0.0/8",
        "--ip",
        "192.0.2.7",
        "--customer",
        "cus_123",
    )
    assert created.code == 0
    assert created.err == KEY_WARNING
    assert_lines(
        created.out,
        [
            rf"id:                 {ULID}",
            rf"account_id:         {account_id}",
            r"mode:               test",
            r"scopes:             payments:read, payments:write",
            r"status:             active",
            r"hint:               mzp_test_\.\.\.[0-9A-Za-z]{4}",
            rf"created_at:         {TIMESTAMP}",
            r"expires_at:         2030-01-01T00:00:00Z",
            r"ip_allowlist:       10\.0\.0\.0/8, 192\.0\.2\.7/32",
            r"allowed_customers:  cus_123",
            r"rolled_to:          -",
            r"key:                mzp_test_[0-9A-Za-z]{38}",
        ],
    )
    key = fields(created.out)
    assert TEST_KEY.match(key["key"])
    assert key["hint"] == f"mzp_test_...{key['key'][-4:]}"

    revoked = admin("keys", "revoke", key["id"])
    assert revoked.code == 0 and revoked.err == ""
    assert fields(revoked.out) == {**{k: v for k, v in key.items() if k != "key"}, "status": "revoked"}
    assert "mzp_test_" not in revoked.out.replace(key["hint"], "")

    twice = admin("keys", "revoke", key["id"])
    assert (twice.code, twice.out, twice.err) == (1, "", "error 409 invalid_state: This key is already revoked.\n")


def test_keys_create_defaults_and_json(admin: Admin) -> None:
    account_id = create_account(admin, "Default Keys Lda")
    readable = admin("keys", "create", account_id, "--mode", "test")
    assert readable.code == 0 and readable.err == KEY_WARNING
    key = fields(readable.out)
    assert key["scopes"] == DEFAULT_SCOPES
    assert key["expires_at"] == key["ip_allowlist"] == key["allowed_customers"] == key["rolled_to"] == "-"

    raw = admin("--json", "keys", "create", account_id, "--mode", "live")
    assert raw.code == 0 and raw.err == KEY_WARNING
    body = json.loads(raw.out)
    assert re.fullmatch(r"mzp_live_[0-9A-Za-z]{38}", body["key"])
    assert body["mode"] == "live" and body["account_id"] == account_id and body["rolled_to"] is None


def test_keys_create_validation_errors_name_the_fields(admin: Admin) -> None:
    account_id = create_account(admin, "Invalid Keys Lda")
    scope = admin("keys", "create", account_id, "--mode", "test", "--scope", "nonsense")
    assert (scope.code, scope.out) == (1, "")
    assert scope.err == (
        "error 400 invalid_scope: The request has invalid fields: scopes.\n"
        "  scopes [invalid_scope]: unknown scopes: nonsense\n"
    )

    several = admin("keys", "create", account_id, "--mode", "test", "--expires-at", "2030-01-01T00:00:00", "--ip", "x")
    assert several.code == 1
    assert several.err.splitlines() == [
        "error 400 invalid_request: The request has invalid fields: expires_at, ip_allowlist.",
        "  expires_at [invalid_value]: expires_at needs a time zone, e.g. 2026-11-25T10:00:00Z",
        "  ip_allowlist [invalid_cidr]: not an IPv4 or IPv6 address or CIDR: 'x' does not appear to be an IPv4 or "
        "IPv6 network",
    ]

    past = admin("keys", "create", account_id, "--mode", "test", "--expires-at", "2020-01-01T00:00:00+02:00")
    assert (past.code, past.err) == (1, "error 400 invalid_request: expires_at must be in the future.\n")


def test_accounts_rate_limits_set_and_refuse_out_of_range(admin: Admin) -> None:
    account_id = create_account(admin, "Limitada Lda")
    done = admin("--json", "accounts", "rate-limits", account_id, "--per-key", "5", "--per-account", "8")
    assert (done.code, done.err) == (0, "")
    assert json.loads(done.out) == {"account_id": account_id, "per_key": 5, "per_account": 8}
    refused = admin("accounts", "rate-limits", account_id, "--per-key", "0", "--per-account", "8")
    assert (refused.code, refused.out) == (1, "")
    assert refused.err.splitlines()[0] == "error 400 invalid_request: The request has invalid fields: per_key."


def test_accounts_fiscal_details_set_read_and_refuse_a_bad_nuit(local_stack: RunningStack, admin: Admin) -> None:
    account_id = create_account(admin, "Fiscal Lda")
    missing = admin("accounts", "fiscal-details", account_id)
    assert (missing.code, missing.err.splitlines()[0]) == (
        1,
        "error 404 not_found: This account has no fiscal details; PUT them first.",
    )
    fields = ("--legal-name", "Fiscal, Lda", "--nuit", "400339910", "--address", "Av. Eduardo Mondlane 1, Maputo")
    done = admin("--json", "accounts", "fiscal-details", account_id, *fields, "--vat-rate", "0.05")
    assert (done.code, done.err) == (0, "")
    answer = json.loads(done.out)
    assert answer == {
        "account_id": account_id,
        "legal_name": "Fiscal, Lda",
        "nuit": "400339910",
        "address": "Av. Eduardo Mondlane 1, Maputo",
        "vat_registered": True,
        "vat_rate": "0.05",
        "updated_at": answer["updated_at"],
    }
    exempt = admin("--json", "accounts", "fiscal-details", account_id, *fields, "--not-vat-registered")
    assert json.loads(exempt.out)["vat_registered"] is False
    read = admin("--json", "accounts", "fiscal-details", account_id)
    assert (json.loads(read.out)["vat_registered"], json.loads(read.out)["vat_rate"]) == (False, "0.16")
    refused = admin("accounts", "fiscal-details", account_id, *fields[:3], "400339911", *fields[4:])
    assert (refused.code, refused.out) == (1, "")
    assert refused.err.splitlines()[0] == "error 400 invalid_request: The request has invalid fields: nuit."

    import requests  # the audit trail: each PUT recorded against the account, the refusal with its code

    trail = requests.get(
        f"{management(local_stack, 'mz')}/v1/audit-records",
        params={"account_id": account_id, "action": "set_fiscal_details"},
        headers={"Authorization": f"Bearer {local_stack.state['operator_token']}"},
        timeout=30,
    )
    assert trail.status_code == 200, trail.text
    outcomes = [record["outcome"]["status"] for record in trail.json()["data"]]  # newest first
    assert outcomes == [400, 200, 200], trail.json()


def test_accounts_pricing_reads_sets_and_refuses_a_bad_schedule(admin: Admin, tmp_path: Path) -> None:
    account_id = create_account(admin, "Tarifada Lda")
    default = admin("--json", "accounts", "pricing", account_id)
    assert (default.code, json.loads(default.out)) == (
        0,
        {"account_id": account_id, "default": True, "fees": [], "updated_at": None},
    )
    rule = {
        "method": "emola",
        "currency": "MZN",
        "percent": "1.25",
        "fixed": "0.00",
        "minimum": "0.50",
        "maximum": None,
    }
    schedule = tmp_path / "schedule.json"
    schedule.write_text(json.dumps({"fees": [rule]}), encoding="utf-8")
    done = admin("--json", "accounts", "pricing", account_id, "--file", str(schedule))
    assert (done.code, done.err) == (0, "")
    shown = json.loads(done.out)
    assert (shown["default"], shown["fees"]) == (False, [rule])
    assert json.loads(admin("--json", "accounts", "pricing", account_id).out) == shown
    schedule.write_text(json.dumps({"fees": [rule | {"maximum": "0.10"}]}), encoding="utf-8")
    refused = admin("accounts", "pricing", account_id, "--file", str(schedule))
    assert (refused.code, refused.out) == (1, "")
    assert refused.err.splitlines()[0] == "error 400 invalid_request: The request has invalid fields: fees.0.maximum."
    assert json.loads(admin("--json", "accounts", "pricing", account_id).out) == shown  # nothing stored


# ---------------------------------------------------------------------------------------- webhook secrets
def test_accounts_connect_list_and_disconnect(admin: Admin) -> None:
    platform, shop = create_account(admin, "Plataforma"), create_account(admin, "Loja ligada")
    connected = admin("accounts", "connect", platform, shop)
    assert (connected.code, connected.err) == (0, "")
    assert_lines(
        connected.out,
        [
            rf"platform_account_id:   {platform}",
            rf"connected_account_id:  {shop}",
            r"region:                mz",
            rf"created_at:            {TIMESTAMP}",
        ],
    )
    listed = admin("accounts", "connections", platform)
    assert listed.code == 0
    assert_lines(
        listed.out,
        [
            rf"connected_accounts\.0\.platform_account_id:   {platform}",
            rf"connected_accounts\.0\.connected_account_id:  {shop}",
            r"connected_accounts\.0\.region:                mz",
            rf"connected_accounts\.0\.created_at:            {TIMESTAMP}",
        ],
    )
    again = admin("accounts", "connect", platform, shop)
    assert (again.code, again.out) == (1, "")
    assert (
        again.err == "error 409 already_connected: These accounts are already connected; remove the connection first.\n"
    )
    far = create_account(admin, "Loja Joanesburgo", region="regional-sa")
    deadline = time.monotonic() + REPLICATION_WAIT_SECONDS
    while True:  # the directory replicates asynchronously: 404 until the account reached mz
        other_region = admin("accounts", "connect", platform, far)
        if "404" not in other_region.err or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert other_region.code == 1
    assert other_region.err == (
        "error 400 invalid_request: Only accounts of one region can be connected: "
        "the platform lives in mz, the account in regional-sa.\n"
    )
    removed = admin("--json", "accounts", "disconnect", platform, shop)
    assert removed.code == 0
    assert json.loads(removed.out) == {
        "platform_account_id": platform,
        "connected_account_id": shop,
        "connected": False,
    }
    twice = admin("accounts", "disconnect", platform, shop)
    assert (twice.code, twice.err) == (1, "error 404 not_found: No such connection.\n")
    assert admin("accounts", "connections", platform).out == "connected_accounts:  -\n"


def test_webhook_secret_roll_keeps_the_previous_one_for_the_overlap(admin: Admin) -> None:
    created = admin("accounts", "create", "--name", "Webhooks Lda", "--region", "mz")
    account_id, created_secret_id = fields(created.out)["id"], fields(created.out)["webhook_secrets.test.secret_id"]
    first = admin("webhook-secrets", "roll", account_id, "--mode", "test")
    assert first.code == 0 and first.err == SECRET_WARNING
    assert_lines(
        first.out,
        [
            rf"account_id:           {account_id}",
            r"mode:                 test",
            rf"secret_id:            {ULID}",
            r"secret:               whsec_\S+",
            rf"previous_secret_id:   {created_secret_id}",  # the account's first, made with it
            rf"previous_expires_at:  {TIMESTAMP}",
            r"region:               mz",
        ],
    )
    assert WEBHOOK_SECRET.match(fields(first.out)["secret"])

    second = admin("webhook-secrets", "roll", account_id, "--mode", "test")
    assert second.code == 0 and second.err == SECRET_WARNING
    before, after = fields(first.out), fields(second.out)
    assert after["previous_secret_id"] == before["secret_id"]
    assert re.fullmatch(TIMESTAMP, after["previous_expires_at"])
    assert after["secret"] != before["secret"] and WEBHOOK_SECRET.match(after["secret"])


# ---------------------------------------------------------------------------------------- connection
def test_no_connection_is_a_clear_usage_error(cli: Admin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no .local/stack.json here
    nothing = cli("info")
    assert (nothing.code, nothing.out) == (2, "")
    assert nothing.err == (
        "mzpay-admin: no management API given: pass --url URL --token TOKEN, set MZPAY_MANAGEMENT_URL and "
        "MZPAY_OPERATOR_TOKEN, or use --region {mz,regional-sa} with the local stack's file (--stack-file, "
        "default .local/stack.json)\n"
    )
    no_stack = cli("--region", "mz", "info")
    assert no_stack.code == 2
    assert no_stack.err.startswith("mzpay-admin: stack file .local/stack.json not found: start the local stack")

    monkeypatch.setenv("MZPAY_MANAGEMENT_URL", "http://127.0.0.1:9")
    no_token = cli("info")
    assert (no_token.code, no_token.err) == (
        2,
        "mzpay-admin: no operator token given: pass --token TOKEN or set MZPAY_OPERATOR_TOKEN\n",
    )


def test_flags_win_over_the_stack_file_which_wins_over_the_environment(
    local_stack: RunningStack, cli: Admin, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MZPAY_MANAGEMENT_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("MZPAY_OPERATOR_TOKEN", "not-the-token")
    stack_file = str(local_stack.state_file)
    from_stack = cli("--region", "mz", "--stack-file", stack_file, "info")
    assert from_stack.code == 0 and fields(from_stack.out)["service_region"] == "mz"
    url_flag = cli(
        "--url", management(local_stack, "regional-sa"), "--region", "mz", "--stack-file", stack_file, "info"
    )
    assert url_flag.code == 0 and fields(url_flag.out)["service_region"] == "regional-sa"
    token_flag = cli("--token", "wrong", "--region", "mz", "--stack-file", stack_file, "info")
    assert (token_flag.code, token_flag.err) == (
        1,
        "error 401 unauthorized: A valid operator bearer token is required.\n",
    )
    from_environment = cli("info")
    assert from_environment.code == 2 and "http://127.0.0.1:9 (MZPAY_MANAGEMENT_URL)" in from_environment.err


def test_an_unreachable_api_exits_2(cli: Admin) -> None:
    result = cli("--url", "http://127.0.0.1:9", "--token", "t", "--timeout", "5", "info")
    assert (result.code, result.out) == (2, "")
    assert result.err.startswith("mzpay-admin: cannot reach the management API at http://127.0.0.1:9 (--url): ")


def test_a_wrong_token_is_an_error_line(local_stack: RunningStack, cli: Admin) -> None:
    result = cli("--url", management(local_stack, "mz"), "--token", "not-the-token", "info")
    assert (result.code, result.err) == (1, "error 401 unauthorized: A valid operator bearer token is required.\n")


def test_usage_errors_exit_2(cli: Admin) -> None:
    assert cli("keys", "create", "ACC", "--mode", "sandbox").code == 2
    assert cli("accounts").code == 2
    assert cli("--help").code == 0


# ---------------------------------------------------------------------------------------- entry point
def test_python_dash_m_entry_point_with_the_environment(local_stack: RunningStack) -> None:
    environment = {
        **os.environ,
        "PYTHONPATH": "tools",
        "MZPAY_MANAGEMENT_URL": management(local_stack, "regional-sa"),
        "MZPAY_OPERATOR_TOKEN": local_stack.state["operator_token"],
    }
    command = [sys.executable, "-m", "mzpay_admin", "accounts", "create", "--name", "Subprocess SA", "--region"]
    created = subprocess.run(
        [*command, "regional-sa"], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
    )
    assert (created.returncode, created.stderr) == (0, "")
    assert_lines(created.stdout, account_lines(ULID, "Subprocess SA", "regional-sa", "active", "-", created=True))

    failed = subprocess.run(
        [sys.executable, "-m", "mzpay_admin", "accounts", "show", "NOPE"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (failed.returncode, failed.stdout, failed.stderr) == (1, "", "error 404 not_found: No such account.\n")


# ---------------------------------------------------------------------------------------- dispatch failures
def test_dispatch_failures_list_and_a_replay_of_an_unknown_message(admin: Admin) -> None:
    listed = admin("dispatch-failures", "list", "--limit", "5", "--json")
    assert listed.code == 0, listed.err
    answer = json.loads(listed.out)
    assert answer["object"] == "list" and isinstance(answer["data"], list) and len(answer["data"]) <= 5
    assert all(f["object"] == "webhook_dispatch_failure" for f in answer["data"])
    missing = admin("dispatch-failures", "replay", "00000000-0000-4000-8000-000000000000")
    assert (missing.code, missing.out) == (1, "")
    assert missing.err == "error 404 not_found: No such webhook dispatch failure (replayed already?).\n"
    bad = admin("dispatch-failures", "list", "--limit", "0")
    assert bad.code == 1 and bad.err.startswith("error 400 invalid_request:")


CLIENT_WARNING = "warning: the OAuth client secret is shown only once; store it now, it cannot be retrieved again.\n"


def test_oauth_clients_create_list_and_revoke(admin: Admin, tmp_path: Path) -> None:
    account_id = create_account(admin, "OAuth Lda")
    created = admin(
        "oauth-clients", "create", account_id, "--mode", "test", "--scope", "payments:read", "--name", "ERP"
    )
    assert created.code == 0 and created.err == CLIENT_WARNING
    assert_lines(
        created.out,
        [
            rf"client_id:                   {ULID}",
            rf"account_id:                  {account_id}",
            r"name:                        ERP",
            r"mode:                        test",
            r"scopes:                      payments:read",
            r"status:                      active",
            r"token_endpoint_auth_method:  client_secret",
            r"secret_hint:                 mzs_test_\.\.\.[0-9A-Za-z]{4}",
            r"jwks:                        -",
            r"jwks_uri:                    -",
            r"ip_allowlist:                -",
            rf"created_at:                  {TIMESTAMP}",
            r"revoked_at:                  -",
            r"client_secret:               mzs_test_[0-9A-Za-z]{38}",
        ],
    )
    client = fields(created.out)
    listed = admin("--json", "oauth-clients", "list", account_id)
    assert listed.code == 0 and listed.err == ""
    (shown,) = json.loads(listed.out)["data"]
    assert (shown["client_id"], shown["name"], shown["secret_hint"]) == (
        client["client_id"],
        "ERP",
        client["secret_hint"],
    )
    assert "client_secret" not in shown

    revoked = admin("oauth-clients", "revoke", client["client_id"])
    assert revoked.code == 0 and revoked.err == ""
    after = fields(revoked.out)
    assert after["status"] == "revoked" and re.fullmatch(TIMESTAMP, after["revoked_at"])
    twice = admin("oauth-clients", "revoke", client["client_id"])
    assert (twice.code, twice.out, twice.err) == (
        1,
        "",
        "error 409 invalid_state: This OAuth client is already revoked.\n",
    )

    jwks = tmp_path / "jwks.json"
    jwks.write_text(
        json.dumps(
            {
                "keys": [
                    {
                        "kty": "EC",
                        "crv": "P-256",
                        "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
                        "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
                    }
                ]
            }
        )
    )
    with_keys = admin("--json", "oauth-clients", "create", account_id, "--mode", "live", "--jwks-file", str(jwks))
    assert with_keys.code == 0 and with_keys.err == ""  # no secret, no warning
    body = json.loads(with_keys.out)
    assert (body["token_endpoint_auth_method"], body["mode"], body["secret_hint"]) == ("private_key_jwt", "live", None)
    assert "client_secret" not in body
    missing = admin("oauth-clients", "create", account_id, "--mode", "test", "--jwks-file", str(tmp_path / "none"))
    assert missing.code == 2 and "cannot read a JSON document from" in missing.err


def test_listen_forwards_new_events_signed_to_a_local_url(local_stack: RunningStack, tmp_path: Path) -> None:
    """`mzpay-admin listen` with the local stack's demo key: events that happen after it started
    reach a receiver on loopback, signed with the demo account's test webhook secret."""
    import io
    import threading
    import uuid

    import requests
    from ulid import ULID

    from mzpay.webhooks.signing import verify
    from tests.e2e.test_webhooks import Receiver

    receiver = Receiver()
    threading.Thread(target=receiver.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    url = receiver.endpoint(200)
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "--region", "mz", "--stack-file", str(local_stack.state_file),
        "listen", "--forward-to", url, "--max-events", "2", "--for", "60", "--interval", "0.2",
    ]  # fmt: skip
    codes: list[int] = []
    listener = threading.Thread(target=lambda: codes.append(run(argv, out, err, {})), daemon=True)
    listener.start()
    deadline = time.monotonic() + 30
    while "listening for events" not in out.getvalue():
        assert time.monotonic() < deadline, err.getvalue()
        time.sleep(0.1)
    demo = local_stack.state["demo"]["mz"]
    charge = requests.post(
        local_stack.state["regions"]["mz"]["gateway"] + "/charges",
        json={
            "payment_id": str(ULID()),
            "money": {"amount": "12.00", "currency": "MZN"},
            "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}},
            "country": "MZ",
        },
        headers={"Authorization": f"Bearer {demo['test_key']}", "Idempotency-Key": str(uuid.uuid4())},
        timeout=30,
    )
    assert charge.status_code == 200, charge.text
    listener.join(timeout=60)
    assert codes == [0], err.getvalue()
    arrivals = receiver.wait_for(url, 2)
    envelopes = [json.loads(a.body) for a in arrivals]
    assert [e["type"] for e in envelopes] == ["payment.created", "payment.succeeded"]
    assert {e["resource_id"] for e in envelopes} == {charge.json()["provider_payment_id"]}
    for arrival in arrivals:
        verify(arrival.body, arrival.headers["Service-Signature"], [demo["webhook_secret_test"]])
        assert arrival.headers["Service-Event-Id"] == json.loads(arrival.body)["id"]
    lines = out.getvalue().splitlines()
    gateway = local_stack.state["regions"]["mz"]["gateway"]
    assert lines[0] == f"listening for events at {gateway}, forwarding to {url} (Ctrl-C stops)"
    assert [line.split("  ")[1:] for line in lines[1:]] == [[e["type"], e["id"], "-> 200"] for e in envelopes]
    receiver.shutdown()
    receiver.server_close()


def test_listen_without_a_key_is_a_usage_error(cli: Admin) -> None:
    result = cli("listen", "--forward-to", "http://127.0.0.1:9/hooks")
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        "mzpay-admin: listen needs --gateway, --key, --secret: pass them, set MZPAY_GATEWAY_URL/MZPAY_KEY/"
        "MZPAY_WEBHOOK_SECRET, or use --region with the local stack's file\n"
    )


def test_businesses_link_a_gateway_account_and_show_it(local_stack: RunningStack, admin: Admin) -> None:
    """docs/onboarding.md, "Linking an existing gateway account": a business collects through an
    existing account of its region; another business cannot take it; another region's is 421."""
    from ulid import ULID as new_ulid

    from tests.e2e.collection_client import Collection

    mz = Collection(local_stack, "mz")
    mz.ensure_licence()
    businesses = [str(new_ulid()), str(new_ulid())]
    for index, business in enumerate(businesses):
        started = mz.call(
            "POST", "/v1/account/onboarding/initialize", token=mz.mint(account_id=business, sub=f"cli-owner-{index}")
        )
        assert started.status_code == 200, started.text
    gateway = create_account(admin, "Escola Existente")
    before = admin("businesses", "gateway-account", businesses[0])
    assert (before.code, before.err) == (0, "")
    assert_lines(
        before.out,
        [
            r"object:               business_gateway_account",
            rf"business_account_id:  {businesses[0]}",
            r"gateway_account_id:   -",
            r"how:                  -",
            r"region:               mz",
        ],
    )
    linked = admin("businesses", "link", businesses[0], gateway)
    assert (linked.code, linked.err) == (0, "")
    assert fields(linked.out) == {
        "object": "business_gateway_account",
        "business_account_id": businesses[0],
        "gateway_account_id": gateway,
        "how": "linked",
        "region": "mz",
    }
    assert admin("businesses", "gateway-account", businesses[0]).out == linked.out
    taken = admin("businesses", "link", businesses[1], gateway)
    assert (taken.code, taken.out) == (1, "")
    assert taken.err == "error 409 already_connected: Another business collects through this gateway account.\n"
    far = create_account(admin, "Escola Joanesburgo", region="regional-sa")
    deadline = time.monotonic() + REPLICATION_WAIT_SECONDS
    while True:  # the directory replicates asynchronously: 404 until the account reached mz
        elsewhere = admin("businesses", "link", businesses[1], far)
        if "404" not in elsewhere.err or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert elsewhere.code == 1
    assert elsewhere.err.startswith("error 421 wrong_region: This tenant is served in region regional-sa;"), (
        elsewhere.err
    )
    assert fields(admin("businesses", "gateway-account", businesses[1]).out)["gateway_account_id"] == "-"

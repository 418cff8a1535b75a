"""mzpay-admin: operate a region's mzpay stack through its management API.

Connection (first match wins, for the URL and the token separately):
  1. --url / --token
  2. --region REGION: the local stack's file (--stack-file, default .local/stack.json),
     regions.<REGION>.management and operator_token
  3. MZPAY_MANAGEMENT_URL / MZPAY_OPERATOR_TOKEN

Exit codes: 0 done, 1 the API answered an error, 2 usage, configuration or connection problem.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from mzpay_admin import __version__
from mzpay_admin.client import ApiError, ConnectionFailure, ManagementClient, Response
from mzpay_admin.listen import Listening, listen

REGIONS = ("mz", "regional-sa")
MODES = ("test", "live")
URL_ENV = "MZPAY_MANAGEMENT_URL"
TOKEN_ENV = "MZPAY_OPERATOR_TOKEN"
GATEWAY_ENV, KEY_ENV, SECRET_ENV = "MZPAY_GATEWAY_URL", "MZPAY_KEY", "MZPAY_WEBHOOK_SECRET"
DEFAULT_STACK_FILE = Path(".local/stack.json")
SECRET_WARNINGS = {
    "key": "warning: the API key secret is shown only once; store it now, it cannot be retrieved again.",
    "secret": "warning: the webhook signing secret is shown only once; store it now, it cannot be retrieved again.",
    "client_secret": "warning: the OAuth client secret is shown only once; store it now, it cannot be retrieved again.",
}

EXIT_OK, EXIT_API_ERROR, EXIT_USAGE = 0, 1, 2


class ConfigError(Exception):
    """The command cannot run as given (no connection, unreadable stack file...)."""


@dataclass(frozen=True)
class Connection:
    url: str
    token: str
    source: str  # where the URL came from, for error messages


# ---------------------------------------------------------------------------------------- connection
def _stack_file(path: Path) -> dict[str, Any]:
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"stack file {path} not found: start the local stack (make run) in the repository root, "
            "or pass --stack-file, or --url and --token"
        ) from None
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read stack file {path}: {error}") from None
    if not isinstance(state, dict):
        raise ConfigError(f"stack file {path} is not a JSON object")
    return state


def resolve_connection(args: argparse.Namespace, environ: dict[str, str] | os._Environ[str]) -> Connection:
    url: str | None = args.url
    token: str | None = args.token
    source = "--url"
    if args.region and (not url or not token):
        path = Path(args.stack_file) if args.stack_file else DEFAULT_STACK_FILE
        state = _stack_file(path)
        regions = state.get("regions") or {}
        if args.region not in regions or "management" not in (regions.get(args.region) or {}):
            known = ", ".join(sorted(regions)) or "none"
            raise ConfigError(f"stack file {path} has no management API for region {args.region} (regions: {known})")
        if not url:
            url, source = regions[args.region]["management"], f"--region {args.region} ({path})"
        if not token:
            token = state.get("operator_token") or None
            if not token:
                raise ConfigError(f"stack file {path} has no operator_token")
    if not url:
        url, source = environ.get(URL_ENV) or None, URL_ENV
    if not token:
        token = environ.get(TOKEN_ENV) or None
    if not url:
        raise ConfigError(
            f"no management API given: pass --url URL --token TOKEN, set {URL_ENV} and {TOKEN_ENV}, "
            f"or use --region {{{','.join(REGIONS)}}} with the local stack's file (--stack-file, "
            f"default {DEFAULT_STACK_FILE})"
        )
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"the management URL must start with http:// or https:// (got {url!r} from {source})")
    if not token:
        raise ConfigError(f"no operator token given: pass --token TOKEN or set {TOKEN_ENV}")
    return Connection(url.rstrip("/"), token, source)


# ---------------------------------------------------------------------------------------- output
def _flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _flatten(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        for index, item in enumerate(value):  # a list of objects: one block per object, numbered
            yield from _flatten(item, f"{prefix}.{index}" if prefix else str(index))
    else:
        yield prefix, value


_CONTROL = {code: f"\\x{code:02x}" for code in [*range(32), 127]} | {10: "\\n", 13: "\\r", 9: "\\t"}


def _text(value: Any) -> str:
    """One line: control characters (a newline, a terminal escape in a merchant's name) escaped."""
    if value is None or value == "" or value == [] or value == {}:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(_text(item) for item in value)
    return str(value).translate(_CONTROL)


def render_fields(body: dict[str, Any]) -> str:
    """`field: value` lines, values aligned; nested objects flattened as a.b.c."""
    pairs = list(_flatten(body))
    width = max((len(key) for key, _ in pairs), default=0) + 1
    return "".join(f"{key + ':':<{width}}  {_text(value)}\n" for key, value in pairs)


def _print_error(error: ApiError, stderr: TextIO) -> None:
    lines = [f"error {error.status} {error.code}: {error.detail}"]
    for item in error.field_errors:
        field = item.get("field") or "body"
        lines.append(f"  {field} [{item.get('code') or 'invalid'}]: {item.get('message') or ''}".rstrip())
    if error.status == 421 and error.code == "wrong_region":
        region = error.problem.get("region") or "?"
        base_url = error.problem.get("base_url") or ""
        where = f"its management API is {base_url}" if base_url else "that region's management URL is not configured"
        retry = f"--region {region}" + (f" (local stack) or --url {base_url}" if base_url else "")
        lines.append(f"hint: this tenant lives in region {region}; {where}; rerun with {retry}")
    stderr.write("".join(line + "\n" for line in lines))


# ---------------------------------------------------------------------------------------- commands
Command = Callable[[ManagementClient, argparse.Namespace], Response]


def _info(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.system_info()


def _accounts_create(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.create_account(args.name, args.account_region)


def _accounts_show(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.get_account(args.account_id)


def _accounts_suspend(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.suspend_account(args.account_id, args.reason)


def _accounts_reactivate(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.reactivate_account(args.account_id)


def _accounts_connect(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.connect_account(args.account_id, args.connected_account_id)


def _accounts_rate_limits(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.set_rate_limits(args.account_id, args.per_key, args.per_account)


def _accounts_connections(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.connected_accounts(args.account_id)


def _accounts_disconnect(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.disconnect_account(args.account_id, args.connected_account_id)


def _businesses_gateway_account(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.business_gateway_account(args.business_account_id)


def _businesses_link(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.link_gateway_account(args.business_account_id, args.gateway_account_id)


def _businesses_import_statement(client: ManagementClient, args: argparse.Namespace) -> Response:
    body: dict[str, Any] = {"mode": args.mode, "format": args.format, "content": args.file}
    if args.mapping is not None:
        body["mapping"] = args.mapping
    return client.import_bank_statement(args.business_account_id, body)


def _keys_create(client: ManagementClient, args: argparse.Namespace) -> Response:
    body: dict[str, Any] = {"mode": args.mode}
    if args.scopes is not None:
        body["scopes"] = args.scopes
    if args.expires_at is not None:
        body["expires_at"] = args.expires_at
    if args.ip_allowlist is not None:
        body["ip_allowlist"] = args.ip_allowlist
    if args.allowed_customers is not None:
        body["allowed_customers"] = args.allowed_customers
    return client.create_api_key(args.account_id, body)


def _keys_revoke(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.revoke_api_key(args.key_id)


def _json_file(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"cannot read a JSON document from {path}: {exc}") from exc


def _text_file(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise argparse.ArgumentTypeError(f"cannot read a UTF-8 text file from {path}: {exc}") from exc


def _oauth_clients_create(client: ManagementClient, args: argparse.Namespace) -> Response:
    body: dict[str, Any] = {"mode": args.mode}
    if args.scopes is not None:
        body["scopes"] = args.scopes
    if args.ip_allowlist is not None:
        body["ip_allowlist"] = args.ip_allowlist
    if args.name is not None:
        body["name"] = args.name
    if args.jwks_file is not None:
        body["jwks"] = args.jwks_file
    if args.jwks_uri is not None:
        body["jwks_uri"] = args.jwks_uri
    return client.create_oauth_client(args.account_id, body)


def _oauth_clients_list(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.oauth_clients(args.account_id)


def _oauth_clients_revoke(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.revoke_oauth_client(args.client_id)


def _webhook_secrets_roll(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.roll_webhook_secret(args.account_id, args.mode)


def _dispatch_failures_list(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.dispatch_failures(args.limit)


def _dispatch_failures_replay(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.replay_dispatch_failure(args.message_id)


def _suppressions_show(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.message_suppression(args.channel, args.address)


def _suppressions_remove(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.remove_message_suppression(args.channel, args.address)


def _notification_dead_letters_replay(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.replay_notification_dead_letters(args.limit)


def _accounts_pricing(client: ManagementClient, args: argparse.Namespace) -> Response:
    if args.file is None:
        return client.fee_schedule(args.account_id)
    return client.set_fee_schedule(args.account_id, args.file)


def _accounts_sms_channel(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.set_sms_channel(args.account_id, None if args.remove else args.sender_id)


def _accounts_fiscal_details(client: ManagementClient, args: argparse.Namespace) -> Response:
    given = (args.legal_name, args.nuit, args.address)
    if not any(given) and args.vat_rate is None and not args.not_vat_registered:
        return client.fiscal_details(args.account_id)
    body: dict[str, Any] = {
        "legal_name": args.legal_name,
        "nuit": args.nuit,
        "address": args.address,
        "vat_registered": not args.not_vat_registered,
    }
    if args.vat_rate is not None:
        body["vat_rate"] = args.vat_rate
    return client.set_fiscal_details(args.account_id, body)


def _billers_create(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.create_biller(args.file)


def _billers_list(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.billers()


def _billers_show(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.get_biller(args.biller_id)


def _billers_update(client: ManagementClient, args: argparse.Namespace) -> Response:
    fields = ("name", "category", "logo_url", "credit_account", "status", "account_id", "psp_id")
    body = {name: getattr(args, name) for name in fields if getattr(args, name) is not None}
    return client.change_biller(args.biller_id, body)


def _billers_retire(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.retire_biller(args.biller_id)


def _billers_add_product(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.add_bill_product(args.biller_id, args.file)


def _billers_retire_product(client: ManagementClient, args: argparse.Namespace) -> Response:
    return client.retire_bill_product(args.biller_id, args.product_id)


def _add_biller_commands(commands: Any, json_option: argparse.ArgumentParser) -> None:
    """`mzpay-admin billers ...`: billers and their bill products (docs/bills.md)."""
    billers = commands.add_parser("billers", help="billers and their bill products").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    create = billers.add_parser("create", parents=[json_option], help="register a biller from a JSON file")
    create.add_argument("--file", required=True, type=_json_file, metavar="FILE", help="the biller (docs/bills.md)")
    create.set_defaults(handler=_billers_create)
    billers.add_parser("list", parents=[json_option], help="every biller with its products").set_defaults(
        handler=_billers_list
    )
    show = billers.add_parser("show", parents=[json_option], help="a biller and its products")
    show.add_argument("biller_id", metavar="BILLER_ID")
    show.set_defaults(handler=_billers_show)
    update = billers.add_parser("update", parents=[json_option], help="change a biller's fields; pause or resume it")
    update.add_argument("biller_id", metavar="BILLER_ID")
    update.add_argument("--name")
    update.add_argument("--category")
    update.add_argument("--logo-url", dest="logo_url")
    update.add_argument("--credit-account", dest="credit_account", metavar="NIB")
    update.add_argument("--status", choices=("active", "paused"))
    update.add_argument("--account-id", dest="account_id", help="its own mzpay account (the billers' API)")
    update.add_argument("--psp-id", dest="psp_id", help="the PSP whose pilot its live payments count in")
    update.set_defaults(handler=_billers_update)
    retire = billers.add_parser("retire", parents=[json_option], help="retire a biller for good")
    retire.add_argument("biller_id", metavar="BILLER_ID")
    retire.set_defaults(handler=_billers_retire)
    product = billers.add_parser("add-product", parents=[json_option], help="add a bill product from a JSON file")
    product.add_argument("biller_id", metavar="BILLER_ID")
    product.add_argument("--file", required=True, type=_json_file, metavar="FILE", help="the product (docs/bills.md)")
    product.set_defaults(handler=_billers_add_product)
    retire_product = billers.add_parser("retire-product", parents=[json_option], help="retire a bill product")
    retire_product.add_argument("biller_id", metavar="BILLER_ID")
    retire_product.add_argument("product_id", metavar="PRODUCT_ID")
    retire_product.set_defaults(handler=_billers_retire_product)


# ---------------------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mzpay-admin",
        description="Operate an mzpay region through its management API.",
        epilog=(
            f"Connection, first match wins: --url/--token; --region with the local stack's file; "
            f"{URL_ENV}/{TOKEN_ENV}. Exit codes: 0 done, 1 API error, 2 usage, configuration or connection problem."
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    connection = parser.add_argument_group("connection (before the command)")
    connection.add_argument("--url", help=f"management API base URL (else {URL_ENV})")
    connection.add_argument("--token", help=f"operator bearer token (else {TOKEN_ENV})")
    connection.add_argument(
        "--region", choices=REGIONS, help="a region of the local stack: its management URL and operator token"
    )
    connection.add_argument(
        "--stack-file", metavar="PATH", help=f"the local stack's state file (default {DEFAULT_STACK_FILE})"
    )
    connection.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="per request (default 30)")
    # --json is accepted before or after the command (a subparser default would override the top-level one).
    parser.add_argument("--json", action="store_true", help="print the API's JSON answer as is")
    json_option = argparse.ArgumentParser(add_help=False)
    json_option.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print the raw JSON answer")

    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    listen = commands.add_parser(
        "listen",
        help="forward your account's events, signed, to a local URL (a merchant key; for development)",
        description=(
            "Polls the gateway's events API with a merchant key and posts each new event to --forward-to, "
            "signed with the webhook secret of the key's mode. With --region, the local stack's file gives "
            f"the gateway, the demo test key and its webhook secret; else --gateway/--key/--secret or "
            f"{GATEWAY_ENV}/{KEY_ENV}/{SECRET_ENV}."
        ),
    )
    listen.add_argument("--forward-to", required=True, metavar="URL", help="your local webhook endpoint")
    listen.add_argument("--gateway", metavar="URL", help=f"gateway base URL (else {GATEWAY_ENV})")
    listen.add_argument("--key", help=f"a merchant API key with events:read (else {KEY_ENV})")
    listen.add_argument("--secret", help=f"the webhook secret of the key's mode (else {SECRET_ENV})")
    listen.add_argument("--interval", type=float, default=1.0, metavar="SECONDS", help="between polls (default 1)")
    listen.add_argument("--max-events", type=int, metavar="N", help="stop after forwarding N events")
    listen.add_argument("--for", dest="duration", type=float, metavar="SECONDS", help="stop after this long")
    listen.set_defaults(handler=None)

    messages = commands.add_parser(
        "messages",
        parents=[json_option],
        help="what the local stack sent to people: SMS with their segments, e-mails (local stack only)",
    )
    messages.add_argument("--to", metavar="ADDRESS", help="only the messages to this phone number or e-mail address")
    messages.set_defaults(handler=None)

    info = commands.add_parser("info", parents=[json_option], help="the stack's region, stage, peers and build")
    info.set_defaults(handler=_info)

    accounts = commands.add_parser("accounts", help="merchant accounts").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    create = accounts.add_parser("create", parents=[json_option], help="create an active account")
    create.add_argument("--name", required=True)
    create.add_argument(
        "--region",
        dest="account_region",
        required=True,
        choices=REGIONS,
        help="the account's home region (must be the region of the management API called)",
    )
    create.set_defaults(handler=_accounts_create)
    show = accounts.add_parser("show", parents=[json_option], help="show an account")
    show.add_argument("account_id", metavar="ACCOUNT_ID")
    show.set_defaults(handler=_accounts_show)
    suspend = accounts.add_parser("suspend", parents=[json_option], help="suspend an active account")
    suspend.add_argument("account_id", metavar="ACCOUNT_ID")
    suspend.add_argument("--reason", required=True, help="why (kept on the account until it is reactivated)")
    suspend.set_defaults(handler=_accounts_suspend)
    reactivate = accounts.add_parser("reactivate", parents=[json_option], help="reactivate a suspended account")
    reactivate.add_argument("account_id", metavar="ACCOUNT_ID")
    reactivate.set_defaults(handler=_accounts_reactivate)

    connect = accounts.add_parser(
        "connect",
        parents=[json_option],
        help="let a platform account act for another account of its region (?account_id= on the gateway)",
    )
    connect.add_argument("account_id", metavar="PLATFORM_ACCOUNT_ID")
    connect.add_argument("connected_account_id", metavar="CONNECTED_ACCOUNT_ID")
    connect.set_defaults(handler=_accounts_connect)
    connections = accounts.add_parser(
        "connections", parents=[json_option], help="the accounts a platform account may act for"
    )
    connections.add_argument("account_id", metavar="PLATFORM_ACCOUNT_ID")
    connections.set_defaults(handler=_accounts_connections)
    disconnect = accounts.add_parser("disconnect", parents=[json_option], help="remove a platform connection")
    disconnect.add_argument("account_id", metavar="PLATFORM_ACCOUNT_ID")
    disconnect.add_argument("connected_account_id", metavar="CONNECTED_ACCOUNT_ID")
    disconnect.set_defaults(handler=_accounts_disconnect)

    rate_limits = accounts.add_parser(
        "rate-limits", parents=[json_option], help="set an account's own requests per second (per key, per account)"
    )
    rate_limits.add_argument("account_id", metavar="ACCOUNT_ID")
    rate_limits.add_argument("--per-key", type=int, required=True, metavar="N")
    rate_limits.add_argument("--per-account", type=int, required=True, metavar="N")
    rate_limits.set_defaults(handler=_accounts_rate_limits)
    pricing = accounts.add_parser(
        "pricing", parents=[json_option], help="an account's fee schedule (docs/pricing.md): read it, or set it"
    )
    pricing.add_argument("account_id", metavar="ACCOUNT_ID")
    pricing.add_argument(
        "--file", type=_json_file, metavar="SCHEDULE.json", help='set it: {"fees": [...]} replaces the whole schedule'
    )
    pricing.set_defaults(handler=_accounts_pricing)
    sms = accounts.add_parser(
        "sms-channel", parents=[json_option], help="the account's SMS channel (bill payments' resends by SMS)"
    )
    sms.add_argument("account_id", metavar="ACCOUNT_ID")
    chosen = sms.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--sender-id", metavar="NAME", help="3 to 11 letters or digits payers see as the sender")
    chosen.add_argument("--remove", action="store_true", help="take the SMS channel away")
    sms.set_defaults(handler=_accounts_sms_channel)
    fiscal = accounts.add_parser(
        "fiscal-details",
        parents=[json_option],
        help="the fiscal details its receipts carry (legal name, NUIT, address, IVA); without options: read them",
    )
    fiscal.add_argument("account_id", metavar="ACCOUNT_ID")
    fiscal.add_argument("--legal-name", metavar="NAME", help="the registered name (set: with --nuit and --address)")
    fiscal.add_argument("--nuit", metavar="NUIT", help="the 9-digit NUIT")
    fiscal.add_argument("--address", metavar="ADDRESS", help="the registered address, one line")
    vat = fiscal.add_mutually_exclusive_group()
    vat.add_argument("--vat-rate", metavar="FRACTION", help="registered for IVA at this rate (default 0.16)")
    vat.add_argument("--not-vat-registered", action="store_true", help="not registered for IVA: no tax shown")
    fiscal.set_defaults(handler=_accounts_fiscal_details)

    businesses = commands.add_parser(
        "businesses", help="business accounts of the collection surface and the gateway accounts they collect through"
    ).add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, handler, help_text, ids in (
        ("gateway-account", _businesses_gateway_account, "the gateway account a business collects through", ()),
        (
            "link",
            _businesses_link,
            "let a business collect through an existing gateway account of its region (one business per account)",
            ("gateway_account_id",),
        ),
    ):
        command = businesses.add_parser(name, parents=[json_option], help=help_text)
        for dest in ("business_account_id", *ids):
            command.add_argument(dest, metavar=dest.upper())
        command.set_defaults(handler=handler)

    statement = businesses.add_parser(
        "import-statement",
        parents=[json_option],
        help="import a business's bank statement: its credit lines matched to its requests (docs/bank-statements.md)",
    )
    statement.add_argument("business_account_id", metavar="BUSINESS_ACCOUNT_ID")
    statement.add_argument("--mode", required=True, choices=MODES)
    statement.add_argument("--format", required=True, choices=("csv", "camt053", "simo_erv"))
    statement.add_argument(
        "--file", required=True, type=_text_file, metavar="STATEMENT", help="the bank's file (UTF-8)"
    )
    statement.add_argument(
        "--mapping", type=_json_file, metavar="MAPPING.json", help="a csv file's columns (default: the usual export)"
    )
    statement.set_defaults(handler=_businesses_import_statement)

    keys = commands.add_parser("keys", help="API keys").add_subparsers(dest="action", metavar="ACTION", required=True)
    key_create = keys.add_parser("create", parents=[json_option], help="create an API key (its secret is shown once)")
    key_create.add_argument("account_id", metavar="ACCOUNT_ID")
    key_create.add_argument("--mode", required=True, choices=MODES)
    key_create.add_argument(
        "--scope", dest="scopes", action="append", metavar="SCOPE", help="repeat for each scope (default: the API's)"
    )
    key_create.add_argument("--expires-at", metavar="ISO8601", help="with an offset, e.g. 2030-01-01T00:00:00Z")
    key_create.add_argument(
        "--ip", dest="ip_allowlist", action="append", metavar="CIDR", help="allowed client address or CIDR; repeat"
    )
    key_create.add_argument(
        "--customer", dest="allowed_customers", action="append", metavar="ID", help="allowed customer id; repeat"
    )
    key_create.set_defaults(handler=_keys_create, secret_field="key")
    revoke = keys.add_parser("revoke", parents=[json_option], help="revoke an API key")
    revoke.add_argument("key_id", metavar="KEY_ID")
    revoke.set_defaults(handler=_keys_revoke)

    clients = commands.add_parser("oauth-clients", help="OAuth clients (client credentials)").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    client_create = clients.add_parser(
        "create",
        parents=[json_option],
        help="create a client (a secret, shown once; or --jwks-file for JWT assertions)",
    )
    client_create.add_argument("account_id", metavar="ACCOUNT_ID")
    client_create.add_argument("--mode", required=True, choices=MODES)
    client_create.add_argument(
        "--scope", dest="scopes", action="append", metavar="SCOPE", help="repeat for each scope (default: the API's)"
    )
    client_create.add_argument(
        "--ip", dest="ip_allowlist", action="append", metavar="CIDR", help="allowed client address or CIDR; repeat"
    )
    client_create.add_argument("--name", help="a label for operators")
    client_create.add_argument(
        "--jwks-file",
        metavar="FILE",
        type=_json_file,
        help="the client's public keys (a JWK set): private_key_jwt instead of a secret",
    )
    client_create.add_argument(
        "--jwks-uri", metavar="URL", help="where the client publishes its public keys: private_key_jwt"
    )
    client_create.set_defaults(handler=_oauth_clients_create, secret_field="client_secret")
    client_list = clients.add_parser("list", parents=[json_option], help="an account's clients")
    client_list.add_argument("account_id", metavar="ACCOUNT_ID")
    client_list.set_defaults(handler=_oauth_clients_list)
    client_revoke = clients.add_parser("revoke", parents=[json_option], help="revoke a client and its tokens")
    client_revoke.add_argument("client_id", metavar="CLIENT_ID")
    client_revoke.set_defaults(handler=_oauth_clients_revoke)

    secrets = commands.add_parser("webhook-secrets", help="webhook signing secrets").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    roll = secrets.add_parser(
        "roll", parents=[json_option], help="new signing secret; the previous one stays valid for the overlap"
    )
    roll.add_argument("account_id", metavar="ACCOUNT_ID")
    roll.add_argument("--mode", required=True, choices=MODES)
    roll.set_defaults(handler=_webhook_secrets_roll, secret_field="secret")

    failures = commands.add_parser(
        "dispatch-failures", help="events the webhook dispatcher skipped or gave up on (docs/webhooks.md)"
    ).add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = failures.add_parser("list", parents=[json_option], help="what is in the dispatch failure queue")
    listing.add_argument("--limit", type=int, default=50, help="at most this many, 1 to 100 (default 50)")
    listing.set_defaults(handler=_dispatch_failures_list)
    replay = failures.add_parser(
        "replay", parents=[json_option], help="dispatch a message's events again (after the cause is repaired)"
    )
    replay.add_argument("message_id", metavar="MESSAGE_ID")
    replay.set_defaults(handler=_dispatch_failures_replay)
    dead_letters = commands.add_parser(
        "notification-dead-letters", help="e-mails and SMS the notification sender gave up on (docs/operations.md)"
    ).add_subparsers(dest="action", metavar="ACTION", required=True)
    replay_letters = dead_letters.add_parser(
        "replay", parents=[json_option], help="put them back on the notification queue (after the cause is repaired)"
    )
    replay_letters.add_argument("--limit", type=int, default=100, help="at most this many, 1 to 1000 (default 100)")
    replay_letters.set_defaults(handler=_notification_dead_letters_replay)
    suppressions = commands.add_parser(
        "suppressions", help="the region's message suppression list (docs/notifications.md)"
    ).add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, handler, help_text in (
        ("show", _suppressions_show, "whether an address is suppressed, and why"),
        ("remove", _suppressions_remove, "take an address off the list: messages to it are sent again"),
    ):
        command = suppressions.add_parser(action, parents=[json_option], help=help_text)
        command.add_argument("channel", choices=("email", "sms"))
        command.add_argument("address", metavar="ADDRESS", help="an e-mail address or an E.164 phone number")
        command.set_defaults(handler=handler)
    _add_biller_commands(commands, json_option)
    return parser


# ---------------------------------------------------------------------------------------- main
def run(
    argv: Sequence[str] | None,
    stdout: TextIO,
    stderr: TextIO,
    environ: dict[str, str] | os._Environ[str],
) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, --version, usage errors: argparse has printed what it had to
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    if args.command == "listen":
        return _listen(args, stdout, stderr, environ)
    if args.command == "messages":
        return _messages(args, stdout, stderr)
    try:
        connection = resolve_connection(args, environ)
    except ConfigError as error:
        stderr.write(f"mzpay-admin: {error}\n")
        return EXIT_USAGE
    client = ManagementClient(connection.url, connection.token, timeout=args.timeout)
    try:
        response = args.handler(client, args)
    except ConnectionFailure as error:
        stderr.write(
            f"mzpay-admin: cannot reach the management API at {error.url} ({connection.source}): {error.reason}\n"
        )
        return EXIT_USAGE
    except ApiError as error:
        if args.json and error.raw.strip():
            stdout.write(error.raw.rstrip("\n") + "\n")
        _print_error(error, stderr)
        return EXIT_API_ERROR
    body = response.body
    if args.json:
        stdout.write(response.raw.rstrip("\n") + "\n")
    else:
        stdout.write(render_fields(body) if isinstance(body, dict) else json.dumps(body, indent=2) + "\n")
    stdout.flush()
    secret_field = getattr(args, "secret_field", None)
    if secret_field and isinstance(body, dict) and body.get(secret_field):
        stderr.write(SECRET_WARNINGS[secret_field] + "\n")
    return EXIT_OK


def resolve_listening(args: argparse.Namespace, environ: dict[str, str] | os._Environ[str]) -> Listening:
    gateway, key, secret = args.gateway, args.key, args.secret
    if args.region and not (gateway and key and secret):
        path = Path(args.stack_file) if args.stack_file else DEFAULT_STACK_FILE
        state = _stack_file(path)
        demo = (state.get("demo") or {}).get(args.region) or {}
        gateway = gateway or ((state.get("regions") or {}).get(args.region) or {}).get("gateway")
        key = key or demo.get("test_key")
        secret = secret or demo.get("webhook_secret_test")
    gateway = gateway or environ.get(GATEWAY_ENV)
    key = key or environ.get(KEY_ENV)
    secret = secret or environ.get(SECRET_ENV)
    missing = [name for name, value in (("--gateway", gateway), ("--key", key), ("--secret", secret)) if not value]
    if missing:
        raise ConfigError(
            f"listen needs {', '.join(missing)}: pass them, set {GATEWAY_ENV}/{KEY_ENV}/{SECRET_ENV}, "
            "or use --region with the local stack's file"
        )
    if not args.forward_to.startswith(("http://", "https://")):
        raise ConfigError(f"--forward-to must be an http:// or https:// URL (got {args.forward_to!r})")
    return Listening(
        str(gateway).rstrip("/"), str(key), str(secret), args.forward_to, args.interval, args.max_events, args.duration
    )


def _listen(
    args: argparse.Namespace, stdout: TextIO, stderr: TextIO, environ: dict[str, str] | os._Environ[str]
) -> int:
    try:
        listening = resolve_listening(args, environ)
        listen(listening, stdout)
    except ConfigError as error:
        stderr.write(f"mzpay-admin: {error}\n")
        return EXIT_USAGE
    except ConnectionFailure as error:
        stderr.write(f"mzpay-admin: cannot reach the gateway at {error.url}: {error.reason}\n")
        return EXIT_USAGE
    except ApiError as error:
        _print_error(error, stderr)
        return EXIT_API_ERROR
    except KeyboardInterrupt:
        stderr.write("mzpay-admin: stopped\n")
    return EXIT_OK


def _messages(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from mzpay_admin import messages

    path = Path(args.stack_file) if args.stack_file else DEFAULT_STACK_FILE
    try:
        endpoint = _stack_file(path).get("aws_endpoint")
        if not endpoint:
            raise ConfigError(f"stack file {path} names no aws_endpoint (moto)")
        found = messages.listing(messages.fetch(str(endpoint), args.timeout), args.to)
    except ConfigError as error:
        stderr.write(f"mzpay-admin: {error}\n")
        return EXIT_USAGE
    except OSError as error:
        stderr.write(f"mzpay-admin: cannot reach the local stack's moto: {error}\n")
        return EXIT_USAGE
    stdout.write(json.dumps(found, indent=2) + "\n" if args.json else messages.render(found))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """The console script: `mzpay-admin ...`; returns the exit code."""
    try:
        return run(argv, sys.stdout, sys.stderr, os.environ)
    except KeyboardInterrupt:
        sys.stderr.write("mzpay-admin: interrupted\n")
        return 130

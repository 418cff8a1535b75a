"""Merchant access use cases: accounts, API keys and webhook secrets. Handlers call these;
they apply the domain rules and persist through the stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from mzpay import deps
from mzpay.answers import access as key_answers
from mzpay.answers import accounts as answers
from mzpay.deps import settings
from mzpay.domain.access.keys import KeyGrant, KeyStatus, generate_key, granted, key_hash, redacted, roll_refusal
from mzpay.domain.access.principal import WWW_AUTHENTICATE as WWW
from mzpay.domain.access.principal import Principal, wrong_environment
from mzpay.domain.accounts import tenants as account_rules
from mzpay.domain.accounts.residency import ensure_home
from mzpay.domain.common.clock import iso, parse_iso
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import is_ulid, new_id
from mzpay.domain.webhooks.secrets import SecretVersion, after_roll, generate_secret
from mzpay.steps import audit, credentials
from mzpay.steps.accounts import home_account, not_found, served_here
from mzpay.store.directory import Account, AlreadyConnected, ApiKey, Connection
from mzpay.store.secrets import key_pepper


def _now() -> datetime:
    return datetime.now(UTC)


# ---------------------------------------------------------------- accounts (operators)
def create_account(name: str, region: str) -> answers.NewAccount:
    """A new active account homed in `region` (which must be this stack's region), with its first
    webhook signing secret per mode, answered this once (webhooks are signed from the start)."""
    ensure_home(region, "management")
    now = iso(_now())
    account = Account(new_id(), name, region, account_rules.AccountStatus.ACTIVE, "", now, now)
    deps.directory().create_account(account)
    audit.observe("account", account.account_id, account_id=account.account_id, after=account.public())
    secrets = {mode: roll_webhook_secret(account.account_id, mode) for mode in ("test", "live")}
    shown = {mode: {"secret_id": answer.secret_id, "secret": answer.secret} for mode, answer in secrets.items()}
    return answers.NewAccount.of({**account.public(), "webhook_secrets": shown})


def get_account(account_id: str) -> answers.Account:
    return answers.Account.of(home_account(account_id).public())


def find_accounts(name_prefix: str, limit: int = 25) -> list[dict[str, Any]]:
    """Operators: this region's accounts whose name starts with `name_prefix` (accents and case
    aside), by name; 400 for a prefix with nothing to search by."""
    if not account_rules.folded(name_prefix):
        raise ServiceError(400, "invalid_request", "q: a name or an account id.")
    found = deps.account_names().starting_with(settings().service_region, name_prefix, limit)
    return [{"id": account_id, "name": name} for account_id, name in found]


def change_account_status(account_id: str, action: str, reason: str = "") -> answers.Account:
    account = home_account(account_id)
    status = account_rules.next_status(account.status, action)
    changed = deps.directory().change_account_status(account, status, reason, _now()).public()
    audit.observe("account", account.account_id, account_id=account.account_id, before=account.public(), after=changed)
    return answers.Account.of(changed)


# ---------------------------------------------------------------- platform connections (operators)
def connect_account(platform_account_id: str, connected_account_id: str) -> answers.Connection:
    """Let the platform account act for the connected one (?account_id= on the gateway). Both
    accounts must exist in this region; a connection is created once (409 already_connected)."""
    platform = home_account(platform_account_id)  # 404 unknown, 421 homed elsewhere
    connected = deps.directory().get_account(connected_account_id) if is_ulid(connected_account_id) else None
    if connected is None:
        raise not_found("account")
    account_rules.connection_refusal(
        platform.account_id, connected.account_id, platform.home_region, connected.home_region
    )
    connection = Connection(platform.account_id, connected.account_id, platform.home_region, iso(_now()))
    try:
        deps.directory().connect(connection)
    except AlreadyConnected:
        raise ServiceError(
            409, "already_connected", "These accounts are already connected; remove the connection first."
        ) from None
    return answers.Connection.of(connection.public())


def list_connections(platform_account_id: str) -> answers.ConnectionList:
    """The accounts a platform account may act for."""
    platform = home_account(platform_account_id)
    connections = deps.directory().connections(platform.account_id)
    return answers.ConnectionList(connected_accounts=[answers.Connection.of(c.public()) for c in connections])


def disconnect_account(platform_account_id: str, connected_account_id: str) -> answers.Disconnection:
    """Remove a connection: from the next request on, the platform's ?account_id= for it is 404."""
    platform = home_account(platform_account_id)
    if not is_ulid(connected_account_id) or not deps.directory().disconnect(platform.account_id, connected_account_id):
        raise not_found("connection")
    return answers.Disconnection(
        platform_account_id=platform.account_id, connected_account_id=connected_account_id, connected=False
    )


def ensure_may_act_for(caller_account_id: str, account_id: str) -> None:
    """Before any route: a key with accounts:write naming another account reaches it only if it is
    connected to the caller's account, in this region, and active (see domain.accounts.tenants)."""
    connected, account = (
        (False, None) if not is_ulid(account_id) else deps.directory().acting_target(caller_account_id, account_id)
    )
    refusal = account_rules.acting_refusal(
        connected,
        account.status if account else None,
        account.reason if account else "",
        account.home_region if account else None,
        settings().service_region,
    )
    if refusal is not None:
        raise refusal


# ---------------------------------------------------------------- API keys
def _new_key(
    account: Account,
    mode: str,
    scopes: list[str],
    expires_at: datetime | None,
    ip_allowlist: list[str],
    allowed_customers: list[str],
) -> tuple[ApiKey, str]:
    secret = generate_key(mode)
    key = ApiKey(
        key_id=new_id(),
        **granted(account.account_id, account.home_region, mode, scopes),
        status=KeyStatus.ACTIVE,
        key_hash=key_hash(secret, key_pepper()),
        hint=redacted(secret),
        created_at=iso(_now()),
        expires_at=iso(expires_at) if expires_at else None,
        ip_allowlist=ip_allowlist,
        allowed_customers=allowed_customers,
    )
    return key, secret


def create_api_key(
    account_id: str,
    mode: str,
    scopes: list[str],
    expires_at: datetime | None,
    ip_allowlist: list[str],
    allowed_customers: list[str],
) -> answers.NewApiKey:
    """A new key for the account; its secret is in the answer and nowhere else."""
    account = home_account(account_id)
    if expires_at is not None and expires_at <= _now():
        raise ServiceError(400, "invalid_request", "expires_at must be in the future.")
    key, secret = _new_key(account, mode, scopes, expires_at, ip_allowlist, allowed_customers)
    deps.directory().create_key(key)
    return answers.NewApiKey.of({**key.public(), "key": secret})


def _home_key(key_id: str, api: str) -> ApiKey:
    return served_here(deps.directory().get_key(key_id), "API key", api)


def revoke_api_key(key_id: str, account_id: str | None = None, reason: str = "operator") -> answers.ApiKey:
    """An operator revokes a key: api_key.revoked is recorded (and posted to the account's endpoint).
    `account_id` (the console's account page, the dashboard): only a key of that account (404 for
    another's); `reason`: who revoked it, as the event's data.reason says (operator, merchant_user)."""
    key = _home_key(key_id, "management")
    if account_id is not None and key.account_id != home_account(account_id).account_id:
        raise not_found("API key")
    return answers.ApiKey.of(credentials.revoke_key(key, reason).public())


def account_api_keys(account_id: str) -> answers.ApiKeyList:
    """Operators: the account's API keys, newest first (never a secret or a hash; keys made before
    the account's key list existed are not in it)."""
    account = home_account(account_id)
    keys = deps.directory().account_keys(account.account_id)
    listed = [answers.ListedApiKey.of({**key.public(), "last_used_at": key.last_used_at}) for key in keys]
    return answers.ApiKeyList(data=listed)


def roll_account_api_key(account_id: str, key_id: str, overlap_seconds: int) -> key_answers.RolledApiKey:
    """Operators: roll a key of the account as its owner would (POST /v1/api-keys/{id}/roll: a new
    secret answered once, the old key working for `overlap_seconds`); audited with the old key as
    target, the new key's id and hint (never its secret) after."""
    account = home_account(account_id)
    key = _home_key(key_id, "management")
    if key.account_id != account.account_id:
        raise not_found("API key")
    rolled = _roll(key, overlap_seconds, "management")
    after = {name: value for name, value in rolled.wire().items() if name != "key"}  # never the secret
    audit.observe("api_key", key.key_id, account_id=account.account_id, before=key.public(), after=after)
    return rolled


def current_api_key(principal: Principal) -> key_answers.ApiKey:
    """What the calling key is: its account, mode, scopes and restrictions."""
    return key_answers.ApiKey.of(_home_key(principal.key_id, "gateway").public())


def _grant(key: ApiKey) -> KeyGrant:
    return KeyGrant(
        key.key_id,
        frozenset(key.scopes),
        frozenset(key.allowed_customers),
        tuple(key.ip_allowlist),
        parse_iso(key.expires_at),
    )


def roll_api_key(principal: Principal, key_id: str, overlap_seconds: int) -> key_answers.RolledApiKey:
    """Replace a key of the caller's own account: the new secret is answered once; the old key
    keeps working for `overlap_seconds`, then answers key_expired. A key rolls itself, or a key
    no broader than itself (domain.access.keys.roll_refusal). Keys are not reached through a platform
    connection: a connected account's keys are 404 to the platform, like any other account's."""
    key = deps.directory().get_key(key_id)
    if key is None or key.account_id != principal.account_id or key.account_id != principal.acting_account_id:
        raise not_found("API key")  # another account's key is not visible
    if key.mode != principal.mode:
        raise wrong_environment(principal.mode, key.mode)
    if key.key_id != principal.key_id:  # never more than the caller has (checked before any state)
        caller = deps.directory().get_key(principal.key_id)
        if caller is None:
            raise ServiceError(401, "unauthorized", "An API key is required.", headers={"WWW-Authenticate": WWW})
        refusal = roll_refusal(_grant(caller), _grant(key))
        if refusal is not None:
            raise refusal
    return _roll(key, overlap_seconds, "gateway")


def _roll(key: ApiKey, overlap_seconds: int, api: str) -> key_answers.RolledApiKey:
    """The roll itself: a new key with the same grants, the old one `rolled` and expiring after
    the overlap (never later than it would have), in one transaction."""
    if key.status != KeyStatus.ACTIVE:
        raise ServiceError(409, "already_rolled", "This key was already rolled or revoked.")
    account = home_account(key.account_id, api)
    now = _now()
    old_expires = now + timedelta(seconds=overlap_seconds)
    if key.expires_at:
        old_expires = min(old_expires, datetime.fromisoformat(key.expires_at.replace("Z", "+00:00")))
    new, secret = _new_key(
        account,
        key.mode,
        key.scopes,
        datetime.fromisoformat(key.expires_at.replace("Z", "+00:00")) if key.expires_at else None,
        key.ip_allowlist,
        key.allowed_customers,
    )
    deps.directory().roll_key(key, new, iso(old_expires))
    rolled = {"id": key.key_id, "expires_at": iso(old_expires)}
    return key_answers.RolledApiKey.of({**new.public(), "key": secret, "rolled": rolled})


# ---------------------------------------------------------------- webhook secrets
def roll_webhook_secret(account_id: str, mode: str) -> answers.RolledWebhookSecret:
    """A new signing secret for (account, mode); the previous one stays valid for the overlap."""
    account = home_account(account_id)
    store = deps.webhook_secrets()
    versions, read_version = store.read(account.account_id, mode)
    now = _now()
    secret = generate_secret()
    new = SecretVersion(new_id(), store.encrypt(secret, account.account_id), now, None)
    kept = after_roll(versions, new, now)
    store.write(account.account_id, mode, kept, read_version)
    previous = kept[1] if len(kept) > 1 else None
    return answers.RolledWebhookSecret(
        account_id=account.account_id,
        mode=mode,  # type: ignore[arg-type]  # test or live: the route's path says
        secret_id=new.secret_id,
        secret=secret,
        previous_secret_id=previous.secret_id if previous else None,
        previous_expires_at=iso(previous.expires_at) if previous and previous.expires_at else None,
        region=settings().service_region,  # type: ignore[arg-type]  # a configured service region
    )

"""Merchant access use cases: accounts, API keys and webhook secrets. Handlers call these;
they apply the domain rules and persist through the stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, TypeVar

from mzpay.config import settings
from mzpay.domain import accounts as account_rules
from mzpay.domain.errors import ServiceError
from mzpay.domain.ids import new_id
from mzpay.domain.keys import KeyStatus, generate_key, key_hash, redacted
from mzpay.domain.webhook_secrets import SecretVersion, after_roll, generate_secret
from mzpay.http.principal import Principal, wrong_environment
from mzpay.http.residency import ensure_home
from mzpay.store.accounts import WebhookSecrets
from mzpay.store.directory import Account, ApiKey, Directory, iso
from mzpay.store.secrets import key_pepper

Served = TypeVar("Served", Account, ApiKey)


@lru_cache(maxsize=1)
def directory() -> Directory:
    return Directory.from_env()


@lru_cache(maxsize=1)
def webhook_secrets() -> WebhookSecrets:
    return WebhookSecrets.from_env()


def _now() -> datetime:
    return datetime.now(UTC)


def _not_found(what: str) -> ServiceError:
    return ServiceError(404, "not_found", f"No such {what}.")


# ---------------------------------------------------------------- accounts (operators)
def create_account(name: str, region: str) -> dict[str, Any]:
    """A new active account homed in `region` (which must be this stack's region), with its first
    webhook signing secret per mode, answered this once (webhooks are signed from the start)."""
    ensure_home(region, "management")
    now = iso(_now())
    account = Account(new_id(), name, region, account_rules.AccountStatus.ACTIVE, "", now, now)
    directory().create_account(account)
    secrets = {mode: roll_webhook_secret(account.account_id, mode) for mode in ("test", "live")}
    return {
        **account.public(),
        "webhook_secrets": {mode: {k: answer[k] for k in ("secret_id", "secret")} for mode, answer in secrets.items()},
    }


def _served_here(record: Served | None, what: str, api: str) -> Served:
    """`record` if it exists (else 404) and its tenant lives here (else 421 naming its region)."""
    if record is None:
        raise _not_found(what)
    ensure_home(record.home_region, api)
    return record


def home_account(account_id: str, api: str = "management") -> Account:
    return _served_here(directory().get_account(account_id), "account", api)


def get_account(account_id: str) -> dict[str, Any]:
    return home_account(account_id).public()


def change_account_status(account_id: str, action: str, reason: str = "") -> dict[str, Any]:
    account = home_account(account_id)
    status = account_rules.next_status(account.status, action)
    return directory().change_account_status(account, status, reason, _now()).public()


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
        account_id=account.account_id,
        home_region=account.home_region,
        mode=mode,
        scopes=scopes,
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
) -> dict[str, Any]:
    """A new key for the account; its secret is in the answer and nowhere else."""
    account = home_account(account_id)
    if expires_at is not None and expires_at <= _now():
        raise ServiceError(400, "invalid_request", "expires_at must be in the future.")
    key, secret = _new_key(account, mode, scopes, expires_at, ip_allowlist, allowed_customers)
    directory().create_key(key)
    return {**key.public(), "key": secret}


def _home_key(key_id: str, api: str) -> ApiKey:
    return _served_here(directory().get_key(key_id), "API key", api)


def revoke_api_key(key_id: str) -> dict[str, Any]:
    key = _home_key(key_id, "management")
    return directory().revoke_key(key).public()


def current_api_key(principal: Principal) -> dict[str, Any]:
    """What the calling key is: its account, mode, scopes and restrictions."""
    key = _home_key(principal.key_id, "gateway")
    return key.public()


def roll_api_key(principal: Principal, key_id: str, overlap_seconds: int) -> dict[str, Any]:
    """Replace a key of the caller's account: the new secret is answered once; the old key
    keeps working for `overlap_seconds`, then answers key_expired."""
    key = directory().get_key(key_id)
    if key is None or key.account_id != principal.acting_account_id:
        raise _not_found("API key")  # another account's key is not visible
    if key.mode != principal.mode:
        raise wrong_environment(principal.mode, key.mode)
    if key.status != KeyStatus.ACTIVE:
        raise ServiceError(409, "already_rolled", "This key was already rolled or revoked.")
    account = home_account(key.account_id, "gateway")
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
    directory().roll_key(key, new, iso(old_expires))
    return {**new.public(), "key": secret, "rolled": {"id": key.key_id, "expires_at": iso(old_expires)}}


# ---------------------------------------------------------------- webhook secrets
def roll_webhook_secret(account_id: str, mode: str) -> dict[str, Any]:
    """A new signing secret for (account, mode); the previous one stays valid for the overlap."""
    account = home_account(account_id)
    store = webhook_secrets()
    versions, read_version = store.read(account.account_id, mode)
    now = _now()
    secret = generate_secret()
    new = SecretVersion(new_id(), store.encrypt(secret, account.account_id), now, None)
    kept = after_roll(versions, new, now)
    store.write(account.account_id, mode, kept, read_version)
    previous = kept[1] if len(kept) > 1 else None
    return {
        "account_id": account.account_id,
        "mode": mode,
        "secret_id": new.secret_id,
        "secret": secret,
        "previous_secret_id": previous.secret_id if previous else None,
        "previous_expires_at": iso(previous.expires_at) if previous and previous.expires_at else None,
        "region": settings().service_region,
    }

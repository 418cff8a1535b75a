"""Identity providers: create, read, list, update, delete, each change audited (docs/collection.md,
"Identity providers"). Only the installation's administrator reaches these (the routes' permissions
are installation permissions), so every creator is an administrator and any administrator may
change or delete any provider. A provider is trusted only for the business accounts it is bound
to (`account_ids`). Operators read the audit records on the management API."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime
from typing import Any

from mzpay import deps
from mzpay.answers.collection_identity import (
    IdentityProvider,
    IdentityProviderDeleted,
    IdentityProviderList,
    IdentityProviderResult,
)
from mzpay.answers.management_audit import AuditRecord, IdentityProviderAuditList
from mzpay.connectors.fetch import FetchError, fetch_json, loopback_allowed
from mzpay.connectors.oidc import configured_provider
from mzpay.domain.collection import identity_providers as rules
from mzpay.domain.collection.access import Identity
from mzpay.domain.common import page_tokens
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.ids import new_prefixed_id
from mzpay.store.identity_providers import LIST_KEY, Conflict, audit_partition

# Each lost round has one winner, so N concurrent writers need up to N attempts; a short
# jittered wait spreads them so that a handful of concurrent edits all land.
UPDATE_ATTEMPTS = 8
UPDATE_BACKOFF_SECONDS = 0.02


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _answer(record: dict[str, Any]) -> IdentityProviderResult:
    return IdentityProviderResult(
        object="idp", identity_provider=IdentityProvider.model_validate(rules.view(record)), error=None
    )


def _not_found() -> ServiceError:
    return ServiceError(404, "not_found", "No such identity provider.")


def _found(idp_id: str) -> dict[str, Any]:
    record = deps.identity_providers().get(idp_id) if rules.is_idp_id(idp_id) else None
    if record is None:
        raise _not_found()
    return record


# ---------------------------------------------------------------------- discovery and checks
def _discover(well_known_url: str) -> dict[str, str]:
    """The endpoint fields the OIDC discovery document at `well_known_url` gives; 400
    validation_error on well_known_url when it cannot be fetched."""
    try:
        document = fetch_json(well_known_url)
    except FetchError as exc:
        error = FieldError("well_known_url", "discovery_failed", f"OIDC discovery failed: {exc.message}")
        raise rules.invalid([error]) from exc
    found = rules.discovered_endpoints(document)
    errors = [FieldError(e.field, e.code, f"{e.message} (from discovery)") for e in rules.field_errors(found)]
    if errors:
        raise rules.invalid(errors)
    return found


def _check_complete(record: dict[str, Any], discovery_ran: bool) -> None:
    errors = rules.missing(record, discovery_ran)
    if record.get("type") == "oidc" and not loopback_allowed():
        # what the service fetches itself (discovery, keys) must be https
        for name in ("well_known_url", "jwks_uri"):
            if str(record.get(name) or "").startswith("http://"):
                errors.append(FieldError(name, "https_required", f"{name} must be an https URL"))
    if errors:
        raise rules.invalid(errors)
    configured = configured_provider()
    if configured is not None and record["issuer_url"] == configured.issuer:
        raise ServiceError(409, "already_exists", "This issuer is the stack's configured provider.", field="issuer_url")


def _seal_secrets(record: dict[str, Any], given: dict[str, Any]) -> set[str]:
    """Encrypt the secrets `given` sets into `record` (ciphertext and hint, never plaintext)."""
    sealed = set()
    for name in rules.SECRET_FIELDS:
        if name in given:
            record[f"{name}_ciphertext"] = deps.identity_providers().encrypt(given[name], record["id"], name)
            record[f"{name}_hint"] = rules.secret_hint(given[name])
            sealed.add(name)
        record.pop(name, None)
    return sealed


def _audit(
    record_id: str, action: str, identity: Identity, ip: str, at: str, changes: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": new_prefixed_id("aud"),
        "resource": "identity_provider",
        "resource_id": record_id,
        "action": action,
        "actor": identity.actor(),
        "ip": ip,
        "at": at,
        "changes": changes,
    }


def _distinct(accounts: list[str]) -> list[str]:
    """The bound accounts in the order given, each once."""
    return list(dict.fromkeys(accounts))


def _issuer_taken() -> ServiceError:
    return ServiceError(409, "already_exists", "Another identity provider has this issuer_url.", field="issuer_url")


# ---------------------------------------------------------------------- routes
def create(given: dict[str, Any], identity: Identity, ip: str) -> IdentityProviderResult:
    """A new provider from the request's fields (an oidc provider's endpoints may come from
    discovery; explicit values win)."""
    errors = rules.field_errors(given)
    if errors:
        raise rules.invalid(errors)
    fields = {name: given[name] for name in rules.SETTABLE if given.get(name) is not None}
    fields[rules.BINDING] = _distinct(fields.get(rules.BINDING) or [])  # none bound: its tokens act for no one
    discovery_ran = fields.get("type") == "oidc" and "well_known_url" in fields
    if discovery_ran:
        fields = rules.with_discovery(fields, _discover(fields["well_known_url"]))
    _check_complete(fields, discovery_ran)
    now = _now()
    record: dict[str, Any] = {
        "id": new_prefixed_id(rules.PREFIX),
        **fields,
        "created_at": now,
        "updated_at": now,
        "created_by": given.get("created_by") or identity.subject,
        "created_ip": given.get("created_ip") or ip,
        "updated_by": None,
        "updated_ip": None,
    }
    sealed = _seal_secrets(record, fields)
    audit = _audit(record["id"], "created", identity, ip, now, rules.changes({}, record, sealed))
    try:
        deps.identity_providers().create(record, audit)
    except Conflict as exc:
        raise _issuer_taken() from exc
    return _answer(record)


def get(idp_id: str) -> IdentityProviderResult:
    return _answer(_found(idp_id))


def _changed_fields(before: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The settable fields an update sets. A secret sent back as its own hint (a read, edited
    and sent back whole) is not a new secret; created_* may be sent back unchanged only."""
    provided = {name: given[name] for name in rules.SETTABLE if given.get(name) is not None}
    if rules.BINDING in provided:
        provided[rules.BINDING] = _distinct(provided[rules.BINDING])
    for name in rules.SECRET_FIELDS:
        if name in provided and provided[name] == before.get(f"{name}_hint"):
            del provided[name]
    errors = [
        FieldError(name, "immutable", f"{name} is set once, when the provider is created")
        for name in ("created_by", "created_ip")
        if given.get(name) is not None and given[name] != before.get(name)
    ]
    if errors:
        raise rules.invalid(errors)
    return provided


def _updated(before: dict[str, Any], given: dict[str, Any], identity: Identity, ip: str) -> dict[str, Any]:
    provided = _changed_fields(before, given)
    after = {**before, **provided}
    discovery_ran = after.get("type") == "oidc" and "well_known_url" in provided
    if discovery_ran:
        discovered = _discover(after["well_known_url"])
        after |= {name: value for name, value in discovered.items() if name not in provided}
    _check_complete(after, discovery_ran)
    now = _now()
    after |= {"updated_at": now, "updated_by": given.get("updated_by") or identity.subject}
    after["updated_ip"] = given.get("updated_ip") or ip
    sealed = _seal_secrets(after, provided)
    audit = _audit(before["id"], "updated", identity, ip, now, rules.changes(before, after, sealed))
    deps.identity_providers().update(before, after, audit)
    return after


def update(given: dict[str, Any], identity: Identity, ip: str) -> IdentityProviderResult:
    """Change the fields the request sets, nothing else; a concurrent update of the same
    provider is re-applied on the fresh copy (each lands, each is audited)."""
    errors = rules.field_errors(given)
    if errors:
        raise rules.invalid(errors)
    for attempt in range(UPDATE_ATTEMPTS):
        before = _found(str(given["id"]))
        try:
            return _answer(_updated(before, given, identity, ip))
        except Conflict as exc:
            if exc.what == "issuer":
                raise _issuer_taken() from exc
            if attempt == UPDATE_ATTEMPTS - 1:
                raise ServiceError(
                    409, "conflict", "The identity provider kept changing meanwhile; read it and retry."
                ) from exc
            time.sleep(random.uniform(0, UPDATE_BACKOFF_SECONDS * 2**attempt))
    raise AssertionError("unreachable")


def delete(idp_id: str, identity: Identity, ip: str) -> IdentityProviderDeleted:
    record = _found(idp_id)
    try:
        deps.identity_providers().delete(record, _audit(record["id"], "deleted", identity, ip, _now(), {}))
    except Conflict as exc:
        raise _not_found() from exc
    return IdentityProviderDeleted(object="idp", error=None)


# ---------------------------------------------------------------------- pages
def _start_key(token: str | None, valid: Any, code: str) -> dict[str, str] | None:
    if token is None:
        return None
    key = page_tokens.decode(token, valid)
    if key is None:
        error = FieldError("page_token", "invalid_value", "page_token is not a token this list gave")
        raise ServiceError(400, code, "The request has invalid fields: page_token.", errors=[error])
    return key


def _is_list_key(key: dict[str, str]) -> bool:
    return (
        set(key) == {"pk", "sk", "gsi1pk", "gsi1sk"}
        and key["gsi1pk"] == LIST_KEY
        and rules.is_idp_id(key["gsi1sk"])
        and key["pk"] == f"IDP#{key['gsi1sk']}"
        and key["sk"] == "IDP"
    )


def page(page_size: int, page_token: str | None) -> IdentityProviderList:
    """Providers in creation order, `page_size` at a time (cursor pagination)."""
    found = deps.identity_providers().page(page_size, _start_key(page_token, _is_list_key, "validation_error"))
    return IdentityProviderList(
        object="list",
        data=[IdentityProvider.model_validate(rules.view(item)) for item in found.items],
        has_more=found.last_key is not None,
        next_page_token=page_tokens.encode(found.last_key) if found.last_key else None,
        error=None,
    )


def audit_view(item: dict[str, Any]) -> AuditRecord:
    """An audit record as operators see it."""
    public: dict[str, Any] = {"object": "audit_record"}
    public |= {name: item.get(name) for name in ("id", "resource", "resource_id", "action", "actor", "ip", "at")}
    public["changes"] = item.get("changes") or {}
    return AuditRecord.model_validate(public)


def audit_records(idp_id: str, page_size: int, page_token: str | None) -> IdentityProviderAuditList:
    """A provider's audit records, newest first (deleted providers' too); 404 when it has none."""
    if not rules.is_idp_id(idp_id):
        raise _not_found()

    def valid(key: dict[str, str]) -> bool:
        return set(key) == {"pk", "sk"} and key["pk"] == audit_partition(idp_id)

    start = _start_key(page_token, valid, "invalid_request")
    found = deps.identity_providers().audit_page(idp_id, page_size, start)
    if not found.items and start is None:
        raise _not_found()
    return IdentityProviderAuditList(
        object="list",
        data=[audit_view(item) for item in found.items],
        has_more=found.last_key is not None,
        next_page_token=page_tokens.encode(found.last_key) if found.last_key else None,
    )

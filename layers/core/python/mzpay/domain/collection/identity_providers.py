"""Identity providers of the collection surface: the spec's IdentityProvider and its rules.

Pure: which fields are required, what OIDC discovery fills, how secrets are shown, what an
update changed (for the audit record). See docs/collection.md, "Identity providers".
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.domain.common.ids import has_prefix

PREFIX = "idp"
TYPES = ("oidc", "saml")
# Endpoint fields and the discovery document member (OpenID Connect Discovery 1.0) filling each.
DISCOVERED = {
    "issuer_url": "issuer",
    "auth_url": "authorization_endpoint",
    "token_url": "token_endpoint",
    "user_info_url": "userinfo_endpoint",
    "jwks_uri": "jwks_uri",
    "end_session_endpoint": "end_session_endpoint",
    "registration_endpoint": "registration_endpoint",
    "introspection_endpoint": "introspection_endpoint",
    "revocation_endpoint": "revocation_endpoint",
}
ENDPOINT_FIELDS = tuple(DISCOVERED)
URL_FIELDS = ("provider_url", "well_known_url", *ENDPOINT_FIELDS)
SECRET_FIELDS = ("client_secret", "encryption_key")
# The business accounts a provider's tokens may act for (docs/collection.md, "Identity providers"):
# a token of it naming another account, or none, is refused at sign-in.
BINDING = "account_ids"
MAX_BOUND_ACCOUNTS = 100
MAX_ACCOUNT_ID = 128
# The provider and the client registered with it: required on create, and set by a client.
CLIENT_FIELDS = ("name", "type", "client_id", "client_secret", "encryption_key", "provider_url")
# Required on create (the spec's table); endpoint fields may come from discovery instead.
REQUIRED = (
    *CLIENT_FIELDS,
    "scopes",
    "redirect_uris",
    "well_known_url",
    *ENDPOINT_FIELDS,
)
# What a client sets; the rest (id, created_*/updated_* stamps) the service sets.
SETTABLE = (
    *CLIENT_FIELDS,
    "issuer_url",
    "auth_url",
    "token_url",
    "user_info_url",
    "scopes",
    "redirect_uris",
    "end_session_endpoint",
    "jwks_uri",
    "registration_endpoint",
    "introspection_endpoint",
    "revocation_endpoint",
    "well_known_url",
    BINDING,
)
STAMPS = ("created_at", "updated_at", "created_by", "updated_by", "created_ip", "updated_ip")
VIEW_FIELDS = ("id", *SETTABLE, *STAMPS)
MASK = "****"
_HINT_MIN_LENGTH = 16  # shorter secrets show no characters at all


def bound_accounts(record: dict[str, Any]) -> list[str]:
    """The accounts a provider is trusted for (none for a provider stored before bindings existed)."""
    return [str(account) for account in record.get(BINDING) or []]


def is_idp_id(text: object) -> bool:
    return has_prefix(text, PREFIX)


def secret_hint(secret: str) -> str:
    """How a secret is shown: never in full; its last four characters when it is long enough
    that they say little about it."""
    return MASK + secret[-4:] if len(secret) >= _HINT_MIN_LENGTH else MASK


def invalid(errors: list[FieldError]) -> ServiceError:
    names = ", ".join(error.field for error in errors)
    return ServiceError(400, "validation_error", f"The request has invalid fields: {names}.", errors=errors)


def is_web_url(text: str) -> bool:
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and not parts.username


def field_errors(fields: dict[str, Any]) -> list[FieldError]:
    """Format rules of the fields present in `fields` (not whether required ones are there)."""
    errors: list[FieldError] = []
    for name in URL_FIELDS:
        value = fields.get(name)
        if value is not None and not is_web_url(value):
            errors.append(FieldError(name, "invalid_url", f"{name} must be an absolute http(s) URL"))
    redirects = fields.get("redirect_uris")
    if redirects is not None:
        entries = [entry.strip() for entry in redirects.split(",")]
        if not all(entry and ":" in entry and " " not in entry for entry in entries):
            errors.append(FieldError("redirect_uris", "invalid_url", "redirect_uris is a comma-separated URI list"))
    accounts = fields.get(BINDING)
    if accounts is not None and (
        not isinstance(accounts, list)
        or len(accounts) > MAX_BOUND_ACCOUNTS
        or not all(isinstance(a, str) and 0 < len(a) <= MAX_ACCOUNT_ID and a.strip() == a for a in accounts)
    ):
        message = f"{BINDING} is a list of at most {MAX_BOUND_ACCOUNTS} account ids of 1 to {MAX_ACCOUNT_ID} characters"
        errors.append(FieldError(BINDING, "invalid_value", message))
    for name in ("created_ip", "updated_ip"):
        value = fields.get(name)
        if value is not None:
            try:
                ipaddress.ip_address(value)
            except ValueError:
                errors.append(FieldError(name, "invalid_value", f"{name} must be an IPv4 or IPv6 address"))
    return errors


def discovered_endpoints(document: dict[str, Any]) -> dict[str, str]:
    """Endpoint fields a discovery document gives (only its string members)."""
    found: dict[str, str] = {}
    for name, member in DISCOVERED.items():
        value = document.get(member)
        if isinstance(value, str) and value.strip():
            found[name] = value.strip()
    return found


def with_discovery(given: dict[str, Any], discovered: dict[str, str]) -> dict[str, Any]:
    """`given` with every endpoint field it does not set filled from discovery: explicit
    values win."""
    filled = dict(given)
    for name, value in discovered.items():
        if filled.get(name) is None:
            filled[name] = value
    return filled


def missing(record: dict[str, Any], discovery_ran: bool) -> list[FieldError]:
    """Required fields absent from `record` (after discovery, if it ran)."""
    errors = []
    for name in REQUIRED:
        if name in SECRET_FIELDS and record.get(f"{name}_ciphertext"):
            continue  # stored sealed
        if record.get(name) in (None, ""):
            if name in ENDPOINT_FIELDS and discovery_ran:
                message = f"{name} is required: give it, or a well_known_url whose discovery document has it"
            elif name in ENDPOINT_FIELDS and record.get("type") == "saml":
                message = f"{name} is required: SAML providers set every endpoint by hand"
            else:
                message = f"{name} is required"
            errors.append(FieldError(name, "required", message))
    return errors


def view(record: dict[str, Any]) -> dict[str, Any]:
    """The spec's IdentityProvider: secrets as hints, every field present (null when unset)."""
    public = {name: record.get(name) for name in VIEW_FIELDS}
    public[BINDING] = bound_accounts(record)
    for name in SECRET_FIELDS:
        public[name] = record.get(f"{name}_hint")
    return public


def changes(before: dict[str, Any], after: dict[str, Any], secrets_set: set[str]) -> dict[str, dict[str, Any]]:
    """What a create or update changed, field by field ({"from", "to"}). Secrets appear only as
    hints: a secret counts as changed when the request set it (`secrets_set`), since the store
    keeps no comparable form of it."""
    changed: dict[str, dict[str, Any]] = {}
    for name in SETTABLE:
        if name == BINDING:
            if bound_accounts(before) != bound_accounts(after):
                changed[name] = {"from": bound_accounts(before), "to": bound_accounts(after)}
        elif name in SECRET_FIELDS:
            if name in secrets_set:
                changed[name] = {"from": before.get(f"{name}_hint"), "to": after.get(f"{name}_hint")}
        elif before.get(name) != after.get(name):
            changed[name] = {"from": before.get(name), "to": after.get(name)}
    return changed

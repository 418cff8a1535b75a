"""Identity-provider rules: discovery fills, explicit values win, required fields, hints,
formats and the audit's changes."""

from __future__ import annotations

from mzpay.domain.collection import identity_providers as rules

DOCUMENT = {
    "issuer": "https://idp.example",
    "authorization_endpoint": "https://idp.example/auth",
    "token_endpoint": "https://idp.example/token",
    "userinfo_endpoint": "https://idp.example/me",
    "jwks_uri": "https://idp.example/keys",
    "end_session_endpoint": "https://idp.example/logout",
    "registration_endpoint": "https://idp.example/register",
    "introspection_endpoint": "https://idp.example/introspect",
    "revocation_endpoint": "https://idp.example/revoke",
    "grant_types_supported": ["client_credentials"],
    "claims_supported": 42,
}


def test_discovery_fills_every_endpoint_field_and_explicit_values_win() -> None:
    found = rules.discovered_endpoints(DOCUMENT)
    assert set(found) == set(rules.ENDPOINT_FIELDS)
    filled = rules.with_discovery({"token_url": "https://mine.example/token", "name": "x"}, found)
    assert filled["token_url"] == "https://mine.example/token"
    assert filled["auth_url"] == "https://idp.example/auth" and filled["issuer_url"] == "https://idp.example"
    assert filled["name"] == "x"


def test_discovery_ignores_members_that_are_not_strings() -> None:
    assert rules.discovered_endpoints({"issuer": 7, "jwks_uri": " ", "token_endpoint": "https://t"}) == {
        "token_url": "https://t"
    }


def test_missing_names_each_required_field_once_with_a_reason() -> None:
    errors = rules.missing({"type": "saml", "name": "x"}, discovery_ran=False)
    assert [e.field for e in errors] == [f for f in rules.REQUIRED if f not in ("type", "name")]
    by_field = {e.field: e.message for e in errors}
    assert by_field["jwks_uri"] == "jwks_uri is required: SAML providers set every endpoint by hand"
    assert by_field["client_id"] == "client_id is required"
    discovered = {e.field: e.message for e in rules.missing({"type": "oidc"}, discovery_ran=True)}
    assert discovered["revocation_endpoint"].endswith("or a well_known_url whose discovery document has it")
    sealed = {name: "x" for name in rules.REQUIRED if name not in rules.SECRET_FIELDS}
    assert rules.missing({**sealed, "client_secret_ciphertext": "c", "encryption_key_ciphertext": "c"}, False) == []


def test_secrets_show_at_most_their_last_four_characters() -> None:
    assert rules.secret_hint("0123456789abcdefWXYZ") == "****WXYZ"
    assert rules.secret_hint("short-secret") == "****"
    record = {"id": "idp_1", "client_secret_hint": "****WXYZ", "client_secret_ciphertext": "AQID", "name": "n"}
    view = rules.view(record)
    assert view["client_secret"] == "****WXYZ" and "client_secret_ciphertext" not in view
    assert view["encryption_key"] is None and set(view) == set(rules.VIEW_FIELDS)


def test_formats() -> None:
    good = {"provider_url": "https://a.example", "redirect_uris": "https://a/cb, com.example.app:/cb"}
    assert rules.field_errors(good) == []
    bad = rules.field_errors(
        {"token_url": "ftp://x", "jwks_uri": "https://user@x", "redirect_uris": "a b,", "created_ip": "300.1.1.1"}
    )
    assert [(e.field, e.code) for e in bad] == [
        ("token_url", "invalid_url"),
        ("jwks_uri", "invalid_url"),
        ("redirect_uris", "invalid_url"),
        ("created_ip", "invalid_value"),
    ]


def test_changes_name_changed_fields_and_set_secrets_only_as_hints() -> None:
    before = {"name": "a", "scopes": "openid", "client_secret_hint": "****1111"}
    after = {"name": "b", "scopes": "openid", "client_secret_hint": "****2222"}
    assert rules.changes(before, after, {"client_secret"}) == {
        "name": {"from": "a", "to": "b"},
        "client_secret": {"from": "****1111", "to": "****2222"},
    }
    assert rules.changes(before, before, set()) == {}


def test_idp_ids_are_prefixed_ulids() -> None:
    assert rules.is_idp_id("idp_01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert not rules.is_idp_id("idp_x") and not rules.is_idp_id("01ARZ3NDEKTSV4RRFFQ69G5FAV")

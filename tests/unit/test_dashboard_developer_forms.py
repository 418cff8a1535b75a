"""The dashboard's API keys and webhooks forms read as the API's bodies (docs/dashboard.md, "API
keys and webhooks"): the ticked scopes, the expiry day, the allowlist and customers lists, the
roll's overlap and the deliveries' status filter; what the API's models refuse, refused the same."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.http import developer_forms as forms
from mzpay.http import page_locale

BLANK = {"expires_on": "", "ip_allowlist": "", "allowed_customers": ""}


def test_a_key_form_is_the_apis_create_body() -> None:
    texts = {"expires_on": "2030-01-31", "ip_allowlist": "10.0.0.0/8,\n196.28.230.1 ::1", "allowed_customers": "a, b"}
    ticked = {"scope_payments:read": "yes", "scope_balance:read": "yes", "scope_refunds:write": "no"}
    body = forms.new_key(texts, ticked)
    assert body.scopes == ["balance:read", "payments:read"]
    assert body.expires_at == datetime(2030, 1, 31, 23, 59, 59, tzinfo=UTC)
    assert body.ip_allowlist == ["10.0.0.0/8", "196.28.230.1/32", "::1/128"]
    assert body.allowed_customers == ["a", "b"]
    assert "accounts:write" not in forms.OFFERED_SCOPES  # an operator's grant only


@pytest.mark.parametrize(
    ("texts", "ticked", "field", "code"),
    [
        (BLANK, {}, "scopes", "required"),
        ({**BLANK, "expires_on": "31/01/2030"}, {"scope_payments:read": "yes"}, "expires_on", "invalid_value"),
        ({**BLANK, "ip_allowlist": "not-an-address"}, {"scope_payments:read": "yes"}, "ip_allowlist", "invalid_cidr"),
    ],
)
def test_a_key_form_the_api_would_refuse_is_refused_naming_the_field(
    texts: dict[str, str], ticked: dict[str, str], field: str, code: str
) -> None:
    with pytest.raises(ServiceError) as refused:
        forms.new_key(texts, ticked)
    assert refused.value.status == 400
    assert [(error.field, error.code) for error in refused.value.errors] == [(field, code)]


def test_a_rolls_overlap_is_the_apis_rule() -> None:
    assert forms.overlap({"overlap_seconds": ""}) == 24 * 3600
    assert forms.overlap({"overlap_seconds": "0"}) == 0
    for typed in ("-1", "1h", str(7 * 24 * 3600 + 1)):
        with pytest.raises(ServiceError) as refused:
            forms.overlap({"overlap_seconds": typed})
        assert refused.value.status == 400 and [e.field for e in refused.value.errors] == ["overlap_seconds"]


def test_the_deliveries_status_filter_has_a_maximum() -> None:
    assert forms.status_filter({}, 16) is None and forms.status_filter({"status": " failed "}, 16) == "failed"
    with pytest.raises(ServiceError) as refused:
        forms.status_filter({"status": "f" * 17}, 16)
    assert [(e.field, e.code) for e in refused.value.errors] == [("status", "too_long")]


def _pages() -> list[tuple[str, dict[str, Any]]]:
    key = SimpleNamespace(
        id="01JD8Z5Q1R2S3T4V5W6X7Y8Z9A",
        hint="mzp_test_...abcd",
        scopes=["balance:read"],
        ip_allowlist=["196.28.230.0/24"],
        allowed_customers=[],
        expires_at=None,
        created_at="2026-11-02T10:00:00Z",
        last_used_at=None,
        status="active",
        rolled_to=None,
    )
    attempt = SimpleNamespace(at="2026-11-02T10:00:04Z", status_code=None, latency_ms=None, error="timeout", round=0)
    delivery = SimpleNamespace(
        id="01JD8Z5Q1R2S3T4V5W6X7Y8Z9B",
        event_id="01JD8Z5N2B3C4D5E6F7G8H9J0K",
        event_type="payment.succeeded",
        url="https://shop.example/hooks",
        status="failed",
        round=0,
        attempt_count=1,
        last_error="timeout",
        created_at="2026-11-02T10:00:04Z",
        replayed_at=None,
        attempts=[attempt],
    )
    endpoint = SimpleNamespace(url=None, updated_at=None)
    rolled = {"id": key.id, "key": "mzp_test_new", "rolled": {"id": "old", "expires_at": "2026-11-03T10:00:00Z"}}
    return [
        ("developers_keys.html", {"keys": [key], "scopes": forms.OFFERED_SCOPES}),
        ("developers_keys.html", {"keys": [], "scopes": forms.OFFERED_SCOPES}),
        ("developers_key.html", {"key": key}),
        ("developers_webhooks.html", {"endpoint": endpoint}),
        ("developers_deliveries.html", {"deliveries": [delivery], "status": "failed"}),
        ("developers_delivery.html", {"delivery": delivery, "payload": None}),
        ("developers_secret.html", {"kind": "key", "shown": rolled}),
        (
            "developers_secret.html",
            {"kind": "webhook_secret", "shown": {"secret_id": "s", "secret": "whsec_x", "previous_expires_at": None}},
        ),
    ]


@pytest.mark.parametrize("lang", ["pt", "en"])
@pytest.mark.parametrize("mode", ["test", "live"])
def test_every_page_renders_in_both_languages_and_a_live_form_asks_for_its_confirmation(lang: str, mode: str) -> None:
    session = SimpleNamespace(mode=mode, email="dev@example.co.mz", role="developer")
    common = {"page": "p", "nonce": "n", "base": "", "path": "/p", "session": session, "csrf": "token", "error": None}
    for template, context in _pages():
        html = page_locale.render(f"dashboard/{template}", lang, may=lambda _p: True, **common, **context)
        forms_posted = html.count('<form method="post"') - 2  # the header's mode switch and sign-out
        assert html.count('name="confirm_live"') == (forms_posted if mode == "live" else 0), template

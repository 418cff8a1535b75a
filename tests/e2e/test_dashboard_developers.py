"""The dashboard's API keys and webhooks pages over HTTP on the local stack (docs/dashboard.md,
"API keys and webhooks"): a developer creates a key whose secret is shown once and works on the
gateway, rolls it (the old one ends with the overlap the API defines) and revokes one (the next
API request with it is 401); sets the endpoint for the account's own events, rolls the signing
secret, finds a dead-lettered delivery, reads its attempts and payload and replays it to a real
receiver. Another account's or the other mode's ids are 404, support and finance are 403 with
nothing changed, a field too long or holding a card number is refused on the form's page in its
language with nothing stored, a live change needs its confirmation, and every change is on the
audit trail as the user's."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from mzpay.domain.webhooks.rules import MAX_ATTEMPTS, delivery_id_for
from tests.e2e.dashboard_client import DashboardUser, audit_records, csrf, refusal_shown, signed_in_user
from tests.e2e.test_charges import Merchant
from tests.e2e.test_webhooks import SUCCEEDS, Receiver, Shop
from tests.polling import eventually
from tests.receivers import serving

pytestmark = pytest.mark.e2e

CARD = "4242 4242 4242 4242"
SECRET = re.compile(r"<code data-secret>([^<]+)</code>")


@pytest.fixture(scope="module")
def shop(stack: RunningStack) -> Merchant:
    return Merchant(stack)


@pytest.fixture(scope="module")
def developer(stack: RunningStack, shop: Merchant) -> DashboardUser:
    return signed_in_user(stack, shop.account["id"], "developer")


def gateway(stack: RunningStack, key: str, path: str = "/v1/api-keys/current") -> requests.Response:
    url = stack.state["regions"]["mz"]["gateway"] + path
    return requests.get(url, headers={"Authorization": f"Bearer {key}"}, timeout=30)


def trail(stack: RunningStack, **filters: str) -> list[dict[str, Any]]:
    return audit_records(stack, **filters, limit="100")


def keys_listed(page: requests.Response) -> dict[str, str]:
    """The keys page's rows: id -> status."""
    return dict(re.findall(r'<tr data-key="([^"]+)" data-key-status="([^"]+)">', page.text))


def new_key(user: DashboardUser, **fields: str) -> tuple[str, str]:
    """A key made on the keys page (payments:read and balance:read unless `fields` say): its id and secret."""
    form = {"scope_payments:read": "yes", "scope_balance:read": "yes", **fields}
    created = user.post("/keys", form, "/keys")
    assert created.status_code == 201, created.text
    (key_id,) = re.findall(r'<section class="card" data-key="([^"]+)">', created.text)
    (secret,) = SECRET.findall(created.text)
    return key_id, secret


def by_user(record: dict[str, Any], user: DashboardUser) -> bool:
    """A record of `user`'s posts on the dashboard, but for its sign-in's."""
    return (
        record["surface"] == "dashboard"
        and record["actor"]["kind"] == "merchant_user"
        and record["actor"]["id"] == user.email
        and not record["action"].startswith("sign_in")
    )


# ---------------------------------------------------------------- API keys
def test_a_key_is_created_with_its_restrictions_and_its_secret_is_shown_once(
    stack: RunningStack, shop: Merchant, developer: DashboardUser
) -> None:
    before = developer.call("GET", "/keys")
    assert before.status_code == 200 and 'data-page="developers-keys"' in before.text
    assert before.headers["Content-Language"] == "pt" and "Chaves de API" in before.text
    form = {"expires_on": "2030-01-31", "ip_allowlist": "127.0.0.0/8, ::1", "allowed_customers": "cus_1 cus_2"}
    key_id, secret = new_key(developer, **form)
    assert secret.startswith("mzp_test_")

    current = gateway(stack, secret)
    assert current.status_code == 200, current.text
    assert current.json() == {
        **current.json(),
        "id": key_id,
        "account_id": shop.account["id"],
        "mode": "test",
        "scopes": ["balance:read", "payments:read"],
        "status": "active",
        "expires_at": "2030-01-31T23:59:59Z",
        "ip_allowlist": ["127.0.0.0/8", "::1/128"],
        "allowed_customers": ["cus_1", "cus_2"],
    }
    listed = developer.call("GET", "/keys")
    page = developer.call("GET", f"/keys/{key_id}")
    assert keys_listed(listed)[key_id] == "active" and 'data-page="developers-key"' in page.text
    assert f'data-key="{key_id}" data-key-status="active"' in page.text
    assert 'data-scopes="balance:read payments:read"' in page.text
    assert (
        'data-ip-allowlist="127.0.0.0/8 ::1/128"' in page.text and 'data-expires-at="2030-01-31T23:59:59Z"' in page.text
    )
    assert current.json()["hint"] in listed.text and current.json()["hint"] in page.text
    for later in (listed, page, developer.call("GET", "/"), developer.call("GET", "/webhooks")):
        assert secret not in later.text and secret[9:] not in later.text  # the secret is never shown again

    (record,) = [
        r for r in trail(stack, account_id=shop.account["id"], action="create_api_key") if by_user(r, developer)
    ]
    assert (record["outcome"], record["target"]) == ({"status": 201, "code": None}, {"type": "api_key", "id": key_id})
    assert record["after"]["id"] == key_id and secret not in json.dumps(record)
    assert record["actor"]["account_id"] is None or record["actor"]["account_id"] == shop.account["id"]


def test_a_rolled_key_gives_a_new_secret_once_and_the_old_one_ends_with_its_overlap(
    stack: RunningStack, shop: Merchant, developer: DashboardUser
) -> None:
    key_id, old = new_key(developer)
    rolled = developer.post(f"/keys/{key_id}/roll", {"overlap_seconds": "0"}, f"/keys/{key_id}")
    assert rolled.status_code == 201, rolled.text
    (new,) = SECRET.findall(rolled.text)
    (new_id,) = re.findall(r'<section class="card" data-key="([^"]+)">', rolled.text)
    assert f'data-rolled="{key_id}"' in rolled.text and new != old
    assert gateway(stack, new).json()["id"] == new_id
    assert eventually(lambda: gateway(stack, old).status_code, lambda status: status == 401) == 401
    page = developer.call("GET", f"/keys/{key_id}")
    assert f'data-key="{key_id}" data-key-status="rolled"' in page.text and new_id in page.text
    assert new not in page.text and new not in developer.call("GET", f"/keys/{new_id}").text

    again = developer.post(f"/keys/{key_id}/roll", {"overlap_seconds": "0"}, f"/keys/{new_id}")
    assert refusal_shown(again)[:2] == (409, "already_rolled")
    assert not SECRET.findall(again.text)
    records = [r for r in trail(stack, account_id=shop.account["id"], action="roll_api_key") if by_user(r, developer)]
    assert [(r["outcome"]["status"], r["target"]["id"]) for r in records] == [(409, key_id), (201, key_id)]
    assert new not in json.dumps(records)


def test_a_revoked_key_is_refused_by_the_next_api_request(
    stack: RunningStack, shop: Merchant, developer: DashboardUser
) -> None:
    key_id, secret = new_key(developer)
    assert gateway(stack, secret).status_code == 200
    revoked = developer.post(f"/keys/{key_id}/revoke", {}, f"/keys/{key_id}")
    assert (revoked.status_code, revoked.headers["Location"]) == (303, f"/keys/{key_id}")
    refused = gateway(stack, secret)
    assert refused.status_code == 401, refused.text
    assert f'data-key="{key_id}" data-key-status="revoked"' in developer.call("GET", f"/keys/{key_id}").text
    (record,) = [
        r for r in trail(stack, account_id=shop.account["id"], action="revoke_api_key") if by_user(r, developer)
    ]
    assert record["outcome"]["status"] == 303 and (record["before"]["status"], record["after"]["status"]) == (
        "active",
        "revoked",
    )


def test_another_accounts_key_and_the_other_modes_key_are_not_found(
    stack: RunningStack, shop: Merchant, developer: DashboardUser
) -> None:
    other = Merchant(stack)
    theirs = gateway(stack, other.test_key).json()["id"]
    live = gateway(stack, shop.live_key).json()["id"]  # this account's, but of the other mode
    for key_id in (theirs, live, "01JD8Z5Q1R2S3T4V5W6X7Y8Z9A", "not-an-id"):
        page = developer.call("GET", f"/keys/{key_id}")
        assert (page.status_code, page.headers["X-Error-Code"]) == (
            404,
            "not_found",
        ) and "Esta página não existe." in page.text
        rolled = developer.post(f"/keys/{key_id}/roll", {"overlap_seconds": "0"}, "/keys")
        revoked = developer.post(f"/keys/{key_id}/revoke", {}, "/keys")
        assert [refusal_shown(a)[:2] for a in (rolled, revoked)] == [(404, "not_found")] * 2
    assert gateway(stack, other.test_key).status_code == 200 and gateway(stack, shop.live_key).status_code == 200
    assert theirs not in developer.call("GET", "/keys").text and live not in developer.call("GET", "/keys").text


@pytest.mark.parametrize("role", ["support", "finance"])
def test_support_and_finance_may_not_manage_keys_or_webhooks(
    stack: RunningStack, shop: Merchant, developer: DashboardUser, role: str
) -> None:
    key_id, secret = new_key(developer)
    user = signed_in_user(stack, shop.account["id"], role, lang="en")
    assert 'href="/keys"' not in user.call("GET", "/").text
    for path in ("/keys", f"/keys/{key_id}", "/webhooks", "/webhooks/deliveries"):
        page = user.call("GET", path)
        assert (page.status_code, page.headers["X-Error-Code"]) == (403, "forbidden"), path
        assert "Your role may not do this." in page.text and "data-key=" not in page.text
    token = csrf(user.call("GET", "/"))
    for path, form in (
        (f"/keys/{key_id}/roll", {"overlap_seconds": "0"}),
        (f"/keys/{key_id}/revoke", {}),
        ("/keys", {"scope_payments:read": "yes"}),
        ("/webhooks/endpoint", {"url": "https://shop.example/hooks"}),
        ("/webhooks/secret/roll", {}),
    ):
        answer = user.call("POST", path, {**form, "csrf_token": token})
        assert refusal_shown(answer) == (403, "forbidden", []), path
        assert not SECRET.findall(answer.text)
    assert gateway(stack, secret).json()["status"] == "active"  # nothing changed
    assert 'data-endpoint-status="none"' in developer.call("GET", "/webhooks").text
    records = [r for r in trail(stack, account_id=shop.account["id"]) if by_user(r, user)]
    assert sorted((r["action"], r["outcome"]["code"]) for r in records) == sorted(
        [
            ("roll_api_key", "forbidden"),
            ("revoke_api_key", "forbidden"),
            ("create_api_key", "forbidden"),
            ("set_webhook_endpoint", "forbidden"),
            ("roll_webhook_secret", "forbidden"),
        ]
    )


def test_a_field_too_long_or_holding_a_card_number_is_refused_on_the_page_and_nothing_is_stored(
    stack: RunningStack, shop: Merchant
) -> None:
    user = signed_in_user(stack, shop.account["id"], "developer", lang="en")
    before = keys_listed(user.call("GET", "/keys"))
    token = csrf(user.call("GET", "/keys"))
    long = user.call("POST", "/keys", {"scope_payments:read": "yes", "ip_allowlist": "1" * 2001, "csrf_token": token})
    assert refusal_shown(long) == (400, "invalid_request", [("ip_allowlist", "too_long")])
    assert "Some fields are not right: nothing was changed." in long.text and "too long" in long.text
    assert 'data-page="developers-keys"' in long.text and csrf(long) == token
    carded = user.call("POST", "/keys", {"scope_payments:read": "yes", "allowed_customers": CARD, "csrf_token": token})
    assert refusal_shown(carded) == (
        400,
        "gateway.raw_card_data_not_accepted",
        [("allowed_customers", "gateway.raw_card_data_not_accepted")],
    )
    assert "A card number may not be typed here: nothing was stored." in carded.text and CARD not in carded.text
    assert 'data-page="developers-keys"' in carded.text and csrf(carded) == token
    portuguese = DashboardUser(stack)
    portuguese.cookies = dict(user.cookies)
    url = portuguese.call("POST", "/webhooks/endpoint", {"url": f"https://shop.example/{CARD}", "csrf_token": token})
    assert refusal_shown(url)[:2] == (400, "gateway.raw_card_data_not_accepted")
    assert "Não se pode escrever aqui um número de cartão" in url.text and 'data-page="developers-webhooks"' in url.text
    too_long_url = portuguese.call(
        "POST", "/webhooks/endpoint", {"url": "https://a.example/" + "a" * 2040, "csrf_token": token}
    )
    assert refusal_shown(too_long_url) == (400, "invalid_request", [("url", "too_long")])
    assert keys_listed(user.call("GET", "/keys")) == before  # nothing stored
    assert 'data-endpoint-status="none"' in user.call("GET", "/webhooks").text
    records = [r for r in trail(stack, account_id=shop.account["id"]) if by_user(r, user)]
    assert sorted((r["action"], r["outcome"]["code"]) for r in records) == sorted(
        [
            ("create_api_key", "invalid_request"),
            ("create_api_key", "gateway.raw_card_data_not_accepted"),
            ("set_webhook_endpoint", "gateway.raw_card_data_not_accepted"),
            ("set_webhook_endpoint", "invalid_request"),
        ]
    )
    assert CARD not in json.dumps(records) and CARD.replace(" ", "") not in json.dumps(records)


def test_a_change_in_live_mode_needs_its_confirmation(stack: RunningStack, shop: Merchant) -> None:
    user = signed_in_user(stack, shop.account["id"], "administrator")
    assert user.post("/mode", {"mode": "live"}, "/").status_code == 303
    unconfirmed = user.post("/keys", {"scope_payments:read": "yes"}, "/keys")
    assert refusal_shown(unconfirmed) == (400, "live_unconfirmed", [("confirm_live", "required")])
    assert 'name="confirm_live"' in unconfirmed.text and not SECRET.findall(unconfirmed.text)
    key_id, secret = new_key(user, confirm_live="yes")
    assert secret.startswith("mzp_live_") and gateway(stack, secret).json()["mode"] == "live"
    test_mode = signed_in_user(stack, shop.account["id"], "developer")
    assert test_mode.call("GET", f"/keys/{key_id}").status_code == 404  # the test mode's pages do not show it


# ---------------------------------------------------------------- webhooks
def test_the_endpoint_for_the_accounts_own_events_and_the_signing_secret(
    stack: RunningStack, shop: Merchant, developer: DashboardUser
) -> None:
    page = developer.call("GET", "/webhooks")
    assert page.status_code == 200 and 'data-page="developers-webhooks"' in page.text
    refused = developer.post("/webhooks/endpoint", {"url": "ftp://shop.example/hooks"}, "/webhooks")
    assert refusal_shown(refused)[:2] == (400, "invalid_callback_url")
    url = "https://shop.example/mzpay/own-events"
    saved = developer.post("/webhooks/endpoint", {"url": url}, "/webhooks")
    assert (saved.status_code, saved.headers["Location"]) == (303, "/webhooks")
    assert f'data-endpoint="{url}" data-endpoint-status="set"' in developer.call("GET", "/webhooks").text
    api = gateway(stack, shop.test_key, "/v1/webhook-endpoint").json()
    assert (api["url"], api["mode"]) == (url, "test")
    assert gateway(stack, shop.live_key, "/v1/webhook-endpoint").json()["url"] is None  # the other mode's

    rolled = developer.post("/webhooks/secret/roll", {}, "/webhooks")
    assert rolled.status_code == 201 and 'data-page="developers-secret"' in rolled.text
    (secret,) = SECRET.findall(rolled.text)
    assert secret not in developer.call("GET", "/webhooks").text

    removed = developer.post("/webhooks/endpoint/remove", {}, "/webhooks")
    assert removed.status_code == 303
    assert gateway(stack, shop.test_key, "/v1/webhook-endpoint").json()["url"] is None
    records = [r for r in trail(stack, account_id=shop.account["id"]) if by_user(r, developer)]
    actions = [(r["action"], r["outcome"]["status"]) for r in records if "webhook" in r["action"]]
    assert actions[:4] == [
        ("remove_webhook_endpoint", 303),
        ("roll_webhook_secret", 201),
        ("set_webhook_endpoint", 303),
        ("set_webhook_endpoint", 400),
    ]
    assert secret not in json.dumps(records)
    (set_record,) = [r for r in records if r["action"] == "set_webhook_endpoint" and r["outcome"]["status"] == 303]
    assert (set_record["before"]["url"], set_record["after"]["url"]) == (None, url)


def test_a_dead_lettered_delivery_is_listed_read_and_replayed_to_the_receiver(stack: RunningStack) -> None:
    merchant = Shop(stack)
    user = signed_in_user(stack, merchant.account_id, "developer")
    stranger = signed_in_user(stack, Merchant(stack).account["id"], "developer")
    with serving(Receiver()) as receiver:
        url = receiver.endpoint(503, fast=True)
        charge = merchant.charge(SUCCEEDS, url)
        event_id = merchant.event(charge["provider_payment_id"], "payment.succeeded")["id"]
        delivery_id = delivery_id_for(event_id, url)
        merchant.delivery_once(delivery_id, lambda d: d["status"] == "failed")

        failed = user.call("GET", "/webhooks/deliveries?status=failed")
        assert failed.status_code == 200 and 'data-status-filter="failed"' in failed.text
        rows = re.findall(r'<tr data-delivery="([^"]+)" data-delivery-status="([^"]+)">', failed.text)
        assert rows == [(delivery_id, "failed")]
        assert f'data-attempts="{MAX_ATTEMPTS}"' in failed.text
        assert delivery_id not in user.call("GET", "/webhooks/deliveries?status=delivered").text
        page = user.call("GET", f"/webhooks/deliveries/{delivery_id}")
        assert page.status_code == 200 and 'data-delivery-status="failed"' in page.text
        assert re.findall(r'data-attempt data-status-code="([^"]*)"', page.text) == ["503"] * MAX_ATTEMPTS
        (payload,) = re.findall(r"<pre data-payload>(.*?)</pre>", page.text, re.S)
        envelope = json.loads(payload.replace("&#34;", '"').replace("&#39;", "'").replace("&amp;", "&"))
        assert (envelope["id"], envelope["type"], envelope["resource_id"]) == (
            event_id,
            "payment.succeeded",
            charge["provider_payment_id"],
        )

        assert stranger.call("GET", f"/webhooks/deliveries/{delivery_id}").status_code == 404
        not_theirs = stranger.post(f"/webhooks/deliveries/{delivery_id}/replay", {}, "/webhooks")
        assert refusal_shown(not_theirs)[:2] == (404, "not_found")
        live = signed_in_user(stack, merchant.account_id, "developer")  # the same account, in live mode
        assert live.post("/mode", {"mode": "live"}, "/").status_code == 303
        assert live.call("GET", f"/webhooks/deliveries/{delivery_id}").status_code == 404
        other_mode = live.post(f"/webhooks/deliveries/{delivery_id}/replay", {"confirm_live": "yes"}, "/webhooks")
        assert refusal_shown(other_mode)[:2] == (404, "not_found")
        assert delivery_id not in live.call("GET", "/webhooks/deliveries?status=failed").text

        receiver.script(url, 200)  # the merchant fixed its endpoint
        replayed = user.post(f"/webhooks/deliveries/{delivery_id}/replay", {}, f"/webhooks/deliveries/{delivery_id}")
        assert (replayed.status_code, replayed.headers["Location"]) == (303, f"/webhooks/deliveries/{delivery_id}")
        arrivals = receiver.wait_for(url, MAX_ATTEMPTS + 1)
        assert arrivals[-1].body == arrivals[0].body
        delivered = merchant.delivery_once(delivery_id, lambda d: d["status"] == "delivered")
        assert delivered["round"] == 1
        page = user.call("GET", f"/webhooks/deliveries/{delivery_id}")
        assert 'data-delivery-status="delivered" data-round="1"' in page.text
        again = user.post(f"/webhooks/deliveries/{delivery_id}/replay", {}, f"/webhooks/deliveries/{delivery_id}")
        assert refusal_shown(again)[:2] == (409, "invalid_state")
    records = [r for r in trail(stack, target_type="webhook_delivery", target_id=delivery_id)]
    assert [(r["actor"]["id"], r["outcome"]["status"]) for r in records] == [
        (user.email, 409),
        (user.email, 303),
        (live.email, 404),
        (stranger.email, 404),
    ]
    assert all(r["surface"] == "dashboard" and r["actor"]["kind"] == "merchant_user" for r in records)
    assert (records[1]["before"]["status"], records[1]["after"]["status"]) == ("failed", "pending")

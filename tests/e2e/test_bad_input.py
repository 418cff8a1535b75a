"""Bad input over real HTTP, on every API: bytes no route could read, card numbers in free text,
URLs that can never be called. Each is a 400 in the API's shape with X-Request-ID, and nothing is
stored (the merchant's events are unchanged)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack

pytestmark = pytest.mark.e2e

DEEP = '{"a":' + "[" * 5000 + "]" * 5000 + "}"
CASES: dict[str, tuple[bytes, str]] = {
    "not utf-8": (b'{"name":"caf\xe9"}', "application/json"),
    "escaped lone surrogate": (b'{"name":"\\ud800"}', "application/json"),
    "nested 5,000 deep": (DEEP.encode(), "application/json"),
    "multipart without boundary": (b"--x\r\n\r\nhello\r\n--x--", "multipart/form-data"),
    "multipart without its closing boundary": (
        b'--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n\x89PNG\r\n',
        "multipart/form-data; boundary=x",
    ),
    "an integer of 4,301 digits": (b'{"name":"x","amount":' + b"9" * 4301 + b"}", "application/json"),
    "JSON cut short": (b'{"name":"x",', "application/json"),
}


def target(stack: RunningStack, api: str) -> tuple[str, dict[str, str]]:
    region = stack.state["regions"]["mz"]
    demo = stack.state["demo"]["mz"]
    if api == "gateway":
        headers = {"Authorization": f"Bearer {demo['test_key']}", "Idempotency-Key": str(uuid.uuid4())}
        return region["gateway"] + "/charges", headers
    if api == "collection":
        admin = demo["collection_admin_token"]  # identity providers are the installation administrator's
        return region["collection"] + "/v1/identity_providers", {"Authorization": f"Bearer {admin}"}
    return region["management"] + "/v1/accounts", {"Authorization": f"Bearer {stack.state['operator_token']}"}


def events(stack: RunningStack) -> list[str]:
    demo = stack.state["demo"]["mz"]
    answer = requests.get(
        stack.state["regions"]["mz"]["gateway"] + "/v1/events?limit=100",
        headers={"Authorization": f"Bearer {demo['test_key']}"},
        timeout=10,
    )
    assert answer.status_code == 200
    return [event["id"] for event in answer.json()["data"]]


@pytest.mark.parametrize("api", ["gateway", "collection", "management"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_bytes_no_route_could_read_are_400_on_every_api(stack: RunningStack, api: str, case: str) -> None:
    before = events(stack)
    url, headers = target(stack, api)
    body, content_type = CASES[case]
    answer = requests.post(url, data=body, headers={**headers, "Content-Type": content_type}, timeout=10)
    assert answer.status_code == 400, answer.text
    assert answer.headers["X-Request-ID"]
    document = answer.json()
    assert document["code"] == "invalid_request"
    if api == "collection":
        assert set(document) == {"code", "message", "request_id", "metadata"}
    else:
        assert answer.headers["Content-Type"].startswith("application/problem+json")
        assert (document["status"], document["error"]["code"]) == (400, "invalid_request")
    assert events(stack) == before


def charge(stack: RunningStack, **changes: Any) -> requests.Response:
    demo = stack.state["demo"]["mz"]
    body = {
        "payment_id": str(ULID()),
        "money": {"amount": "25.00", "currency": "MZN"},
        "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}},
        "country": "MZ",
        **changes,
    }
    return requests.post(
        stack.state["regions"]["mz"]["gateway"] + "/charges",
        data=json.dumps(body),
        headers={
            "Authorization": f"Bearer {demo['test_key']}",
            "Idempotency-Key": str(uuid.uuid4()),
            "Content-Type": "application/json",
        },
        timeout=15,
    )


def test_a_card_number_in_metadata_is_refused_and_nothing_is_stored(stack: RunningStack) -> None:
    before = events(stack)
    answer = charge(stack, metadata={"note": "paid with 4242 4242 4242 4242"})
    assert answer.status_code == 400
    document = answer.json()
    assert (document["code"], document["errors"][0]["field"], document["errors"][0]["code"]) == (
        "gateway.raw_card_data_not_accepted",
        "metadata.note",  # the screen of every request names the member (mzpay.http.card_screen)
        "gateway.raw_card_data_not_accepted",
    )
    assert "4242" not in answer.text
    assert events(stack) == before


@pytest.mark.parametrize(
    "callback_url",
    ["http://10.0.0.8/hooks", "http://169.254.169.254/latest", "https://m.example/a b", "https://m.example/\r\nX: 1"],
)
def test_a_callback_url_that_can_never_be_called_is_refused_at_creation(stack: RunningStack, callback_url: str) -> None:
    before = events(stack)
    answer = charge(stack, callback_url=callback_url)
    assert answer.status_code == 400
    document = answer.json()
    assert (document["code"], document["errors"][0]["field"]) == ("invalid_callback_url", "callback_url")
    assert events(stack) == before


def test_an_over_long_field_is_a_400_naming_it_not_a_500(stack: RunningStack) -> None:
    answer = charge(stack, customer={"name": "N" * 1_000_000})
    assert answer.status_code == 400
    document = answer.json()
    assert (document["code"], document["errors"]) == (
        "invalid_request",
        [{"field": "customer.name", "code": "invalid_value", "message": document["errors"][0]["message"]}],
    )


@pytest.mark.parametrize("api", ["gateway", "collection", "management"])
@pytest.mark.parametrize(
    "media", ["application/x-www-form-urlencoded", "text/plain", "application/xml"], ids=["form", "text", "xml"]
)
def test_a_body_that_is_not_sent_as_json_is_told_how_to_send_it(stack: RunningStack, api: str, media: str) -> None:
    """curl -d '{...}' without -H 'Content-Type: application/json' sends a form: one clear answer."""
    url, headers = target(stack, api)
    before = events(stack)
    body = '{"name": "Loja", "region": "mz"}'
    answer = requests.post(url, data=body.encode(), headers={**headers, "Content-Type": media}, timeout=30)
    assert answer.status_code == 400, answer.text
    message = "The request body must be JSON (Content-Type: application/json)."
    if api == "collection":
        assert answer.json() == {
            "code": "invalid_request",
            "message": message,
            "request_id": f"req_{answer.headers['X-Request-ID']}",
            "metadata": {},
        }
    else:
        assert (answer.json()["code"], answer.json()["detail"], answer.headers["Content-Type"]) == (
            "invalid_request",
            message,
            "application/problem+json",
        )
    assert events(stack) == before

"""Bytes no route could read are 400 invalid_request on every API, in the API's error shape, with
X-Request-ID, before any route runs (mzpay.http.body)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from mzpay.http.body import MAX_JSON_DEPTH, MAX_JSON_NUMBER
from mzpay.http.errors import Surface
from mzpay.http.resolver import create_resolver, lambda_handler
from tests.events import rest_event
from tests.unit.things_api import RAN, add_thing_routes


def build(surface: Surface) -> Any:
    app = create_resolver(surface)
    add_thing_routes(app)
    return lambda_handler(app)


def event(body: str | None, content_type: str = "application/json", base64_encoded: bool = False) -> dict[str, Any]:
    path = "/v1/form" if content_type.startswith(("multipart", "application/x-www")) else "/v1/things"
    return rest_event(
        "POST",
        path,
        headers={"Content-Type": content_type},
        body=body,
        context={"requestId": "rid-bytes", "stage": "prod", "identity": {"sourceIp": "198.51.100.7"}},
        base64_encoded=base64_encoded,
    )


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def deep(levels: int) -> str:
    return '{"name":"x","a":' + "[" * levels + "]" * levels + "}"


BAD = {
    "not utf-8": event(b64(b'{"name":"caf\xe9"}'), base64_encoded=True),
    "not utf-8, no content type": event(b64(b"\xff\xfe\xfd"), "", base64_encoded=True),
    "not base64": event("%%%not-base64%%%", base64_encoded=True),
    "escaped lone surrogate": event('{"name":"\\ud800"}'),
    "escaped lone surrogate in a key": event('{"name":"x","\\udfff":1}'),
    "raw lone surrogate": event('{"name":"\ud800"}'),
    "nested 5,000 deep": event(deep(5000)),
    "nested one level too deep": event(deep(MAX_JSON_DEPTH)),
    "multipart without boundary": event(b64(b"--x\r\n\r\n--x--"), "multipart/form-data", base64_encoded=True),
    "multipart without its closing boundary": event(
        b64(b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n\x89PNG\r\n'),
        "multipart/form-data; boundary=b",
        base64_encoded=True,
    ),
    "multipart as text without its closing boundary": event(
        '--b\r\nContent-Disposition: form-data; name="file_type"\r\n\r\npng\r\n--b\r\n',
        "multipart/form-data; boundary=b",
    ),
    "an integer of 5,000 digits": event('{"name":"x","n":' + "9" * 5000 + "}"),
    "an integer of 4,301 digits in a list": event('{"name":"x","n":[1,' + "1" * 4301 + "]}"),
    "a number one character too long": event('{"name":"x","n":' + "1" * (MAX_JSON_NUMBER + 1) + "}"),
    "a fraction one character too long": event('{"name":"x","n":0.' + "1" * (MAX_JSON_NUMBER - 1) + "}"),
    "NaN": event('{"name":"x","n":NaN}'),
    "Infinity": event('{"name":"x","n":-Infinity}'),
    "JSON cut short": event('{"name":"x",'),
    "JSON cut short, no content type": event('{"name":"x",', ""),
}


@pytest.mark.parametrize("surface", list(Surface))
@pytest.mark.parametrize("case", sorted(BAD))
def test_bytes_no_route_could_read_are_400_before_any_work(surface: Surface, case: str) -> None:
    RAN.clear()
    response = build(surface)(BAD[case], None)
    body = json.loads(response["body"])
    assert response["statusCode"] == 400
    assert response["multiValueHeaders"]["X-Request-ID"] == ["rid-bytes"]
    if surface is Surface.OAUTH:  # the token endpoint: OAuth's error format
        assert set(body) == {"error", "error_description"} and body["error"] == "invalid_request"
        assert response["multiValueHeaders"]["Content-Type"] == ["application/json"]
        assert response["multiValueHeaders"]["Cache-Control"] == ["no-store"]
    elif surface is Surface.COLLECTION:
        assert body["code"] == "invalid_request"
        assert set(body) == {"code", "message", "request_id", "metadata"}
    else:
        assert body["code"] == "invalid_request"
        assert response["multiValueHeaders"]["Content-Type"] == ["application/problem+json"]
        assert (body["status"], body["title"], body["error"]["code"]) == (400, "Bad Request", "invalid_request")
    assert RAN == []


@pytest.mark.parametrize(
    "good",
    [
        event('{"name":"Ol\\u00e1 \\ud83d\\ude00"}'),  # an escaped surrogate PAIR is one character
        event(b64('{"name":"Olá"}'.encode()), base64_encoded=True),
        event(deep(MAX_JSON_DEPTH - 2)),
        event('{"name":"x","n":' + "1" * MAX_JSON_NUMBER + ',"m":-1.5e3}'),
    ],
)
def test_well_formed_bodies_still_reach_the_route(good: dict[str, Any]) -> None:
    RAN.clear()
    response = build(Surface.GATEWAY)(good, None)
    assert response["statusCode"] == 200, response["body"]
    assert len(RAN) == 1


def test_forms_and_multipart_with_a_boundary_pass() -> None:
    RAN.clear()
    form = build(Surface.GATEWAY)(
        event("network=mpesa&phone_number=%2B258840000000", "application/x-www-form-urlencoded"), None
    )
    multipart = build(Surface.COLLECTION)(
        event(b64(b"--b\r\n\r\n\xff\x00--b--"), "multipart/form-data; boundary=b", base64_encoded=True), None
    )
    assert (form["statusCode"], multipart["statusCode"]) == (200, 200)
    assert RAN == ["form", "form"]

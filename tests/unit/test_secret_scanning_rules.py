"""Secret-scanning reports (mzpay.domain.access.secret_scanning): their shape, the provider's signature,
its published keys, and how the receiver keeps those keys (mzpay.cases.secret_scanning)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from devstack.secret_scanning import signature
from mzpay import deps
from mzpay.cases import secret_scanning
from mzpay.config import parse_provider_urls
from mzpay.connectors.fetch import FetchError
from mzpay.domain.access.secret_scanning import Reported, parse_report, public_keys, signature_valid
from mzpay.domain.common.errors import ServiceError


def keypair(curve: ec.EllipticCurve | None = None) -> tuple[str, str]:
    key = ec.generate_private_key(curve or ec.SECP256R1())
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


def test_a_report_is_a_list_of_bounded_items() -> None:
    body = json.dumps([{"token": "mzp_x", "type": "t", "url": "https://u", "source": "content", "extra": 1}]).encode()
    assert parse_report(body) == [Reported("mzp_x", "t", "https://u", "content")]
    assert parse_report(b"[]") == []
    assert parse_report(json.dumps([{"token": "a"}]).encode()) == [Reported("a", "", "", "")]
    wrong = {
        b"not json": "the report is not JSON",
        b'{"token": "a"}': "the report is a JSON list of at most 1000 items",
        json.dumps([{"type": "t"}]).encode(): "item 0 has no token",
        json.dumps([{"token": "a" * 513}]).encode(): "item 0 has a field that is not a string or too long",
        json.dumps([{"token": "a", "url": 5}]).encode(): "item 0 has a field that is not a string or too long",
        json.dumps([{"token": "a"}] * 1001).encode(): "the report is a JSON list of at most 1000 items",
    }
    for body, message in wrong.items():
        with pytest.raises(ValueError, match=message):
            parse_report(body)


def test_only_the_providers_p256_key_verifies_the_exact_bytes() -> None:
    private, public = keypair()
    body = b'[{"token":"mzp_test_x"}]'
    signed = signature(body, private)
    assert signature_valid(body, signed, public)
    assert not signature_valid(body + b" ", signed, public)
    assert not signature_valid(body, signed, keypair()[1])
    assert not signature_valid(body, "not base64!", public)
    assert not signature_valid(body, signed, "not a key")
    p384_private, p384_public = keypair(ec.SECP384R1())
    assert not signature_valid(body, signature(body, p384_private), p384_public)  # P-256 only


def test_published_keys_and_configured_providers() -> None:
    document = {"public_keys": [{"key_identifier": "k1", "key": "PEM", "is_current": True}, {"junk": 1}]}
    assert public_keys(document) == {"k1": "PEM"}
    with pytest.raises(ValueError):
        public_keys({"public_keys": []})
    assert parse_provider_urls("github=https://a.example/keys, other=http://127.0.0.1:1/keys") == {
        "github": "https://a.example/keys",
        "other": "http://127.0.0.1:1/keys",
    }
    with pytest.raises(ValueError):
        parse_provider_urls("github")


def test_the_receiver_keeps_the_keys_and_asks_again_only_for_an_unknown_one(monkeypatch: pytest.MonkeyPatch) -> None:
    deps.reset()
    calls: list[str] = []
    answers: list[Any] = [{"public_keys": [{"key_identifier": "k1", "key": "PEM1"}]}]

    def fetch(url: str) -> Any:
        calls.append(url)
        answer = answers[0] if len(answers) == 1 else answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    clock = [1000.0]
    monkeypatch.setattr("mzpay.connectors.fetch.fetch_json", fetch)
    monkeypatch.setattr(secret_scanning.time, "monotonic", lambda: clock[0])
    assert secret_scanning.provider_key("https://keys", "k1") == "PEM1"
    assert secret_scanning.provider_key("https://keys", "k1") == "PEM1"
    assert secret_scanning.provider_key("https://keys", "k2") is None  # asked again within a minute: no
    assert calls == ["https://keys"]
    clock[0] += 61
    answers[:] = [{"public_keys": [{"key_identifier": "k1", "key": "PEM1"}, {"key_identifier": "k2", "key": "PEM2"}]}]
    assert secret_scanning.provider_key("https://keys", "k2") == "PEM2"  # a rotation is picked up
    clock[0] += 3601
    answers[:] = [FetchError("timeout", "the provider did not answer")]
    with pytest.raises(ServiceError) as down:
        secret_scanning.provider_key("https://keys", "k1")
    assert (down.value.status, down.value.code, down.value.headers) == (
        503,
        "service_unavailable",
        {"Retry-After": "60"},
    )
    deps.reset()

"""Bounded input: URL rules at creation, card numbers in free text, the maxima of request fields."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from mzpay.domain.common import bounds
from mzpay.domain.payments.charges import ChargeRequest, CheckoutRequest


@pytest.mark.parametrize(
    "url",
    [
        "https://merchant.example/hooks",
        "http://merchant.example:8080/hooks?x=1",
        "https://8.8.8.8/hooks",
        "https://[2001:4860:4860::8888]/hooks",
    ],
)
def test_public_http_urls_are_accepted(url: str) -> None:
    assert bounds.url_problem(url) is None


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://merchant.example/" + "a" * 2048, "at most 2048 characters"),
        ("https://merchant.example/ho oks", "no whitespace or control characters"),
        ("https://merchant.example/hooks\r\nX-Evil: 1", "no whitespace or control characters"),
        ("https://merchant.example/\x00", "no whitespace or control characters"),
        ("ftp://merchant.example/hooks", "an absolute http:// or https:// URL"),
        ("https:///hooks", "an absolute http:// or https:// URL"),
        ("merchant.example/hooks", "an absolute http:// or https:// URL"),
        ("https://merchant.example:99999999/", "not a URL"),
        ("http://127.0.0.1/hooks", "a public host (not a loopback, private, link-local or reserved address)"),
        ("http://10.0.0.8/hooks", "a public host (not a loopback, private, link-local or reserved address)"),
        ("http://192.168.1.1/", "a public host (not a loopback, private, link-local or reserved address)"),
        (
            "http://169.254.169.254/latest/meta-data",
            "a public host (not a loopback, private, link-local or reserved address)",
        ),
        ("http://[::1]/", "a public host (not a loopback, private, link-local or reserved address)"),
        ("http://[fd00::1]/", "a public host (not a loopback, private, link-local or reserved address)"),
        ("http://[::ffff:10.0.0.1]/", "a public host (not a loopback, private, link-local or reserved address)"),
        ("http://0.0.0.0/", "a public host (not a loopback, private, link-local or reserved address)"),
        ("http://224.0.0.1/", "a public host (not a loopback, private, link-local or reserved address)"),
    ],
)
def test_urls_that_can_never_be_called_are_refused(url: str, problem: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEBHOOK_ALLOW_LOOPBACK", raising=False)
    assert bounds.url_problem(url) == problem


def test_only_the_local_stack_accepts_loopback_receivers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "true")
    assert bounds.url_problem("http://127.0.0.1:8080/hooks") is None
    assert bounds.url_problem("http://10.0.0.8/hooks") is not None  # private stays refused


def test_return_url_may_be_a_path() -> None:
    assert bounds.url_problem("/thanks?order=1", allow_path=True) is None
    assert bounds.url_problem("/thanks?note=a%20b", allow_path=True) is None
    assert bounds.url_problem("/shop/%2F/x", allow_path=True) is None  # an encoded / further on stays a path


_OFF_HOST = "a path on this host: one / that no /, \\ or encoded form of them follows"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("//evil.example/", _OFF_HOST),  # scheme-relative
        ("/\\evil.example", "no backslash"),  # browsers read \ as /
        ("\\\\evil.example", "no backslash"),
        ("/%5Cevil.example", _OFF_HOST),
        ("/%5cevil.example", _OFF_HOST),
        ("/%2F/evil.example", _OFF_HOST),
        ("/%2fevil.example", _OFF_HOST),
        ("/%252F%252Fevil.example", _OFF_HOST),  # encoded twice
        ("/%255Cevil.example", _OFF_HOST),
        ("/%09/evil.example", _OFF_HOST),  # a tab browsers strip
        ("https://shop.example\\@evil.example/", "no backslash"),
    ],
)
def test_return_url_path_never_leaves_the_host(value: str, problem: str) -> None:
    assert bounds.url_problem(value, allow_path=True) == problem


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("4242424242424242", True),
        ("card 4242 4242 4242 4242 thanks", True),
        ("4242-4242-4242-4242", True),
        ("5555555555554444", True),
        ("4242424242424241", False),  # fails Luhn
        ("+258840000000", False),  # a phone number
        ("000100000000000000000011", False),  # a 24-digit reference
        ("order 12345", False),
        ("01JABCDEF0123456789XYZ0000", False),
    ],
)
def test_card_numbers_are_found_in_free_text(text: str, held: bool) -> None:
    assert bounds.holds_card_number(text) is held


def charge(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "payment_id": "01JAAAAAAAAAAAAAAAAAAAAAAA",
        "money": {"amount": "10.00", "currency": "MZN"},
        "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}},
        "country": "MZ",
    }
    return body | changes


def codes(body: dict[str, Any], model: Any = ChargeRequest) -> list[tuple[str, str]]:
    with pytest.raises(ValidationError) as refused:
        model.model_validate(body)
    return [(".".join(str(p) for p in e["loc"]), e["type"]) for e in refused.value.errors()]


def test_a_card_number_anywhere_in_a_charge_is_refused_as_raw_card_data() -> None:
    raw = "gateway.raw_card_data_not_accepted"
    assert codes(charge(metadata={"note": "4242 4242 4242 4242"})) == [("metadata", raw)]
    assert codes(charge(customer={"name": "4242424242424242"})) == [("customer.name", raw)]
    pan_source = {"type": "bank_transfer", "bank_transfer": {"memo": "4242424242424242"}}
    assert codes(charge(source=pan_source)) == [("source.bank_transfer", raw)]


def test_over_long_strings_are_refused_per_field() -> None:
    wallet = {"network": "m" * 65, "phone_number": "+" + "8" * 40}
    assert codes(charge(source={"type": "mobile_wallet", "mobile_wallet": wallet})) == [
        ("source.mobile_wallet.network", "string_too_long"),
        ("source.mobile_wallet.phone_number", "string_too_long"),
    ]
    assert codes(charge(money={"amount": "1" * 40, "currency": "MZN"})) == [("money.amount", "invalid_amount")]
    assert codes(charge(callback_url="https://m.example/" + "x" * 3000)) == [("callback_url", "invalid_callback_url")]
    assert codes(charge(customer={"email": "a" * 250 + "@x.mz"})) == [("customer.email", "string_too_long")]
    many = {"type": "reference", "reference": {f"k{i}": "v" for i in range(21)}}
    assert codes(charge(source=many)) == [("source.reference", "too_long")]
    checkout = {"amount": "10.00", "currency": "MZN", "return_url": "/ok\n"}
    assert codes(checkout, CheckoutRequest) == [("return_url", "invalid_return_url")]


@pytest.mark.parametrize("value", ["/\\evil.example", "//evil.example", "/%5Cevil.example", "\\\\evil.example"])
def test_charges_and_checkouts_refuse_a_return_url_off_the_host(value: str) -> None:
    assert codes(charge(return_url=value)) == [("return_url", "invalid_return_url")]
    checkout = {"amount": "10.00", "currency": "MZN", "return_url": value}
    assert codes(checkout, CheckoutRequest) == [("return_url", "invalid_return_url")]

"""IP allowlists of the management API."""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network

import pytest

from mzpay.domain.common.network import ip_allowed, parse_allowlist

ALLOWLIST = parse_allowlist("10.0.0.0/8, 198.51.100.7, 2001:db8::/32, 2001:db8:ffff::1")


def test_parse_allowlist_reads_ipv4_and_ipv6_cidrs_and_bare_addresses() -> None:
    parsed = parse_allowlist("10.0.0.0/8, 198.51.100.7, 2001:db8::/32, 2001:db8:ffff::1")
    assert parsed == (
        IPv4Network("10.0.0.0/8"),
        IPv4Network("198.51.100.7/32"),
        IPv6Network("2001:db8::/32"),
        IPv6Network("2001:db8:ffff::1/128"),
    )
    assert parsed == ALLOWLIST


def test_parse_allowlist_masks_host_bits() -> None:
    assert parse_allowlist("10.1.2.3/8,2001:db8::1/32") == (IPv4Network("10.0.0.0/8"), IPv6Network("2001:db8::/32"))


@pytest.mark.parametrize("text", ["", " ", ",", " , ,"])
def test_parse_allowlist_of_nothing_is_empty(text: str) -> None:
    assert parse_allowlist(text) == ()


@pytest.mark.parametrize("text", ["10.0.0.0/33", "not-an-address", "10.0.0.0/8,example.com", "2001:db8::/129"])
def test_parse_allowlist_refuses_what_is_not_a_network(text: str) -> None:
    with pytest.raises(ValueError):
        parse_allowlist(text)


@pytest.mark.parametrize(
    "address",
    ["10.0.0.0", "10.1.2.3", "10.255.255.255", "198.51.100.7", "2001:db8::1", "2001:db8:abcd::42", "2001:db8:ffff::1"],
)
def test_ip_allowed_accepts_addresses_inside_the_allowlist(address: str) -> None:
    assert ip_allowed(address, ALLOWLIST) is True


@pytest.mark.parametrize(
    "address",
    ["11.0.0.1", "9.255.255.255", "198.51.100.8", "2001:db9::1", "2001:db7:ffff::1", "::1", "127.0.0.1"],
)
def test_ip_allowed_refuses_addresses_outside_the_allowlist(address: str) -> None:
    assert ip_allowed(address, ALLOWLIST) is False


def test_ip_allowed_treats_an_ipv4_mapped_ipv6_address_as_its_ipv4_address() -> None:
    assert ip_allowed("::ffff:10.1.2.3", ALLOWLIST) is True
    assert ip_allowed("::ffff:198.51.100.7", ALLOWLIST) is True
    assert ip_allowed("::ffff:11.1.2.3", ALLOWLIST) is False


def test_ip_allowed_does_not_confuse_ipv4_with_ipv6_networks() -> None:
    assert ip_allowed("10.1.2.3", parse_allowlist("::/0")) is False
    assert ip_allowed("2001:db8::1", parse_allowlist("0.0.0.0/0")) is False


@pytest.mark.parametrize("address", ["", "   ", "unknown", "10.1.2", "10.1.2.3.4", "10.1.2.3/32", "2001:db8::g"])
def test_ip_allowed_refuses_an_unparseable_address(address: str) -> None:
    assert ip_allowed(address, ALLOWLIST) is False


@pytest.mark.parametrize("address", ["10.1.2.3", "2001:db8::1", "::ffff:10.1.2.3"])
def test_ip_allowed_with_an_empty_allowlist_refuses_everything(address: str) -> None:
    assert ip_allowed(address, ()) is False
    assert ip_allowed(address, parse_allowlist("")) is False


def test_ip_allowed_accepts_any_iterable_of_networks() -> None:
    assert ip_allowed("10.1.2.3", iter([IPv4Network("10.0.0.0/8")])) is True

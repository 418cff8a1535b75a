"""Address rules: IP allowlists (IPv4 and IPv6 CIDRs), and which addresses an outbound call
(webhook delivery, OIDC discovery) may reach."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_allowlist(text: str) -> tuple[IpNetwork, ...]:
    """Comma-separated CIDRs ('10.0.0.0/8, 2001:db8::/32'); a bare address is a /32 or /128."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


def ip_allowed(address: str, allowlist: Iterable[IpNetwork]) -> bool:
    """True when `address` lies in one of the networks. An unparseable address is refused."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip.version == net.version and ip in net for net in allowlist)


# ---------------------------------------------------------------- callback addresses (SSRF)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def address_allowed(address: str | ipaddress.IPv4Address | ipaddress.IPv6Address, allow_loopback: bool = False) -> bool:
    """True when a callback host that resolves to `address` may be reached: public unicast only.
    Private, loopback (unless `allow_loopback`, the local stack), link-local, multicast,
    unspecified, reserved, shared (100.64/10) and documentation ranges are refused, also when
    embedded in IPv6 (IPv4-mapped, 6to4, NAT64)."""
    if isinstance(address, str):
        address = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone id
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return address_allowed(embedded, allow_loopback)
    if address.is_loopback:
        return allow_loopback
    if (
        address.is_multicast
        or address.is_unspecified
        or address.is_link_local
        or address.is_private
        or address.is_reserved
        or getattr(address, "is_site_local", False)  # IPv6 fec0::/10
    ):
        return False
    return address.is_global

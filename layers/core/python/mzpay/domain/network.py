"""Address rules: IP allowlists (IPv4 and IPv6 CIDRs)."""

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

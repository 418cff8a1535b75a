"""The ports a local stack listens on, in one place: the stack checks them before it starts, the
launcher picks free ones for tests, `python -m devstack --help` lists them. Standard library only
(the launcher imports it)."""

from __future__ import annotations

import socket

API_SLOTS = {"gateway": 0, "collection": 1, "management": 2, "dashboard": 3}  # each region's APIs: its port base + slot
GATEWAY_TLS_SLOT = 5  # each region's gateway over TLS (mutual TLS optional): its port base + 5
LAMBDA_SLOT = 7  # each region's Lambda Invoke API (devstack.lambda_api): its port base + 7
SECRET_SCANNING_SLOT = 8  # the local secret-scanning provider's key endpoint: port base + 8 (once)
OIDC_SLOT = 9  # the local OIDC issuer: port base + 9 (once; no region uses it)
REGION_STRIDE = 10  # region i's port base: port base + 10 * i

PORTS_HELP = """ports:
  moto (AWS)                          --moto-port (default 5000; make run MOTO_PORT=...)
  region i, in --envs order           --port-base + 10*i (default 3000; make run PORT_BASE=...), then:
    + 0 gateway, + 1 collection, + 2 management, + 3 dashboard, + 5 gateway over TLS, + 7 Lambda Invoke API
  the local secret-scanning keys      --port-base + 8
  the local OIDC issuer               --port-base + 9
The stack refuses to start when one of them is taken (another local stack?) and names it.
Its URLs are written to --stack-file (.local/stack.json): read them there."""


def region_base(port_base: int, index: int) -> int:
    return port_base + REGION_STRIDE * index


def needed(moto_port: int, port_base: int, regions: int) -> dict[int, str]:
    """Every port a stack of `regions` regions listens on, and what listens there."""
    named = {slot: name for name, slot in API_SLOTS.items()} | {
        GATEWAY_TLS_SLOT: "gateway over TLS",
        LAMBDA_SLOT: "Lambda Invoke API",
    }
    ports = {moto_port: "moto"}
    for index in range(regions):
        for slot, name in named.items():
            ports[region_base(port_base, index) + slot] = f"region {index + 1}'s {name}"
    ports[port_base + SECRET_SCANNING_SLOT] = "the local secret-scanning keys"
    ports[port_base + OIDC_SLOT] = "the local OIDC issuer"
    return ports


def is_free(host: str, port: int) -> bool:
    """Nothing listens on `port` (a port left in TIME_WAIT counts as free, as the servers bind it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def taken(host: str, ports: dict[int, str]) -> dict[int, str]:
    return {port: name for port, name in ports.items() if not is_free(host, port)}


def refusal(taken_ports: dict[int, str]) -> str:
    """What the stack says when it cannot start; the launcher reads "Address already in use"."""
    listed = ", ".join(f"{port} ({name})" for port, name in sorted(taken_ports.items()))
    return (
        f"Address already in use: port {listed} is taken (another local stack?). Nothing was started. "
        "Stop the other program, or choose other ports: make run PORT_BASE=4000 MOTO_PORT=5100 "
        "(python -m devstack --port-base 4000 --moto-port 5100)."
    )

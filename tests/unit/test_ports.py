"""The ports of a local stack (devstack.ports): which ones, when they count as taken, and what a
refused start says."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from devstack.ports import PORTS_HELP, needed, refusal, taken

ROOT = Path(__file__).resolve().parents[2]


def test_a_two_region_stack_needs_moto_six_ports_a_region_and_two_of_its_own() -> None:
    assert needed(5000, 3000, 2) == {
        5000: "moto",
        3000: "region 1's gateway",
        3001: "region 1's collection",
        3002: "region 1's management",
        3003: "region 1's dashboard",
        3005: "region 1's gateway over TLS",
        3007: "region 1's Lambda Invoke API",
        3010: "region 2's gateway",
        3011: "region 2's collection",
        3012: "region 2's management",
        3013: "region 2's dashboard",
        3015: "region 2's gateway over TLS",
        3017: "region 2's Lambda Invoke API",
        3008: "the local secret-scanning keys",
        3009: "the local OIDC issuer",
    }


def test_a_listening_port_is_taken_and_a_closed_one_is_not() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert taken("127.0.0.1", {port: "moto"}) == {port: "moto"}
    assert taken("127.0.0.1", {port: "moto"}) == {}


def test_a_refusal_names_the_ports_and_what_to_pass() -> None:
    said = refusal({5000: "moto", 3001: "region 1's collection"})
    assert said.startswith("Address already in use: port 3001 (region 1's collection), 5000 (moto) is taken")
    assert "make run PORT_BASE=4000 MOTO_PORT=5100" in said
    assert "--port-base 4000 --moto-port 5100" in said


def test_help_lists_every_port_offset_and_the_stack_file() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "devstack", "--help"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert PORTS_HELP in shown
    for offset in (
        "+ 0 gateway",
        "+ 1 collection",
        "+ 2 management",
        "+ 3 dashboard",
        "+ 5 gateway over TLS",
        "+ 7 Lambda Invoke API",
    ):
        assert offset in shown
    assert "--port-base + 8" in shown and "--port-base + 9" in shown
    assert "--stack-file" in shown and "--state-file" not in shown

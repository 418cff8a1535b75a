"""Shared by the unit tests of the live M-Pesa connector (test_mpesa_connector.py,
test_mpesa_money_out.py): the loopback sandbox and the connector pointed at it. A module that
wants other timings overrides `mpesa_timing`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from mzpay.connectors.mpesa import MpesaConnector
    from tests.providers.mpesa_sandbox import MpesaSandbox


@pytest.fixture
def mpesa_timing() -> tuple[float, float]:
    """(how long the sandbox's slow answers take, how long the connector waits), in seconds."""
    return 2.0, 5.0


@pytest.fixture
def sandbox(mpesa_timing: tuple[float, float]) -> Iterator[MpesaSandbox]:
    """The M-Pesa sandbox on loopback (tests/providers/mpesa_sandbox.py), for the test."""
    from tests.providers.mpesa_sandbox import API_KEY, MpesaSandbox

    with MpesaSandbox(api_key=API_KEY, slow_seconds=mpesa_timing[0]) as running:
        yield running


@pytest.fixture
def connector(sandbox: MpesaSandbox, mpesa_timing: tuple[float, float]) -> MpesaConnector:
    """The live M-Pesa connector with the sandbox's credentials."""
    from mzpay.connectors.mpesa import MpesaConnector

    return MpesaConnector(sandbox.credentials(), timeout=mpesa_timing[1])

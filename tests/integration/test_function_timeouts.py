"""The local Lambda service stops a function at its timeout, or, given patience (a test run on a
busy machine), at its timeout times the patience; either way the function's context counts down
its own timeout, as on Lambda."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from devstack.lambdas import FunctionRuntime, InvocationError
from devstack.provision import FunctionSpec

ECHO = Path(__file__).resolve().parents[1] / "fixtures" / "devstack" / "functions" / "echo"


def _echo(timeout_patience: float) -> FunctionRuntime:
    spec = FunctionSpec(
        logical_id="EchoFunction",
        name="echo",
        arn="arn:aws:lambda:af-south-1:123456789012:function:echo",
        region="af-south-1",
        code_dir=ECHO,
        handler="app.handler",
        environment={},
        timeout=1,  # /files/slow sleeps 3 s
        memory=128,
        layer_paths=[],
        events={},
    )
    return FunctionRuntime(spec, "http://127.0.0.1:9", timeout_patience=timeout_patience)


def test_a_function_is_stopped_at_its_timeout() -> None:
    runtime = _echo(timeout_patience=1.0)
    try:
        with pytest.raises(InvocationError) as stopped:
            runtime.invoke({"path": "/files/slow"})
        assert stopped.value.error_type == "Sandbox.Timedout"
    finally:
        runtime.close()


def test_with_patience_it_finishes_and_its_context_still_counts_down_its_own_timeout() -> None:
    runtime = _echo(timeout_patience=10.0)
    try:
        answer = runtime.invoke({"path": "/files/slow"})
        assert answer["statusCode"] == 200
        assert json.loads(answer["body"])["remaining_ms"] == 0  # its own 1 s had run out
        quick = json.loads(runtime.invoke({"path": "/files/ok"})["body"])
        assert 0 < quick["remaining_ms"] <= 1000
    finally:
        runtime.close()

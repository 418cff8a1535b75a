"""Start the local stack in a subprocess on free ports (for tests and benchmarks)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from devstack.ports import needed, taken

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_SECONDS = 300  # generous: a busy CI machine starts two regions slowly
STOP_TIMEOUT_SECONDS = 30


def free_ports(regions: int) -> tuple[int, int]:
    """(moto port, port base) such that every port a stack of `regions` regions needs is free
    (devstack.ports; moto at base + 99)."""
    for _ in range(200):
        # Below the kernel's ephemeral range (32768-60999 on Linux): a port there can be taken by
        # any outgoing connection between this check and the stack's bind.
        base = random.randrange(10000, 32000, 100)
        if not taken("127.0.0.1", needed(base + 99, base, regions)):
            return base + 99, base
    raise RuntimeError("no free ports")


@dataclass
class RunningStack:
    """A local stack running in a subprocess, and its stack.json."""

    process: subprocess.Popen[bytes]
    state_file: Path
    log_file: Path
    state: dict[str, Any] = field(default_factory=dict)

    def aws(self, service: str, env: str = "mz") -> Any:
        """A boto3 client of this stack's moto, in the AWS region of service region `env`."""
        import boto3

        region = self.state.get("aws_regions", {}).get(env, "af-south-1")
        return boto3.client(
            service,
            endpoint_url=self.state["aws_endpoint"],
            region_name=region,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def log(self) -> str:
        return self.log_file.read_text(errors="replace") if self.log_file.exists() else ""

    def function_log(self) -> str:
        """The functions' own logs (JSON lines), written beside the stack's output."""
        path = self.log_file.with_name("functions.log")
        return path.read_text(errors="replace") if path.exists() else ""

    def interrupt(self, timeout: float = STOP_TIMEOUT_SECONDS) -> int:
        """Ctrl-C as a terminal sends it (to the whole process group); past the timeout kill the
        session. The exit code."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        return self.process.returncode


def start(
    workdir: Path,
    *,
    envs: str = "mz,regional-sa",
    template: Path | None = None,
    samconfig: Path | None = None,
    warm: bool = True,
    ports: tuple[int, int] | None = None,
    function_aws_endpoint: str | None = None,
    timeout_patience: float = 1.0,
) -> RunningStack:
    """Start `python -m devstack` on free ports (or `ports`: moto's and the base); return once
    stack.json is written. `function_aws_endpoint`: where the functions reach AWS (a fault proxy).
    `timeout_patience`: a function is stopped after its timeout times this (devstack.lambdas).
    Free ports taken by another program before the stack bound them: tried again on others."""
    for attempt in range(3):
        chosen = ports or free_ports(len(envs.split(",")))
        try:
            return _start(workdir, chosen, function_aws_endpoint, envs, template, samconfig, warm, timeout_patience)
        except PortTaken:
            if ports is not None or attempt == 2:
                raise
    raise AssertionError("unreachable")


class PortTaken(RuntimeError):
    """The stack could not bind a port it was given."""


def _start(
    workdir: Path,
    ports: tuple[int, int],
    function_aws_endpoint: str | None,
    envs: str,
    template: Path | None,
    samconfig: Path | None,
    warm: bool,
    timeout_patience: float,
) -> RunningStack:
    moto_port, port_base = ports
    state_file, log_file = workdir / "stack.json", workdir / "stack.log"
    command = [
        sys.executable,
        "-m",
        "devstack",
        "--envs",
        envs,
        "--moto-port",
        str(moto_port),
        "--port-base",
        str(port_base),
        "--stack-file",
        str(state_file),
        "--moto-log",
        str(workdir / "moto.log"),
        "--function-log",
        str(workdir / "functions.log"),
        "--stop-with-stdin",  # a test run that dies takes its stack with it (and the stack its moto)
    ]
    if template:
        command += ["--template", str(template)]
    if samconfig:
        command += ["--samconfig", str(samconfig)]
    if not warm:
        command.append("--no-warm")
    if function_aws_endpoint:
        command += ["--function-aws-endpoint", function_aws_endpoint]
    if timeout_patience != 1.0:
        command += ["--timeout-patience", str(timeout_patience)]
    environment = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    # This checkout's own package, whichever checkout the virtualenv's editable install names
    # (a git worktree sharing another checkout's .venv).
    own = [str(ROOT / "layers" / "core" / "python"), str(ROOT / "tools")]
    environment["PYTHONPATH"] = os.pathsep.join([*own, *filter(None, [environment.get("PYTHONPATH", "")])])
    with log_file.open("wb") as output:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=True,
        )
    stack = RunningStack(process, state_file, log_file)
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while not state_file.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            stack.interrupt(5)
            failure = PortTaken if "Address already in use" in stack.log() else RuntimeError
            raise failure(f"the local stack did not start:\n{stack.log()[-5000:]}")
        time.sleep(0.2)
    stack.state = json.loads(state_file.read_text())
    return stack


@contextlib.contextmanager
def running(**options: Any) -> Iterator[RunningStack]:
    """A local stack for the duration of the block, in a temporary folder; always stopped."""
    with tempfile.TemporaryDirectory(prefix="mzpay-stack-") as tmp:
        stack = start(Path(tmp), **options)
        try:
            yield stack
        finally:
            stack.interrupt()

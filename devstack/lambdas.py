"""The local Lambda service: per function, a pool of execution environments (worker
processes) that grows with concurrent invocations, like Lambda scaling out."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import signal
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from devstack import preload, worker
from devstack.provision import FunctionSpec

# An execution environment is a fresh process forked from a server (multiprocessing's forkserver)
# that has imported the libraries every function uses and the layer's modules that read nothing
# of the process while imported (devstack.preload), and nothing of any handler: each environment
# sets its own variables and path, then imports its handler, as Lambda's would. A cold start then
# costs a fork and what the handler adds, not a whole interpreter importing boto3 and building
# the layer's pydantic models again (about 1 CPU-second each; a stack starts 65, a test run
# hundreds).
_SPAWN = multiprocessing.get_context("forkserver")
_SPAWN.set_forkserver_preload(preload.LIBRARIES)
_fork_server_lock = threading.Lock()
_fork_server_prepared = False


def _prepare_fork_server(layer_paths: list[Path]) -> None:
    """Before the fork server starts (with the first environment, once per process): have it
    import the layer modules of that first function too (a later function with other layers
    imports its own, devstack.worker)."""
    global _fork_server_prepared
    with _fork_server_lock:
        if not _fork_server_prepared:
            _SPAWN.set_forkserver_preload([*preload.LIBRARIES, *preload.layer_modules(layer_paths)])
            _fork_server_prepared = True


DEFAULT_MAX_CONCURRENCY = 8
# How long a new execution environment may take to import its handler before the invocation fails
# Runtime.InitTimeout. Lambda's own init limit is 10 s on a real core; here it only catches a
# handler that never comes up, so it is generous: on a starved machine (CI with two test workers,
# each with a stack, on two cores) twenty environments starting at once take tens of seconds.
INIT_TIMEOUT_SECONDS = 120


class InvocationError(Exception):
    """The function raised (errorType/errorMessage as Lambda reports them) or timed out."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(f"{error_type}: {message}")
        self.error_type = error_type
        self.error_message = message


@dataclass
class _Environment:
    process: BaseProcess
    conn: Connection
    init_ms: float


def _os_environment(spec: FunctionSpec, aws_endpoint: str) -> dict[str, str]:
    return {
        "AWS_ENDPOINT_URL": aws_endpoint,
        "AWS_REGION": spec.region,
        "AWS_DEFAULT_REGION": spec.region,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_LAMBDA_FUNCTION_NAME": spec.name,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(spec.memory),
        "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "LAMBDA_TASK_ROOT": str(spec.code_dir),
        "_HANDLER": spec.handler,
        **spec.environment,
    }


class FunctionRuntime:
    """Invokes one function; each invocation gets an idle environment or a new one."""

    def __init__(
        self,
        spec: FunctionSpec,
        aws_endpoint: str,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        log_file: Path | None = None,
        timeout_patience: float = 1.0,
    ) -> None:
        self.spec = spec
        # How long an invocation may run before it is stopped: the function's timeout, times the
        # patience a test run on a busy machine gives it (its wall clock counts the wait for a CPU
        # that dozens of environments share; Lambda gives each its own). The context the function
        # sees still counts down its own timeout.
        self._limit = spec.timeout * timeout_patience
        self._worker_spec = {
            "name": spec.name,
            "arn": spec.arn,
            "memory": spec.memory,
            "timeout": spec.timeout,
            "handler": spec.handler,
            "code_dir": str(spec.code_dir),
            "layer_paths": [str(p) for p in spec.layer_paths],
            "os_environment": _os_environment(spec, aws_endpoint),
            "log_file": str(log_file) if log_file else None,
        }
        self._max = max_concurrency
        self._idle: list[_Environment] = []
        self._count = 0
        self._closed = False
        self._cond = threading.Condition()
        self.cold_starts: list[float] = []

    def _spawn(self) -> _Environment:
        _prepare_fork_server(self.spec.layer_paths)
        parent, child = _SPAWN.Pipe()
        process = _SPAWN.Process(
            target=worker.main, args=(child, self._worker_spec), daemon=True, name=f"lambda:{self.spec.logical_id}"
        )
        # Ctrl-C reaches the whole process group; an execution environment is stopped by the stack
        # (close), so it is born with SIGINT blocked (the mask survives exec): one starting at that
        # moment would otherwise die printing a KeyboardInterrupt traceback into the log.
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        child.close()
        if not parent.poll(INIT_TIMEOUT_SECONDS):
            process.kill()
            raise InvocationError("Runtime.InitTimeout", f"{self.spec.logical_id} did not initialise")
        kind, payload = parent.recv()
        if kind != "ready":
            process.join(1)
            error = json.loads(payload)
            raise InvocationError("Runtime.ImportModuleError", f"{error['errorType']}: {error['errorMessage']}")
        self.cold_starts.append(float(payload))
        return _Environment(process, parent, float(payload))

    def _acquire(self) -> _Environment:
        with self._cond:
            while True:
                if self._closed:
                    raise InvocationError("Runtime.Closed", "the local stack is stopping")
                if self._idle:
                    return self._idle.pop()
                if self._count < self._max:
                    self._count += 1
                    break
                self._cond.wait()
        try:
            return self._spawn()
        except BaseException:
            with self._cond:
                self._count -= 1
                self._cond.notify()
            raise

    def _release(self, env: _Environment | None) -> None:
        with self._cond:
            if env is None or self._closed:
                self._count -= 1
                if env is not None:
                    _stop(env)
            else:
                self._idle.append(env)
            self._cond.notify()

    def warm(self) -> None:
        """Start one environment ahead of traffic (what a provisioned environment would be)."""
        self._release(self._acquire())

    def invoke(self, event: dict[str, Any]) -> Any:
        """Run the function on `event`; its JSON result, or InvocationError."""
        env = self._acquire()
        keep: _Environment | None = None
        try:
            env.conn.send((json.dumps(event), str(uuid.uuid4())))
            if not env.conn.poll(self._limit + 1):
                raise InvocationError("Sandbox.Timedout", f"Task timed out after {self._limit:.2f} seconds")
            kind, payload = env.conn.recv()
            keep = env
        except (EOFError, OSError) as exc:
            raise InvocationError("Runtime.ExitError", f"the execution environment died: {exc}") from exc
        finally:
            if keep is None:  # a timed-out or dead environment is never reused
                _stop(env, kill=True)
            self._release(keep)
        if kind == "error":
            error = json.loads(payload)
            raise InvocationError(error["errorType"], error["errorMessage"])
        return json.loads(payload)

    def close(self) -> None:
        close_all([self])

    def _retire(self) -> list[_Environment]:
        """Closed: no new invocation; the idle environments, to stop (busy ones stop as they end)."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._cond.notify_all()
        return idle


def close_all(runtimes: Iterable[FunctionRuntime], timeout: float = 5.0) -> None:
    """Close `runtimes` and stop their idle environments all at once (each told, then all waited
    for), not one after another: a stack has about 65 of them."""
    environments = [env for runtime in runtimes for env in runtime._retire()]
    for env in environments:
        with contextlib.suppress(OSError):
            env.conn.send(None)
    deadline = time.monotonic() + timeout
    for env in environments:
        env.process.join(timeout=max(0.0, deadline - time.monotonic()))
    for env in environments:
        if env.process.is_alive():
            env.process.kill()
            env.process.join(timeout=2)
        env.conn.close()


def _stop(env: _Environment, kill: bool = False) -> None:
    if kill:
        env.process.kill()
    else:
        with contextlib.suppress(OSError):
            env.conn.send(None)
    env.process.join(timeout=2)
    if env.process.is_alive():
        env.process.kill()
        env.process.join(timeout=2)
    env.conn.close()

"""One Lambda execution environment: a fresh interpreter that imports the handler once
(the cold start) and then serves invocations one at a time over a pipe, in JSON like Lambda."""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any, TextIO


class LambdaContext:
    """The context object handlers receive."""

    def __init__(self, spec: dict[str, Any], request_id: str, deadline: float) -> None:
        self.function_name = spec["name"]
        self.function_version = "$LATEST"
        self.invoked_function_arn = spec["arn"]
        self.memory_limit_in_mb = spec["memory"]
        self.aws_request_id = request_id
        self.log_group_name = f"/aws/lambda/{spec['name']}"
        self.log_stream_name = "local"
        self._deadline = deadline

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class FunctionLog:
    """The function's stdout (its Powertools JSON logs, its prints): every line to the log file,
    and a short line for each ERROR or CRITICAL record to the stack's own output, where a person
    watching `make run` sees it (the whole record stays in the file)."""

    def __init__(self, path: str, label: str, echo: TextIO) -> None:
        self._file = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
        self._label = label
        self._echo = echo
        self._partial = ""

    def write(self, text: str) -> int:
        self._file.write(text)
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in lines:
            self._echo_if_error(line)
        return len(text)

    def _echo_if_error(self, line: str) -> None:
        try:
            record = json.loads(line)
        except ValueError:
            return
        if not isinstance(record, dict) or str(record.get("level", "")).upper() not in ("ERROR", "CRITICAL"):
            return
        request = record.get("function_request_id") or record.get("request_id") or "-"
        self._echo.write(f"{self._label} {str(record['level']).upper()} {record.get('message', '')} {request}\n")
        self._echo.flush()

    def flush(self) -> None:
        self._file.flush()

    def isatty(self) -> bool:
        return False


def main(conn: Connection, spec: dict[str, Any]) -> None:
    """Entry point of the worker process (multiprocessing spawn target)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is for the stack, which stops us
    if spec.get("log_file"):  # before the handler's import creates its logger on sys.stdout
        sys.stdout = FunctionLog(spec["log_file"], spec["name"], sys.stderr)  # type: ignore[assignment]
    os.environ.update(spec["os_environment"])
    _forget_other_copies(spec["layer_paths"])
    for path in reversed([spec["code_dir"], *spec["layer_paths"]]):
        sys.path.insert(0, path)
    started = time.perf_counter()
    try:
        module_name, _, function_name = spec["handler"].rpartition(".")
        handler = getattr(importlib.import_module(module_name), function_name)
    except BaseException as exc:  # an init error is reported like Lambda's Runtime.ImportModuleError
        conn.send(("init_error", json.dumps(_error(exc))))
        return
    conn.send(("ready", (time.perf_counter() - started) * 1000))
    while True:
        try:
            message = conn.recv()
        except EOFError:
            message = None
        if message is None:  # stopped: no interpreter teardown, which costs a stack of 65 seconds
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        event_json, request_id = message
        context = LambdaContext(spec, request_id, time.monotonic() + spec["timeout"])
        try:
            result = handler(json.loads(event_json), context)
            conn.send(("ok", json.dumps(result)))
        except BaseException as exc:  # the function failed: Lambda reports errorType/errorMessage
            if str(exc) != "Unauthorized":  # an authorizer's refusal is an answer, not a failure: no traceback
                traceback.print_exc()
            conn.send(("error", json.dumps(_error(exc))))


def _forget_other_copies(layer_paths: list[str]) -> None:
    """The fork server imported ahead the layer modules of the first function it started
    (devstack.preload). A module of a package this function's layers hold, loaded from anywhere
    else (another checkout's layer), is dropped, so that this function imports its own copy."""
    roots = [os.path.realpath(path) for path in layer_paths]
    packages = {entry.partition(".")[0] for root in roots if os.path.isdir(root) for entry in os.listdir(root)}
    for package in packages:  # a package's submodules come from where the package came from
        file = getattr(sys.modules.get(package), "__file__", None)
        if file is None or any(os.path.realpath(file).startswith(root + os.sep) for root in roots):
            continue
        for name in [name for name in sys.modules if name == package or name.startswith(package + ".")]:
            del sys.modules[name]


def _error(exc: BaseException) -> dict[str, Any]:
    return {
        "errorType": type(exc).__name__,
        "errorMessage": str(exc),
        "stackTrace": traceback.format_exception(exc)[-5:],
    }

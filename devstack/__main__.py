"""`python -m devstack`: start the local stack in the foreground; Ctrl-C stops it."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from pathlib import Path

from devstack.ports import PORTS_HELP
from devstack.stack import ROOT, LocalStack, PortsTaken


def _stop_at_end_of_stdin(stopping: threading.Event, started: threading.Event) -> None:
    """The program that started the stack is gone: stop; still starting, exit at once (moto and
    the execution environments exit as their pipes to this process close)."""
    while os.read(0, 4096):  # not sys.stdin: its lock, held at exit, aborts the interpreter
        pass
    if not started.is_set():
        os._exit(1)
    stopping.set()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="devstack",
        description=__doc__,
        epilog=PORTS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--template", type=Path, default=ROOT / "template.yaml")
    parser.add_argument("--samconfig", type=Path, default=ROOT / "samconfig.toml")
    parser.add_argument("--envs", default="mz,regional-sa", help="samconfig environments (service regions)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--moto-port", type=int, default=5000, help="moto's port (make run MOTO_PORT=...)")
    parser.add_argument(
        "--port-base", type=int, default=3000, help="the first region's first port (make run PORT_BASE=...): see below"
    )
    parser.add_argument(
        "--stack-file", type=Path, default=ROOT / ".local" / "stack.json", help="where the URLs and keys are written"
    )
    parser.add_argument("--moto-log", type=Path, default=ROOT / ".local" / "moto.log")
    parser.add_argument(
        "--function-log",
        type=Path,
        default=ROOT / ".local" / "functions.log",
        help="the functions' own logs (JSON lines); their errors also reach this output",
    )
    parser.add_argument("--no-warm", action="store_true", help="start execution environments on first use")
    parser.add_argument(
        "--function-aws-endpoint", help="where the functions reach AWS (default: moto itself; tests put a proxy here)"
    )
    parser.add_argument(
        "--timeout-patience",
        type=float,
        default=1.0,
        help="stop a function after its timeout times this (tests on a busy machine, whose clock counts "
        "the wait for a CPU); the function's context still counts down its own timeout",
    )
    parser.add_argument(
        "--stop-with-stdin",
        action="store_true",
        help="stop when standard input ends (a program that started the stack exited: devstack.launcher)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    args.moto_log.parent.mkdir(parents=True, exist_ok=True)

    stack = LocalStack(
        envs=[e.strip() for e in args.envs.split(",") if e.strip()],
        template=args.template,
        samconfig=args.samconfig,
        host=args.host,
        moto_port=args.moto_port,
        port_base=args.port_base,
        state_file=args.stack_file,
        moto_log=args.moto_log,
        function_log=args.function_log,
        warm=not args.no_warm,
        function_aws_endpoint=args.function_aws_endpoint,
        timeout_patience=args.timeout_patience,
    )
    stopping, started = threading.Event(), threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopping.set())
    if args.stop_with_stdin:
        watch = threading.Thread(
            target=_stop_at_end_of_stdin, args=(stopping, started), name="parent-watch", daemon=True
        )
        watch.start()
    try:
        state = stack.start()
    except PortsTaken as taken:  # nothing started: say which port and what to pass, no traceback
        stack.stop()
        print(taken, file=sys.stderr, flush=True)
        return 2
    except BaseException:
        stack.stop()
        raise
    started.set()
    for env, urls in state["regions"].items():
        dashboard = state["demo"].get(env, {}).get("dashboard")
        shown = {**urls, **({"dashboard": dashboard["url"]} if dashboard else {})}
        print(f"[{env}] " + "  ".join(f"{name}: {url}" for name, url in shown.items()), flush=True)
    print(f"AWS (moto): {state['aws_endpoint']}   state: {args.stack_file}", flush=True)
    print(f"function logs (JSON lines): {args.function_log}", flush=True)
    if state.get("oidc"):
        print(f"OIDC issuer (collection sign-in): {state['oidc']['issuer']}", flush=True)
    print("local stack ready; Ctrl-C stops it", flush=True)
    stopping.wait()
    print("stopping...", flush=True)
    stack.stop()
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`python -m devstack.wait` (make wait): block until the local stack `make run` started answers
on every API of every region (it writes .local/stack.json once everything answers; then each
API's /health must answer 200), so a script can start the stack in the background and go on:

    make run &
    make wait

Exit 0 when ready; 1 after --timeout seconds (default 600: a first run installs .venv) with what
was still missing."""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # standard library only: it runs beside a first install


def missing(state_file: Path) -> list[str]:
    """What does not answer yet: the stack file, or an API's /health."""
    try:
        state = json.loads(state_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [str(state_file)]
    absent = []
    for region, apis in state.get("regions", {}).items():
        for api, url in apis.items():
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as answer:
                    if answer.status == 200:
                        continue
            except OSError:
                pass
            absent.append(f"{region}:{api}")
    return absent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="devstack.wait", description=__doc__)
    parser.add_argument("--stack-file", type=Path, default=ROOT / ".local" / "stack.json")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.timeout
    while (absent := missing(args.stack_file)) and time.monotonic() < deadline:
        time.sleep(0.5)
    if absent:
        print(f"devstack.wait: not ready after {args.timeout:.0f} s: {', '.join(absent)}", file=sys.stderr)
        return 1
    print("local stack ready", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`python -m devstack.invoke FUNCTION EVENT` (make invoke FUNCTION=... EVENT=...): run one
function of the running local stack on an event file, as `sam local invoke` would in Docker (which
this needs neither): through the region's Lambda Invoke API, with boto3's `lambda.invoke`.

FUNCTION is a logical id of template.yaml (GatewayPaymentsFunction) or a function name. An event
may name placeholders, each filled with one value throughout the file:
- `${demo.<field>}`: that field of the region's demo account in .local/stack.json (account_id,
  test_key...), so a sample event acts for the demo account;
- `${uuid}`, `${ulid}`: a fresh UUID, a fresh ULID; `${now}`: the time, UTC ISO 8601;
- `${<name>}`: the value given by `--set <name>=<value>` (e.g. the payment a capture captures).
Prints the function's result; exit 1 if the function failed, 2 if it could not run."""

from __future__ import annotations

import argparse
import json
import re
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ulid import ULID

from devstack.stack import ROOT

_PLACEHOLDER = re.compile(r"\$\{(demo\.[a-z_]+|[a-z_]+)\}")


def filled(text: str, demo: dict[str, Any], given: dict[str, str] | None = None) -> str:
    """`text` with its placeholders filled (one value per placeholder); SystemExit naming one
    that nothing fills."""
    values: dict[str, str] = {}

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            values[name] = _value(name, demo, given or {})
        return values[name]

    return _PLACEHOLDER.sub(value, text)


def _value(name: str, demo: dict[str, Any], given: dict[str, str]) -> str:
    if name.startswith("demo."):
        field = name.split(".", 1)[1]
        if not isinstance(demo.get(field), str):
            raise SystemExit(f"devstack.invoke: the demo account has no {field!r} in the stack file")
        return str(demo[field])
    if name in given:
        return given[name]
    if name == "uuid":
        return str(uuid.uuid4())
    if name == "ulid":
        return str(ULID())
    if name == "now":
        return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    raise SystemExit(f"devstack.invoke: the event needs ${{{name}}}: pass --set {name}=VALUE")


def invoke(state: dict[str, Any], region: str, function: str, event: dict[str, Any]) -> tuple[Any, bool]:
    """(the function's result, whether it failed) through the region's Lambda Invoke API."""
    import boto3

    client = boto3.client(
        "lambda",
        endpoint_url=state["lambda"][region],
        region_name=state["aws_regions"][region],
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    answer = client.invoke(FunctionName=function, Payload=json.dumps(event).encode())
    return json.loads(answer["Payload"].read() or b"null"), "FunctionError" in answer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="devstack.invoke", description=__doc__)
    parser.add_argument("function", help="a logical id of template.yaml, e.g. GatewayPaymentsFunction")
    parser.add_argument("event", type=Path, help="a JSON event file, e.g. events/gateway_charge.json")
    parser.add_argument("--region", default="mz")
    parser.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="fill ${NAME} in the event (repeatable)"
    )
    parser.add_argument("--stack-file", type=Path, default=ROOT / ".local" / "stack.json")
    args = parser.parse_args(argv)
    try:
        state = json.loads(args.stack_file.read_text(encoding="utf-8"))
    except OSError:
        print(f"devstack.invoke: no local stack ({args.stack_file}): start it with make run", file=sys.stderr)
        return 2
    if args.region not in state.get("lambda", {}):
        print(f"devstack.invoke: the local stack serves no region {args.region!r}", file=sys.stderr)
        return 2
    given = dict(pair.split("=", 1) for pair in args.set if "=" in pair)
    if len(given) != len(args.set):
        parser.error("--set takes NAME=VALUE")
    text = args.event.read_text(encoding="utf-8")
    event = json.loads(filled(text, state["demo"].get(args.region, {}), given))
    result, failed = invoke(state, args.region, args.function, event)
    print(json.dumps(result, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

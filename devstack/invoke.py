"""`python -m devstack.invoke FUNCTION EVENT` (make invoke FUNCTION=... EVENT=...): run one
function of the running local stack on an event file, as `sam local invoke` would in Docker (which
this needs neither): through the region's Lambda Invoke API, with boto3's `lambda.invoke`.

FUNCTION is a logical id of template.yaml (GatewayPaymentsFunction) or a function name. In the
event, `${demo.<field>}` is replaced by that field of the region's demo account in
.local/stack.json (account_id, test_key...) and `${uuid}` by a fresh UUID, so a sample event acts
for the demo account. Prints the function's result; exit 1 if the function failed."""

from __future__ import annotations

import argparse
import json
import re
import sys
import uuid
from pathlib import Path
from typing import Any

from devstack.stack import ROOT

_PLACEHOLDER = re.compile(r"\$\{(demo\.[a-z_]+|uuid)\}")


def filled(text: str, demo: dict[str, Any]) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "uuid":
            return str(uuid.uuid4())
        field = name.split(".", 1)[1]
        if not isinstance(demo.get(field), str):
            raise SystemExit(f"devstack.invoke: the demo account has no {field!r} in the stack file")
        return str(demo[field])

    return _PLACEHOLDER.sub(value, text)


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
    event = json.loads(filled(args.event.read_text(encoding="utf-8"), state["demo"].get(args.region, {})))
    result, failed = invoke(state, args.region, args.function, event)
    print(json.dumps(result, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

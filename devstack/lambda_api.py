"""The Lambda Invoke API of one local region, so a function can be run on an event of your own
as `sam local invoke` runs it in Docker: `POST /2015-03-31/functions/<name>/invocations` (what
boto3's `lambda.invoke` and `aws lambda invoke --endpoint-url` send). <name> is the logical id,
the function name or its ARN. The function runs in the local stack's own execution environments,
with its environment from template.yaml, against the local stack's AWS. RequestResponse only."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from werkzeug.wrappers import Request, Response

from devstack.lambdas import FunctionRuntime, InvocationError

_PATH = re.compile(r"^/2015-03-31/functions/([^/]+)/invocations$")


class LambdaApi:
    def __init__(self, runtimes: Mapping[str, FunctionRuntime]) -> None:
        self.by_name: dict[str, FunctionRuntime] = {}
        for logical_id, runtime in runtimes.items():
            for name in (logical_id, runtime.spec.name, runtime.spec.arn):
                self.by_name[name] = runtime

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        match = _PATH.match(request.path)
        if request.method != "POST" or match is None:
            return _error(404, "ResourceNotFoundException", f"No route for {request.method} {request.path}.")(
                environ, start_response
            )
        runtime = self.by_name.get(match.group(1))
        if runtime is None:
            return _error(404, "ResourceNotFoundException", f"Function not found: {match.group(1)}")(
                environ, start_response
            )
        if request.headers.get("X-Amz-Invocation-Type", "RequestResponse") != "RequestResponse":
            return _error(400, "InvalidParameterValueException", "Only RequestResponse invocations are played.")(
                environ, start_response
            )
        try:
            event = json.loads(request.get_data() or b"{}")
        except ValueError:
            return _error(400, "InvalidRequestContentException", "Could not parse request body into json")(
                environ, start_response
            )
        headers = {"X-Amz-Executed-Version": "$LATEST"}
        try:
            body = json.dumps(runtime.invoke(event))
        except InvocationError as failure:  # Lambda answers 200 with the function's error
            body = json.dumps({"errorType": failure.error_type, "errorMessage": failure.error_message})
            headers["X-Amz-Function-Error"] = "Unhandled"
        return Response(body, 200, headers=headers, content_type="application/json")(environ, start_response)


def _error(status: int, kind: str, message: str) -> Response:
    headers = {"X-Amzn-ErrorType": kind}
    return Response(
        json.dumps({"Type": "User", "message": message}), status, headers=headers, content_type="application/json"
    )

"""API Gateway REST (v1) proxy events and a Lambda context, as a function receives them."""

from __future__ import annotations

import time
from typing import Any

STAGE = "prod"
SOURCE_IP = "127.0.0.1"
USER_AGENT = "mzpay-bench"


def rest_event(
    method: str,
    path: str,
    *,
    request_id: str,
    resource: str | None = None,
    headers: dict[str, str] | None = None,
    body: str | None = None,
) -> dict[str, Any]:
    """A REST API proxy event for `method path` (resource defaults to the path itself)."""
    all_headers = {"Accept": "application/json", "Host": "localhost", "User-Agent": USER_AGENT, **(headers or {})}
    return {
        "resource": resource or path,
        "path": path,
        "httpMethod": method,
        "headers": all_headers,
        "multiValueHeaders": {name: [value] for name, value in all_headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "bench",
            "resourcePath": resource or path,
            "httpMethod": method,
            "path": f"/{STAGE}{path}",
            "protocol": "HTTP/1.1",
            "requestId": request_id,
            "requestTimeEpoch": int(time.time() * 1000),
            "stage": STAGE,
            "identity": {"sourceIp": SOURCE_IP, "userAgent": USER_AGENT},
        },
        "body": body,
        "isBase64Encoded": False,
    }


class LambdaContext:
    """The attributes and method of Lambda's context object that handlers use."""

    def __init__(self, function_name: str, timeout_seconds: float = 900.0) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:af-south-1:123456789012:function:{function_name}"
        self.memory_limit_in_mb = 512
        self.aws_request_id = "bench"
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "bench"
        self._deadline = time.monotonic() + timeout_seconds

    def get_remaining_time_in_millis(self) -> int:
        """Milliseconds left before the (nominal) timeout."""
        return max(0, int((self._deadline - time.monotonic()) * 1000))

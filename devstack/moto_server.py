"""moto in server mode, with one correction: DynamoDB applies each request (a conditional
write, a transaction) atomically, moto does not. It evaluates a condition and then writes
without a lock, and a cancelled transaction restores a copy of the whole table, which can undo
another request's committed write. Under concurrent requests two conditional writers could
then both "win", hiding the very races the product guards against; serialising moto's DynamoDB
request handling restores DynamoDB's guarantee while clients still race over HTTP."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from moto.dynamodb.responses import DynamoHandler


@contextmanager
def atomic_dynamodb() -> Iterator[None]:
    """While inside, every DynamoDB request to moto (server or in-process) applies atomically."""
    lock = threading.RLock()
    original = DynamoHandler.call_action

    def call_action(self: DynamoHandler) -> Any:
        with lock:
            return original(self)

    DynamoHandler.call_action = call_action  # type: ignore[method-assign]
    try:
        yield
    finally:
        DynamoHandler.call_action = original  # type: ignore[method-assign]


def main(argv: list[str]) -> None:
    from moto import server

    with atomic_dynamodb():
        server.main(argv)


if __name__ == "__main__":
    main(sys.argv[1:])

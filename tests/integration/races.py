"""Helpers for tests where threads race for the same DynamoDB item against in-process moto.
Use `devstack.moto_server.atomic_dynamodb()` around them: it gives moto DynamoDB's per-request
atomicity (see there); the threads still race through boto3 and the code under test."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def race(count: int, work: Callable[[int], Any]) -> list[tuple[str, Any]]:
    """Run work(0), ..., work(count - 1) in `count` threads released at the same moment.
    Per thread: ("ok", result) or ("error", exception)."""
    barrier = threading.Barrier(count)
    outcomes: list[tuple[str, Any]] = [("missing", None)] * count

    def run(index: int) -> None:
        barrier.wait()
        try:
            outcomes[index] = ("ok", work(index))
        except Exception as exc:
            outcomes[index] = ("error", exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return outcomes

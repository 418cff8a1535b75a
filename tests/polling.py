"""Waiting for what the stack does in the background, written once for every kind of test: a
generous poll with a deadline, never a fixed sleep."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def eventually(call: Callable[[], T], done: Callable[[T], bool], timeout: float = 20, interval: float = 0.2) -> T:
    """`call()`'s answer once `done` with it, or its last answer at the deadline (the caller's
    assertions then say what it is)."""
    deadline = time.monotonic() + timeout
    while True:
        result = call()
        if done(result) or time.monotonic() > deadline:
            return result
        time.sleep(interval)

"""moto tells the local stack which DynamoDB tables it wrote, as it writes them, so that the
stack's stream pollers (devstack.esm) and global-table replicator (devstack.globaltables) read a
stream when it has something new instead of asking moto several times a second whether it has
(an idle stack used to cost about 27 requests a second, 15% of a core).

The protocol: moto's server (devstack.moto_server, in its own process) writes a line
`<AWS region> <table name>` on a pipe the stack gave it, after each write that adds a stream
record; lines are coalesced (a table written a hundred times while a line was being written is
told once more, not a hundred times). The stack reads them (TableChanges) and wakes whoever
follows that table."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable

log = logging.getLogger("devstack.changes")


class ChangeWriter:
    """moto's side: `changed(region, table)` never blocks (moto calls it holding its DynamoDB
    lock); a thread of its own writes the lines. Stops quietly when the stack is gone."""

    def __init__(self, fd: int) -> None:
        self._output = os.fdopen(fd, "wb")
        self._pending: set[tuple[str, str]] = set()
        self._cond = threading.Condition()
        threading.Thread(target=self._run, name="table-changes", daemon=True).start()

    def changed(self, region: str, table: str) -> None:
        with self._cond:
            self._pending.add((region, table))
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending)
                batch, self._pending = self._pending, set()
            try:
                self._output.write("".join(f"{region} {table}\n" for region, table in sorted(batch)).encode())
                self._output.flush()
            except OSError:  # the stack closed its end: nobody listens any more
                return


class TableChanges(threading.Thread):
    """The stack's side: reads moto's lines and calls each follower of that table (region, name)."""

    def __init__(self, fd: int) -> None:
        super().__init__(name="table-changes", daemon=True)
        self._input = os.fdopen(fd, "rb")
        self._lock = threading.Lock()
        self._followers: dict[tuple[str, str], list[Callable[[], None]]] = {}

    def follow(self, region: str, table: str, wake: Callable[[], None]) -> None:
        with self._lock:
            self._followers.setdefault((region, table), []).append(wake)

    def run(self) -> None:
        with self._input:
            for line in self._input:
                region, _, table = line.decode().strip().partition(" ")
                with self._lock:
                    followers = list(self._followers.get((region, table), ()))
                for wake in followers:
                    wake()
        log.debug("moto closed its table changes")


def stream_table(stream_arn: str) -> tuple[str, str]:
    """(AWS region, table name) of a DynamoDB stream ARN.

    >>> stream_table("arn:aws:dynamodb:af-south-1:123456789012:table/events/stream/2026-01-01T00:00:00.000")
    ('af-south-1', 'events')
    """
    parts = stream_arn.split(":", 5)
    return parts[3], parts[5].split("/")[1]

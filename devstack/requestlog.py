"""One readable line per request the local APIs answer (`make run`'s output): the API, method,
path, status, milliseconds and request id, through logging, so no colour codes ever reach a file
or a pipe (werkzeug's own request log colours its lines)."""

from __future__ import annotations

import logging
import time
from typing import Any

from werkzeug.serving import WSGIRequestHandler

log = logging.getLogger("devstack.requests")


class RequestLines(WSGIRequestHandler):
    def handle_one_request(self) -> None:
        self._started = time.perf_counter()
        self._status: int | str = "-"
        self._request_id = "-"
        super().handle_one_request()

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        self._status = code  # written out with the headers, once the request id is known

    def send_header(self, keyword: str, value: str) -> None:
        if keyword.lower() == "x-request-id":
            self._request_id = value
        super().send_header(keyword, value)

    def end_headers(self) -> None:
        super().end_headers()
        milliseconds = (time.perf_counter() - self._started) * 1000
        server: Any = self.server
        name = getattr(server, "mzpay_name", "api")
        path = self.path.split("?", 1)[0]
        log.info("%s %s %s %s %.0f ms %s", name, self.command, path, self._status, milliseconds, self._request_id)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug(format, *args)

"""`@idempotent`: exactly-once money-moving POSTs per (account, mode, Idempotency-Key).

Built on conditional writes (mzpay.store.idempotency) rather than Powertools' idempotency
utility, whose answers differ from the spec's: it would store error answers of the
resolver's exception handlers, surface its in-progress and validation errors as 502s, and
key on raw, case-sensitive header names.

- no header: 400 idempotency_key_required (an `optional` route: runs once, unrecorded);
  over 255 bytes: 400 invalid_idempotency_key;
- a replay returns the original status, headers and body plus `Idempotent-Replayed: true`;
- the same key with another method, path or body: 409 idempotency_key_reused;
- a duplicate arriving while the first runs waits up to WAIT_SECONDS, then 409
  request_in_progress with Retry-After: 1;
- store unreachable: 503 idempotency_unavailable with Retry-After: 1, and nothing runs;
- an answer of 5xx, 409 request_in_progress (or a crash) does not pin the key: the next attempt runs again.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import json
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.event_handler import Response

from mzpay import deps
from mzpay.domain.common.errors import ServiceError
from mzpay.http.principal import merchant
from mzpay.lazy import deferred
from mzpay.store.aws import is_dependency_fault

if TYPE_CHECKING:
    from mzpay.store import idempotency as records
    from mzpay.store.idempotency import Answer
else:  # loaded by the first idempotent request: a function's reads never need it
    records = deferred("mzpay.store.idempotency")

HEADER = "Idempotency-Key"
MAX_KEY_BYTES = 255
WAIT_SECONDS = 2.0
POLL_SECONDS = 0.1
REPLAYED_HEADER = "Idempotent-Replayed"
# The current request's record key (scope#Idempotency-Key), while an @idempotent route runs.
_current_key: contextvars.ContextVar[str | None] = contextvars.ContextVar("idempotency_key", default=None)
# Names the ids derived from an Idempotency-Key (uuid5 needs a namespace of its own).
_DERIVED_IDS = uuid.UUID("5b0f8f0e-6d1c-4f4e-9a53-6d7a79706179")


def merchant_scope() -> str:
    principal = merchant()
    return f"{principal.acting_account_id}#{principal.mode}"


def derived_id(kind: str) -> str:
    """An id for a resource the caller did not name (a refund without refund_id, a checkout
    without payment_id, the gateway payment of a collection transaction), derived from the
    request's scope and Idempotency-Key: a retry with the same key after a fault names the same
    resource, so its creation is replayed or finished, never made twice. A UUID, like the ids
    merchants send."""
    pk = _current_key.get()
    if pk is None:
        raise RuntimeError("derived_id needs an @idempotent route")
    return str(uuid.uuid5(_DERIVED_IDS, f"{kind}#{pk}"))


def fingerprint(method: str, path: str, body: str | None) -> str:
    """Hash of method, path and body; JSON bodies are canonicalised (key order, spacing)."""
    text = body or ""
    with contextlib.suppress(ValueError):
        text = json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")) if text else ""
    return hashlib.sha256(f"{method}\n{path}\n{text}".encode()).hexdigest()


def _unavailable() -> ServiceError:
    return ServiceError(
        503,
        "idempotency_unavailable",
        "The idempotency store is unreachable; the request was not run. Retry with the same key.",
        headers={"Retry-After": "1"},
    )


def idempotent(
    app: Any, scope: Callable[[], str] = merchant_scope, complete_in_store: bool = True, optional: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make a route of `app` run once per Idempotency-Key within `scope` (account and mode).
    `complete_in_store`: the use case's last write may complete the record in its own
    transaction (a gateway charge); off for a route whose answer is not that write's (a
    collection transaction makes a charge, then records itself). `optional`: a request without
    the header runs once as it is, its derived ids fresh ones (the collection surface's
    transactions, where the spec names no key)."""

    def decorate(route: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(route)
        def run_once(*args: Any, **kwargs: Any) -> Response:
            event = app.current_event
            key = event.headers.get(HEADER.lower()) or event.headers.get(HEADER)
            if not key and optional:
                return _run_unkeyed(route, f"{scope()}#unkeyed#{uuid.uuid4()}", args, kwargs)
            if not key:
                raise ServiceError(400, "idempotency_key_required", f"This request needs an {HEADER} header.")
            if len(key.encode()) > MAX_KEY_BYTES:
                raise ServiceError(400, "invalid_idempotency_key", f"{HEADER} is longer than {MAX_KEY_BYTES} bytes.")
            pk = f"{scope()}#{key}"
            # the customer named (?customer_id=) is part of the request: a key never replays another customer's
            customer = (event.query_string_parameters or {}).get("customer_id")
            path = event.path if customer is None else f"{event.path}?customer_id={customer}"
            request_print = fingerprint(event.http_method, path, event.body)
            remaining = app.lambda_context.get_remaining_time_in_millis() / 1000 if app.lambda_context else 30
            try:
                claim = deps.idempotency().claim(pk, request_print, lock_seconds=remaining + 1)
                deadline = time.monotonic() + WAIT_SECONDS
                while claim.existing is not None and claim.existing.status != records.COMPLETED:
                    if claim.existing.fingerprint != request_print:
                        break
                    if time.monotonic() >= deadline:
                        raise ServiceError(
                            409,
                            "request_in_progress",
                            "A request with this Idempotency-Key is still running; retry shortly.",
                            headers={"Retry-After": "1"},
                        )
                    time.sleep(POLL_SECONDS)
                    claim = deps.idempotency().claim(pk, request_print, lock_seconds=remaining + 1)
            except records.IdempotencyUnavailable as exc:
                raise _unavailable() from exc
            if claim.existing is not None:
                record = claim.existing
                if record.fingerprint != request_print:
                    raise ServiceError(
                        409,
                        "idempotency_key_reused",
                        "This Idempotency-Key was used for another request (method, path or body).",
                    )
                headers = {**(record.response_headers or {}), REPLAYED_HEADER: "true"}
                return Response(
                    status_code=record.response_status or 200, headers=headers, body=record.response_body or ""
                )
            assert claim.token is not None
            reset = _current_key.set(pk)
            try:
                return _run(app, route, pk, claim.token, args, kwargs, complete_in_store)
            finally:
                _current_key.reset(reset)

        # http.marks: Idempotency-Key documented, required unless "optional"
        run_once.mzpay_idempotent = "optional" if optional else True  # type: ignore[attr-defined]
        return run_once

    return decorate


def _run_unkeyed(route: Callable[..., Any], pk: str, args: Any, kwargs: Any) -> Any:
    """A request of an `optional` route sent without a key: run once, nothing recorded; its
    derived ids come from a key of its own that no retry can repeat."""
    reset = _current_key.set(pk)
    try:
        return route(*args, **kwargs)
    finally:
        _current_key.reset(reset)


def _answer(response: Response) -> Answer:
    """What a replay of `response` sends: status, headers and the exact body text."""
    from mzpay.http.resolver import dumps

    if not isinstance(response.body, str):  # the answer is kept as the exact text that was sent
        response.body = dumps(response.body)
    headers = {k: v if isinstance(v, str) else ",".join(v) for k, v in response.headers.items()}
    if response.content_type:
        headers["Content-Type"] = response.content_type
    return response.status_code, headers, str(response.body or "")


def _rendered(result: Any) -> Answer:
    """A use case's answer as this route sends it (a plain result: 200 JSON)."""
    from mzpay.http.resolver import to_response

    return _answer(to_response(result))


def _run(
    app: Any, route: Callable[..., Any], pk: str, token: str, args: Any, kwargs: Any, complete_in_store: bool
) -> Response:
    from mzpay.http.resolver import error_response, to_response

    completion = records.Completion(deps.idempotency().name, pk, token, _rendered)
    try:
        # the use case's last write may complete the record with its outcome
        with records.completing(completion) if complete_in_store else contextlib.nullcontext(completion):
            response = to_response(route(*args, **kwargs))
    except ServiceError as error:
        response = error_response(error, app.mzpay_surface)
        if error.code == "request_in_progress":  # transient, like a 5xx: the retry must run again
            _forget(pk, token)
            return response
    except BaseException as crash:
        # After a fault of AWS the store is most likely unreachable too: waiting for it again could
        # outlast the function; the record's lock expires by itself (request_in_progress until then).
        if not is_dependency_fault(crash) and completion.written is None:
            _forget(pk, token)
        raise
    if response.status_code >= 500:
        _forget(pk, token)
        return response
    answer = _answer(response)
    if completion.written == answer:  # completed in the same transaction as the outcome
        return response
    # If this write fails the answer still stands; a retry after the lock expires runs into
    # the resource's own conditional writes, which are the real guard against doing it twice.
    with contextlib.suppress(records.IdempotencyUnavailable):
        deps.idempotency().complete(pk, token, *answer, replace=completion.written is not None)
    return response


def _forget(pk: str, token: str) -> None:
    with contextlib.suppress(records.IdempotencyUnavailable):  # else the lock expires by itself
        deps.idempotency().release(pk, token)

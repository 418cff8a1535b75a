"""AWS WAF in front of a local API, as far as the template uses it: a web ACL associated with an
API stage whose rate-based rules (AggregateKeyType IP) block an address once its requests within
the scope-down statement exceed the limit over the evaluation window, answering the rule's custom
response. Like WAF, the count is per source address of the connection (never a header) and
includes the requests it blocks; unlike WAF (which evaluates every ~10 s), it is exact, per request.

Scope-down statements understood: ByteMatchStatement on UriPath (EXACTLY, STARTS_WITH, ENDS_WITH,
CONTAINS, with NONE or LOWERCASE transformations) and OrStatement / AndStatement of them; anything
else is refused when the stack starts, never silently ignored."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Matcher = Callable[[str], bool]


def _byte_match(spec: Mapping[str, Any]) -> Matcher:
    if set(spec.get("FieldToMatch") or {}) != {"UriPath"}:
        raise NotImplementedError(f"WAF ByteMatchStatement on {spec.get('FieldToMatch')} is not emulated")
    kinds = {t.get("Type") for t in spec.get("TextTransformations") or []}
    if not kinds <= {"NONE", "LOWERCASE"}:
        raise NotImplementedError(f"WAF text transformations {sorted(kinds)} are not emulated")
    lower = "LOWERCASE" in kinds
    wanted = str(spec["SearchString"])
    position = spec["PositionalConstraint"]
    tests: dict[str, Callable[[str, str], bool]] = {
        "EXACTLY": lambda path, s: path == s,
        "STARTS_WITH": str.startswith,
        "ENDS_WITH": str.endswith,
        "CONTAINS": lambda path, s: s in path,
    }
    if position not in tests:
        raise NotImplementedError(f"WAF positional constraint {position} is not emulated")
    test = tests[position]
    return lambda path: test(path.lower() if lower else path, wanted)


def matcher(statement: Mapping[str, Any]) -> Matcher:
    """The emulation of a scope-down statement over the request's URI path."""
    ((kind, spec),) = statement.items()
    if kind == "ByteMatchStatement":
        return _byte_match(spec)
    if kind in ("OrStatement", "AndStatement"):
        parts = [matcher(part) for part in spec["Statements"]]
        combine = any if kind == "OrStatement" else all
        return lambda path: combine(part(path) for part in parts)
    raise NotImplementedError(f"WAF {kind} is not emulated")


@dataclass(frozen=True)
class Blocked:
    """The custom response of a block."""

    status: int
    headers: dict[str, str]
    content_type: str
    body: str


CONTENT_TYPES = {"APPLICATION_JSON": "application/json", "TEXT_PLAIN": "text/plain", "TEXT_HTML": "text/html"}


@dataclass
class RateRule:
    """One rate-based rule: at most `limit` requests in scope per address per `window` seconds."""

    name: str
    limit: int
    window: float
    in_scope: Matcher
    response: Blocked
    clock: Callable[[], float] = time.monotonic
    _seen: dict[str, deque[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def judge(self, path: str, address: str) -> Blocked | None:
        if not self.in_scope(path):
            return None
        now = self.clock()
        with self._lock:
            seen = self._seen.setdefault(address, deque())
            while seen and seen[0] <= now - self.window:
                seen.popleft()
            seen.append(now)
            return self.response if len(seen) > self.limit else None


def rate_rules(web_acl: Mapping[str, Any]) -> list[RateRule]:
    """The rate-based rules of a web ACL's resolved properties, in priority order."""
    bodies = web_acl.get("CustomResponseBodies") or {}
    rules = []
    for rule in sorted(web_acl.get("Rules") or [], key=lambda r: int(r.get("Priority", 0))):
        statement = rule["Statement"]
        if set(statement) != {"RateBasedStatement"}:
            raise NotImplementedError(f"WAF rule {rule['Name']}: only rate-based rules are emulated")
        rate = statement["RateBasedStatement"]
        if rate.get("AggregateKeyType", "IP") != "IP":
            raise NotImplementedError(f"WAF rule {rule['Name']}: only AggregateKeyType IP is emulated")
        custom = ((rule.get("Action") or {}).get("Block") or {}).get("CustomResponse") or {}
        body = bodies.get(custom.get("CustomResponseBodyKey"), {})
        rules.append(
            RateRule(
                name=rule["Name"],
                limit=int(rate["Limit"]),
                window=float(rate.get("EvaluationWindowSec", 300)),
                in_scope=matcher(rate["ScopeDownStatement"]) if "ScopeDownStatement" in rate else (lambda _p: True),
                response=Blocked(
                    status=int(custom.get("ResponseCode", 403)),
                    headers={h["Name"]: str(h["Value"]) for h in custom.get("ResponseHeaders") or []},
                    content_type=CONTENT_TYPES.get(body.get("ContentType", "TEXT_PLAIN"), "text/plain"),
                    body=str(body.get("Content", "")),
                ),
            )
        )
    return rules


@dataclass
class WebAcl:
    """The rules a local API applies before routing."""

    rules: list[RateRule]

    def judge(self, path: str, address: str) -> Blocked | None:
        for rule in self.rules:
            blocked = rule.judge(path, address)
            if blocked is not None:
                return blocked
        return None

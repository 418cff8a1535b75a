"""Who an operator is: the management API's credentials name each operator, so that the audit
trail says who acted. The secret holds either one bearer token (the stack generates it; its
holder is `operator`) or a JSON object of names to tokens, e.g. {"ana.macuacua": "<token>", ...}
(names: letters, digits, `.`, `_`, `-`, `@`, at most 64)."""

from __future__ import annotations

import hmac
import json
import re

DEFAULT_OPERATOR = "operator"
_NAME = re.compile(r"^[A-Za-z0-9._@-]{1,64}$")


def operator_tokens(stored: str) -> dict[str, str]:
    """The operators and their tokens as the secret holds them (a bare token is `operator`'s).
    Malformed names or empty tokens are dropped: they can never sign anyone in."""
    text = stored.strip()
    if text.startswith("{"):
        try:
            named = json.loads(text)
        except ValueError:
            return {}
        if not isinstance(named, dict):
            return {}
        return {
            name: token
            for name, token in named.items()
            if isinstance(name, str) and _NAME.match(name) and isinstance(token, str) and token
        }
    return {DEFAULT_OPERATOR: text} if text else {}


def operator_named(stored: str, presented: str) -> str | None:
    """The name of the operator whose token was presented, None for an unknown token. Every token
    is compared, in constant time, so the answer's timing tells nothing of which one matched."""
    found = None
    for name, token in operator_tokens(stored).items():
        if hmac.compare_digest(presented.encode(), token.encode()):
            found = name
    return found

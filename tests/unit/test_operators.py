"""Named operators: the management credentials say who holds each token."""

from __future__ import annotations

import json

from mzpay.domain.operators.credentials import operator_named, operator_tokens


def test_a_bare_token_is_the_default_operators() -> None:
    assert operator_tokens("  tok-1\n") == {"operator": "tok-1"}
    assert operator_named("tok-1", "tok-1") == "operator"
    assert operator_named("tok-1", "tok-2") is None


def test_a_json_secret_names_each_operator() -> None:
    stored = json.dumps({"ana.macuacua": "tok-a", "joao@mzpay.co.mz": "tok-j"})
    assert operator_named(stored, "tok-j") == "joao@mzpay.co.mz"
    assert operator_named(stored, "tok-a") == "ana.macuacua"
    assert operator_named(stored, "tok-x") is None


def test_malformed_entries_sign_nobody_in() -> None:
    stored = json.dumps({"bad name!": "tok-b", "empty": "", "n": 5, "x" * 65: "tok-long", "ok": "tok-ok"})
    assert operator_tokens(stored) == {"ok": "tok-ok"}
    assert operator_named(stored, "tok-b") is None
    assert operator_named(stored, "") is None
    assert operator_tokens("{not json") == {}
    assert operator_tokens("") == {}

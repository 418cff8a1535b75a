"""The copy-paste receiver of docs/webhooks.md works as printed: beside a copy of signing.py,
it accepts a delivery signed with its secret (once per event id) and refuses a tampered one."""

from __future__ import annotations

import json
import re
import shutil
import threading
import time
import types
import urllib.error
import urllib.request
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from mzpay.webhooks import sign

ROOT = Path(__file__).resolve().parents[2]
SECRET = "whsec_receiver_example"


def _example() -> str:
    text = (ROOT / "docs" / "webhooks.md").read_text(encoding="utf-8")
    section = text.split("## A receiver (Python)", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None
    return found.group(1)


def _post(url: str, body: bytes, header: str) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(url, body, {"Service-Signature": header, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_the_documented_receiver_verifies_and_deduplicates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(ROOT / "layers/core/python/mzpay/webhooks/signing.py", tmp_path / "signing.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("MZPAY_WEBHOOK_SECRETS", f"{SECRET},whsec_old")
    module = types.ModuleType("receiver_example")
    exec(compile(_example(), "receiver_example.py", "exec"), module.__dict__)
    server = ThreadingHTTPServer(("127.0.0.1", 0), module.Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        event = {
            "id": "01JD5EVENT0000000000000000",
            "type": "payment.succeeded",
            "data": {"object": {"payment_id": "order-17", "money": {"amount": "150.00", "currency": "MZN"}}},
        }
        body = json.dumps(event).encode()
        header = sign(body, [SECRET], int(time.time()))
        assert _post(url, body, header) == (200, {"received": True})
        assert _post(url, body, header) == (200, {"received": True})  # a repeat is acknowledged, not handled
        assert capsys.readouterr().out.count("paid: order-17") == 1
        assert _post(url, body + b" ", header) == (400, {"error": "signature_invalid"})
        stale = sign(body, [SECRET], int(time.time()) - 301)
        assert _post(url, body, stale) == (400, {"error": "signature_timestamp_outside_tolerance"})
    finally:
        server.shutdown()

"""The documentation's examples run, so none can rot: every block tagged ```bash example``` or
```python example``` in README.md and docs/*.md runs after its page's setup block of the same
language (```bash example-setup```, ```python example-setup```) against the local stack, and
every merchant endpoint of the gateway (docs/openapi/gateway.json, less the payer's pages, the
interactive docs and the secret-scanning receiver) has an example in both languages."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from devstack.launcher import ROOT, RunningStack

pytestmark = pytest.mark.e2e

LANGUAGES = ("bash", "python")
ROLES = ("example", "example-setup")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TIMEOUT_SECONDS = 60

# Not the merchant's: the payer's HTML pages, the interactive docs, the code hosts' receiver.
NOT_MERCHANT = re.compile(r"^/checkout/|^/docs(/|$)|^/secret-scanning/")
HTTP_METHODS = ("get", "put", "post", "delete", "patch")


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: str  # relative to the repository's root
    line: int  # its opening fence, 1-based
    info: str
    code: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def language(self) -> str:
        return self.info.split()[0] if self.info else ""

    @property
    def role(self) -> str | None:
        words = self.info.split()
        return words[1] if len(words) == 2 and words[0] in LANGUAGES and words[1] in ROLES else None


OPENING = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")


def fenced_blocks(path: Path) -> Iterator[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = OPENING.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence = opening["fence"]
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        end = next((i for i in range(index + 1, len(lines)) if closing.match(lines[i])), len(lines))
        code = "\n".join(lines[index + 1 : end]) + "\n"
        yield Block(path.relative_to(ROOT).as_posix(), index + 1, opening["info"].strip(), code)
        index = end + 1


BLOCKS = [block for page in PAGES for block in fenced_blocks(page)]
EXAMPLES = [block for block in BLOCKS if block.role == "example"]
SETUPS = [block for block in BLOCKS if block.role == "example-setup"]


def setup_of(example: Block) -> Block | None:
    return next((s for s in SETUPS if (s.page, s.language) == (example.page, example.language)), None)


# Test harness only, after the setup: every answer the example reads also goes to stderr, so that
# a failed check shows what the gateway said.
TRACE = {
    "bash": """
jq() { local input; input=$(cat); [[ -z $input ]] || printf '%s\\n' "$input" >&2; command jq "$@" <<< "$input"; }
""",
    "python": """
import sys as _sys

import httpx as _httpx

_send = _httpx.Client.send


def _traced(self, request, **kwargs):
    response = _send(self, request, **kwargs)
    response.read()
    print(request.method, request.url, "->", response.status_code, response.text[:4000], file=_sys.stderr)
    return response


_httpx.Client.send = _traced
""",
}


def program(example: Block) -> str:
    setup = setup_of(example)
    return (setup.code if setup else "") + TRACE[example.language] + example.code


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_the_example_runs(stack: RunningStack, example: Block) -> None:
    code = program(example)
    command = ["bash", "-euo", "pipefail", "-c", code] if example.language == "bash" else [sys.executable, "-c", code]
    env = {**os.environ, "MZPAY_STACK": str(stack.state_file)}
    try:
        done = subprocess.run(
            command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(
            f"{example.id} ({example.language}) ran over {TIMEOUT_SECONDS} s\n{_output(exc.stdout, exc.stderr)}"
        )
    assert done.returncode == 0, (
        f"{example.id} ({example.language}) exited {done.returncode}\n{_output(done.stdout, done.stderr)}"
    )


def _output(stdout: str | bytes | None, stderr: str | bytes | None) -> str:
    def text(value: str | bytes | None) -> str:
        return value.decode(errors="replace") if isinstance(value, bytes) else value or ""

    return f"--- stdout\n{text(stdout)}\n--- stderr\n{text(stderr)}"


# ---------------------------------------------------------------- every merchant endpoint has examples
def merchant_endpoints(api: str = "gateway") -> list[tuple[str, str]]:
    document = json.loads((ROOT / "docs" / "openapi" / f"{api}.json").read_text(encoding="utf-8"))
    return sorted(
        (method.upper(), path)
        for path, operations in document["paths"].items()
        for method in operations
        if method in HTTP_METHODS and not NOT_MERCHANT.search(path)
    )


ENDPOINTS = merchant_endpoints()
OPERATOR_ENDPOINTS = merchant_endpoints("management")  # operators' pages (docs/psp-onboarding.md)
APIS = {"gateway": ENDPOINTS, "management": OPERATOR_ENDPOINTS, "collection": merchant_endpoints("collection")}

CURL_URLS = {api: re.compile(rf"""\$\{{?{api.upper()}\}}?(?P<path>/[^"'\s?]*)""") for api in APIS}
CURL_METHOD = re.compile(r"(?:\s-X\s*|\s--request[\s=])(?P<method>[A-Z]+)")
CURL_GET = re.compile(r"\s(?:-G|--get)(?=\s)")
CURL_DATA = re.compile(r"\s(?:-d|--data(?:-binary|-raw|-urlencode)?|--json|-F|--form)(?=[\s=])")
PYTHON_CALL = re.compile(r"""\.(?P<method>get|post|put|delete|patch)\(\s*f?(?P<quote>["'])(?P<url>.*?)(?P=quote)""")


def gateway_calls(example: Block, api: str = "gateway") -> set[tuple[str, str]]:
    """(method, path) of each call the example makes to the gateway (or `api`), paths as written."""
    calls: set[tuple[str, str]] = set()
    if example.language == "bash":
        for line in example.code.replace("\\\n", " ").splitlines():
            for command in re.split(r"(?=\bcurl\s)", line)[1:]:
                command = command.split(" | ")[0]
                url = CURL_URLS[api].search(command)
                if url is None:
                    continue  # another API (an operator's call)
                explicit = CURL_METHOD.search(command)
                if explicit:
                    method = explicit["method"]
                elif CURL_DATA.search(command) and not CURL_GET.search(command):
                    method = "POST"
                else:
                    method = "GET"
                calls.add((method, url["path"]))
    else:
        for call in PYTHON_CALL.finditer(example.code):
            written = call["url"].removeprefix("{gateway}").split("?")[0]
            if written.startswith("/"):
                calls.add((call["method"].upper(), written))
    return calls


def pattern(path: str) -> re.Pattern[str]:
    """The path with each `{parameter}` standing for any one segment (a variable, an expression)."""
    parts = re.split(r"\{[^/]+?\}", path)
    return re.compile("^" + "[^/]+".join(re.escape(part) for part in parts) + "$")


def endpoints_called(example: Block, api: str = "gateway") -> set[tuple[str, str]]:
    calls = gateway_calls(example, api)
    return {
        (method, path)
        for method, path in APIS[api]
        if any(m == method and pattern(path).match(written) for m, written in calls)
    }


def test_every_merchant_endpoint_has_a_bash_and_a_python_example() -> None:
    assert len(ENDPOINTS) >= 30, ENDPOINTS  # the document was read
    covered: dict[str, dict[tuple[str, str], list[str]]] = {language: {} for language in LANGUAGES}
    for example in EXAMPLES:
        for endpoint in endpoints_called(example):
            covered[example.language].setdefault(endpoint, []).append(example.id)
    missing = [
        f"{method} {path}: no {language} example"
        for method, path in ENDPOINTS
        for language in LANGUAGES
        if (method, path) not in covered[language]
    ]
    assert not missing, "\n".join(missing)
    assert len(EXAMPLES) >= 2 * len(ENDPOINTS), (len(EXAMPLES), len(ENDPOINTS))


def test_every_example_calls_a_merchant_endpoint_and_checks_its_answer() -> None:
    assert EXAMPLES
    aimless = [e.id for e in EXAMPLES if not any(endpoints_called(e, api) for api in APIS)]
    assert not aimless, f"examples calling no endpoint of the gateway, collection or management API: {aimless}"
    checks = {"bash": re.compile(r"\bjq -e|\[\["), "python": re.compile(r"\bassert\b")}
    unchecked = [e.id for e in EXAMPLES if not checks[e.language].search(e.code)]
    assert not unchecked, f"examples that never check their answer (jq -e, [[ ]], assert): {unchecked}"


def test_each_page_starts_its_examples_with_one_setup_per_language() -> None:
    problems = []
    for block in BLOCKS:
        if "example" in block.info and block.role is None:
            problems.append(f"{block.id}: unknown info string {block.info!r} (bash|python example[-setup])")
    for page in {e.page for e in EXAMPLES}:
        for language in LANGUAGES:
            examples = [e for e in EXAMPLES if (e.page, e.language) == (page, language)]
            setups = [s for s in SETUPS if (s.page, s.language) == (page, language)]
            if not examples:
                continue
            if len(setups) != 1:
                problems.append(f"{page}: {len(setups)} {language} example-setup blocks, not 1")
            elif setups[0].line > examples[0].line:
                problems.append(
                    f"{page}: the {language} example-setup comes after the example at line {examples[0].line}"
                )
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- every route a page names exists
NAMED_ROUTE = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE)\s+`?(/[A-Za-z0-9_{}/.\-<>:]*)")
APP_ROUTE = re.compile(r"""@app\.(get|post|put|patch|delete)\(\s*["'](/[^"']*)["']""")
# Routes of other services a page names on purpose: M-Pesa's own API (docs/payments.md), Lambda's
# invoke API (README: the local stack's Lambda port) and a merchant's callback in an example.
OTHER_SERVICES = ("/ipg/", "/2015-03-31/functions/", "/your/")


def known_routes() -> list[tuple[str, re.Pattern[str]]]:
    """Every operation of the three OpenAPI documents, and the console's and the dashboard's pages
    (HTML, in none of them: read from their functions' routes), each as (method, its path with any `{parameter}`,
    `<parameter>` or `...` standing for any segments)."""
    operations = {
        (method.upper(), path)
        for api in ("gateway", "collection", "management")
        for path, item in json.loads((ROOT / "docs" / "openapi" / f"{api}.json").read_text("utf-8"))["paths"].items()
        for method in item
        if method in HTTP_METHODS
    }
    for pages in ("management_console", "dashboard"):  # the console's and the merchant dashboard's pages
        source = (ROOT / "functions" / pages / "app.py").read_text("utf-8")
        operations |= {(method.upper(), path) for method, path in APP_ROUTE.findall(source)}
    return [
        (method, re.compile("^" + re.sub(r"\\\{[^/]+?\\\}|<[^/]+?>", "[^/]+", re.escape(path)) + "$"))
        for method, path in operations
    ]


def named_route_matches(method: str, path: str, known: list[tuple[str, re.Pattern[str]]]) -> bool:
    if path.endswith("/..."):  # a family of routes: `GET /v1/kulpay/collection-requests/...`
        stem = path.removesuffix("...")
        return any(m == method and r.pattern.removeprefix("^").replace("\\", "").startswith(stem) for m, r in known)
    path = path.rstrip(".,:;")
    path = re.sub(r"\{[^/]+?\}|<[^/]+?>", "x", path)
    return any(m == method and r.match(path) for m, r in known)


def test_every_route_a_page_names_is_a_route_of_the_service() -> None:
    known = known_routes()
    unknown = []
    for page in PAGES:
        for number, line in enumerate(page.read_text("utf-8").splitlines(), 1):
            for method, path in NAMED_ROUTE.findall(line):
                if path.startswith(OTHER_SERVICES) or named_route_matches(method, path, known):
                    continue
                unknown.append(f"{page.relative_to(ROOT)}:{number}: {method} {path}")
    assert not unknown, "pages naming a route the service does not have:\n" + "\n".join(unknown)


def test_the_route_check_refuses_a_route_that_does_not_exist() -> None:
    known = known_routes()
    assert named_route_matches("GET", "/v1/payments/{id}/refunds", known)
    assert named_route_matches("POST", "/v1/accounts/{account_id}/suspend", known)
    assert named_route_matches("GET", "/console/accounts/{id}/payments", known)
    assert named_route_matches("POST", "/sign-in/code", known)  # the dashboard's
    assert named_route_matches("GET", "/v1/kulpay/collection-requests/...", known)
    assert not named_route_matches("DELETE", "/v1/payments/{id}", known)
    assert not named_route_matches("GET", "/v1/charges", known)
    assert not named_route_matches("GET", "/v1/nothing/...", known)

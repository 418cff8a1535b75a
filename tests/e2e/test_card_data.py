"""No card number anywhere (issue 30, item 5), over the local stack: a card number sent in every
string field of every JSON request body the three committed OpenAPI documents describe (walked
from the documents, following $ref, so a new field is covered without touching this file), in
every string query parameter, in every map's keys as `cvv`, and in every field of the operator
console's forms, is refused with the API's PCI code naming the field (or, for the spec's own card
fields, by the route's own card rule), and then no DynamoDB table, queue message or S3 object of
either region, and no log of the stack, holds it in any form, nor any record of those requests
(no audit record, no idempotency record)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from mzpay.domain.common.card_data import luhn_valid
from mzpay.http.card_screen import MAX_FIELDS_NAMED, OWN_CARD_FIELDS
from tests.e2e.test_console import base, csrf_of, main_of, signed_in
from tests.expected import RAW_CARD_DATA as RAW
from tests.expected import RAW_CARD_DATA_WORDS as WORDS
from tests.expected import card_data_message, card_data_problem

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
APIS = ("gateway", "collection", "management")
BODY = "492973102211834"
PAN = BODY + next(d for d in "0123456789" if luhn_valid(BODY + d))  # Luhn-valid, no test card
SPACED = " ".join(PAN[i : i + 4] for i in range(0, 16, 4))
DASHED = SPACED.replace(" ", "-")
# How people send a card number: each field gets one of these, in turn.
WRITTEN = (PAN, SPACED, DASHED, f"paid with card {SPACED}, thanks")
MARK = "pansweep"  # the X-Request-ID and Idempotency-Key prefix of every request sent here
PLACEHOLDER_ID = "01JDA6Q0Z8X4M2N7P5R3T9V1W6"


def document(api: str) -> dict[str, Any]:
    return json.loads((ROOT / "docs" / "openapi" / f"{api}.json").read_text())  # type: ignore[no-any-return]


def resolved(doc: dict[str, Any], schema: Any) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


Path_ = tuple[str | int, ...]


def string_fields(doc: dict[str, Any], schema: Any, path: Path_ = (), depth: int = 0) -> Iterator[tuple[str, Path_]]:
    """("string", path) for every string a body may carry, ("map", path) for every free-form
    object (its keys are the sender's: a member `note` stands for any value), through $ref,
    anyOf/oneOf/allOf, objects and arrays."""
    schema = resolved(doc, schema)
    if depth > 12 or not isinstance(schema, dict):
        return
    for combinator in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(combinator, []):
            yield from string_fields(doc, branch, path, depth + 1)
    kind = schema.get("type")
    if kind == "string" or (kind is None and all(isinstance(v, str) for v in schema.get("enum") or [0])):
        yield ("string", path)
    if kind == "object" or "properties" in schema:
        for name, inner in (schema.get("properties") or {}).items():
            yield from string_fields(doc, inner, (*path, name), depth + 1)
        extra = schema.get("additionalProperties")
        if extra is True or (isinstance(extra, dict) and extra):
            yield ("map", path)
            if extra is True or not extra:
                yield ("string", (*path, "note"))
            else:
                yield from string_fields(doc, extra, (*path, "note"), depth + 1)
    if kind == "array":
        yield from string_fields(doc, schema.get("items") or {}, (*path, 0), depth + 1)


def example_of(doc: dict[str, Any], media: dict[str, Any]) -> Any:
    """The operation's documented example body (a valid-looking request), else {}."""
    if "example" in media:
        return json.loads(json.dumps(media["example"]))
    for example in (media.get("examples") or {}).values():
        if isinstance(example, dict) and "value" in example:
            return json.loads(json.dumps(example["value"]))
    schema = resolved(doc, media.get("schema"))
    if isinstance(schema, dict) and schema.get("examples"):
        return json.loads(json.dumps(schema["examples"][0]))
    return {}


def with_value(body: Any, path: Path_, value: Any) -> Any:
    """`body` with `value` at `path` (objects and one-item lists made on the way). A sub-object
    named after a `type` member ("type plus a sub-object named after it") gets that type."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        items = body if isinstance(body, list) and body else [{}]
        return [with_value(items[0], rest, value), *items[1:]]
    holder = dict(body) if isinstance(body, dict) else {}
    if rest and "type" in holder and isinstance(holder["type"], str):
        holder["type"] = head
    holder[head] = with_value(holder.get(head, {} if rest and isinstance(rest[0], str) else []), rest, value)
    return holder


def concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", PLACEHOLDER_ID, path)


def dotted(path: Path_) -> str:
    return ".".join(str(part) for part in path)


def own_field(api: str, method: str, route: str, path: Path_) -> str | None:
    """The spec's own card field (mzpay.http.card_screen.OWN_CARD_FIELDS) `path` is in, if any."""
    for own in OWN_CARD_FIELDS:
        if (own.surface.value, own.method, own.resource) != (api, method, route):
            continue
        field = own.field
        if dotted(path) == field or dotted(path[:-1]) == field:
            return field
    return None


class Sender:
    """Requests to the mz region's APIs with the demo credentials, each marked for the scan."""

    def __init__(self, stack: RunningStack) -> None:
        self.stack = stack
        self.urls = stack.state["regions"]["mz"]
        demo = stack.state["demo"]["mz"]
        self.tokens: dict[str, list[str]] = {
            "gateway": [demo["test_key"]],
            "management": [stack.state["operator_token"]],
            # business token first; an installation administrator's or reviewer's where a route
            # is theirs (whichever the stack names)
            "collection": [
                demo[name]
                for name in ("collection_token", "collection_admin_token", "collection_reviewer_token")
                if demo.get(name)
            ],
        }
        self.request_ids: dict[str, str] = {}  # X-Request-ID -> what it sent, of every request refused as card data

    def send(
        self, api: str, method: str, path: str, body: Any = None, params: dict[str, str] | None = None
    ) -> requests.Response:
        response: requests.Response | None = None
        for token in self.tokens[api]:
            marker = f"{MARK}-{uuid.uuid4().hex}"
            headers = {"Authorization": f"Bearer {token}", "X-Request-ID": marker, "Idempotency-Key": marker}
            response = requests.request(
                method, self.urls[api] + path, json=body, params=params, headers=headers, timeout=30
            )
            if response.status_code not in (401, 403):
                break
        assert response is not None
        return response

    def screened(self, response: requests.Response, where: str) -> None:
        """`response` answered a request the screen refused: nothing may be kept of it."""
        self.request_ids[response.request.headers["X-Request-ID"]] = where  # type: ignore[index]


def pci_answer(api: str, fields: list[str], response: requests.Response) -> dict[str, Any]:
    """The whole PCI refusal `api` answers for `fields`."""
    if api == "collection":
        errors = [{"field": field, "code": "INVALID_FORMAT", "message": WORDS} for field in fields]
        request_id = response.headers.get("X-Request-ID", "")
        return {
            "code": "validation_error",
            "message": card_data_message(fields),
            "request_id": f"req_{request_id}",
            "metadata": {"errors": errors},
        }
    return card_data_problem(fields)


def content_type_of(api: str) -> str:
    return "application/json" if api == "collection" else "application/problem+json"


# ---------------------------------------------------------------- the scan
def everything_stored(stack: RunningStack) -> tuple[str, list[dict[str, Any]]]:
    """Every DynamoDB item and S3 object of both regions, and every model moto keeps that is JSON
    (every SQS message ever sent, deleted or not, SES and SNS messages...), as one text, but the
    audit trail's records, which are returned apart (a refusal is recorded, without its body)."""
    parts: list[str] = []
    audit: list[dict[str, Any]] = []
    for env in stack.state["regions"]:
        dynamodb = stack.aws("dynamodb", env)
        for page in dynamodb.get_paginator("list_tables").paginate():
            for table in page["TableNames"]:
                for items in dynamodb.get_paginator("scan").paginate(TableName=table):
                    if "audit" in table.lower():
                        audit.extend(items["Items"])
                    else:
                        parts.append(json.dumps(items["Items"], default=repr))
        s3 = stack.aws("s3", env)
        for bucket in s3.list_buckets()["Buckets"]:
            for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket["Name"]):
                for item in page.get("Contents", []):
                    parts.append(item["Key"])
                    parts.append(s3.get_object(Bucket=bucket["Name"], Key=item["Key"])["Body"].read().decode("latin-1"))
    models = requests.get(stack.state["aws_endpoint"] + "/moto-api/data.json", timeout=120).json()
    models.pop("dynamodb", None)  # its items were read above, the audit trail's apart
    parts.append(json.dumps(models, default=repr))
    return "\n".join(parts), audit


def assert_nothing_kept(stack: RunningStack, request_ids: dict[str, str]) -> None:
    stored, audit = everything_stored(stack)
    assert '"sqs": {' in stored  # moto's models were read (the queues' messages among them)
    for written in (PAN, SPACED, DASHED):
        assert written not in stored, f"{written} is stored"
        assert written not in json.dumps(audit), f"{written} is in the audit trail"
        assert written not in stack.log(), f"{written} is in the stack's log"
        assert written not in stack.function_log(), f"{written} is in a function's log"
    kept = {
        where: stored[max(0, stored.index(marker) - 300) : stored.index(marker) + 100]
        for marker, where in request_ids.items()
        if marker in stored
    }
    assert kept == {}, f"requests refused for card data left records: {kept}"
    # the trail records who tried what and the refusal's code, never the request's body
    refused = [item for item in audit if item.get("request_id", {}).get("S") in request_ids]
    assert all(item.get("request", {"NULL": True}) == {"NULL": True} for item in refused), refused


# ---------------------------------------------------------------- the sweep
def body_cases() -> Iterator[tuple[str, str, str, Any, Path_, str]]:
    """(api, method, route, example body, path, kind) for every string field and map of every
    JSON request body of the three documents."""
    for api in APIS:
        doc = document(api)
        for route, item in doc["paths"].items():
            for method, operation in item.items():
                media = ((operation.get("requestBody") or {}).get("content") or {}).get("application/json")
                if not isinstance(media, dict):
                    continue
                example = example_of(doc, media)
                for kind, path in dict.fromkeys(string_fields(doc, media.get("schema"))):
                    yield api, method.upper(), route, example, path, kind


def test_the_sweep_covers_the_fields_the_issue_found_stored() -> None:
    """The generated sweep reaches the free text where card numbers were stored on main: refund
    reason, payout description and beneficiary name, batch reference, manual-payment and
    dispute evidence text, account name, suspend reason, and metadata's keys."""
    cases = {(api, method, route, dotted(path), kind) for api, method, route, _, path, kind in body_cases()}
    expected = {
        ("gateway", "POST", "/refunds", "reason", "string"),
        ("gateway", "POST", "/v1/payments/{payment_id}/refund", "reason", "string"),
        ("gateway", "POST", "/v1/payouts", "description", "string"),
        ("gateway", "POST", "/v1/payouts", "beneficiary.name", "string"),
        ("gateway", "POST", "/payouts", "destination.bank_transfer.name", "string"),
        ("gateway", "POST", "/v1/payout-batches", "reference", "string"),
        ("gateway", "POST", "/v1/manual-payments", "evidence.text", "string"),
        ("gateway", "POST", "/v1/disputes/{dispute_id}/evidence", "text", "string"),
        ("management", "POST", "/v1/accounts", "name", "string"),
        ("management", "POST", "/v1/accounts/{account_id}/suspend", "reason", "string"),
        ("collection", "POST", "/v1/accounts/{account_id}/suspend", "reason", "string"),
        ("gateway", "POST", "/charges", "metadata", "map"),
    }
    assert expected <= cases, expected - cases
    assert len(cases) > 400


def test_a_card_number_in_any_field_of_any_api_is_refused_and_never_kept(stack: RunningStack) -> None:
    sender = Sender(stack)
    failures: list[str] = []
    sent = 0
    for index, (api, method, route, example, path, kind) in enumerate(body_cases()):
        if kind == "map":
            body, expected_field = with_value(example, (*path, "cvv"), "123"), dotted((*path, "cvv"))
        else:
            body, expected_field = with_value(example, path, WRITTEN[index % len(WRITTEN)]), dotted(path) or "body"
        response = sender.send(api, method, concrete(route), body)
        sent += 1
        where = f"{api} {method} {route} {expected_field}"
        assert PAN not in response.text and SPACED not in response.text and DASHED not in response.text, where
        own = own_field(api, method, route, (*path, "cvv") if kind == "map" else path)
        if own is not None:  # the route's own card rule answers (docs/conventions.md, "Card data")
            code = RAW if api == "gateway" else "validation_error"
            if response.status_code != 400 or response.json().get("code") != code:
                failures.append(f"{where} (own field {own}): {response.status_code} {response.text[:300]}")
            continue
        try:
            answer = response.json()
        except ValueError:
            answer = None
        expected = pci_answer(api, [expected_field], response)
        if (response.status_code, response.headers.get("Content-Type"), answer) != (
            400,
            content_type_of(api),
            expected,
        ):
            failures.append(f"{where}: {response.status_code} {response.text[:300]}")
    assert failures == [], f"{len(failures)} of {sent} not refused as card data:\n" + "\n".join(failures)
    assert_nothing_kept(stack, sender.request_ids)


def test_a_card_number_in_any_string_query_parameter_is_refused_and_never_kept(stack: RunningStack) -> None:
    sender = Sender(stack)
    failures: list[str] = []
    sent = 0
    for api in APIS:
        for route, item in document(api)["paths"].items():
            for method, operation in item.items():
                for parameter in operation.get("parameters") or []:
                    if parameter.get("in") != "query":
                        continue
                    kinds = {kind for kind, _ in string_fields(document(api), parameter.get("schema"))}
                    if "string" not in kinds:
                        continue
                    name = parameter["name"]
                    response = sender.send(api, method.upper(), concrete(route), params={name: WRITTEN[sent % 4]})
                    sent += 1
                    answer = response.json() if response.headers.get("Content-Type", "").endswith("json") else None
                    expected = pci_answer(api, [name], response)
                    if (response.status_code, answer) == (400, expected):
                        sender.screened(response, f"{api} {method.upper()} {route} ?{name}")
                    else:
                        failures.append(
                            f"{api} {method.upper()} {route} ?{name}: {response.status_code} {response.text[:200]}"
                        )
    assert sent > 20
    assert failures == [], "\n".join(failures)
    assert_nothing_kept(stack, sender.request_ids)


# ---------------------------------------------------------------- the operator console
CONSOLE_APP = ROOT / "functions" / "management_console" / "app.py"
CONSOLE_TEMPLATES = ROOT / "layers" / "core" / "python" / "mzpay" / "http" / "templates" / "console"


def console_posts() -> list[str]:
    """Every form post of the console, from its route table."""
    return re.findall(r'@app\.post\("(/console[^"]*)"', CONSOLE_APP.read_text())


def console_fields() -> list[str]:
    """Every field name the console's forms carry (their templates), but the CSRF token."""
    names: set[str] = set()
    for template in CONSOLE_TEMPLATES.glob("*.html"):
        text = template.read_text()
        names.update(re.findall(r'forms\.text\("[^"]*",\s*"([a-z_]+)"', text))
        names.update(re.findall(r'<(?:input|select|textarea)[^>]*\bname="([a-z_]+)"', text))
    names.update({"mode"})  # forms.mode()
    names.discard("csrf_token")
    return sorted(names)


def test_every_console_form_refuses_a_card_number_in_any_field_with_its_page(stack: RunningStack) -> None:
    posts, fields = console_posts(), console_fields()
    assert len(posts) >= 15 and {"reason", "name", "note", "q", "token"} <= set(fields), (posts, fields)
    client = signed_in(stack)
    page = client.get(f"{base(stack)}/accounts", timeout=30)
    csrf = csrf_of(page)
    refused: dict[str, str] = {}
    # a refusal names at most MAX_FIELDS_NAMED fields: each route gets the fields in chunks of that many
    chunks = [fields[at : at + MAX_FIELDS_NAMED] for at in range(0, len(fields), MAX_FIELDS_NAMED)]
    for route, chunk in ((route, chunk) for route in posts for chunk in chunks):
        path = re.sub(r"<[^>]+>", PLACEHOLDER_ID, route)
        form = {name: WRITTEN[i % len(WRITTEN)] for i, name in enumerate(chunk)}
        answer = client.post(
            f"{stack.state['regions']['mz']['management']}{path}",
            data={"csrf_token": csrf, **form},
            headers={"X-Request-ID": f"{MARK}-{uuid.uuid4().hex}"},
            allow_redirects=False,
            timeout=30,
        )
        assert answer.status_code == 400, (route, answer.status_code, answer.text[:500])
        assert answer.headers["Content-Type"] == "text/html; charset=utf-8", route
        assert main_of(answer)["data-code"] == RAW and main_of(answer)["data-status"] == "400", route
        assert answer.headers["X-Error-Code"] == RAW
        listed = re.findall(r"<li><code>([a-z_]+)</code> \(" + re.escape(RAW) + r"\)", answer.text)
        assert listed == chunk, (route, listed)
        assert PAN not in answer.text and SPACED not in answer.text and DASHED not in answer.text
        refused[answer.headers["X-Request-ID"]] = route
    for query in ({"q": PAN}, {"actor": SPACED}):
        page = client.get(f"{base(stack)}/{'accounts' if 'q' in query else 'audit'}", params=query, timeout=30)
        assert (page.status_code, main_of(page)["data-code"]) == (400, RAW), page.text[:500]
    assert_nothing_kept(stack, refused)

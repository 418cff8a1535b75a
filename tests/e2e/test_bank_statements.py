"""Bank statements reconciled over HTTP (docs/bank-statements.md): a business uploads its bank's
CSV export and a CAMT.053 statement, the queue lists their credit lines, the business assigns them
to its requests (which go paid and partially paid, with their payments) and dismisses the rest;
the same file again applies nothing twice; a bad file is refused naming the line and field, a
billion-laughs file unexpanded; another business's lines are 404; test and live statements never
meet."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from mzpay_admin.cli import main as admin_main
from tests.e2e.collection_client import Collection, assert_error, assert_ok, validation
from tests.e2e.management_client import Operator
from tests.e2e.test_collection_requests import payer

pytestmark = pytest.mark.e2e

HEADER = "Data Movimento;Data Valor;Descrição;Referência;Débito;Crédito;Saldo;N.º Operação\n"
BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<Document><BkToCstmrStmt><Stmt><Ntry><Amt Ccy="MZN">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
<BookgDt><Dt>2026-11-03</Dt></BookgDt><NtryDtls><TxDtls><RmtInf><Ustrd>&lol3;</Ustrd></RmtInf></TxDtls></NtryDtls>
</Ntry></Stmt></BkToCstmrStmt></Document>
"""


def camt(*entries: tuple[str, str, str]) -> str:
    """A CAMT.053 statement of credit entries (amount, the bank's id, the payer's words)."""
    body = "".join(
        f'<Ntry><Amt Ccy="MZN">{amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-03</Dt></BookgDt>'
        f"<AcctSvcrRef>{bank_id}</AcctSvcrRef><NtryDtls><TxDtls><RmtInf><Ustrd>{words}</Ustrd></RmtInf>"
        "</TxDtls></NtryDtls></Ntry>"
        for amount, bank_id, words in entries
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">'
        f"<BkToCstmrStmt><Stmt>{body}</Stmt></BkToCstmrStmt></Document>"
    )


class Business:
    """A fresh active business with a test and a live M-Pesa method, and a second business."""

    def __init__(self, mz: Collection) -> None:
        self.mz = mz
        self.account_id, self.token = mz.active_business("Loja dos Extractos", "statements-business")
        self.test_method = self.ok("POST", "/v1/collection-methods", {"type": "mpesa", "mode": "test"})["id"]
        self.live_method = self.ok("POST", "/v1/collection-methods", {"type": "mpesa", "mode": "live"})["id"]
        self.other_token = mz.active_business("Outra Loja dos Extractos", "statements-other")[1]

    def call(self, method: str, path: str, body: Any = None, token: str | None = None, **params: Any) -> Any:
        return self.mz.call(method, path, body, token=token or self.token, params=params or None)

    def ok(self, method: str, path: str, body: Any = None, **params: Any) -> dict[str, Any]:
        return assert_ok(self.call(method, path, body, **params))

    def request(self, value: float, method: str | None = None, **changes: Any) -> str:
        body = {
            "collection_method_ids": [method or self.test_method],
            "amount": {"currency": "MZN", "value": value},
            "payer": payer(delivery_method="erp"),
            **changes,
        }
        return str(self.ok("POST", "/v1/collection-requests", body)["id"])

    def lines(self, mode: str = "test", status: str = "unmatched", token: str | None = None) -> list[dict[str, Any]]:
        answer = assert_ok(self.call("GET", "/v1/bank-statement-lines", token=token, mode=mode, status=status))
        return answer["data"]  # type: ignore[no-any-return]

    def line(self, bank_id: str, mode: str = "test", status: str = "unmatched") -> dict[str, Any]:
        (found,) = [line for line in self.lines(mode, status) if line["bank_transaction_id"] == bank_id]
        return found


@pytest.fixture(scope="module")
def business(stack: Any) -> Business:
    return Business(Collection(stack, "mz"))


def test_a_csv_and_a_camt053_reconciled_by_hand_pay_their_requests(business: Business) -> None:
    whole, by_parts = business.request(250), business.request(900, allow_installments=True)
    run = uuid.uuid4().hex[:8]
    csv = HEADER + f"03/11/2026;03/11/2026;TRF DE RITA SITOE;;;250,00;48.250,00;CSV-{run}\n"
    csv += f"03/11/2026;03/11/2026;PAGAMENTO EDM;;2.000,00;;46.250,00;CSV-{run}-D\n"
    imported = business.ok("POST", "/v1/bank-statements", {"mode": "test", "format": "csv", "content": csv})
    assert {k: imported[k] for k in ("object", "mode", "format", "lines", "credits", "debits", "unmatched")} == {
        "object": "bank_statement",
        "mode": "test",
        "format": "csv",
        "lines": 2,
        "credits": 1,
        "debits": 1,
        "unmatched": 1,
    }
    xml = camt(("300.00", f"CAMT-{run}-1", "PRIMEIRA PRESTACAO"), ("40.00", f"CAMT-{run}-2", "JUROS"))
    from_camt = business.ok("POST", "/v1/bank-statements", {"mode": "test", "format": "camt053", "content": xml})
    assert (from_camt["credits"], from_camt["unmatched"], from_camt["error"]) == (2, 1 + 1, None)
    # the queue lists the three credit lines
    waiting = {line["bank_transaction_id"] for line in business.lines()}
    assert {f"CSV-{run}", f"CAMT-{run}-1", f"CAMT-{run}-2"} <= waiting
    transfer = business.line(f"CSV-{run}")
    assert (transfer["amount"], transfer["description"], transfer["reason"], transfer["status"]) == (
        {"currency": "MZN", "value": 250.0},
        "TRF DE RITA SITOE",
        "no_reference",
        "unmatched",
    )
    # assigned by hand: the requests go paid and partially paid, with their payments
    assigned = business.ok(
        "POST", f"/v1/bank-statement-lines/{transfer['id']}/assign", {"collection_request_id": whole}
    )["line"]
    assert (assigned["status"], assigned["collection_request_id"]) == ("assigned", whole)
    read = business.ok("GET", f"/v1/collection-requests/{whole}")["collection_request"]
    assert read["status"] == "paid"
    payment = business.ok("GET", f"/v1/payments/{assigned['payment_id']}")["payment"]
    assert (payment["channel"], payment["reference"], payment["amount"], payment["collection_request_id"]) == (
        "bank_transfer",
        f"CSV-{run}",
        "250.00",
        whole,
    )
    part = business.line(f"CAMT-{run}-1")
    business.ok("POST", f"/v1/bank-statement-lines/{part['id']}/assign", {"collection_request_id": by_parts})
    read = business.ok("GET", f"/v1/collection-requests/{by_parts}")["collection_request"]
    assert (read["status"], read["amount_due"]["value"]) == ("partially_paid", 600.0)
    # the rest is not ours
    interest = business.line(f"CAMT-{run}-2")
    dismissed = business.ok("POST", f"/v1/bank-statement-lines/{interest['id']}/dismiss", {"reason": "Juros"})
    assert (dismissed["line"]["status"], dismissed["line"]["resolution"]["reason"]) == ("dismissed", "Juros")
    assert [line["id"] for line in business.lines(status="dismissed")] == [interest["id"]]
    assert {line["id"] for line in business.lines(status="assigned")} == {transfer["id"], part["id"]}
    # resolved already: 409; the same file again applies nothing twice
    assert_error(
        business.call("POST", f"/v1/bank-statement-lines/{transfer['id']}/assign", {"collection_request_id": whole}),
        409,
        "invalid_state",
        "The line is assigned already.",
        {"line_status": "assigned"},
    )
    again = business.ok("POST", "/v1/bank-statements", {"mode": "test", "format": "csv", "content": csv})
    assert (again["id"], again["imported_before"], again["already_imported"], again["assigned"]) == (
        imported["id"],
        True,
        1,
        1,
    )
    paid = business.ok("GET", "/v1/payments", collection_request_id=whole)["data"]
    assert [p["id"] for p in paid] == [assigned["payment_id"]]


def test_a_bad_file_is_refused_naming_its_line_and_nothing_is_stored(business: Business) -> None:
    before = business.lines()
    bad = HEADER + "03/11/2026;;OK;;;1,00;;BAD-1\n03/11/2026;;X;;;1,001;;BAD-2\n"
    message = "an amount such as 1500.00 (at most two decimals)"
    assert_error(
        business.call("POST", "/v1/bank-statements", {"mode": "test", "format": "csv", "content": bad}),
        400,
        "validation_error",
        "The request has problems: lines[2].amount.",
        validation(("lines[2].amount", "INVALID_FORMAT", message)),
    )
    assert_error(
        business.call("POST", "/v1/bank-statements", {"mode": "test", "format": "camt053", "content": BILLION_LAUGHS}),
        400,
        "validation_error",
        "The request has problems: content.",
        validation(("content", "INVALID_FORMAT", "XML without a DTD or entities")),
    )
    carded = HEADER + "03/11/2026;;PAGO COM 4111 1111 1111 1111;;;1,00;;CARD-1\n"
    refused = business.call("POST", "/v1/bank-statements", {"mode": "test", "format": "csv", "content": carded})
    assert (refused.status_code, refused.json()["code"]) == (400, "validation_error")
    assert "4111" not in refused.text
    assert business.lines() == before


def test_another_businesss_lines_are_not_found(business: Business) -> None:
    bank_id = f"MINE-{uuid.uuid4().hex[:8]}"
    lines = [{"date": "2026-11-03", "amount": 75.5, "description": "DEPOSITO", "transaction_id": bank_id}]
    business.ok("POST", "/v1/bank-statements", {"mode": "test", "format": "lines", "lines": lines})
    line = business.line(bank_id)
    theirs = business.other_token
    for method, path, body in (
        ("GET", f"/v1/bank-statement-lines/{line['id']}", None),
        ("POST", f"/v1/bank-statement-lines/{line['id']}/dismiss", {}),
        ("POST", f"/v1/bank-statement-lines/{line['id']}/assign", {"collection_request_id": business.request(75.5)}),
    ):
        assert_error(business.call(method, path, body, token=theirs), 404, "not_found", "No such bank statement line.")
    assert business.lines(token=theirs) == []
    # and their request is not ours to assign to
    other_request = assert_ok(
        business.mz.call(
            "POST",
            "/v1/collection-requests",
            {
                "collection_method_ids": [
                    assert_ok(
                        business.mz.call(
                            "POST", "/v1/collection-methods", {"type": "mpesa", "mode": "test"}, token=theirs
                        )
                    )["id"]
                ],
                "amount": {"currency": "MZN", "value": 75.5},
                "payer": payer(delivery_method="erp"),
            },
            token=theirs,
        )
    )["id"]
    assert_error(
        business.call(
            "POST", f"/v1/bank-statement-lines/{line['id']}/assign", {"collection_request_id": other_request}
        ),
        404,
        "not_found",
        "No such collection request.",
    )
    assert business.ok("GET", f"/v1/bank-statement-lines/{line['id']}")["line"]["status"] == "unmatched"


def test_test_and_live_statements_never_meet(business: Business) -> None:
    bank_id = f"MODE-{uuid.uuid4().hex[:8]}"
    lines = [{"date": "2026-11-03", "amount": 120, "description": "TRF", "transaction_id": bank_id}]
    in_test = business.ok("POST", "/v1/bank-statements", {"mode": "test", "format": "lines", "lines": lines})
    in_live = business.ok("POST", "/v1/bank-statements", {"mode": "live", "format": "lines", "lines": lines})
    assert in_test["id"] != in_live["id"] and (in_live["mode"], in_live["already_imported"]) == ("live", 0)
    test_line, live_line = business.line(bank_id), business.line(bank_id, "live")
    assert test_line["id"] != live_line["id"] and (test_line["mode"], live_line["mode"]) == ("test", "live")
    # a test line never pays a live request, nor a live line a test one
    live_request, test_request = business.request(120, business.live_method), business.request(120)
    for line, request in ((test_line, live_request), (live_line, test_request)):
        assert_error(
            business.call("POST", f"/v1/bank-statement-lines/{line['id']}/assign", {"collection_request_id": request}),
            404,
            "not_found",
            "No such collection request.",
        )
    assigned = business.ok(
        "POST", f"/v1/bank-statement-lines/{live_line['id']}/assign", {"collection_request_id": live_request}
    )["line"]
    assert assigned["status"] == "assigned"
    assert business.ok("GET", f"/v1/payments/{assigned['payment_id']}")["payment"]["mode"] == "live"
    assert business.line(bank_id)["status"] == "unmatched"  # the test line waits still
    assert_error(
        business.call("GET", "/v1/bank-statement-lines", mode="both"),
        400,
        "validation_error",
        "The request has problems: mode.",
        validation(("mode", "INVALID_FORMAT", "test or live")),
    )


def test_an_operator_imports_a_statement_for_a_business_audited(
    business: Business, stack: Any, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    operator = Operator(stack, "mz")
    bank_id = f"OPS-{uuid.uuid4().hex[:8]}"
    lines = [{"date": "2026-11-03", "amount": 33, "description": "DEPOSITO BALCAO", "transaction_id": bank_id}]
    body = {"mode": "test", "format": "lines", "lines": lines}
    answer = operator.call("POST", f"/v1/accounts/{business.account_id}/bank-statements", body)
    assert answer.status_code == 200, answer.text
    assert (answer.json()["credits"], answer.json()["unmatched"]) == (1, 1)
    assert business.line(bank_id)["amount"] == {"currency": "MZN", "value": 33.0}
    records = operator.call(
        "GET",
        "/v1/audit-records",
        params={"account_id": business.account_id, "action": "import_business_bank_statement"},
    )
    assert records.status_code == 200, records.text
    (record,) = records.json()["data"]
    assert (record["actor"]["kind"], record["outcome"]["status"]) == ("operator", 200), record
    unknown = operator.call("POST", "/v1/accounts/01JD0000000000000000000000/bank-statements", body)
    assert (unknown.status_code, unknown.json()["code"]) == (404, "not_found")
    # mzpay-admin businesses import-statement: the same, from a file
    settlement = tmp_path / "simo.csv"
    settlement.write_text(
        f"entity;reference;amount;date;transaction_id\n11223;00000000000;12.50;2026-11-03;{bank_id}-S\n"
    )
    capsys.readouterr()
    code = admin_main(
        [
            "--region",
            "mz",
            "--stack-file",
            str(stack.state_file),
            "businesses",
            "import-statement",
            business.account_id,
            "--mode",
            "test",
            "--format",
            "simo_erv",
            "--file",
            str(settlement),
            "--json",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert (json.loads(printed)["format"], json.loads(printed)["credits"]) == ("simo_erv", 1)
    assert business.line(f"{bank_id}-S")["entity"] == "11223"


def test_lines_naming_their_requests_references_are_matched_over_http(business: Business) -> None:
    simo = business.ok(
        "POST", "/v1/collection-methods", {"type": "simo_erv", "mode": "test", "details": {"entity_number": "54321"}}
    )["id"]
    nib = business.ok(
        "POST",
        "/v1/collection-methods",
        {"type": "interbank", "mode": "test", "details": {"nib": "0003 0108 0016 3671 0237 1"}},
    )["id"]
    whole = business.request(1500, simo, collection_method_ids=[simo, nib])
    by_parts = business.request(900, simo, collection_method_ids=[simo, nib], allow_installments=True)

    def reference(request_id: str) -> str:
        read = business.ok("GET", f"/v1/collection-requests/{request_id}")["collection_request"]
        return str(read["collection_method_details"][0]["reference_number"])

    first, second = reference(whole), reference(by_parts)
    run = uuid.uuid4().hex[:8]
    mangled = f"mzp {first[:3]}.{first[3:6]}.{first[6:9]}-{first[9:]}"
    csv = HEADER + f"03/11/2026;03/11/2026;TRF {mangled} ANA MACHAVA;;;1.500,00;;REF-{run}-1\n"
    imported = business.ok("POST", "/v1/bank-statements", {"mode": "test", "format": "csv", "content": csv})
    assert (imported["matched"], imported["unmatched"]) == (1, 0)
    matched = business.line(f"REF-{run}-1", status="matched")
    assert (matched["collection_request_id"], matched["reason"]) == (whole, None)
    assert business.ok("GET", f"/v1/collection-requests/{whole}")["collection_request"]["status"] == "paid"
    xml = camt(("300.00", f"REF-{run}-2", f"PRESTACAO MZP{second}"), ("450.00", f"REF-{run}-3", f"FACTURA {first}"))
    from_camt = business.ok("POST", "/v1/bank-statements", {"mode": "test", "format": "camt053", "content": xml})
    assert (from_camt["matched"], from_camt["ambiguous"]) == (1, 1)
    read = business.ok("GET", f"/v1/collection-requests/{by_parts}")["collection_request"]
    assert (read["status"], read["amount_due"]["value"]) == ("partially_paid", 600.0)
    unfit = business.line(f"REF-{run}-3", status="ambiguous")  # 450 under a reference bound to 1500
    assert (unfit["reason"], unfit["candidates"]) == ("amount_not_fitting", [whole])
    settlement = f"entity;reference;amount;date;transaction_id\n54321;{second};600.00;2026-11-04;REF-{run}-4\n"
    simo_import = business.ok(
        "POST", "/v1/bank-statements", {"mode": "test", "format": "simo_erv", "content": settlement}
    )
    assert simo_import["matched"] == 1
    read = business.ok("GET", f"/v1/collection-requests/{by_parts}")["collection_request"]
    assert read["status"] == "paid"
    paid = business.ok("GET", "/v1/payments", collection_request_id=by_parts)["data"]
    assert sorted((p["channel"], p["amount"]) for p in paid) == [
        ("bank_transfer", "300.00"),
        ("simo_reference", "600.00"),
    ]

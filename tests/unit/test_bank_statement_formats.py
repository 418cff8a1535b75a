"""Bank statements read into lines (mzpay.domain.collection.statement_formats,
docs/bank-statements.md): the default CSV mapping and a caller's, CAMT.053 (namespaced, with
structured and unstructured remittance; a billion-laughs file and an external entity refused),
SIMO's ERV settlement layout, JSON lines; bounds and the card-number screen naming the line and
field; line identities that make a statement imported twice, or two that overlap, name each line
once."""

from __future__ import annotations

from decimal import Decimal

import pytest

from mzpay.domain.collection.bank_lines import line_identities, statement_id
from mzpay.domain.collection.statement_formats import parse, read_csv
from mzpay.domain.collection.statement_text import MAX_ROWS, ParsedLine, amount_of
from mzpay.domain.common.errors import ServiceError

DEFAULT_CSV = (
    "Data Movimento;Data Valor;Descrição;Referência;Débito;Crédito;Saldo;N.º Operação\n"
    "03/11/2026;03/11/2026;TRF DE RITA SITOE FT-2026-0117;;;1.500,00;48.250,00;BCI-000731\n"
    "03/11/2026;04/11/2026;PAGAMENTO EDM;;2.000,50;;46.249,50;BCI-000732\n"
    "\n"
    "04/11/2026;04/11/2026;DEP NUMERARIO;RF 2026 0118;;750,00;46.999,50;\n"
)

CAMT = """<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
 <BkToCstmrStmt><GrpHdr><MsgId>STMT-1</MsgId></GrpHdr>
  <Stmt><Id>S1</Id>
   <Ntry><Amt Ccy="MZN">1500.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
    <BookgDt><Dt>2026-11-03</Dt></BookgDt><ValDt><Dt>2026-11-04</Dt></ValDt>
    <AcctSvcrRef>BIM-20261103-0001</AcctSvcrRef>
    <NtryDtls><TxDtls><RmtInf><Ustrd>PAGAMENTO FACTURA</Ustrd><Ustrd>RITA SITOE</Ustrd>
     <Strd><CdtrRefInf><Ref>FT-2026-0117</Ref></CdtrRefInf></Strd></RmtInf></TxDtls></NtryDtls>
   </Ntry>
   <Ntry><Amt Ccy="MZN">99.90</Amt><CdtDbtInd>DBIT</CdtDbtInd>
    <BookgDt><DtTm>2026-11-03T12:00:00</DtTm></BookgDt><AcctSvcrRef>BIM-20261103-0002</AcctSvcrRef>
   </Ntry>
  </Stmt>
 </BkToCstmrStmt>
</Document>
"""

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<Document><BkToCstmrStmt><Stmt><Ntry><Amt Ccy="MZN">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
<BookgDt><Dt>2026-11-03</Dt></BookgDt><NtryDtls><TxDtls><RmtInf><Ustrd>&lol9;</Ustrd></RmtInf></TxDtls></NtryDtls>
</Ntry></Stmt></BkToCstmrStmt></Document>
"""

EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<Document><BkToCstmrStmt><Stmt><Ntry><Amt>1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
<BookgDt><Dt>2026-11-03</Dt></BookgDt><AcctSvcrRef>&x;</AcctSvcrRef></Ntry></Stmt></BkToCstmrStmt></Document>
"""

SIMO = (
    "entity;reference;amount;date;transaction_id\n"
    "11223;000123456789;1500.00;2026-11-03;SIMO-88001\n"
    "11223;000123456790;250.50;2026-11-03T09:12:00;SIMO-88002\n"
)


def refusal(kind: str, content: str | None = None, mapping: dict[str, str] | None = None, lines=None) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        parse(kind, content, mapping, lines)
    return caught.value


def named(error: ServiceError) -> list[str]:
    return [problem.field for problem in error.errors]


def test_the_default_mapping_reads_a_mozambican_banks_export() -> None:
    lines = parse("csv", DEFAULT_CSV, None, None)
    assert lines == [
        ParsedLine(
            row=1,
            booked_on="2026-11-03",
            amount=Decimal("1500.00"),
            credit=True,
            description="TRF DE RITA SITOE FT-2026-0117",
            bank_transaction_id="BCI-000731",
            value_on="2026-11-03",
            balance=Decimal("48250.00"),
        ),
        ParsedLine(
            row=2,
            booked_on="2026-11-03",
            amount=Decimal("2000.50"),
            credit=False,
            description="PAGAMENTO EDM",
            bank_transaction_id="BCI-000732",
            value_on="2026-11-04",
            balance=Decimal("46249.50"),
        ),
        ParsedLine(
            row=4,
            booked_on="2026-11-04",
            amount=Decimal("750.00"),
            credit=True,
            description="DEP NUMERARIO",
            reference="RF 2026 0118",
            value_on="2026-11-04",
            balance=Decimal("46999.50"),
        ),
    ]


def test_a_callers_mapping_with_a_signed_amount_or_a_credit_debit_column() -> None:
    signed = "when,what,how much,id\n2026-11-03,FT 0117,-20.00,T1\n2026-11-03,FT 0118,1250.00,T2\n"
    mapping = {"date": "when", "description": "what", "amount": "how much", "transaction_id": "id", "delimiter": ","}
    lines = read_csv(signed, mapping)
    assert [(line.credit, line.amount, line.bank_transaction_id) for line in lines] == [
        (False, Decimal("20.00"), "T1"),
        (True, Decimal("1250.00"), "T2"),
    ]
    marked = "Date|Amount|CD|Text\n03.11.2026|1,250.00|CR|FT 0118\n03.11.2026|20.00|DR|FEE\n"
    mapping = {
        "date": "date",
        "amount": "amount",
        "credit_debit": "cd",
        "description": "text",
        "delimiter": "|",
        "date_format": "DD.MM.YYYY",
    }
    lines = read_csv(marked, mapping)
    assert [(line.booked_on, line.credit, line.amount) for line in lines] == [
        ("2026-11-03", True, Decimal("1250.00")),
        ("2026-11-03", False, Decimal("20.00")),
    ]


@pytest.mark.parametrize(
    ("mapping", "fields"),
    [
        ({"amount": "x"}, ["mapping.date"]),
        ({"date": "x"}, ["mapping.amount"]),
        ({"date": "x", "amount": "y", "colour": "z"}, ["mapping.colour"]),
        ({"date": "x", "amount": "y", "delimiter": "#"}, ["mapping.delimiter"]),
        ({"date": "x", "amount": "y", "date_format": "MM/DD/YYYY"}, ["mapping.date_format"]),
        ({"date": "Nope", "amount": "Crédito"}, ["mapping.date"]),
    ],
    ids=["no-date", "no-amount", "unknown", "delimiter", "date-format", "no-such-column"],
)
def test_a_bad_mapping_is_refused_naming_it(mapping: dict[str, str], fields: list[str]) -> None:
    error = refusal("csv", DEFAULT_CSV, mapping)
    assert (error.status, error.code, named(error)) == (400, error.code, fields)
    assert error.code in ("validation_error", "missing_field")


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ("32/11/2026;;X;;;1,00;;", "lines[1].date"),
        ("03/11/2026;;X;;;1,001;;", "lines[1].amount"),
        ("03/11/2026;;X;;1,00;1,00;;", "lines[1].amount"),
        ("03/11/2026;;X;;;abc;;", "lines[1].amount"),
        ("03/11/2026;;" + "X" * 501 + ";;;1,00;;", "lines[1].description"),
        ("03/11/2026;;PAGO 4111 1111 1111 1111;;;1,00;;", "lines[1].description"),
        ("03/11/2026;;X;4111-1111-1111-1111;;1,00;;", "lines[1].reference"),
        ("03/11/2026;;X;;;1,00;;" + "9" * 65, "lines[1].transaction_id"),
    ],
    ids=["date", "decimals", "both", "not-a-number", "long", "card-description", "card-reference", "long-id"],
)
def test_a_bad_line_refuses_the_file_naming_the_line_and_field(row: str, field: str) -> None:
    header = DEFAULT_CSV.split("\n", 1)[0]
    error = refusal("csv", f"{header}\n{row}\n")
    assert (error.status, error.code, named(error)) == (400, "validation_error", [field])
    assert "4111" not in str(error) and all("4111" not in problem.message for problem in error.errors)


def test_the_bounds_rows_and_bytes() -> None:
    header = DEFAULT_CSV.split("\n", 1)[0]
    row = "03/11/2026;;X;;;1,00;;\n"
    error = refusal("csv", header + "\n" + row * (MAX_ROWS + 1))
    assert (error.code, named(error)) == ("validation_error", ["content"])
    assert len(parse("csv", header + "\n" + row * MAX_ROWS, None, None)) == MAX_ROWS
    error = refusal("csv", header + "\n" + "x" * 2_000_001)
    assert (error.code, named(error)) == ("validation_error", ["content"])
    assert named(refusal("csv", header + "\n")) == ["content"]
    assert named(refusal("csv", None)) == ["content"]


def test_amounts_as_banks_write_them() -> None:
    assert amount_of("1.234,56", ",") == Decimal("1234.56")
    assert amount_of("1,234.56") == Decimal("1234.56")
    assert amount_of("(20.00)") == Decimal("-20.00")
    assert amount_of("20.00-") == Decimal("-20.00")
    assert amount_of(" 1 500,00 ", ",") == Decimal("1500.00")


def test_camt053_entries_with_their_references() -> None:
    credit, debit = parse("camt053", CAMT, None, None)
    assert credit == ParsedLine(
        row=1,
        booked_on="2026-11-03",
        amount=Decimal("1500.00"),
        credit=True,
        description="PAGAMENTO FACTURA RITA SITOE",
        reference="FT-2026-0117",
        bank_transaction_id="BIM-20261103-0001",
        value_on="2026-11-04",
        currency="MZN",
    )
    assert (debit.credit, debit.amount, debit.booked_on, debit.bank_transaction_id) == (
        False,
        Decimal("99.90"),
        "2026-11-03",
        "BIM-20261103-0002",
    )


@pytest.mark.parametrize("document", [BILLION_LAUGHS, EXTERNAL], ids=["billion-laughs", "external-entity"])
def test_camt053_with_a_dtd_or_entities_is_refused_unexpanded(document: str) -> None:
    error = refusal("camt053", document)
    assert (error.status, error.code, named(error)) == (400, "validation_error", ["content"])
    assert "lol" not in str(error) and "passwd" not in str(error)


def test_camt053_bad_entries_and_bad_xml_name_the_line() -> None:
    bad = CAMT.replace("<CdtDbtInd>DBIT</CdtDbtInd>", "<CdtDbtInd>XXXX</CdtDbtInd>")
    assert named(refusal("camt053", bad)) == ["lines[2].CdtDbtInd"]
    assert named(refusal("camt053", "<Document><unclosed></Document>")) == ["content"]
    assert named(refusal("camt053", "<Document/>")) == ["content"]
    assert named(refusal("camt053", CAMT.replace('Ccy="MZN">1500', 'Ccy="meticais">1500'))) == ["lines[1].Amt"]


def test_the_simo_erv_settlement_layout() -> None:
    first, second = parse("simo_erv", SIMO, None, None)
    assert (first.entity, first.reference, first.amount, first.bank_transaction_id, first.credit) == (
        "11223",
        "000123456789",
        Decimal("1500.00"),
        "SIMO-88001",
        True,
    )
    assert (second.booked_on, second.amount) == ("2026-11-03", Decimal("250.50"))
    assert named(refusal("simo_erv", "entity;ref;amount\n")) == ["content"]
    assert named(refusal("simo_erv", SIMO + "1122;1;1.00;2026-11-03;X\n")) == ["lines[3].entity"]
    assert named(refusal("simo_erv", SIMO, {"date": "x"})) == ["mapping"]


def test_lines_posted_as_json() -> None:
    posted = [
        {"date": "2026-11-03", "amount": "1500.00", "description": "FT 0117", "transaction_id": "T1"},
        {"date": "2026-11-03", "amount": "20.00", "credit_debit": "DBIT"},
    ]
    first, second = parse("lines", None, None, posted)
    assert (first.credit, first.amount, first.bank_transaction_id) == (True, Decimal("1500.00"), "T1")
    assert (second.credit, second.amount) == (False, Decimal("20.00"))
    assert named(refusal("lines", lines=[{"date": "2026-11-03", "amount": "1.001"}])) == ["lines[1].amount"]
    assert named(refusal("lines", lines=[{"date": "nope", "amount": "1"}])) == ["lines[1].date"]
    assert named(refusal("lines", lines=[{"date": "2026-11-03", "amount": "0"}])) == ["lines[1].amount"]
    huge = [{"date": "2026-11-03", "amount": "1", "balance": "1E+100"}]
    assert named(refusal("lines", lines=huge)) == ["lines[1].balance"]


def test_a_lines_identity_is_its_bank_id_or_its_shape_and_occurrence() -> None:
    lines = parse("csv", DEFAULT_CSV, None, None)
    again = parse("csv", DEFAULT_CSV, None, None)
    ids = line_identities("acc_1", "live", lines)
    assert ids == line_identities("acc_1", "live", again)  # imported twice: the same lines
    assert len(set(ids)) == 3 and all(i.startswith("bsl_") and len(i) == 30 for i in ids)
    assert set(ids).isdisjoint(line_identities("acc_1", "test", lines))  # modes never meet
    assert set(ids).isdisjoint(line_identities("acc_2", "live", lines))  # nor businesses
    # two identical lines without a bank id on one day are two lines; an overlapping statement
    # holding the same day names them alike
    header = DEFAULT_CSV.split("\n", 1)[0]
    twice = header + "\n" + "04/11/2026;;DEP NUMERARIO;;;100,00;;\n" * 2
    overlap = twice + "05/11/2026;;DEP NUMERARIO;;;100,00;;\n"
    first = line_identities("acc_1", "live", parse("csv", twice, None, None))
    second = line_identities("acc_1", "live", parse("csv", overlap, None, None))
    assert len(set(first)) == 2 and second[:2] == first and second[2] not in first
    assert statement_id("acc_1", "live", "csv", DEFAULT_CSV) == statement_id("acc_1", "live", "csv", DEFAULT_CSV)
    assert statement_id("acc_1", "live", "csv", DEFAULT_CSV) != statement_id("acc_1", "test", "csv", DEFAULT_CSV)

"""Bank statements reconciled (docs/bank-statements.md) against the provisioned stack in
in-process moto: an import stores each credit line once (the same statement twice, two that
overlap, an import cut short by a fault and finished by importing it again); the queue by status
and its pages; a line assigned by hand is a recorded payment (the request paid, partly paid, or
money it cannot take kept as its overpayment to refund) written with the line's change; dismissed;
another business's line is 404; two assigns racing for one line make one payment; matching by
reference (mangled, SIMO settlement lines), an assign racing the import's match of one line, and
an import cut short by a fault finished by sending it again."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from botocore.exceptions import ReadTimeoutError

from devstack.moto_server import atomic_dynamodb
from mzpay import deps
from mzpay.collection import bank_statements, payments
from mzpay.domain.collection.bank_lines import line_identities, new_line
from mzpay.domain.collection.bank_references import reference_number
from mzpay.domain.collection.statement_formats import parse
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.ids import new_prefixed_id
from tests.integration.races import race
from tests.integration.test_collection_request_races import active_business, business, issued, stack

__all__ = ["business", "stack"]

HEADER = "Data Movimento;Data Valor;Descrição;Referência;Débito;Crédito;Saldo;N.º Operação\n"


def statement(*rows: str) -> dict[str, Any]:
    return {"mode": "test", "format": "csv", "content": HEADER + "".join(rows)}


def credit(amount: str, text: str, bank_id: str = "", day: str = "03/11/2026") -> str:
    return f"{day};;{text};;;{amount};;{bank_id}\n"


def imported(account_id: str, body: dict[str, Any]) -> dict[str, Any]:
    return bank_statements.import_statement(account_id, body).wire()


def waiting(account_id: str, status: str = "unmatched") -> list[dict[str, Any]]:
    return bank_statements.listed(account_id, "test", status, 100, None).wire()["data"]


def refused(work: Any) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        work()
    return caught.value


def request_payments(account_id: str, request_id: str) -> list[Any]:
    return payments.listed(account_id, {"collection_request_id": request_id}).data


def test_a_statement_imported_twice_stores_each_line_once(business: tuple[str, str]) -> None:
    account_id, _ = business
    body = statement(
        credit("1.500,00", "TRF DE RITA SITOE", "BCI-1"),
        "03/11/2026;;PAGAMENTO EDM;;200,00;;;BCI-2\n",
        credit("100,00", "DEP NUMERARIO"),
        credit("100,00", "DEP NUMERARIO"),
    )
    first = imported(account_id, body)
    assert {k: first[k] for k in ("lines", "credits", "debits", "already_imported", "unmatched", "matched")} == {
        "lines": 4,
        "credits": 3,
        "debits": 1,
        "already_imported": 0,
        "unmatched": 3,
        "matched": 0,
    }
    assert first["imported_before"] is False and first["id"].startswith("bst_")
    again = imported(account_id, body)
    assert (again["id"], again["imported_before"], again["already_imported"], again["unmatched"]) == (
        first["id"],
        True,
        3,
        3,
    )
    lines = waiting(account_id)
    assert sorted((line["amount"]["value"], line["description"]) for line in lines) == [
        (100, "DEP NUMERARIO"),
        (100, "DEP NUMERARIO"),
        (1500, "TRF DE RITA SITOE"),
    ]
    assert all(line["reason"] == "no_reference" and line["status"] == "unmatched" for line in lines)
    # an overlapping statement: the same bank transaction and the same day's lines are known
    overlap = imported(
        account_id,
        statement(
            credit("1.500,00", "TRF DE RITA SITOE", "BCI-1"),
            credit("100,00", "DEP NUMERARIO"),
            credit("100,00", "DEP NUMERARIO"),
            credit("80,00", "NOVO", "BCI-3", "04/11/2026"),
        ),
    )
    assert (overlap["credits"], overlap["already_imported"], overlap["imported_before"]) == (4, 3, False)
    assert len(waiting(account_id)) == 4
    # the other mode's queue and another business's stay empty
    assert bank_statements.listed(account_id, "live", "unmatched", 100, None).wire()["data"] == []
    other, _ = active_business("Outra")
    assert waiting(other) == []


def test_the_queue_pages_and_refuses_bad_filters_and_tokens(business: tuple[str, str]) -> None:
    account_id, _ = business
    imported(account_id, statement(*(credit(f"{n},00", f"LINHA {n}", f"B-{n}") for n in range(1, 6))))
    first = bank_statements.listed(account_id, "test", "unmatched", 2, None).wire()
    assert (len(first["data"]), first["has_more"]) == (2, True)
    seen = [line["id"] for line in first["data"]]
    token = first["next_page_token"]
    while token:
        page = bank_statements.listed(account_id, "test", "unmatched", 2, token).wire()
        seen += [line["id"] for line in page["data"]]
        token = page["next_page_token"]
    assert len(seen) == len(set(seen)) == 5
    for mode, status, token, field in (
        ("both", "unmatched", None, "mode"),
        ("test", "lost", None, "status"),
        ("test", "matched", first["next_page_token"], "page_token"),
    ):
        error = refused(lambda m=mode, s=status, t=token: bank_statements.listed(account_id, m, s, 2, t))
        assert (error.status, error.code, [e.field for e in error.errors]) == (400, "validation_error", [field])


def test_a_line_assigned_by_hand_pays_the_request_with_the_lines_change(business: tuple[str, str]) -> None:
    account_id, method_id = business
    request_id = issued(account_id, method_id)
    imported(account_id, statement(credit("250,00", "TRF RITA", "BCI-9")))
    (line,) = waiting(account_id)
    answer = bank_statements.assign(account_id, "tester", line["id"], request_id).wire()["line"]
    assert (answer["status"], answer["collection_request_id"], answer["overpayment"]) == ("assigned", request_id, None)
    assert answer["resolution"]["by"] == "tester"
    request = deps.collection_requests().get(request_id)
    assert request is not None and (request.status, request.amount_paid) == ("paid", 250)
    (payment,) = request_payments(account_id, request_id)
    assert (payment.id, payment.channel, payment.reference, payment.amount, payment.paid_at) == (
        answer["payment_id"],
        "bank_transfer",
        "BCI-9",
        "250.00",
        "2026-11-03T00:00:00Z",
    )
    assert payment.metadata == {"bank_statement_line_id": line["id"]}
    assert waiting(account_id) == [] and [x["id"] for x in waiting(account_id, "assigned")] == [line["id"]]
    # resolved: a second assign or a dismissal is refused; the import again changes nothing
    again = refused(lambda: bank_statements.assign(account_id, "tester", line["id"], request_id))
    assert (again.status, again.code, again.extensions) == (409, "invalid_state", {"line_status": "assigned"})
    assert refused(lambda: bank_statements.dismiss(account_id, "tester", line["id"], None)).code == "invalid_state"
    assert imported(account_id, statement(credit("250,00", "TRF RITA", "BCI-9")))["assigned"] == 1
    assert len(request_payments(account_id, request_id)) == 1


def test_instalments_overpayments_and_lines_that_do_not_fit(business: tuple[str, str]) -> None:
    account_id, method_id = business
    by_parts = issued(account_id, method_id, allow_installments=True)
    one_payment = issued(account_id, method_id)
    imported(
        account_id,
        statement(credit("100,00", "PARTE 1", "P-1"), credit("200,00", "PARTE 2", "P-2"), credit("50,00", "X", "P-3")),
    )
    lines = {line["bank_transaction_id"]: line["id"] for line in waiting(account_id)}
    bank_statements.assign(account_id, "tester", lines["P-1"], by_parts)
    request = deps.collection_requests().get(by_parts)
    assert request is not None and (request.status, request.amount_paid) == ("partially_paid", 100)
    # 200 on 150 due: the request is paid, 50 kept to refund (collection_request.refund_due)
    over = bank_statements.assign(account_id, "tester", lines["P-2"], by_parts).wire()["line"]
    assert over["overpayment"] == {"currency": "MZN", "value": Decimal("50.00")}
    request = deps.collection_requests().get(by_parts)
    assert request is not None and (request.status, request.amount_paid, request.overpayment) == ("paid", 250, 50)
    events, _ = deps.events().page(account_id, "test", 50, None, resource_id=by_parts)
    assert "collection_request.refund_due" in {event.type for event in events}
    # a part of a request that takes one payment does not fit: nothing written, the line waits
    part = refused(lambda: bank_statements.assign(account_id, "tester", lines["P-3"], one_payment))
    assert (part.status, part.code) == (422, "amount_out_of_range")
    assert request_payments(account_id, one_payment) == []
    # a paid request takes nothing more: all of it kept to refund, the request still paid
    closed = bank_statements.assign(account_id, "tester", lines["P-3"], by_parts).wire()["line"]
    assert closed["overpayment"] == {"currency": "MZN", "value": Decimal("50.00")}
    request = deps.collection_requests().get(by_parts)
    assert request is not None and (request.status, request.amount_paid, request.overpayment) == ("paid", 250, 100)
    assert len(request_payments(account_id, by_parts)) == 3


def test_dismissed_and_another_businesss_line_is_not_found(business: tuple[str, str]) -> None:
    account_id, _ = business
    imported(account_id, statement(credit("10,00", "TRANSFERENCIA PROPRIA", "OWN-1")))
    (line,) = waiting(account_id)
    other, other_method = active_business("Outra")
    other_request = issued(other, other_method)
    for work in (
        lambda: bank_statements.read(other, line["id"]),
        lambda: bank_statements.dismiss(other, "intruder", line["id"], None),
        lambda: bank_statements.assign(other, "intruder", line["id"], other_request),
        lambda: bank_statements.assign(account_id, "tester", line["id"], other_request),  # not its request
        lambda: bank_statements.read(account_id, "bsl_nope"),
    ):
        assert refused(work).status == 404
    dismissed = bank_statements.dismiss(account_id, "tester", line["id"], "Our own account").wire()["line"]
    assert (dismissed["status"], dismissed["resolution"]["reason"]) == ("dismissed", "Our own account")
    assert [x["id"] for x in waiting(account_id, "dismissed")] == [line["id"]]


def test_two_assigns_racing_for_one_line_make_one_payment(business: tuple[str, str]) -> None:
    account_id, method_id = business
    for round_ in range(3):
        first, second = issued(account_id, method_id), issued(account_id, method_id)
        imported(account_id, statement(credit("250,00", f"RACE {round_}", f"R-{round_}")))
        (line,) = waiting(account_id)
        with atomic_dynamodb():
            results = race(
                2, lambda i, f=first, s=second, n=line["id"]: bank_statements.assign(account_id, "t", n, (f, s)[i])
            )
        kinds = sorted(kind for kind, _ in results)
        assert kinds == ["error", "ok"], results
        (error,) = [value for kind, value in results if kind == "error"]
        assert (error.status, error.code) == (409, "invalid_state")
        paid = [r for r in (first, second) if request_payments(account_id, r)]
        assert len(paid) == 1 and len(request_payments(account_id, paid[0])) == 1


def test_an_assign_that_read_the_line_before_another_assign_landed_is_invalid_state(
    business: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interleaving the race above meets now and then: the loser read the line waiting, then
    found the line's payment written for the other request (not 409 idempotency_key_reused)."""
    account_id, method_id = business
    first, second = issued(account_id, method_id), issued(account_id, method_id)
    imported(account_id, statement(credit("250,00", "STALE", "R-STALE")))
    (line,) = waiting(account_id)
    stale = bank_statements.own_line(account_id, line["id"])  # read while it waits
    bank_statements.assign(account_id, "t", line["id"], first)
    reads = iter([stale])
    real = bank_statements.own_line
    monkeypatch.setattr(bank_statements, "own_line", lambda a, n: next(reads, None) or real(a, n))
    with pytest.raises(ServiceError) as refused:
        bank_statements.assign(account_id, "t", line["id"], second)
    assert (refused.value.status, refused.value.code) == (409, "invalid_state")
    assert request_payments(account_id, second) == [] and len(request_payments(account_id, first)) == 1


# ---------------------------------------------------------------- matching by reference
ENTITY = "11223"


def referenced(business: tuple[str, str], body: int, entity: str | None = ENTITY, **changes: Any) -> str:
    """A new stored request of the business carrying the bank reference of `body` (bound to its
    amount unless it takes instalments): what a simo_erv or interbank method gives it."""
    template = deps.collection_requests().get(issued(*business))
    assert template is not None
    request = template.model_copy(update={"request_id": new_prefixed_id("cr"), **changes})
    amount = None if request.allow_installments else request.value
    number = reference_number(entity, body, amount)
    request = request.model_copy(
        update={"reference_number": number, "reference_entity": entity, "reference_amount": amount}
    )
    deps.collection_requests().create(request, [])
    return request.request_id


def number_of(request_id: str) -> str:
    request = deps.collection_requests().get(request_id)
    assert request is not None and request.reference_number is not None
    return request.reference_number


def line_of(account_id: str, bank_id: str, status: str) -> dict[str, Any]:
    (line,) = [line for line in waiting(account_id, status) if line["bank_transaction_id"] == bank_id]
    return line


def test_lines_are_matched_by_their_reference_however_mangled(business: tuple[str, str]) -> None:
    account_id, _ = business
    whole = referenced(business, 123456789)
    parts = referenced(business, 223456789, None, allow_installments=True)
    one_payment = referenced(business, 323456789)
    a, b, c = number_of(whole), number_of(parts), number_of(one_payment)
    counts = imported(
        account_id,
        statement(
            credit("250,00", f"PAG FACTURA {a[:3]} {a[3:6]}.{a[6:9]}-{a[9:]}", "M-1"),  # spaces, dots, dashes
            credit("100,00", f"trf mzp{b} prestacao 1", "M-2"),  # the prefix in lower case
            credit("40,00", "SEM REFERENCIA", "M-3"),
            credit("250,00", f"DE NOVO {a}", "M-4"),  # paid twice: the request is paid by then, to refund
            credit("70,00", f"{a} E {c}", "M-5"),  # two requests
            credit("100,00", f"PARTE DE {c}", "M-6"),  # a part of an amount-bound reference
            credit("200,00", f"MZP {b} RESTO", "M-7"),  # 150 due: 50 more, to refund
        ),
    )
    assert {k: counts[k] for k in ("matched", "unmatched", "ambiguous")} == {
        "matched": 4,
        "unmatched": 1,
        "ambiguous": 2,
    }
    paid = deps.collection_requests().get(whole)
    assert paid is not None and (paid.status, paid.amount_paid, paid.overpayment) == ("paid", 250, 250)
    part = deps.collection_requests().get(parts)
    assert part is not None and (part.status, part.amount_paid, part.overpayment) == ("paid", 250, 50)
    assert line_of(account_id, "M-1", "matched")["collection_request_id"] == whole
    assert line_of(account_id, "M-2", "matched")["overpayment"] is None
    assert line_of(account_id, "M-4", "matched")["overpayment"] == {"currency": "MZN", "value": Decimal("250.00")}
    assert line_of(account_id, "M-7", "matched")["overpayment"] == {"currency": "MZN", "value": Decimal("50.00")}
    assert line_of(account_id, "M-3", "unmatched")["reason"] == "no_reference"
    several = line_of(account_id, "M-5", "ambiguous")
    assert (several["reason"], several["candidates"]) == ("several_requests", sorted([whole, one_payment]))
    unfit = line_of(account_id, "M-6", "ambiguous")
    assert (unfit["reason"], unfit["candidates"]) == ("amount_not_fitting", [one_payment])
    assert request_payments(account_id, one_payment) == []
    assert sorted(p.reference for p in request_payments(account_id, whole)) == ["M-1", "M-4"]
    events, _ = deps.events().page(account_id, "test", 50, None, resource_id=whole)
    assert sorted(e.type for e in events) == ["collection_request.paid", "collection_request.refund_due"]
    # the same statement again applies nothing twice
    again_counts = imported(account_id, statement(credit("250,00", f"PAG FACTURA {a}", "M-1")))
    assert (again_counts["already_imported"], again_counts["matched"]) == (1, 1)
    assert len(request_payments(account_id, whole)) == 2


def test_a_standing_reference_pays_its_oldest_open_bill(business: tuple[str, str]) -> None:
    account_id, _ = business
    january = referenced(business, 923456789)
    number = number_of(january)
    template = deps.collection_requests().get(january)
    assert template is not None
    february = template.model_copy(update={"request_id": new_prefixed_id("cr"), "created_at": "2099-01-01T00:00:00Z"})
    deps.collection_requests().create(february, [])
    counts = imported(
        account_id,
        statement(credit("250,00", f"RENDA {number}", "S-1"), credit("250,00", f"RENDA {number}", "S-2")),
    )
    assert counts["matched"] == 2
    assert [p.reference for p in request_payments(account_id, january)] == ["S-1"]
    assert [p.reference for p in request_payments(account_id, february.request_id)] == ["S-2"]


def test_a_simo_settlement_line_pays_the_request_of_its_entity(business: tuple[str, str]) -> None:
    account_id, _ = business
    request_id = referenced(business, 423456789)
    number = number_of(request_id)
    content = f"entity;reference;amount;date;transaction_id\n99999;{number};250.00;2026-11-03;S-0\n"
    content += f"{ENTITY};{number};250.00;2026-11-03;S-1\n"
    counts = imported(account_id, {"mode": "test", "format": "simo_erv", "content": content})
    assert (counts["matched"], counts["unmatched"]) == (1, 1)  # another entity's line names no request
    (payment,) = request_payments(account_id, request_id)
    assert (payment.channel, payment.reference, payment.amount) == ("simo_reference", "S-1", "250.00")


def test_an_assign_racing_the_imports_match_of_one_line_makes_one_payment(business: tuple[str, str]) -> None:
    account_id, _ = business
    for round_ in range(3):
        named, other = referenced(business, 523456789 + round_), referenced(business, 623456789 + round_)
        body = statement(credit("250,00", f"FACTURA {number_of(named)}", f"RACE-{round_}"))
        # an import cut short: the line stored, not judged; the same statement again finishes it
        (parsed,) = parse("csv", body["content"], None, None)
        (line_id,) = line_identities(account_id, "test", [parsed])
        deps.bank_statements().add_line(
            new_line(parsed, line_id, account_id, "test", "bst_cut", "MZN", "2026-11-03T10:00:00Z")
        )

        def either(index: int, other: str = other, body: dict[str, Any] = body, line_id: str = line_id) -> Any:
            if index == 0:
                return imported(account_id, body)
            return bank_statements.assign(account_id, "tester", line_id, other)

        with atomic_dynamodb():
            results = race(2, either)
        line = bank_statements.read(account_id, line_id).wire()["line"]
        payments_made = request_payments(account_id, named) + request_payments(account_id, other)
        assert len(payments_made) == 1, results
        assert payments_made[0].id == line["payment_id"]
        assert line["status"] in ("matched", "assigned") and line["collection_request_id"] in (named, other)
        (import_kind, _), (assign_kind, assigned) = results
        assert import_kind == "ok"
        if line["status"] == "matched":
            assert assign_kind == "error" and (assigned.status, assigned.code) == (409, "invalid_state")


def test_an_import_cut_short_by_a_fault_is_finished_by_sending_it_again(
    business: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    account_id, _ = business
    first, second = referenced(business, 723456789), referenced(business, 823456789)
    body = statement(
        credit("250,00", f"FACTURA {number_of(first)}", "F-1"),
        credit("10,00", "OUTRA COISA", "F-2"),
        credit("250,00", f"FACTURA {number_of(second)}", "F-3"),
    )
    store = deps.bank_statements()
    adding, changing = store.add_lines, store.change_item

    def two_then_fault(lines: Any) -> Any:
        adding(lines[:2])
        raise ReadTimeoutError(endpoint_url="http://dynamodb")

    monkeypatch.setattr(store, "add_lines", two_then_fault)
    with pytest.raises(ReadTimeoutError):
        imported(account_id, body)
    monkeypatch.setattr(store, "add_lines", adding)
    assert request_payments(account_id, first) == [] and len(waiting(account_id)) == 2  # stored, not judged
    # sent again, a fault while the third line is applied (the first one is by then)
    applied: list[str] = []

    def second_faults(line: Any, changes: Any) -> Any:
        applied.append(line.line_id)
        if len(applied) == 2:
            raise ReadTimeoutError(endpoint_url="http://dynamodb")
        return changing(line, changes)

    monkeypatch.setattr(store, "change_item", second_faults)
    with pytest.raises(ReadTimeoutError):
        imported(account_id, body)
    monkeypatch.setattr(store, "change_item", changing)
    assert [p.reference for p in request_payments(account_id, first)] == ["F-1"]
    assert request_payments(account_id, second) == []
    again = imported(account_id, body)
    assert (again["imported_before"], again["already_imported"], again["matched"], again["unmatched"]) == (
        True,
        3,
        2,
        1,
    )
    assert [p.reference for p in request_payments(account_id, first)] == ["F-1"]
    assert [p.reference for p in request_payments(account_id, second)] == ["F-3"]

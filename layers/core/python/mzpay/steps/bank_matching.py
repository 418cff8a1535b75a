"""Which of a business's collection requests a bank statement line names (docs/bank-statements.md,
"Matching"): the requests whose bank reference number the line's reference or description
carries, however the bank or the payer mangled it (spaces, dots, dashes, case, the prefix left
out: bank_references.candidates), each checked against the request's own check digits
(reference_fits), in the line's business and mode."""

from __future__ import annotations

from mzpay import deps
from mzpay.domain.collection.bank_lines import Named, StatementLine, narrowed
from mzpay.domain.collection.bank_references import candidates, reference_fits


def requests_named(line: StatementLine) -> list[Named]:
    """The requests the line may pay, each with the reference it was found by: one, several
    (ambiguous) or none."""
    text = " ".join(part for part in (line.reference, line.description) if part)
    store = deps.collection_requests()
    found: dict[str, list[Named]] = {}
    for number in candidates(text):
        for request in store.requests_by_reference(line.account_id, line.mode, number):
            if line.entity is not None and request.reference_entity != line.entity:
                continue  # a SIMO settlement line names its entity: another entity's request is not it
            if reference_fits(request.reference_entity, number, request.reference_amount):
                found.setdefault(number, []).append(Named(request, number))
    return narrowed(found)

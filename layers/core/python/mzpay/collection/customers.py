"""The payer directory (docs/customers.md): a business lists and searches its customers (by
phone, NUIT or name), reads, changes and removes one, and lists its collection requests and KYC
verifications. Another account's customer is 404 customer_not_found; a removed one reads as
removed (GET, DELETE, its requests' list) and is 404 customer_not_found to every other route."""

from __future__ import annotations

from typing import Any

from mzpay import deps
from mzpay.answers import customers as answers
from mzpay.domain.collection import directory as rules
from mzpay.domain.collection.business import INVALID_FORMAT
from mzpay.domain.collection.kyc import Customer
from mzpay.domain.collection.requests import CollectionRequest, RequestStatus
from mzpay.domain.common import page_tokens
from mzpay.domain.common.clock import now_iso
from mzpay.domain.common.errors import FieldError, ServiceError
from mzpay.steps.customers import customer_of
from mzpay.store.collection_requests import Changed
from mzpay.store.kyc import CustomerChanged, customer_key, list_index, name_list_key, nuit_list_key, phone_list_key
from mzpay.store.transitions import rejudged

PERSONAL = ("email", "phone_number", "language", "nuit", "address")
DOCUMENT_KEPT = ("type", "side", "saved_at")  # a removed customer's documents keep only these


def _bad_token() -> ServiceError:
    return rules.invalid([FieldError("page_token", INVALID_FORMAT, "a page_token this list gave")])


def _listing(items: list[dict[str, Any]], last: dict[str, str] | None) -> dict[str, Any]:
    token = page_tokens.encode(last) if last else None
    return {"object": "list", "items": items, "has_more": token is not None, "next_page_token": token, "error": None}


def listed(
    account_id: str, phone_number: str | None, nuit: str | None, name: str | None, page_size: int, token: str | None
) -> answers.CustomerList:
    """The business's customers, by name (folded) or the one search asked: each a Query of an
    index of the account's directory."""
    search = rules.search_of(phone_number, nuit, name)
    key, value = search or ("name", "")
    list_key = {
        "name": name_list_key(account_id),
        "phone_number": phone_list_key(account_id, value),
        "nuit": nuit_list_key(account_id, value),
    }[key]
    prefix = value if key == "name" else ""
    index = list_index(list_key)

    def of_this_list(start: dict[str, str]) -> bool:
        sort = start[f"{index}sk"]
        customer_id = sort.rpartition("#")[2] if key == "name" else sort
        expected = {**customer_key(customer_id), f"{index}pk": list_key, f"{index}sk": sort}
        return start == expected and sort.startswith(prefix)

    start = None
    if token is not None:
        start = page_tokens.decode(token, of_this_list)
        if start is None:
            raise _bad_token()
    found, last = deps.kyc().customers_page(list_key, prefix, page_size, start)
    return answers.CustomerList.of(_listing([rules.view(customer, None) for customer in found], last))


def _kyc_view(customer: Customer) -> dict[str, Any] | None:
    verification = deps.kyc().verification(customer.kyc_id)
    return None if verification is None else verification.view()


def read(account_id: str, customer_id: str) -> answers.CustomerRead:
    customer = customer_of(account_id, customer_id, removed=True)
    kyc = None if customer.status == rules.REMOVED else _kyc_view(customer)
    return answers.CustomerRead.of(rules.view(customer, kyc))


def update(account_id: str, customer_id: str, changes: dict[str, Any]) -> answers.CustomerRead:
    """PUT /v1/customers/{id}: the fields sent change (null removes one; the name stays), by a
    versioned conditional write judged again if another change lands first."""
    if "name" in changes and not (changes["name"] or "").strip():
        raise rules.invalid([FieldError("name", "REQUIRED", "a customer keeps its name")])
    changes = {k: v.strip() if isinstance(v, str) else v for k, v in changes.items()}
    changes = {k: (v if v not in ("", {}) else None) for k, v in changes.items()}
    problems = rules.contact_problems(changes)
    if problems:
        raise rules.invalid(problems)

    def change(customer: Customer) -> Customer:
        return deps.kyc().change_customer(customer, {**changes, "updated_at": now_iso()})

    updated = rejudged(lambda: customer_of(account_id, customer_id), change, CustomerChanged, "customer")
    return answers.CustomerRead.of(rules.view(updated, _kyc_view(updated)))


def remove(account_id: str, customer_id: str) -> answers.CustomerRead:
    """DELETE /v1/customers/{id}: its personal data goes (name, contact, address, NUIT, its KYC
    documents' personal fields); the collection requests that named it keep their amounts and
    show the payer as removed. Sent again, it finishes what an interrupted removal left and
    answers the same."""
    customer = customer_of(account_id, customer_id, removed=True)
    if customer.status != rules.REMOVED:

        def erase(current: Customer) -> Customer:
            if current.status == rules.REMOVED:
                return current
            erased = {name: None for name in PERSONAL}
            changes = {**erased, "name": "", "status": rules.REMOVED, "updated_at": now_iso()}
            return deps.kyc().change_customer(current, changes)

        customer = rejudged(
            lambda: customer_of(account_id, customer_id, removed=True), erase, CustomerChanged, "customer"
        )
    _erase_documents(account_id, customer)
    for request_id in deps.kyc().all_request_links(customer_id):
        _erase_payer(account_id, request_id)
    return answers.CustomerRead.of(rules.view(customer, None))


def _erase_documents(account_id: str, customer: Customer) -> None:
    from mzpay.store.kyc import VerificationChanged

    def erase(verification: Any) -> Any:
        documents = [{k: d[k] for k in DOCUMENT_KEPT if k in d} for d in verification.additional_documents]
        if documents == verification.additional_documents:
            return verification
        return deps.kyc().transition(verification, {"additional_documents": documents, "updated_at": now_iso()})

    def current() -> Any:
        verification = deps.kyc().verification(customer.kyc_id)
        if verification is None or verification.account_id != account_id:
            raise ServiceError(404, "customer_not_found", "No such customer.")
        return verification

    rejudged(current, erase, VerificationChanged, "verification")


def _erase_payer(account_id: str, request_id: str) -> None:
    request = deps.collection_requests().get(request_id)
    if request is None or request.account_id != account_id:
        return

    def erase(request: CollectionRequest) -> CollectionRequest:
        if request.payer.get("removed"):
            return request
        audit = {**request.compliance_audit, "payer_nuit": None}
        changes = {"payer": rules.removed_payer(request.payer), "compliance_audit": audit, "updated_at": now_iso()}
        return deps.collection_requests().transition(request, changes, [])

    # a request is never deleted from the table (a deleted one keeps its item): it is read again
    rejudged(lambda: deps.collection_requests().get(request_id) or request, erase, Changed, "collection request")


def requests_of(account_id: str, customer_id: str, page_size: int, token: str | None) -> answers.CustomerRequests:
    """The collection requests that named the customer (a removed one's too: the financial
    records stay), newest first, as GET /v1/collection-requests lists them; deleted ones are
    left out."""
    customer_of(account_id, customer_id, removed=True)
    partition = customer_key(customer_id)["pk"]
    start = None
    if token is not None:
        start = page_tokens.decode(
            token, lambda key: set(key) == {"pk", "sk"} and key["pk"] == partition and key["sk"].startswith("CR#")
        )
        if start is None:
            raise _bad_token()
    ids, last = deps.kyc().request_links(customer_id, page_size, start)
    found = [deps.collection_requests().get(request_id) for request_id in ids]
    items = [
        r.summary() for r in found if r is not None and r.account_id == account_id and r.status != RequestStatus.DELETED
    ]
    return answers.CustomerRequests.of(_listing(items, last))


def kyc_of(account_id: str, customer_id: str) -> answers.CustomerKycList:
    """The customer's KYC verifications (today its one), as GET .../kyc/{kyc_id} reads each."""
    customer = customer_of(account_id, customer_id)
    kyc = _kyc_view(customer)
    return answers.CustomerKycList.of({"object": "list", "data": [kyc] if kyc else [], "has_more": False})

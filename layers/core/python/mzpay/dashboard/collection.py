"""The dashboard's collection pages: a merchant account that collects for a business (its own
business, or one an operator linked: docs/onboarding.md "Linking") shows that business's
collection requests, payment records and customers, read through the collection surface's own use
cases with the business as the caller. Requests and payments are of the session's mode (another
mode's is 404, as another business's); the customer directory is the business's, of no mode."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.dashboard import roles
from mzpay.domain.dashboard.sessions import Session
from mzpay.lazy import deferred_imports

if TYPE_CHECKING:
    from mzpay.answers.collection_payments import CollectionPaymentList
    from mzpay.answers.collection_requests import CollectionRequestList
    from mzpay.answers.customers import CustomerList

with deferred_imports():  # only the collection pages load the collection surface
    from mzpay.collection import collection_requests, customers, payments
    from mzpay.operators import business_links

PAGE_SIZE = 25
MAX_SEARCH = 100


def business_of(session: Session) -> str:
    """The business the session's account collects for; 404 when it collects for none."""
    roles.require(session.role, "collection:read")
    business = business_links.collecting_for(session.account_id)
    if business is None:
        raise ServiceError(404, "not_found", "This account collects for no business.")
    return business


def collects(session: Session) -> bool:
    """Whether the navigation shows the collection pages."""
    return (
        roles.allows(session.role, "collection:read") and business_links.collecting_for(session.account_id) is not None
    )


def _token(value: str | None) -> str | None:
    return value[:512] if value else None


def requests_page(session: Session, page_token: str | None) -> CollectionRequestList:
    """The business's requests of the session's mode, newest first."""
    return collection_requests.listed(business_of(session), PAGE_SIZE, _token(page_token), session.mode)


def request(session: Session, request_id: str) -> tuple[dict[str, Any], CollectionPaymentList]:
    """A request of the session's mode and the payments made against it."""
    business = business_of(session)
    found: dict[str, Any] = collection_requests.read(business, request_id[:128]).wire()["collection_request"]
    if found["mode"] != session.mode:
        raise ServiceError(404, "not_found", "No such collection request.")
    query = {"mode": session.mode, "collection_request_id": found["id"], "page_size": "100"}
    return found, payments.listed(business, query)


def payments_page(session: Session, page_token: str | None) -> CollectionPaymentList:
    """The business's payment records of the session's mode, newest first."""
    query = {"mode": session.mode, "page_size": str(PAGE_SIZE)}
    if page_token:
        query["page_token"] = page_token[:512]
    return payments.listed(business_of(session), query)


def customers_page(session: Session, search: str, page_token: str | None) -> CustomerList:
    """The business's directory by name, or the customers whose phone number, NUIT or name
    `search` is (a number with + or 8-9 digits is a phone, 9 digits starting 1-5 a NUIT)."""
    business, text = business_of(session), search.strip()[:MAX_SEARCH]
    digits = text.replace(" ", "")
    phone = digits if digits.startswith("+") else None
    nuit = digits if phone is None and digits.isdigit() and len(digits) == 9 and digits[0] in "12345" else None
    if phone is None and nuit is None and digits.isdigit() and len(digits) == 9:
        phone = "+258" + digits
    name = text if text and phone is None and nuit is None else None
    return customers.listed(business, phone, nuit, name, PAGE_SIZE, _token(page_token))


def customer(session: Session, customer_id: str) -> dict[str, Any]:
    """A customer of the business's directory (a removed one: its id, status and dates)."""
    return customers.read(business_of(session), customer_id[:128]).wire()

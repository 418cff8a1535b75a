"""The payer app's unsecured reads (docs/collection-requests.md, "The payer's app"): what the
public read shows of a request (no personal data of the payer), who may see a number's list
(whoever holds a request sent to it), and the `listed` choice of the business."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from mzpay.domain.collection.requests import CollectionRequest, RequestStatus, may_list_by_phone
from mzpay.http.collection_request_schemas import CollectionRequestChange, CollectionRequestIn
from tests.unit.builders import collection_payer

PHONE = "+258841234567"


def request(**changes: Any) -> CollectionRequest:
    fields: dict[str, Any] = {
        "request_id": "cr_01JD0000000000000000000000",
        "account_id": "01JD0000000000000000000001",
        "mode": "test",
        "status": RequestStatus.PENDING,
        "version": 1,
        "description": "Factura de Novembro",
        "collection_method_ids": ["cm_1"],
        "collection_method_details": [{"collection_method_id": "cm_1", "name": "M-Pesa", "type": "mpesa"}],
        "amount": {"currency": "MZN", "value": Decimal("1500.5")},
        "payer": collection_payer(PHONE),
        "metadata": {"order": "A-17"},
        "bill_info": {"bill_id": "bill_1", "bill_number": "INV-2026-1", "status": "open", "due_date": None},
        "invoice_metadata": {"invoice_number": "INV-2026-1", "payment_link": "https://c.example/pay/cr_1"},
        "financial_details": {},
        "payment_reconciliation": {"payment_status": "pending", "date_payment": None, "gateway_transaction_id": None},
        "integration_routing": {"source_system": "api", "callback_url": "https://erp.example/hook"},
        "compliance_audit": {"payer_nuit": "400339910", "user_issuer": "erp"},
        "biller": {
            "business_name": "Demo Comercial Lda",
            "logo": None,
            "contact": {"phone_number": "+258841111111", "email": "f@demo.co.mz"},
            "issuer_nuit": "400339910",
        },
        "created_at": "2026-11-27T10:00:00Z",
        "updated_at": "2026-11-27T10:00:00Z",
    }
    fields.update(changes)
    return CollectionRequest(**fields)


def test_the_public_read_shows_no_personal_data_of_the_payer() -> None:
    assert request().public_view() == {
        "object": "collection_request",
        "collection_request": {
            "id": "cr_01JD0000000000000000000000",
            "description": "Factura de Novembro",
            "amount": {"currency": "MZN", "value": Decimal("1500.50")},
            "collection_method_details": [{"collection_method_id": "cm_1", "name": "M-Pesa", "type": "mpesa"}],
            "invoice_metadata": {"invoice_number": "INV-2026-1", "payment_link": "https://c.example/pay/cr_1"},
            "bill_info": {"bill_id": "bill_1", "bill_number": "INV-2026-1", "status": "open", "due_date": None},
            "biller": {
                "business_name": "Demo Comercial Lda",
                "logo": None,
                "contact": {"phone_number": "+258841111111", "email": "f@demo.co.mz"},
            },
            "status": "pending",
            "created_at": "2026-11-27T10:00:00Z",
            "updated_at": "2026-11-27T10:00:00Z",
            "payer": {"type": "individual"},
            "payment_reconciliation": {"payment_status": "pending", "date_payment": None},
        },
    }


def test_only_a_request_sent_to_the_number_opens_its_list() -> None:
    assert may_list_by_phone(PHONE, request())
    assert not may_list_by_phone(PHONE, None)  # no such request
    assert not may_list_by_phone("+258849999999", request())  # another number's request
    assert not may_list_by_phone(PHONE, request(status=RequestStatus.DELETED))
    assert not may_list_by_phone(PHONE, request(payer={"type": "business", "contact": {"email": "a@b.mz"}}))
    assert may_list_by_phone(PHONE, request(listed=False))  # holding it proves the number, listed or not


def test_listed_is_a_strict_boolean_true_by_default() -> None:
    assert request().listed is True and request().view()["listed"] is True
    assert request(listed=False).view()["listed"] is False
    assert CollectionRequestChange.model_validate({"listed": False}).fields() == {"listed": False}
    assert CollectionRequestChange.model_validate({}).fields() == {}
    for wrong in ("false", 0, 1, [], "yes"):
        with pytest.raises(ValidationError):
            CollectionRequestChange.model_validate({"listed": wrong})
    body = {
        "collection_method_ids": ["cm_1"],
        "amount": {"currency": "MZN", "value": 1},
        "payer": request().payer,
    }
    assert "listed" not in CollectionRequestIn.model_validate(body).fields()
    assert CollectionRequestIn.model_validate({**body, "listed": False}).fields()["listed"] is False

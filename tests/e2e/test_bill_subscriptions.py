"""Payer subscriptions to recurring bills over HTTP through the local stack (issue 17, item 5):
with the payer's consent (kept with when and from where), without it (422 consent_required, nothing
stored), a terms version over 60 characters, a reference the biller does not know, a second
subscription of the same reference, and tenancy by account."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from devstack.launcher import RunningStack
from tests.e2e.test_bill_payments import ELECTRICITY, TV_COMPACTO, refused
from tests.e2e.test_charges import Merchant

pytestmark = pytest.mark.e2e

CONSENT = {"accepted": True, "terms_version": "tvcabo-debito-2026-11"}


def subscribe(shop: Merchant, payer_id: str, consent: Any = CONSENT, **body: Any) -> requests.Response:
    fields = {"product_id": TV_COMPACTO, "reference": "7010000001", **body}
    if consent is not None:
        fields["consent"] = consent
    return shop.call("POST", f"/v1/payers/{payer_id}/subscriptions", fields, idempotency_key=None)


def listed(shop: Merchant, payer_id: str) -> list[dict[str, Any]]:
    answer = shop.call("GET", f"/v1/payers/{payer_id}/subscriptions", idempotency_key=None)
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]  # type: ignore[no-any-return]


def test_a_payer_subscribes_with_consent(stack: RunningStack) -> None:
    shop = Merchant(stack)
    answer = subscribe(shop, "cliente-8841")
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body == {
        "subscription_id": body["subscription_id"],
        "payer_id": "cliente-8841",
        "status": "active",
        "product_id": TV_COMPACTO,
        "product_name": "TVCabo Compacto (1 month)",
        "biller_id": "01M8A0MH8BAHW8JZV956J9ME23",
        "biller_name": "TVCabo",
        "reference": "7010000001",
        "customer_name": "Fátima Cossa",
        "amount": "1250.00",
        "currency": "MZN",
        "frequency": "monthly",
        "consent": {
            "accepted": True,
            "terms_version": "tvcabo-debito-2026-11",
            "accepted_at": body["created_at"],
            "source_ip": "127.0.0.1",
        },
        "created_at": body["created_at"],
    }
    assert listed(shop, "cliente-8841") == [body]
    again = subscribe(shop, "cliente-8841")
    refused(
        again,
        409,
        "invalid_state",
        "Payer cliente-8841 is subscribed to TVCabo Compacto (1 month) for 7010000001 already.",
    )
    assert listed(Merchant(stack), "cliente-8841") == []  # another account's payer of the same id
    prepaid = subscribe(shop, "cliente-8841", product_id=ELECTRICITY, reference="04000000001", amount="250.00")
    assert prepaid.status_code == 201 and prepaid.json()["amount"] == "250.00"
    assert len(listed(shop, "cliente-8841")) == 2


@pytest.mark.parametrize(
    ("consent", "detail"),
    [
        (None, "The payer's consent is needed: consent.accepted must be true."),
        ({"accepted": False, "terms_version": "v1"}, "The payer's consent is needed: consent.accepted must be true."),
        ({"accepted": "true", "terms_version": "v1"}, "The payer's consent is needed: consent.accepted must be true."),
        ({"accepted": True}, "consent.terms_version must name the terms the payer accepted (1 to 60 characters)."),
        (
            {"accepted": True, "terms_version": " "},
            "consent.terms_version must name the terms the payer accepted (1 to 60 characters).",
        ),
        (
            {"accepted": True, "terms_version": "v" * 61},
            "consent.terms_version must name the terms the payer accepted (1 to 60 characters).",
        ),
    ],
)
def test_without_consent_nothing_is_stored(stack: RunningStack, consent: Any, detail: str) -> None:
    shop = Merchant(stack)
    refused(subscribe(shop, "cliente-1", consent), 422, "consent_required", detail)
    assert listed(shop, "cliente-1") == []


def test_a_terms_version_of_60_characters_is_enough(stack: RunningStack) -> None:
    shop = Merchant(stack)
    answer = subscribe(shop, "cliente-1", {"accepted": True, "terms_version": "v" * 60})
    assert answer.status_code == 201 and answer.json()["consent"]["terms_version"] == "v" * 60


def test_the_reference_and_the_payer_id_are_checked(stack: RunningStack) -> None:
    shop = Merchant(stack)
    refused(subscribe(shop, "cliente-1", reference="7010000077"), 422, "reference_not_found")
    refused(subscribe(shop, "cliente-1", reference="7010000403"), 422, "reference_rejected")
    refused(subscribe(shop, "cliente-1", product_id=TV_COMPACTO, amount="1.00"), 422, "amount_out_of_range")
    refused(subscribe(shop, "x" * 65), 404, "not_found", "No such payer.")
    assert listed(shop, "cliente-1") == []

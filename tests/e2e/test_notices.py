"""A business's and a customer's messages on the local stack, read back from what moto's SES
and SNS "sent" (/__devstack__/sent): an onboarding rejection and approval reach the business's
person of contact, a transaction with notify_customer reaches the customer's phone, a KYC outcome
its inbox, and a business that sets its notification language to English hears in English."""

from __future__ import annotations

import copy
import uuid
from typing import Any

import pytest
from ulid import ULID

from devstack.collection_demo import DEMO_DETAILS
from devstack.launcher import RunningStack
from tests.e2e.collection_client import Collection, assert_ok
from tests.e2e.test_messages import emails_to, parts, sms_to

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return Collection(stack, "mz")


def unique() -> str:
    return str(ULID()).lower()


def phone() -> str:
    """An M-Pesa number of this test alone, ending 0000: the simulator's payment succeeds at once
    (docs/test-mode.md)."""
    return "+25884" + str(int(ULID()) % 1_000).zfill(3) + "0000"


def details(email: str) -> dict[str, Any]:
    body = copy.deepcopy(DEMO_DETAILS)
    body["person_of_contact"] = {"first_name": "Ana", "last_name": "Machava", "email": email}
    body["business_details"]["legal_name"] = "Mercearia Boa Esperança"
    return body


def call(mz: Collection, method: str, path: str, token: str, body: Any = None) -> dict[str, Any]:
    return assert_ok(mz.call(method, path, body, token=token))


def reviewer(mz: Collection) -> str:
    return mz.mint(account_id=None, sub="reviewer-notices", scope="account:review")


def submitted(mz: Collection, email: str) -> tuple[str, str]:
    """A new business whose onboarding waits for review, its contact's e-mail `email`."""
    account_id, token = mz.new_account("Mercearia Boa Esperança", f"notices-{unique()}")
    mz.call("POST", "/v1/account/onboarding/initialize", token=token)
    call(mz, "PUT", "/v1/account/onboarding/details", token, details(email))
    call(mz, "POST", "/v1/account/onboarding/finish", token)
    return account_id, token


def test_a_rejection_and_then_the_approval_reach_the_person_of_contact(mz: Collection, stack: RunningStack) -> None:
    email = f"ana-{unique()}@boaesperanca.co.mz"
    account_id, token = submitted(mz, email)
    reason = "O NIB não corresponde à declaração do banco."
    call(mz, "POST", f"/v1/accounts/{account_id}/reject", reviewer(mz), {"reason": reason})
    (rejected,) = emails_to(stack, email)
    assert rejected["Subject"] == "Mercearia Boa Esperança: pedido de adesão não aprovado"
    text, html = parts(rejected)
    assert text.startswith("Olá Ana Machava,") and f"Motivo: {reason}" in text and reason in html
    call(mz, "PUT", "/v1/account/onboarding/details", token, details(email))
    call(mz, "POST", "/v1/account/onboarding/finish", token)
    call(mz, "POST", f"/v1/accounts/{account_id}/approve", reviewer(mz))
    approved = emails_to(stack, email, count=2)[-1]
    assert approved["Subject"] == "Mercearia Boa Esperança foi aprovada na mzpay"
    assert "já pode receber pagamentos" in parts(approved)[0]
    second = mz.call("POST", f"/v1/accounts/{account_id}/approve", token=reviewer(mz))
    assert second.status_code == 400  # an active business is approved once: no second message


def test_a_business_that_chooses_english_hears_in_english(mz: Collection, stack: RunningStack) -> None:
    email = f"ana-{unique()}@boaesperanca.co.mz"
    account_id, token = submitted(mz, email)
    settings = "/v1/account/settings"
    assert call(mz, "GET", settings, token) == {"object": "account_settings", "notification_language": "pt"}
    refused = mz.call("PATCH", settings, {"notification_language": "fr"}, token=token)
    assert refused.status_code == 400 and "notification_language" in refused.text
    assert call(mz, "PATCH", settings, token, {"notification_language": "en"})["notification_language"] == "en"
    assert call(mz, "GET", settings, token) == {"object": "account_settings", "notification_language": "en"}
    call(mz, "POST", f"/v1/accounts/{account_id}/approve", reviewer(mz))
    (approved,) = emails_to(stack, email)
    assert approved["Subject"] == "Mercearia Boa Esperança is approved on mzpay"
    assert parts(approved)[0].startswith("Hello Ana Machava,")
    call(mz, "POST", f"/v1/accounts/{account_id}/suspend", reviewer(mz), {"reason": "Chargebacks above the limit."})
    suspended = emails_to(stack, email, count=1, having="suspended")[0]
    assert suspended["Subject"] == "Mercearia Boa Esperança is suspended on mzpay"
    assert "Reason: Chargebacks above the limit." in parts(suspended)[0]


def test_notify_customer_and_a_kyc_outcome_reach_the_customer(mz: Collection, stack: RunningStack) -> None:
    number, email = phone(), f"joao-{unique()}@example.co.mz"
    customer = call(
        mz, "POST", "/v1/customers", "demo", {"name": "João Sitoe", "document_type": "bi", "phone_number": number}
    )
    body = {"partner_id": "ptn_mpesa", "type": "mobile_wallet", "details": {"phone_number": number}, "mode": "test"}
    pm_id = call(mz, "POST", f"/v1/customers/{customer['id']}/payment_methods", "demo", body)["payment_method"]["id"]
    path = f"/v1/customers/{customer['id']}/payment_methods/{pm_id}/transactions"
    for notify in (None, False, True):
        transaction = {"transaction_type": "pay_in", "amount": 1250}
        if notify is not None:
            transaction["notify_customer"] = notify
        answer = mz.call("POST", path, transaction, headers={"Idempotency-Key": str(uuid.uuid4())})
        paid = assert_ok(answer)
    assert paid["status"] == "succeeded"
    item = call(mz, "GET", f"/v1/customers/{customer['id']}/transactions/{paid['transaction_id']}", "demo")
    (text,) = sms_to(stack, number)  # one: false and absent send nothing
    business = call(mz, "GET", "/v1/account", "demo")["name"]
    assert text.startswith(f"{business}: recebemos o seu pagamento de 1 250,00 MT. Ref ")
    assert text.endswith(str(item["transaction"]["reference"]))

    other = {"name": "João Sitoe", "document_type": "bi", "email": email, "language": "en"}
    registered = call(mz, "POST", "/v1/customers", "demo", other)
    refused = mz.call("POST", "/v1/customers", {**other, "email": "not-an-email"})
    assert refused.status_code == 400 and [e["field"] for e in refused.json()["metadata"]["errors"]] == ["email"]
    review = {
        "status": "rejected",
        "reviewer_id": "reviewer-1",
        "rejection_reason": "The BI photo is blurred.",
        "additional_request": {"comment": "", "checklist_items": []},
    }
    kyc_path = f"/v1/customers/{registered['id']}/kyc/{registered['kyc']['kyc_id']}/reviews"
    call(mz, "PUT", kyc_path, "demo", review)
    (mail,) = emails_to(stack, email)
    assert mail["Subject"] == f"{business}: your identity verification was rejected"
    assert "Reason: The BI photo is blurred." in parts(mail)[0]

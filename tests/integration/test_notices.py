"""A decision's or a transaction's message through SES and SNS on in-process moto
(docs/notifications.md): an onboarding decision to the business's person of contact, a KYC
outcome and a transaction with notify_customer to the customer; each sent once however often the
queue delivers it, in the business's notification language when the recipient's is unknown."""

from __future__ import annotations

from email import message_from_string, policy
from email.message import EmailMessage
from typing import Any

from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import notifications
from mzpay.domain.collection.business import BusinessAccount
from mzpay.steps.notifications import dispatch_notification
from tests.integration.races import race
from tests.integration.test_messages import queued, sent_emails, sent_sms, stack  # noqa: F401 (fixture)

BUSINESS = "acct_01JD5XK0W8Q5W3M4N6P7R8S9TV"
CONTACT = {"first_name": "Ana", "last_name": "Machava", "email": "ana@example.co.mz", "phone_number": "+258841234567"}


def event(kind: str, data: dict[str, Any], mode: str = "live") -> dict[str, Any]:
    return {"type": kind, "account_id": BUSINESS, "mode": mode, "data": {"object": data}}


def decision(kind: str, review_id: str, reason: str = "", contact: dict[str, str] = CONTACT) -> dict[str, Any]:
    data = {"account_id": BUSINESS, "review_id": review_id, "business_name": "Mercearia Boa Esperança"}
    return event(kind, {**data, "reason": reason, "contact": contact})


def business(language: str | None) -> None:
    now = "2026-11-03T09:00:00Z"
    account = BusinessAccount(
        account_id=BUSINESS, status="active", version=1, created_at=now, updated_at=now, notification_language=language
    )
    assert deps.business_accounts().create(account)


def deliver_all() -> list[str]:
    return [notifications.deliver(message) for message in queued()]


def read_email(raw: Any) -> tuple[EmailMessage, str, str]:
    mail = message_from_string(raw.raw_data, policy=policy.default)
    assert isinstance(mail, EmailMessage)
    text, html = (part.get_content() for part in mail.iter_parts() if isinstance(part, EmailMessage))
    return mail, text, html


def test_an_approval_reaches_the_person_of_contact_once(stack: ProvisionedStack) -> None:  # noqa: F811
    assert dispatch_notification(decision("business_account.approved", "rev_1")) is True
    assert dispatch_notification(decision("business_account.approved", "rev_1")) is True  # the outbox again
    messages = queued()
    race(4, lambda index: notifications.deliver(messages[index % len(messages)]))
    for message in messages:
        notifications.deliver(message)
    (sent,) = sent_emails()
    mail, text, html = read_email(sent)
    assert mail["To"] == "ana@example.co.mz" and mail["Subject"] == "Mercearia Boa Esperança foi aprovada na mzpay"
    assert text.startswith("Olá Ana Machava,") and "Mercearia Boa Esperança foi aprovada" in html
    (record,) = deps.message_records().about(BUSINESS)
    assert (record["cause"], record["status"]) == (f"business_account.approved:{BUSINESS}", "sent")


def test_a_rejection_and_a_suspension_say_why_in_the_businesss_language(stack: ProvisionedStack) -> None:  # noqa: F811
    business("en")
    by_phone = {"first_name": "Ana", "last_name": "Machava", "phone_number": "+258841234567"}
    dispatch_notification(decision("business_account.rejected", "rev_1", "The NIB is another holder's.", by_phone))
    dispatch_notification(decision("business_account.suspended", "rev_2", "Chargebacks above the limit.", by_phone))
    dispatch_notification(decision("business_account.suspended", "rev_3", "", by_phone))  # a later suspension
    deliver_all()
    assert sorted(sent_sms()) == [
        ("+258841234567", "mzpay: Mercearia Boa Esperanca was suspended."),
        ("+258841234567", "mzpay: Mercearia Boa Esperanca was suspended. Reason: Chargebacks above the limit."),
        (
            "+258841234567",
            "mzpay: the application of Mercearia Boa Esperanca was refused. Reason: The NIB is another holder's.",
        ),
    ]


def test_a_kyc_outcome_reaches_the_customer_in_its_language(stack: ProvisionedStack) -> None:  # noqa: F811
    business("en")
    data = {"kyc_id": "kyc_1", "customer_id": "usr_1", "name": "João Sitoe", "business_name": "Loja Central"}
    rejected = {**data, "status": "rejected", "reason": "A foto do BI está desfocada."}
    dispatch_notification(
        event("kyc.rejected", {**rejected, "contact": {"email": "joao@example.co.mz"}, "language": "pt"})
    )
    deliver_all()
    deliver_all()  # nothing queued twice
    (sent,) = sent_emails()
    mail, text, _html = read_email(sent)
    assert mail["Subject"] == "Loja Central: a verificação da sua identidade foi recusada"
    assert "Motivo: A foto do BI está desfocada." in text


def test_notify_customer_sends_the_transaction_by_sms(stack: ProvisionedStack) -> None:  # noqa: F811
    data = {
        "instruction_id": "ins_01JD5XK0W8Q5W3M4N6P7R8S9TV",
        "customer_id": "usr_1",
        "name": "João Sitoe",
        "business_name": "Mercearia Boa Esperança",
        "transaction_type": "pay_in",
        "direction": "in",
        "amount": "1500.50",
        "currency": "MZN",
        "status": "succeeded",
        "reference": "01JD9Q00000000000000000000",
        "contact": {"email": None, "phone_number": None},
        "wallet": {"phone_number": "+258841234567"},
        "language": None,
    }
    assert dispatch_notification(event("customer_transaction.processed", data, mode="test"))
    (message,) = queued()
    race(4, lambda _: notifications.deliver(message))
    notifications.deliver(message)
    assert sent_sms() == [
        (
            "+258841234567",
            "Mercearia Boa Esperanca: recebemos o seu pagamento de 1 500,50 MT. Ref 01JD9Q00000000000000000000",
        )
    ]
    (record,) = deps.message_records().about("ins_01JD5XK0W8Q5W3M4N6P7R8S9TV")
    assert (record["account_id"], record["mode"], record["status"]) == (BUSINESS, "test", "sent")

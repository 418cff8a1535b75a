"""The messages of a decision or a transaction (docs/notifications.md): a business's onboarding
decisions to its person of contact, a customer's KYC outcome, a payment-method transaction with
`notify_customer`; rendered in both languages, an SMS in GSM-7 within 2 segments, every merchant's
or customer's string escaped (HTML) and stripped of control characters; the events the use cases
write (one per decision), what the outbox queues, and the business's notification language."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any
from uuid import uuid4

import pytest

from mzpay import deps
from mzpay.cases import notifications
from mzpay.collection import kyc, onboarding, payment_methods, transactions
from mzpay.domain.collection.kyc import NOTHING_MORE
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.messages import notices, sms
from mzpay.http import partner_schemas
from mzpay.http.onboarding_schemas import AccountSettingsIn
from mzpay.messages import notices as texts
from mzpay.steps.notices import dispatch_notice
from tests.unit.test_openapi_collection_models import (  # noqa: F401 (fixture)
    BUSINESS,
    REVIEWER,
    World,
    onboarded,
    world,
)

REF = "ins_01KB3F9V2XQ7M8N4P5R6S7T8VW"


@pytest.fixture
def stores(request: pytest.FixtureRequest) -> World:
    """The collection surface's in-memory stores (test_openapi_collection_models' world)."""
    found: World = request.getfixturevalue("world")
    return found


HOSTILE_NAME = 'Loja "X" & <b>Filhos</b>\u202e\x07'
HOSTILE_REASON = "<script>alert(1)</script>\r\nBcc: victim@example.com\x1b[2J"


def decision(notice: str, **changes: Any) -> dict[str, Any]:
    data = {
        "account_id": "acct_loja",
        "review_id": "rev_01KB3F9V2XQ7M8N4P5R6S7T8VW",
        "business_name": "Mercearia Boa Esperança",
        "reason": "" if notice.endswith("approved") else "O NIB não corresponde à declaração do banco.",
        "contact": {"first_name": "Ana", "last_name": "Machava", "email": "ana@example.co.mz"},
    }
    return {**data, **changes}


def transaction(**changes: Any) -> dict[str, Any]:
    data = {
        "instruction_id": REF,
        "name": "João Sitoe",
        "business_name": "Mercearia Boa Esperança",
        "direction": "in",
        "status": "succeeded",
        "amount": "1500.50",
        "currency": "MZN",
        "reference": REF,
    }
    return {**data, **changes}


KYC = {"kyc_id": "kyc_1", "name": "Ana Machava", "business_name": "Loja Central", "status": "verified", "reason": ""}


# ---------------------------------------------------------------- rendering
def test_the_onboarding_decisions_in_portuguese_and_english() -> None:
    approved = decision(notices.BUSINESS_DECISIONS["approve"])
    pt = texts.email("business_account.approved", approved, "pt")
    en = texts.email("business_account.approved", approved, "en")
    assert pt.subject == "Mercearia Boa Esperança foi aprovada na mzpay"
    assert en.subject == "Mercearia Boa Esperança is approved on mzpay"
    assert pt.text.startswith("Olá Ana Machava,\n\nMercearia Boa Esperança foi aprovada")
    assert "Hello Ana Machava," in en.html and '<html lang="en">' in en.html
    rejected = decision("business_account.rejected")
    pt = texts.email("business_account.rejected", rejected, "pt")
    assert "Motivo: O NIB não corresponde à declaração do banco." in pt.text
    assert "Corrija os dados e submeta-os novamente." in pt.text
    assert texts.email("business_account.rejected", rejected, "en").subject == (
        "Mercearia Boa Esperança: onboarding not approved"
    )
    assert texts.text_message("business_account.rejected", rejected, "pt").text == (
        "mzpay: o pedido de Mercearia Boa Esperanca foi recusado. Motivo: O NIB nao corresponde à declaracao do banco."
    )
    suspended = decision("business_account.suspended", reason="")
    assert texts.text_message("business_account.suspended", suspended, "en").text == (
        "mzpay: Mercearia Boa Esperanca was suspended."
    )
    assert "Reason" not in texts.email("business_account.suspended", suspended, "en").text


def test_the_kyc_outcomes_in_portuguese_and_english() -> None:
    assert texts.text_message("kyc.verified", KYC, "pt").text == "Loja Central: a sua identidade foi verificada."
    assert texts.text_message("kyc.verified", KYC, "en").text == "Loja Central: your identity was verified."
    rejected = {**KYC, "status": "rejected", "reason": "A foto do BI está desfocada."}
    pt = texts.email("kyc.rejected", rejected, "pt")
    assert pt.subject == "Loja Central: a verificação da sua identidade foi recusada"
    assert "Motivo: A foto do BI está desfocada." in pt.text
    assert texts.email("kyc.rejected", rejected, "en").text.startswith(
        "Hello Ana Machava,\n\nLoja Central could not verify your identity."
    )


@pytest.mark.parametrize(
    ("direction", "status", "pt", "en"),
    [
        ("in", "succeeded", "recebemos o seu pagamento de 1 500,50 MT", "we received your payment of MZN 1,500.50"),
        ("in", "failed", "o seu pagamento de 1 500,50 MT falhou", "your payment of MZN 1,500.50 failed"),
        ("in", "pending", "o seu pagamento de 1 500,50 MT ficou pendente", "your payment of MZN 1,500.50 is pending"),
        ("out", "succeeded", "enviou-lhe 1 500,50 MT", "sent you MZN 1,500.50"),
        ("out", "failed", "o envio de 1 500,50 MT para si falhou", "the transfer of MZN 1,500.50 to you failed"),
        (
            "out",
            "pending",
            "o envio de 1 500,50 MT para si ficou pendente",
            "a transfer of MZN 1,500.50 to you is pending",
        ),
    ],
)
def test_a_transactions_message_says_amount_business_reference_and_status(
    direction: str, status: str, pt: str, en: str
) -> None:
    data = transaction(direction=direction, status=status)
    for language, words in (("pt", pt), ("en", en)):
        message = texts.text_message("customer_transaction.processed", data, language)
        assert words in message.text and message.text.startswith("Mercearia Boa Esperanca")
        assert message.text.endswith(f"Ref {REF}")
        assert (message.size.encoding, message.size.segments) == ("gsm7", 1)
        email = texts.email("customer_transaction.processed", data, language)
        assert REF in email.text and REF in email.html and "Mercearia Boa Esperança" in email.subject


def test_every_sms_is_gsm7_within_two_segments_even_with_a_long_name_and_reason() -> None:
    long = {"business_name": "Cooperativa Agrícola de Produção e Comercialização " * 3, "reason": "Á ção " * 120}
    for notice in ("business_account.rejected", "business_account.suspended", "business_account.approved"):
        for language in ("pt", "en"):
            size = texts.text_message(notice, decision(notice, **long), language).size
            assert size.encoding == "gsm7" and size.segments <= sms.MAX_SEGMENTS, (notice, language)
    rejected = {**KYC, **long, "status": "rejected"}
    assert texts.text_message("kyc.rejected", rejected, "pt").size.segments <= sms.MAX_SEGMENTS
    for language in ("pt", "en"):
        message = texts.text_message("customer_transaction.processed", transaction(**long), language)
        assert message.size.encoding == "gsm7" and message.size.segments <= sms.MAX_SEGMENTS


def test_every_merchant_and_customer_string_is_escaped() -> None:
    hostile = decision("business_account.rejected", business_name=HOSTILE_NAME, reason=HOSTILE_REASON)
    hostile["contact"] = {"first_name": "<img src=x onerror=alert(1)>", "last_name": "Sitoe\r\nX"}
    messages = [
        texts.email("business_account.rejected", hostile, "pt"),
        texts.email("kyc.rejected", {**KYC, "status": "rejected", "name": "<i>Ana</i>", **hostile}, "en"),
        texts.email("customer_transaction.processed", transaction(**hostile, reference="<b>r</b>\n"), "pt"),
    ]
    for email in messages:
        assert "<script>" not in email.html and "<b>Filhos" not in email.html and "<img" not in email.html
        assert "Loja &#34;X&#34; &amp; &lt;b&gt;Filhos&lt;/b&gt;" in email.html
        for text in (email.html, email.text, email.subject):
            assert not any(char in text for char in "\x1b\x07\u202e\r"), text
        assert "\n" not in email.subject
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Bcc: victim@example.com" in messages[0].html
    assert "&lt;b&gt;r&lt;/b&gt;" in messages[2].html
    for notice in ("business_account.rejected", "business_account.suspended"):
        text = texts.text_message(notice, hostile, "pt").text
        assert not any(ord(char) < 32 or char == "\u202e" for char in text), text


# ---------------------------------------------------------------- recipients, causes, queue
def test_the_recipient_is_the_first_email_then_the_first_phone() -> None:
    assert notices.recipient({"email": "a@x.co.mz", "phone_number": "+258841234567"}) == ("email", "a@x.co.mz")
    assert notices.recipient({"phone_number": "+258841234567"}, {"phone_number": "+258820000000"}) == (
        "sms",
        "+258841234567",
    )
    assert notices.recipient({"email": None}, {"phone_number": "+258820000000"}) == ("sms", "+258820000000")
    assert notices.recipient({}, None) is None


def test_one_cause_per_decision() -> None:
    first = notices.cause("business_account.approved", decision("x", review_id="rev_1"))
    assert first == notices.cause("business_account.approved", decision("x", review_id="rev_2"))
    assert first == ("business_account.approved:acct_loja", "acct_loja")
    one = notices.cause("business_account.suspended", decision("x", review_id="rev_1"))
    again = notices.cause("business_account.suspended", decision("x", review_id="rev_2"))
    assert one != again and one[0] == "business_account.suspended:acct_loja:rev_1"
    assert notices.cause("kyc.rejected", KYC) == ("kyc.rejected:kyc_1", "kyc_1")
    assert notices.cause("customer_transaction.processed", transaction())[0] == f"customer_transaction.processed:{REF}"


def image(notice: str, data: dict[str, Any], account_id: str = BUSINESS) -> dict[str, Any]:
    return {"type": notice, "account_id": account_id, "mode": "live", "data": {"object": data}}


def test_the_outbox_queues_the_message_with_the_businesss_language(stores: World) -> None:
    sent: list[dict[str, Any]] = []
    onboarding.initialize(BUSINESS)
    onboarding.change_settings(BUSINESS, {"notification_language": "en"})
    with deps.substitute(notification_queue=SimpleNamespace(send=sent.append)):
        assert dispatch_notice(image("business_account.approved", decision("x", account_id=BUSINESS)))
        assert not dispatch_notice(image("kyc.verified", {**KYC, "contact": {}}))  # no address: nothing
        assert not dispatch_notice(image("collection_request.created", KYC))
    (message,) = sent
    assert (message["kind"], message["channel"], message["to"]) == ("notice", "email", "ana@example.co.mz")
    assert (message["cause"], message["business_language"]) == (f"business_account.approved:{BUSINESS}", "en")


def test_the_sender_writes_in_the_recipients_language_else_the_businesss(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[Any] = []
    monkeypatch.setattr(notifications, "send_once", lambda cause, subject, outgoing, **_: sent.append(outgoing))
    base = {"kind": "notice", "notice": "kyc.verified", "cause": "kyc.verified:kyc_1", "subject_id": "kyc_1"}
    base |= {"account_id": BUSINESS, "mode": "live", "channel": "sms", "to": "+258841234567", "data": KYC}
    notifications.deliver({**base, "language": None, "business_language": "en"})
    notifications.deliver({**base, "language": "pt", "business_language": "en"})
    notifications.deliver({**base, "language": None, "business_language": None})
    assert [o.text for o in sent] == [
        "Loja Central: your identity was verified.",
        "Loja Central: a sua identidade foi verificada.",
        "Loja Central: a sua identidade foi verificada.",
    ]


# ---------------------------------------------------------------- the events the use cases write
def test_each_onboarding_decision_writes_one_event(stores: World) -> None:
    onboarded(stores)  # approved
    onboarding.decide(REVIEWER, "198.51.100.7", BUSINESS, "suspend")
    onboarding.decide(REVIEWER, "198.51.100.7", BUSINESS, "reactivate")
    onboarding.decide(REVIEWER, "198.51.100.7", BUSINESS, "suspend", "Chargebacks above the limit.")
    events = stores.business_accounts.events  # type: ignore[attr-defined]
    assert [e.type for e in events] == [
        "business_account.approved",
        "business_account.suspended",
        "business_account.suspended",
    ]
    assert [e.data["object"]["reason"] for e in events] == ["", "", "Chargebacks above the limit."]
    assert events[0].data["object"]["contact"]["phone_number"] == "+258841234567"
    causes = {notices.cause(e.type, e.data["object"])[0] for e in events}
    assert len(causes) == 3  # a suspension after a reactivation is a new decision
    with pytest.raises(ServiceError):  # a second approval is refused: no second message
        onboarding.decide(REVIEWER, "198.51.100.7", BUSINESS, "approve")
    assert len(events) == 3


def test_a_kyc_outcome_writes_one_event_and_a_request_for_more_none(stores: World) -> None:
    customer = kyc.register(BUSINESS, "Ana Machava", "bi", {"email": "ana@example.co.mz", "language": "en"})
    read = kyc.customer_log(BUSINESS, customer.id)
    more = {"comment": "A clearer scan", "checklist_items": ["item_representative_id"]}
    kyc.review(BUSINESS, customer.id, read.kyclog.kyc_id, "pending", "rev-1", None, more)
    kyc.review(BUSINESS, customer.id, read.kyclog.kyc_id, "rejected", "rev-1", "Blurred BI", NOTHING_MORE)
    (event,) = deps.kyc().events  # type: ignore[attr-defined]
    assert event.type == "kyc.rejected" and event.data["object"]["reason"] == "Blurred BI"
    assert event.data["object"]["business_name"] == BUSINESS  # no onboarding details: its id
    assert event.data["object"]["contact"]["email"] == "ana@example.co.mz" and event.data["object"]["language"] == "en"


@pytest.mark.parametrize(("field", "value"), [("email", "not-an-email"), ("phone_number", "841234567")])
def test_a_customers_contact_is_checked(stores: World, field: str, value: str) -> None:
    with pytest.raises(ServiceError) as refused:
        kyc.register(BUSINESS, "Ana Machava", "bi", {field: value})
    assert refused.value.status == 400 and [e.field for e in refused.value.errors] == [field]


def test_notify_customer_writes_the_transactions_event_and_only_then(
    stores: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mzpay.cases import charges

    onboarded(stores)
    charged = {"status": "succeeded", "provider_payment_id": "01JD9Q" + "0" * 20, "failure_code": None}
    monkeypatch.setattr(charges, "create_charge", lambda *_: SimpleNamespace(**charged, failure_message=None))
    customer = kyc.register(BUSINESS, "Ana Machava", "bi").id
    wallet = {"phone_number": "+258841234567"}
    pm_id = payment_methods.add(BUSINESS, customer, "ptn_mpesa", "mobile_wallet", wallet, "test").payment_method.id

    def body(**more: Any) -> dict[str, Any]:
        given = {"transaction_type": "pay_in", "amount": 150, **more}
        return partner_schemas.TransactionIn.model_validate(given).model_dump()

    transactions.process(BUSINESS, customer, pm_id, body(), str(uuid4()))
    transactions.process(BUSINESS, customer, pm_id, body(notify_customer=False), str(uuid4()))
    assert deps.payment_methods().events == []  # type: ignore[attr-defined]  # false or absent: no message
    done = transactions.process(BUSINESS, customer, pm_id, body(notify_customer=True), str(uuid4()))
    (event,) = deps.payment_methods().events  # type: ignore[attr-defined]
    data = event.data["object"]
    assert (event.type, event.mode, data["instruction_id"]) == (
        "customer_transaction.processed",
        "test",
        done.transaction_id,
    )
    assert (data["amount"], data["status"], data["direction"]) == ("150.00", "succeeded", "in")
    assert notices.recipient(data["contact"], data["wallet"]) == ("sms", "+258841234567")
    assert data["business_name"] == "Loja Machava Lda"


def test_the_notification_language_is_pt_or_en(stores: World) -> None:
    onboarding.initialize(BUSINESS)
    assert onboarding.read_settings(BUSINESS).notification_language == "pt"
    assert onboarding.change_settings(BUSINESS, {"notification_language": "en"}).notification_language == "en"
    assert onboarding.change_settings(BUSINESS, {}).notification_language == "en"  # left out: kept
    assert onboarding.read_settings(BUSINESS).object == "account_settings"
    assert "notification_language" not in onboarding.read_account(BUSINESS).model_dump()  # the Account as before
    with pytest.raises(ValueError, match="notification_language"):
        AccountSettingsIn.model_validate({"notification_language": "fr"})


def test_a_collection_request_is_written_in_the_businesss_language_when_the_payers_is_unknown(
    stores: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mzpay.steps.notifications import dispatch_notification

    sent: list[dict[str, Any]] = []
    onboarding.initialize(BUSINESS)
    onboarding.change_settings(BUSINESS, {"notification_language": "en"})
    view = {
        "id": "cr_01KB3F9V2XQ7M8N4P5R6S7T8VW",
        "account_id": BUSINESS,
        "mode": "test",
        "amount": {"currency": "MZN", "value": "1500.50"},
        "payer": {"delivery_method": "sms", "contact": {"phone_number": "+258841234567"}},
        "invoice_metadata": {"payment_link": "https://pay.example/cr_1"},
        "biller": {"business_name": "Loja Central"},
    }
    with deps.substitute(notification_queue=SimpleNamespace(send=sent.append)):
        assert dispatch_notification({"type": "collection_request.created", "data": {"object": view}})
    (message,) = sent
    assert message["business_language"] == "en"
    outgoing: list[Any] = []
    monkeypatch.setattr(notifications, "send_once", lambda cause, subject, out, **_: outgoing.append(out))
    notifications.deliver(message)
    assert outgoing[0].text == "Loja Central: invoice for MZN 1,500.50. Pay at https://pay.example/cr_1"


# ---------------------------------------------------------------- a bill payment's token or receipt
BILL = {
    "payment_id": "5f0c6c4e-0d7e-4b8a-9f43-2b1d2c3e4f50",
    "biller_name": "EDM Credelec",
    "reference": "04000000001",
    "customer_name": "Ana Machava",
    "amount": "1250.00",
    "currency": "MZN",
    "token": "1234-5678-9012-3456-7890",
    "receipt_number": "RCP-2026-0001",
    "payer": {"email": "ana@example.co.mz", "phone_number": "+258841234567"},
}


def test_a_bill_payments_token_in_portuguese_and_english() -> None:
    pt = texts.text_message("bill_payment.succeeded", BILL, "pt")
    assert pt.text == "EDM Credelec: token 1234-5678-9012-3456-7890 para 04000000001, 1 250,00 MT. Recibo RCP-2026-0001"
    assert (pt.size.encoding, pt.size.segments) == ("gsm7", 1)
    en = texts.text_message("bill_payment.succeeded", BILL, "en")
    assert (
        en.text == "EDM Credelec: token 1234-5678-9012-3456-7890 for 04000000001, MZN 1,250.00. Receipt RCP-2026-0001"
    )
    email = texts.email("bill_payment.succeeded", BILL, "pt")
    assert email.subject == "EDM Credelec: o seu token para 04000000001"
    assert email.text.startswith(
        "Olá,\n\nO seu pagamento de 1 250,00 MT a EDM Credelec para 04000000001 foi efectuado."
    )
    assert "Titular: Ana Machava" in email.text and "Token: 1234-5678-9012-3456-7890" in email.text
    assert "Recibo: RCP-2026-0001" in email.text and "1234-5678-9012-3456-7890" in email.html


def test_a_bill_payment_without_a_token_sends_its_receipt() -> None:
    receipt = {**BILL, "token": None, "biller_name": "Águas da Região de Maputo"}
    pt = texts.text_message("bill_payment.succeeded", receipt, "pt")
    assert (
        pt.text == "Aguas da Regiao de Maputo: pagamento de 1 250,00 MT para 04000000001 recebido. Recibo RCP-2026-0001"
    )
    assert pt.size.encoding == "gsm7"
    assert texts.email("bill_payment.succeeded", receipt, "en").subject == (
        "Águas da Região de Maputo: your receipt for 04000000001"
    )
    assert "Token" not in texts.email("bill_payment.succeeded", receipt, "en").text


def test_a_bill_payment_goes_to_its_payer_once_per_payment() -> None:
    assert notices.cause("bill_payment.succeeded", BILL) == (
        f"bill_payment.succeeded:{BILL['payment_id']}",
        BILL["payment_id"],
    )
    assert notices.recipient(None, BILL["payer"]) == ("email", "ana@example.co.mz")
    assert notices.recipient(None, {"phone_number": "+258841234567"}) == ("sms", "+258841234567")

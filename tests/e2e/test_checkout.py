"""Hosted checkout over HTTP: POST /v1/payments, the payer's page and its CSRF-protected form,
cancel, and expiry (on touch and by the scheduled sweep)."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from tests.e2e.test_charges import Merchant, events_of, wallet
from tests.expected import NOTHING_MOVED_YET, problem_for

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def shop(stack: RunningStack) -> Merchant:
    return Merchant(stack)


def checkout(shop: Merchant, amount: str = "250.00", **extra: Any) -> requests.Response:
    body = {"amount": amount, "currency": "MZN", "callback_url": "https://loja.example/hooks", **extra}
    return shop.call("POST", "/v1/payments", body)


def open_page(url: str, **headers: str) -> tuple[requests.Session, str, str]:
    """The payer's browser: a session holding the page's CSRF cookie, the page, and its form token."""
    browser = requests.Session()
    browser.headers.update(headers)
    page = browser.get(url, timeout=30)
    assert page.status_code == 200 and page.headers["Content-Type"] == "text/html; charset=utf-8"
    return browser, page.text, token_in(page.text)


def token_in(page: str) -> str:
    """The CSRF token of the page's forms ("" when the page has no form)."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    return found.group(1) if found else ""


def pay(browser: requests.Session, url: str, token: str, phone: str, network: str = "mpesa") -> requests.Response:
    form = {"csrf_token": token, "network": network, "phone_number": phone}
    return browser.post(f"{url}/pay", data=form, timeout=30)


def attribute(page: str, name: str) -> str | None:
    found = re.search(rf'<main[^>]* {name}="([a-z_]+)"', page)
    return found.group(1) if found else None


def status_on(page: str) -> str:
    found = attribute(page, "data-status")
    assert found is not None
    return found


def redirected(answer: requests.Response, url: str) -> bool:
    """The post answered 303 to the checkout's page, which the browser then read (200)."""
    return [r.status_code for r in answer.history] == [303] and answer.history[0].headers["Location"] == url


def problem_page(answer: requests.Response, status: int, code: str, text: str) -> None:
    """The payer's page for a refusal: its status, its code, words for people, never JSON."""
    assert (answer.status_code, answer.headers["Content-Type"]) == (status, "text/html; charset=utf-8")
    assert (attribute(answer.text, "data-status"), attribute(answer.text, "data-code")) == ("problem", code)
    assert text in answer.text, answer.text


def test_a_checkout_answers_its_url_and_waits_for_the_payer(stack: RunningStack, shop: Merchant) -> None:
    payment_id = str(ULID())
    before = datetime.now(UTC).replace(microsecond=0)
    created = checkout(shop, payment_id=payment_id, metadata={"order": "A-17"}, return_url="https://loja.example/ok")
    body = created.json()
    pid = body["provider_payment_id"]
    assert created.status_code == 201
    assert body == {
        "payment_id": payment_id,
        "provider_payment_id": pid,
        "status": "requires_payment_method",
        "money": {"amount": "250.00", "currency": "MZN"},
        "source": None,
        "checkout_url": f"{shop.gateway}/checkout/{pid}",
        "expires_at": body["expires_at"],
        **NOTHING_MOVED_YET,
        "last_updated_at": body["last_updated_at"],
    }
    deadline = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert before + timedelta(hours=24) <= deadline <= datetime.now(UTC) + timedelta(hours=24)
    assert shop.call("GET", f"/v1/payments/{pid}").json() == body
    again = checkout(shop, payment_id=payment_id, metadata={"order": "A-17"}, return_url="https://loja.example/ok")
    assert (again.status_code, again.json()) == (201, body)  # the same Idempotency-Key is not needed
    other = checkout(shop, amount="9.00", payment_id=payment_id)
    assert other.json() == problem_for(
        409, "payment_id_reused", "This payment_id belongs to another payment (different amount or details)."
    )
    assert events_of(stack, pid) == ["payment.created"]


def test_the_payer_pays_on_the_hosted_page(stack: RunningStack, shop: Merchant) -> None:
    url = checkout(shop, description="Cabaz de Natal").json()["checkout_url"]
    pid = url.rsplit("/", 1)[1]
    browser, page, token = open_page(url)
    assert status_on(page) == "requires_payment_method" and '<html lang="pt">' in page
    assert "Pagamento a Mercearia" in page and "250,00\xa0MTn" in page and "Cabaz de Natal" in page
    assert "Modo de teste: nenhum dinheiro real é movimentado." in page

    wrong_number = pay(browser, url, token, "86 123 4567")  # an e-Mola number for M-Pesa, typed the national way
    assert wrong_number.status_code == 400
    assert (status_on(wrong_number.text), attribute(wrong_number.text, "data-notice")) == (
        "requires_payment_method",
        "phone_network",
    )
    assert (
        '<p class="alert" role="alert" id="notice">Este número não é da rede M-Pesa: os números M-Pesa começam por '
        "84 / 85. Escolha a carteira deste número ou escreva outro número.</p>"
    ) in wrong_number.text
    assert 'value="86 123 4567" aria-invalid="true" aria-describedby="notice"' in wrong_number.text
    assert shop.call("GET", f"/v1/payments/{pid}").json()["status"] == "requires_payment_method"

    browser, _, token = open_page(url)
    paid = pay(browser, url, token, "84 000 0000")
    assert (paid.status_code, status_on(paid.text), redirected(paid, url)) == (200, "succeeded", True)
    assert "Pago. Obrigado!" in paid.text
    snapshot = shop.call("GET", f"/v1/payments/{pid}").json()
    assert (snapshot["status"], snapshot["captured_amount"], snapshot["expires_at"]) == ("succeeded", "250.00", None)
    assert snapshot["source"] == wallet("+258840000000")
    assert events_of(stack, pid) == ["payment.created", "payment.succeeded"]
    page = browser.get(url, timeout=30).text
    assert status_on(page) == "succeeded" and "<form" not in page


def test_the_form_needs_its_csrf_cookie_and_token(shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    bare = requests.post(f"{url}/pay", data={"network": "mpesa", "phone_number": "+258840000000"}, timeout=30)
    problem_page(bare, 403, "csrf_missing", "Esta página esteve aberta tempo demais")
    assert f'<a class="button" href="{url}">Abrir a página de pagamento</a>' in bare.text
    browser, _, token = open_page(url, **{"Accept-Language": "en-GB,en;q=0.8"})
    forged = pay(browser, url, token[::-1], "+258840000000")
    problem_page(forged, 403, "csrf_invalid", "This page was open for too long")
    assert f'<a class="button" href="{url}">Open the payment page</a>' in forged.text
    assert shop.call("GET", f"/v1/payments/{url.rsplit('/', 1)[1]}").json()["status"] == "requires_payment_method"


def test_a_failed_payment_shows_why_on_the_page(shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    browser, _, token = open_page(url)
    failed = pay(browser, url, token, "+258840000001")
    assert (status_on(failed.text), redirected(failed, url)) == ("failed", True)
    assert "O pagamento não foi concluído." in failed.text and "O saldo não chega para este pagamento." in failed.text
    assert "<form" not in failed.text


def test_cancel_while_the_payer_has_not_paid(shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    pid = url.rsplit("/", 1)[1]
    canceled = shop.call("POST", f"/v1/payments/{pid}/cancel")
    assert (canceled.status_code, canceled.json()["status"], canceled.json()["expires_at"]) == (200, "canceled", None)
    assert shop.call("POST", f"/v1/payments/{pid}/cancel").json() == problem_for(
        409, "invalid_state", "Cannot cancel a payment that is canceled."
    )
    browser, page = requests.Session(), requests.get(url, timeout=30).text
    assert status_on(page) == "canceled" and "<form" not in page
    late = browser.post(f"{url}/pay", data={"csrf_token": "x", "network": "mpesa"}, cookies={"mzpay_csrf": "x"})
    assert (late.status_code, status_on(late.text), attribute(late.text, "data-notice")) == (409, "canceled", "state")
    assert "Este pagamento já não pode ser pago." in late.text and "O comerciante cancelou este pagamento." in late.text


def test_a_payment_waiting_for_the_payers_action_can_be_canceled(shop: Merchant) -> None:
    pid = shop.charge(wallet("+258841234567")).json()["provider_payment_id"]  # a prompt to approve
    assert shop.call("POST", f"/v1/payments/{pid}/cancel").json()["status"] == "canceled"
    succeeded = shop.charge(wallet("+258840000000")).json()["provider_payment_id"]
    assert shop.call("POST", f"/v1/payments/{succeeded}/cancel").json() == problem_for(
        409, "invalid_state", "Cannot cancel a payment that is succeeded."
    )


def test_cancel_and_pay_race_one_wins(shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    pid = url.rsplit("/", 1)[1]
    browsers = [open_page(url) for _ in range(5)]

    def attempt(index: int) -> str:
        if index % 2:
            answer = shop.call("POST", f"/v1/payments/{pid}/cancel")
            return "canceled" if answer.status_code == 200 else answer.json()["code"]
        browser, _, token = browsers[index // 2]
        answer = pay(browser, url, token, "+258840000000")
        if answer.status_code == 409 and attribute(answer.text, "data-notice") == "state":
            return "invalid_state"
        return status_on(answer.text) if answer.status_code == 200 else str(answer.status_code)

    with ThreadPoolExecutor(10) as pool:
        outcomes = list(pool.map(attempt, range(10)))
    winners = [o for o in outcomes if o in ("canceled", "succeeded")]
    assert len(winners) == 1, outcomes
    assert outcomes.count("invalid_state") == 9
    assert shop.call("GET", f"/v1/payments/{pid}").json()["status"] == winners[0]


@pytest.mark.parametrize(
    ("body", "code", "field", "message"),
    [
        ({"amount": "0.00"}, "invalid_amount", "amount", "the amount of a checkout is more than zero"),
        (
            {"amount": "-5.00"},
            "invalid_amount",
            "amount",
            "amount must be a non-negative decimal string such as '150.00'",
        ),
        ({"currency": "mzn"}, "invalid_currency", "currency", "currency must be 3 upper-case letters (ISO 4217)"),
        ({"currency": "EUR"}, "unsupported_currency", "currency", "no method takes EUR"),
        (
            {"callback_url": "ftp://x"},
            "invalid_callback_url",
            "callback_url",
            "callback_url must be an absolute http:// or https:// URL",
        ),
        ({"expires_in": 0}, "invalid_request", "expires_in", "expires_in is between 1 and 604800 seconds in test mode"),
    ],
)
def test_checkout_validation(stack: RunningStack, body: dict[str, Any], code: str, field: str, message: str) -> None:
    fresh = Merchant(stack)
    response = fresh.call("POST", "/v1/payments", {"amount": "10.00", "currency": "MZN", **body})
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert response.json()["errors"] == [
        {"field": field, "code": code if code != "invalid_request" else "invalid_value", "message": message}
    ]


def test_a_live_checkout_lasts_at_least_thirty_minutes(shop: Merchant) -> None:
    response = shop.call(
        "POST", "/v1/payments", {"amount": "10.00", "currency": "MZN", "expires_in": 60}, key=shop.live_key
    )
    assert response.json()["errors"] == [
        {
            "field": "expires_in",
            "code": "invalid_value",
            "message": "expires_in is between 1800 and 604800 seconds in live mode",
        }
    ]


def test_an_expired_checkout_is_expired_when_touched(stack: RunningStack, shop: Merchant) -> None:
    url = checkout(shop, expires_in=1).json()["checkout_url"]
    pid = url.rsplit("/", 1)[1]
    time.sleep(2.1)
    read = shop.call("GET", f"/v1/payments/{pid}").json()
    assert (read["status"], read["expires_at"]) == ("expired", None)
    assert events_of(stack, pid) == ["payment.created", "payment.expired"]
    assert status_on(requests.get(url, timeout=30).text) == "expired"


def test_the_scheduled_sweep_expires_checkouts_nobody_touches(stack: RunningStack, shop: Merchant) -> None:
    pid = checkout(shop, expires_in=1).json()["provider_payment_id"]
    table = stack.state["resources"]["mz"]["PaymentsTable"]
    deadline = time.monotonic() + 20  # the local stack plays rate(1 minute) every 5 s
    status = "requires_payment_method"
    while time.monotonic() < deadline and status != "expired":
        time.sleep(0.5)
        item = stack.aws("dynamodb").get_item(TableName=table, Key={"pk": {"S": f"PAY#{pid}"}, "sk": {"S": "PAYMENT"}})
        status = item["Item"]["status"]["S"]
    assert status == "expired"
    assert "expiry_shard" not in item["Item"]  # out of the expiry index
    assert events_of(stack, pid) == ["payment.created", "payment.expired"]


def test_the_test_toolbar_plays_the_payer_in_test_mode_only(stack: RunningStack, shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    browser, page, token = open_page(url)
    assert page.count('class="test-toolbar"') == 2
    paid = browser.post(f"{url}/test/succeed", data={"csrf_token": token}, timeout=30)
    assert (paid.status_code, status_on(paid.text), redirected(paid, url)) == (200, "succeeded", True)
    failing = checkout(shop).json()["checkout_url"]
    browser, _, token = open_page(failing)
    failed = browser.post(f"{failing}/test/fail", data={"csrf_token": token}, timeout=30)
    assert status_on(failed.text) == "failed"
    again = browser.post(f"{failing}/test/succeed", data={"csrf_token": token}, timeout=30)
    assert (again.status_code, status_on(again.text), attribute(again.text, "data-notice")) == (409, "failed", "state")

    live = shop.call("POST", "/v1/payments", {"amount": "10.00", "currency": "MZN"}, key=shop.live_key).json()
    _, page, token = open_page(live["checkout_url"])
    assert "test-toolbar" not in page and "Modo de teste" not in page and token == ""  # nothing to pay with
    forged = {"csrf_token": "x"}
    refused = requests.post(f"{live['checkout_url']}/test/succeed", data=forged, cookies={"mzpay_csrf": "x"})
    problem_page(refused, 403, "live_payment", "Não disponível para pagamentos reais")
    assert shop.call("GET", f"/v1/payments/{live['provider_payment_id']}", key=shop.live_key).json()["status"] == (
        "requires_payment_method"
    )
    unknown = checkout(shop).json()["checkout_url"]
    browser, _, token = open_page(unknown)
    exploded = browser.post(f"{unknown}/test/explode", data={"csrf_token": token}, timeout=30)
    problem_page(exploded, 404, "not_found", "Este link de pagamento não existe")


def offered(page: str) -> list[str]:
    """The ways to pay the page offers: each wallet's network, then each other method's form."""
    networks = re.findall(r'<input type="radio" name="network" value="([a-z]+)"', page)
    return networks + re.findall(r'<input type="hidden" name="method" value="([a-z_]+)">', page)


def test_english_by_accept_language_or_the_switch_which_later_posts_keep(shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    _, page, _ = open_page(url, **{"Accept-Language": "fr-FR,en;q=0.8,pt;q=0.5"})
    assert '<html lang="en">' in page and "Payment to Mercearia" in page and "MZN\xa0250.00" in page
    _, page, _ = open_page(url, **{"Accept-Language": "en;q=0.4,pt-MZ;q=0.9"})
    assert '<html lang="pt">' in page and "Pagamento a Mercearia" in page

    browser = requests.Session()
    switched = browser.get(f"{url}?lang=en", timeout=30)
    assert (switched.headers["Content-Language"], "Choose how to pay" in switched.text) == ("en", True)
    assert browser.cookies.get("mzpay_lang") == "en"
    refused = pay(browser, url, token_in(switched.text), "12")  # no Accept-Language: the switch's cookie decides
    assert refused.status_code == 400 and attribute(refused.text, "data-notice") == "phone_invalid"
    assert "This is not a Mozambican mobile number. Type its 9 digits, for example 84 123 4567." in refused.text


def test_the_page_offers_every_method_the_checkout_can_take(stack: RunningStack, shop: Merchant) -> None:
    _, page, _ = open_page(checkout(shop).json()["checkout_url"])
    assert offered(page) == ["mpesa", "emola", "mkesh", "card", "reference", "ussd", "qr", "bank_transfer"]
    dollars = shop.call("POST", "/v1/payments", {"amount": "20.00", "currency": "USD"}).json()
    _, page, _ = open_page(dollars["checkout_url"])
    assert offered(page) == ["card"] and "USD\xa020.00" not in page and "20,00\xa0US$" in page
    large = checkout(shop, amount="200000.00").json()["checkout_url"]  # over the wallets' and USSD's maximum
    _, page, _ = open_page(large)
    assert offered(page) == ["card", "reference", "bank_transfer"]

    live = shop.call("POST", "/v1/payments", {"amount": "10.00", "currency": "MZN"}, key=shop.live_key).json()
    _, page, _ = open_page(live["checkout_url"])  # nothing bound to a live provider: nothing to offer
    assert offered(page) == [] and "Este pagamento não pode ser pago online. Contacte o comerciante." in page


def test_a_payment_reference_ussd_code_and_qr_code_on_the_page(shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    pid = url.rsplit("/", 1)[1]
    browser, _, token = open_page(url)
    chosen = browser.post(f"{url}/pay", data={"csrf_token": token, "method": "reference"}, timeout=30)
    assert (status_on(chosen.text), redirected(chosen, url)) == ("requires_action", True)
    action = shop.call("GET", f"/v1/payments/{pid}").json()["next_action"]
    assert action["type"] == "display_reference"
    assert f'<dd class="entity">{action["entity"]}</dd>' in chosen.text
    assert f'<dd class="reference">{action["reference"]}</dd>' in chosen.text
    assert "Pague com esta referência" in chosen.text and "(hora de Maputo)" in chosen.text
    paid = browser.post(f"{url}/test/succeed", data={"csrf_token": token_in(chosen.text)}, timeout=30)
    assert (status_on(paid.text), shop.call("GET", f"/v1/payments/{pid}").json()["status"]) == ("succeeded",) * 2

    url = checkout(shop).json()["checkout_url"]
    browser, _, token = open_page(url)
    ussd = browser.post(f"{url}/pay", data={"csrf_token": token, "method": "ussd"}, timeout=30)
    code = shop.call("GET", f"/v1/payments/{url.rsplit('/', 1)[1]}").json()["next_action"]["ussd_code"]
    assert f'<dd class="ussd">{code}</dd>' in ussd.text
    assert f'href="tel:{code.replace("*", "%2A").replace("#", "%23")}"' in ussd.text

    url = checkout(shop).json()["checkout_url"]
    browser, _, token = open_page(url)
    qr = browser.post(f"{url}/pay", data={"csrf_token": token, "method": "qr"}, timeout=30)
    drawn = r'<img class="qr" src="data:image/svg\+xml;charset=utf-8,[^"]+" alt="Código QR para pagar 250,00'
    assert re.search(drawn, qr.text)


def test_a_test_card_on_the_page_and_what_is_refused(shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    pid = url.rsplit("/", 1)[1]
    browser, page, _ = open_page(url)
    pages = [page]

    def card(number: str, expiry: str = "12/39") -> requests.Response:
        """The card form of the last page the payer saw (each page comes with a fresh token)."""
        form = {"csrf_token": token_in(pages[-1]), "method": "card", "card_number": number, "card_expiry": expiry}
        answer = browser.post(f"{url}/pay", data=form, timeout=30)
        pages.append(answer.text)
        return answer

    not_test = card("4111 1111 1111 1111")
    assert (not_test.status_code, attribute(not_test.text, "data-notice")) == (400, "card_not_test")
    assert "4111" not in not_test.text  # a card number is never written back
    expired = card("4242 4242 4242 4242", "01/20")
    assert (expired.status_code, attribute(expired.text, "data-notice")) == (400, "card_expired")
    assert "Este cartão já expirou. Use outro cartão." in expired.text and 'value="01/20"' in expired.text
    garbled = card("4242 4242 4242 4242", "13/30")
    assert attribute(garbled.text, "data-notice") == "card_expiry"
    assert shop.call("GET", f"/v1/payments/{pid}").json()["status"] == "requires_payment_method"

    paid = card("4242 4242 4242 4242")
    assert (status_on(paid.text), redirected(paid, url)) == ("succeeded", True)
    assert shop.call("GET", f"/v1/payments/{pid}").json()["source"] == {
        "type": "card",
        "card": {"token": "tok_test_visa", "last4": "4242"},
    }

    declined_url = checkout(shop).json()["checkout_url"]
    browser, _, token = open_page(declined_url)
    form = {"csrf_token": token, "method": "card", "card_number": "4000000000000002", "card_expiry": "12/39"}
    declined = browser.post(f"{declined_url}/pay", data=form, timeout=30)
    assert status_on(declined.text) == "failed" and "O emissor do cartão recusou o pagamento." in declined.text


def test_a_method_the_page_does_not_offer_is_refused_on_the_form(shop: Merchant) -> None:
    url = shop.call("POST", "/v1/payments", {"amount": "20.00", "currency": "USD"}).json()["checkout_url"]
    browser, page, token = open_page(url)
    wallet_for_dollars = pay(browser, url, token, "84 000 0000")
    assert (wallet_for_dollars.status_code, attribute(wallet_for_dollars.text, "data-notice")) == (400, "not_offered")
    page = wallet_for_dollars.text
    for method in ("bnpl", "crypto", "x" * 5000):
        refused = browser.post(f"{url}/pay", data={"csrf_token": token_in(page), "method": method}, timeout=30)
        assert (refused.status_code, attribute(refused.text, "data-notice")) == (400, "not_offered")
        page = refused.text
    long_number = pay(browser, checkout(shop).json()["checkout_url"], token, "8" * 5000)
    assert long_number.status_code == 403  # another checkout's page: its own form needs its own token
    url = checkout(shop).json()["checkout_url"]
    browser, _, token = open_page(url)
    long_number = pay(browser, url, token, "8" * 5000)
    assert (long_number.status_code, attribute(long_number.text, "data-notice")) == (400, "phone_invalid")


def test_an_unknown_checkout_is_a_page_for_people(shop: Merchant) -> None:
    url = checkout(shop).json()["checkout_url"]
    for missing in (url[:-4] + "ZZZZ", url.rsplit("/", 1)[0] + "/not-a-ulid"):
        answer = requests.get(missing, timeout=30, headers={"Accept-Language": "en"})
        problem_page(answer, 404, "not_found", "This payment link does not exist")


def test_a_checkout_description_has_a_maximum_and_no_card_numbers(stack: RunningStack) -> None:
    fresh = Merchant(stack)
    for description, message in (
        ("x" * 501, "description must be at most 500 characters"),
        (
            "card 4242 4242 4242 4242",
            "a card number or security code is never accepted: send the acquirer's card token",
        ),
    ):
        answer = fresh.call("POST", "/v1/payments", {"amount": "10.00", "currency": "MZN", "description": description})
        assert answer.status_code == 400, answer.text
        assert answer.json()["errors"][0]["field"] == "description"
        assert answer.json()["errors"][0]["message"] == message


def test_a_receipt_once_money_has_moved_as_json_pdf_and_the_payers_page(shop: Merchant) -> None:
    import io

    from pypdf import PdfReader

    from mzpay.domain.payments.fiscal import short_number

    created = checkout(shop, description="Cabaz de Natal").json()
    url, pid = created["checkout_url"], created["provider_payment_id"]
    early = shop.call("GET", f"/v1/payments/{pid}/receipt")
    assert early.json() == problem_for(
        409, "not_receiptable", "A receipt exists once money has moved; this payment is requires_payment_method."
    )
    page = requests.get(f"{url}/receipt", timeout=30)
    problem_page(page, 409, "not_receiptable", "Ainda não há recibo")

    browser, _, token = open_page(url)
    paid = pay(browser, url, token, "84 000 0000")
    assert 'href="' + url + '/receipt">Ver o recibo</a>' in paid.text
    refund = shop.call("POST", f"/v1/payments/{pid}/refund", {"amount": {"amount": "50.00", "currency": "MZN"}})
    assert refund.json()["status"] == "succeeded"
    receipt = shop.call("GET", f"/v1/payments/{pid}/receipt")
    body = receipt.json()
    assert (receipt.status_code, receipt.headers["Content-Type"]) == (200, "application/json")
    assert body == {
        "receipt_number": f"R-{pid}",
        "short_number": short_number(pid),
        "provider_payment_id": pid,
        "payment_id": created["payment_id"],
        "mode": "test",
        "merchant": {"account_id": shop.account["id"], "name": "Mercearia"},
        "description": "Cabaz de Natal",
        "amount": {"amount": "250.00", "currency": "MZN"},
        "refunded": {"amount": "50.00", "currency": "MZN"},
        "net": {"amount": "200.00", "currency": "MZN"},
        "method": {"type": "mobile_wallet", "network": "M-Pesa", "masked": "****000"},
        "provider_reference": None,  # the simulator gives none
        "paid_at": body["paid_at"],
        "paid_at_maputo": body["paid_at_maputo"],
        "fiscal": None,  # no operator set this account's fiscal details
    }
    paid_at = datetime.fromisoformat(body["paid_at"].replace("Z", "+00:00"))
    assert body["paid_at_maputo"] == (paid_at + timedelta(hours=2)).strftime("%Y-%m-%d %H:%M")

    headers = {"Authorization": f"Bearer {shop.test_key}", "Accept": "application/pdf"}
    pdf = requests.get(f"{shop.gateway}/v1/payments/{pid}/receipt", headers=headers, timeout=30)
    assert (pdf.status_code, pdf.headers["Content-Type"], pdf.content[:5]) == (200, "application/pdf", b"%PDF-")
    assert pdf.headers["Content-Disposition"] == f'attachment; filename="recibo-{short_number(pid)}.pdf"'
    text = PdfReader(io.BytesIO(pdf.content)).pages[0].extract_text()
    for expected in ("Recibo", "Pago a", "Mercearia", "Cabaz de Natal", "250,00", "Reembolsado até agora", "M-Pesa"):
        assert expected in text, text

    page = requests.get(f"{url}/receipt", timeout=30, headers={"Accept-Language": "en"})
    assert (page.status_code, status_on(page.text)) == (200, "receipt")
    for expected in (
        "Receipt",
        '<dd class="merchant">Mercearia</dd>',
        "MZN\xa0250.00",
        "MZN\xa050.00",
        "M-Pesa ****000",
    ):
        assert expected in page.text, page.text
    assert "840000000" not in page.text and "840000000" not in text  # never the whole number

"""Charges over HTTP through the local stack: validation, every test-mode path to its end,
the lifecycle and its races, replays, tenancy and modes."""

from __future__ import annotations

import json
import re
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from tests.expected import NOTHING_MOVED_YET, problem_for
from tests.polling import eventually

pytestmark = pytest.mark.e2e


def created(answer: requests.Response) -> Any:
    """The body of an answer that must be a 201 (the test fails with the answer's text otherwise)."""
    assert answer.status_code == 201, answer.text
    return answer.json()


class Merchant:
    """A fresh account of the mz region with a test key, a live key and a read-only key."""

    def __init__(self, stack: RunningStack) -> None:
        management = stack.state["regions"]["mz"]["management"]
        operator = {"Authorization": f"Bearer {stack.state['operator_token']}"}
        self.account = requests.post(
            f"{management}/v1/accounts", json={"name": "Mercearia", "region": "mz"}, headers=operator, timeout=30
        ).json()
        keys = f"{management}/v1/accounts/{self.account['id']}/api-keys"

        def key(**body: Any) -> str:
            return requests.post(keys, json=body, headers=operator, timeout=30).json()["key"]  # type: ignore[no-any-return]

        self.test_key, self.live_key = key(mode="test"), key(mode="live")
        self.reader = key(mode="test", scopes=["payments:read"])
        self.gateway = stack.state["regions"]["mz"]["gateway"]

    def call(
        self, method: str, path: str, body: Any = None, key: str | None = None, idempotency_key: str | None = "fresh"
    ) -> requests.Response:
        headers = {"Authorization": f"Bearer {key or self.test_key}"}
        if idempotency_key is not None:
            headers["Idempotency-Key"] = str(uuid.uuid4()) if idempotency_key == "fresh" else idempotency_key
        return requests.request(method, self.gateway + path, json=body, headers=headers, timeout=30)

    def charge(
        self,
        source: dict[str, Any],
        amount: str = "150.00",
        currency: str = "MZN",
        key: str | None = None,
        **extra: Any,
    ) -> requests.Response:
        body = {
            "payment_id": str(ULID()),
            "money": {"amount": amount, "currency": currency},
            "source": source,
            "country": "MZ",
            **extra,
        }
        return self.call("POST", "/charges", body, key=key)


def wallet(phone: str, network: str = "mpesa") -> dict[str, Any]:
    return {"type": "mobile_wallet", "mobile_wallet": {"network": network, "phone_number": phone}}


def card(token: str) -> dict[str, Any]:
    return {"type": "card", "card": {"token": token}}


@pytest.fixture(scope="module")
def merchant(stack: RunningStack) -> Merchant:
    return Merchant(stack)


def resource_events(stack: RunningStack, resource_id: str) -> list[dict[str, Any]]:
    """The events recorded for one resource, oldest first."""
    items = stack.aws("dynamodb").query(
        TableName=stack.state["resources"]["mz"]["EventsTable"],
        IndexName="gsi1",
        KeyConditionExpression="gsi1pk = :r",
        ExpressionAttributeValues={":r": {"S": f"RES#{resource_id}"}},
    )["Items"]
    return sorted(items, key=lambda i: i["sk"]["S"])


def events_of(stack: RunningStack, provider_payment_id: str) -> list[str]:
    return [item["type"]["S"] for item in resource_events(stack, provider_payment_id)]


def _deadline(body: dict[str, Any], status: str) -> str | None:
    """A test payment that waits (for the payer, or a provider that timed out) shows when it
    expires; any other shows none."""
    if status in ("requires_action", "pending", "requires_payment_method"):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", body["expires_at"])
        return body["expires_at"]  # type: ignore[no-any-return]
    return None


def result(response: requests.Response, status: str, amount: str = "150.00", **fields: Any) -> dict[str, Any]:
    """The full ChargeResult expected for `response` (ids and time taken from it)."""
    body = response.json()
    expected = {
        "payment_id": body["payment_id"],
        "provider_payment_id": body["provider_payment_id"],
        "status": status,
        "money": {"amount": amount, "currency": "MZN"},
        "source": body["source"],
        "checkout_url": None,
        "expires_at": _deadline(body, status),
        **NOTHING_MOVED_YET,
        "processed_at": body["processed_at"],
    }
    return {**expected, **fields}


# ---------------------------------------------------------------- validation
VALIDATION = [
    (
        "invalid_amount",
        {"money": {"amount": 150.0, "currency": "MZN"}},
        "money.amount",
        "amount must be a decimal string such as '150.00'",
    ),
    ("invalid_amount", {"money": {"amount": "0.00", "currency": "MZN"}}, "money.amount", "amount must be above zero"),
    (
        "invalid_currency",
        {"money": {"amount": "150.00", "currency": "mzn"}},
        "money.currency",
        "currency must be 3 upper-case letters (ISO 4217)",
    ),
    (
        "unsupported_currency",
        {"money": {"amount": "150.00", "currency": "ZAR"}},
        "money.currency",
        "mobile_wallet takes MZN, not ZAR",
    ),
    (
        "missing_phone",
        {"source": {"type": "mobile_wallet", "mobile_wallet": {"network": "emola"}}},
        "source.mobile_wallet.phone_number",
        "a mobile-wallet charge needs the payer's phone_number",
    ),
    (
        "invalid_phone",
        {"source": wallet("+258841234567", "emola")},
        "source.mobile_wallet.phone_number",
        "e-Mola numbers start with +258 86 or 87",
    ),
    (
        "invalid_phone",
        {"source": wallet("841234567")},
        "source.mobile_wallet.phone_number",
        "phone_number must be in international E.164 format, e.g. +258841234567",
    ),
    (
        "invalid_phone",
        {"source": wallet("+27821234567", "mkesh")},
        "source.mobile_wallet.phone_number",
        "phone_number must be a valid Mozambican mobile number",
    ),
    (
        "amount_too_low",
        {"money": {"amount": "0.50", "currency": "MZN"}},
        "money.amount",
        "the minimum for mobile_wallet in MZN is 1.00",
    ),
    (
        "amount_too_high",
        {"money": {"amount": "125000.01", "currency": "MZN"}},
        "money.amount",
        "the maximum for mobile_wallet in MZN is 125000.00",
    ),
    (
        "invalid_callback_url",
        {"callback_url": "ftp://shop.example/hook"},
        "callback_url",
        "callback_url must be an absolute http:// or https:// URL",
    ),
    (
        "invalid_return_url",
        {"return_url": "shop.example/done"},
        "return_url",
        "return_url must be an absolute http(s) URL or a path starting with /",
    ),
    (
        "metadata_too_large",
        {"metadata": {f"k{i}": "v" for i in range(51)}},
        "metadata",
        "metadata has more than 50 keys",
    ),
    (
        "metadata_value_too_large",
        {"metadata": {"order": "x" * 501}},
        "metadata",
        "metadata keys are at most 100 characters and values at most 500 ('order' is longer)",
    ),
    (
        "invalid_card_token",
        {"source": card("card_1234")},
        "source.card.token",
        "token is not a tokenizer reference (tok_...)",
    ),
    (
        "invalid_card",
        {"source": {"type": "card", "card": {"number": "4242424242424241"}}},
        "source.card.number",
        "a card number has 13 to 19 digits and passes Luhn",
    ),
    (
        "gateway.raw_card_data_not_accepted",
        {"source": {"type": "card", "card": {"number": "4111111111111111"}}},
        "source.card.number",
        "send the acquirer's card token, never the card number",
    ),
]


@pytest.mark.parametrize(
    ("code", "change", "field", "message"), VALIDATION, ids=[v[0] + str(i) for i, v in enumerate(VALIDATION)]
)
def test_each_validation_code_names_its_field(
    merchant: Merchant, code: str, change: dict[str, Any], field: str, message: str
) -> None:
    body = {
        "payment_id": str(ULID()),
        "money": {"amount": "150.00", "currency": "MZN"},
        "source": wallet("+258841234567"),
        "country": "MZ",
        **change,
    }
    response = merchant.call("POST", "/charges", body)
    assert response.status_code == 400, response.text
    body_json = response.json()
    detail = body_json["detail"]
    assert body_json == {
        **problem_for(400, code, detail),
        "errors": [{"field": field, "code": code, "message": message}],
    }
    assert detail in (f"{field}: {message}.", f"The request has invalid fields: {field}.")


def test_a_raw_card_number_is_refused_in_live_mode_even_a_test_card(merchant: Merchant) -> None:
    response = merchant.charge({"type": "card", "card": {"number": "4242424242424242"}}, key=merchant.live_key)
    assert response.status_code == 400
    assert response.json()["code"] == "gateway.raw_card_data_not_accepted"


def test_several_failures_are_listed_under_invalid_request(merchant: Merchant) -> None:
    response = merchant.charge(wallet("+258861234567"), amount="0.10", callback_url="nope")
    assert response.status_code == 400
    assert [e["code"] for e in response.json()["errors"]] == ["invalid_callback_url"]  # field rules answer first
    response = merchant.charge(wallet("+258861234567"), amount="0.10")
    assert response.json()["code"] == "invalid_request"
    assert [(e["field"], e["code"]) for e in response.json()["errors"]] == [
        ("source.mobile_wallet.phone_number", "invalid_phone"),
        ("money.amount", "amount_too_low"),
    ]


def test_a_refused_charge_leaves_no_payment_behind(stack: RunningStack, merchant: Merchant) -> None:
    payment_id = str(ULID())
    body = {
        "payment_id": payment_id,
        "money": {"amount": "0.10", "currency": "MZN"},
        "source": wallet("+258841234567"),
        "country": "MZ",
    }
    assert merchant.call("POST", "/charges", body).status_code == 400
    body["money"]["amount"] = "10.00"
    accepted = merchant.call("POST", "/charges", body)  # the same payment_id is still free
    assert accepted.status_code == 200 and accepted.json()["payment_id"] == payment_id


# ---------------------------------------------------------------- test-mode paths to their end
def test_wallet_success_failure_and_timeout_are_decided_by_the_number(stack: RunningStack, merchant: Merchant) -> None:
    ok = merchant.charge(wallet("+258840000000"))
    assert ok.json() == result(ok, "succeeded", authorized_amount="150.00", captured_amount="150.00")
    assert events_of(stack, ok.json()["provider_payment_id"]) == ["payment.created", "payment.succeeded"]
    poor = merchant.charge(wallet("+258860000001", "emola"))
    assert poor.json() == result(
        poor, "failed", failure_code="insufficient_funds", failure_message="The payer's wallet balance is too low."
    )
    assert events_of(stack, poor.json()["provider_payment_id"]) == ["payment.created", "payment.failed"]
    declined = merchant.charge(wallet("+258820000002", "mkesh"))
    assert declined.json()["failure_code"] == "payer_declined"
    timeout = merchant.charge(wallet("+258850000003"))
    assert timeout.json() == result(timeout, "pending")
    assert events_of(stack, timeout.json()["provider_payment_id"]) == ["payment.created"]


def test_wallet_prompt_is_polled_then_completed(stack: RunningStack, merchant: Merchant) -> None:
    created = merchant.charge(wallet("+258841234567"))
    assert created.json() == result(created, "requires_action", next_action={"type": "poll", "poll_interval_secs": 5})
    pid = created.json()["provider_payment_id"]
    polled = merchant.call("GET", f"/payments/{pid}")
    assert polled.json()["status"] == "requires_action" and "last_updated_at" in polled.json()
    done = merchant.call("POST", f"/charges/{pid}/complete-action")
    assert done.json() == result(done, "succeeded", authorized_amount="150.00", captured_amount="150.00")
    snapshot = merchant.call("GET", f"/v1/payments/{pid}").json()
    assert snapshot == {
        **{k: v for k, v in done.json().items() if k != "processed_at"},
        "last_updated_at": done.json()["processed_at"],
    }
    again = merchant.call("POST", f"/charges/{pid}/complete-action")
    assert again.json() == problem_for(409, "invalid_state", "Cannot complete action a payment that is succeeded.")


def test_card_3ds_redirect_then_completed(merchant: Merchant) -> None:
    created = merchant.charge(card("tok_test_3ds"), return_url="/checkout/done")
    pid = created.json()["provider_payment_id"]
    assert created.json()["next_action"] == {
        "type": "redirect_to_url",
        "redirect_url": f"https://simulator.test.mzpay.example/3ds/{pid}",
        "return_url": "/checkout/done",
    }
    done = merchant.call("POST", f"/charges/{pid}/complete-action")
    assert (done.json()["status"], done.json()["captured_amount"]) == ("succeeded", "150.00")


def test_card_otp_needs_the_right_code(merchant: Merchant) -> None:
    created = merchant.charge(card("tok_test_otp"))
    pid = created.json()["provider_payment_id"]
    assert created.json()["next_action"] == {
        "type": "display_otp_form",
        "otp_hint": "Enter the 6-digit code sent by SMS",
        "otp_length": 6,
        "masked_dest": "+258 84 *** **67",
    }
    missing = merchant.call("POST", f"/charges/{pid}/complete-action")
    assert missing.json() == problem_for(400, "missing_otp", "This payment waits for the OTP the payer received.")
    wrong = merchant.call("POST", f"/charges/{pid}/complete-action", {"otp": "000000"})
    assert wrong.json() == problem_for(422, "invalid_otp", "The OTP does not match.")
    right = merchant.call("POST", f"/charges/{pid}/complete-action", {"otp": "123456"})
    assert right.json()["status"] == "succeeded"


@pytest.mark.parametrize(
    ("token", "code", "message"),
    [
        ("tok_test_insufficient_funds", "insufficient_funds", "The card has insufficient funds."),
        ("tok_test_declined", "card_declined", "The issuer declined the card."),
    ],
)
def test_card_failures_carry_their_outcome_code(merchant: Merchant, token: str, code: str, message: str) -> None:
    response = merchant.charge(card(token))
    assert response.json() == result(response, "failed", failure_code=code, failure_message=message)


def test_a_test_card_number_becomes_its_token_and_is_never_kept(stack: RunningStack, merchant: Merchant) -> None:
    response = merchant.charge({"type": "card", "card": {"number": "4242 4242 4242 4242"}})
    assert response.json()["status"] == "succeeded"
    assert response.json()["source"] == {"type": "card", "card": {"token": "tok_test_visa", "last4": "4242"}}
    assert events_of(stack, response.json()["provider_payment_id"]) == [
        "payment.created",
        "transaction.card.tokenized",
        "payment.succeeded",
    ]


def test_authorize_then_partial_capture(merchant: Merchant) -> None:
    created = merchant.charge(card("tok_test_authorize"))
    assert created.json() == result(created, "authorized", authorized_amount="150.00")
    pid = created.json()["provider_payment_id"]
    too_much = merchant.call("POST", f"/charges/{pid}/capture", {"amount": {"amount": "150.01", "currency": "MZN"}})
    assert too_much.status_code == 400 and too_much.json()["code"] == "invalid_amount"
    captured = merchant.call("POST", f"/charges/{pid}/capture", {"amount": {"amount": "100.00", "currency": "MZN"}})
    assert captured.json() == result(captured, "succeeded", authorized_amount="150.00", captured_amount="100.00")
    void = merchant.call("POST", f"/charges/{pid}/void")
    assert void.json() == problem_for(409, "invalid_state", "Cannot void a payment that is succeeded.")


def test_a_capture_with_a_bare_amount_is_told_the_body_shape(merchant: Merchant) -> None:
    """{"amount": "60.00"} is the near miss of a capture: the answer names the object expected
    and shows a capture's body, in the service's words; the payment stays authorized."""
    pid = merchant.charge(card("tok_test_authorize")).json()["provider_payment_id"]
    bare = merchant.call("POST", f"/charges/{pid}/capture", {"amount": "60.00"})
    example = '{"amount": {"amount": "60.00", "currency": "MZN"}}'
    assert bare.json() == problem_for(
        400,
        "invalid_request",
        f"The request has invalid fields: amount. A body of this request looks like {example}.",
        errors=[
            {
                "field": "amount",
                "code": "invalid_type",
                "message": "amount must be an object with the fields amount (required) and currency, "
                'e.g. {"amount": "60.00", "currency": "MZN"}',
            }
        ],
    )
    assert merchant.call("GET", f"/payments/{pid}").json()["status"] == "authorized"


def test_authorize_then_void(merchant: Merchant) -> None:
    pid = merchant.charge(card("tok_test_authorize")).json()["provider_payment_id"]
    voided = merchant.call("POST", f"/charges/{pid}/void")
    assert voided.json() == result(voided, "canceled", authorized_amount="150.00")
    capture = merchant.call("POST", f"/charges/{pid}/capture")
    assert capture.json() == problem_for(409, "invalid_state", "Cannot capture a payment that is canceled.")


def test_open_amount_the_payer_chooses_within_bounds(merchant: Merchant) -> None:
    created = merchant.charge(
        wallet("+258841234567"),
        amount="0.00",
        open_amount=True,
        min_amount="10.00",
        max_amount="500.00",
        suggested_amounts=["50.00", "100.00"],
    )
    assert created.json()["status"] == "requires_action"
    assert created.json()["next_action"]["type"] == "redirect_to_url"
    pid = created.json()["provider_payment_id"]
    outside = merchant.call("POST", f"/charges/{pid}/complete-action", {"amount": "600.00"})
    assert outside.status_code == 400 and outside.json()["code"] == "invalid_amount"
    done = merchant.call("POST", f"/charges/{pid}/complete-action", {"amount": "75.50"})
    assert (done.json()["status"], done.json()["money"], done.json()["captured_amount"]) == (
        "succeeded",
        {"amount": "75.50", "currency": "MZN"},
        "75.50",
    )


# ---------------------------------------------------------------- determinism, replays, races
def test_the_same_inputs_give_the_same_outcome(merchant: Merchant) -> None:
    outcomes = {(merchant.charge(card("tok_test_declined")).json()["failure_code"]) for _ in range(3)}
    assert outcomes == {"card_declined"}


def test_a_payment_id_replay_returns_the_original_and_another_body_is_refused(merchant: Merchant) -> None:
    body = {
        "payment_id": str(ULID()),
        "money": {"amount": "20.00", "currency": "MZN"},
        "source": wallet("+258840000000"),
        "country": "MZ",
    }
    first = merchant.call("POST", "/charges", body)
    again = merchant.call("POST", "/charges", body)  # another Idempotency-Key, same payment_id
    assert again.json() == first.json()
    body["money"]["amount"] = "21.00"
    other = merchant.call("POST", "/charges", body)
    assert other.json() == problem_for(
        409, "payment_id_reused", "This payment_id belongs to another charge (different amount, source or details)."
    )


def test_twenty_concurrent_identical_charges_make_one_payment(stack: RunningStack, merchant: Merchant) -> None:
    body = {
        "payment_id": str(ULID()),
        "money": {"amount": "30.00", "currency": "MZN"},
        "source": wallet("+258840000000"),
        "country": "MZ",
    }
    with ThreadPoolExecutor(20) as pool:
        answers = list(
            pool.map(
                lambda i: merchant.call(
                    "POST", "/charges", body, idempotency_key=f"same-{body['payment_id']}" if i % 2 else "fresh"
                ),
                range(20),
            )
        )
    # On a busy machine a storage conflict may answer 503 service_unavailable (Retry-After): the
    # client retries with the same key, and the retry finishes the same payment, never a second.
    for i, answer in enumerate(answers):
        if answer.status_code == 503:
            assert answer.json()["code"] == "service_unavailable" and answer.headers["Retry-After"], answer.text
            key = f"same-{body['payment_id']}" if i % 2 else "fresh"
            answers[i] = eventually(
                lambda key=key: merchant.call("POST", "/charges", body, idempotency_key=key),
                lambda again: again.status_code not in (409, 503),
                timeout=120,
            )
    ok = [a for a in answers if a.status_code == 200]
    assert {a.json()["provider_payment_id"] for a in ok} == {ok[0].json()["provider_payment_id"]}
    refused = [
        (a.status_code, a.json().get("code") if "json" in a.headers.get("content-type", "") else a.text[:200])
        for a in answers
        if a.status_code != 200
    ]
    assert set(refused) <= {(409, "request_in_progress")}, refused
    assert events_of(stack, ok[0].json()["provider_payment_id"]).count("payment.created") == 1


def test_ten_concurrent_void_and_capture_one_wins(merchant: Merchant) -> None:
    pid = merchant.charge(card("tok_test_authorize")).json()["provider_payment_id"]
    with ThreadPoolExecutor(10) as pool:
        answers = list(
            pool.map(lambda i: merchant.call("POST", f"/charges/{pid}/{'void' if i % 2 else 'capture'}"), range(10))
        )
    winners = [a for a in answers if a.status_code == 200]
    assert len(winners) == 1
    assert all(a.status_code == 409 and a.json()["code"] == "invalid_state" for a in answers if a.status_code != 200)
    final = merchant.call("GET", f"/payments/{pid}").json()
    assert final["status"] == winners[0].json()["status"] in ("succeeded", "canceled")


# ---------------------------------------------------------------- access rules on payments
def test_money_moving_posts_need_an_idempotency_key(merchant: Merchant) -> None:
    body = {
        "payment_id": str(ULID()),
        "money": {"amount": "20.00", "currency": "MZN"},
        "source": wallet("+258840000000"),
        "country": "MZ",
    }
    response = merchant.call("POST", "/charges", body, idempotency_key=None)
    assert response.json() == problem_for(
        400, "idempotency_key_required", "This request needs an Idempotency-Key header."
    )


def test_a_read_only_key_cannot_charge(merchant: Merchant) -> None:
    response = merchant.charge(wallet("+258840000000"), key=merchant.reader)
    assert response.json() == problem_for(
        403, "insufficient_scope", "This API key lacks the scope payments:write.", missing_scope="payments:write"
    )


def test_another_accounts_payment_is_not_found_and_the_other_mode_is_wrong_environment(
    stack: RunningStack, merchant: Merchant
) -> None:
    pid = merchant.charge(wallet("+258840000000")).json()["provider_payment_id"]
    stranger = Merchant(stack)
    assert stranger.call("GET", f"/payments/{pid}").json() == problem_for(404, "not_found", "No such payment.")
    live = merchant.call("GET", f"/payments/{pid}", key=merchant.live_key)
    assert live.json() == problem_for(401, "wrong_environment", "A live key cannot reach test data; use a test key.")


def test_live_charges_need_a_bound_connector(merchant: Merchant) -> None:
    response = merchant.charge(wallet("+258840000000"), key=merchant.live_key)
    assert response.json() == problem_for(
        409,
        "no_connector_binding",
        "No live connector is bound to this account for this method; ask your operator to bind one.",
    )


def test_methods_lists_networks_currencies_and_limits(merchant: Merchant) -> None:
    methods = merchant.call("GET", "/methods").json()["methods"]
    assert methods[0] == {
        "method": "mobile_wallet",
        "networks": ["mpesa", "emola", "mkesh"],
        "currencies": ["MZN"],
        "limits": {"MZN": {"min_amount": "1.00", "max_amount": "125000.00"}},
    }
    assert methods[1]["currencies"] == ["MZN", "USD"]


# ---------------------------------------------------------------- routing refusals
def rejections(stack: RunningStack, rejection_id: str) -> list[dict[str, Any]]:
    return [
        {
            "type": i["type"]["S"],
            "code": i["data"]["M"]["object"]["M"]["code"]["S"],
            "rule": i["data"]["M"]["object"]["M"]["rule"]["S"],
        }
        for i in resource_events(stack, rejection_id)
    ]


def test_a_routing_refusal_is_recorded_and_creates_no_payment(stack: RunningStack, merchant: Merchant) -> None:
    payment_id = str(ULID())
    body = {
        "payment_id": payment_id,
        "money": {"amount": "150.00", "currency": "MZN"},
        "source": card("tok_test_visa"),
        "country": "ZA",
    }
    response = merchant.call("POST", "/charges", body)
    rejection_id = response.json()["rejection_id"]
    assert response.json() == problem_for(
        422, "not_supported", "No PSP carries card for country ZA.", rule="country", rejection_id=rejection_id
    )
    assert rejections(stack, rejection_id) == [
        {"type": "transaction.rejected", "code": "not_supported", "rule": "country"}
    ]
    body["country"] = "MZ"
    accepted = merchant.call("POST", "/charges", body)  # the payment_id was never used
    assert (accepted.status_code, accepted.json()["payment_id"]) == (200, payment_id)


def test_a_live_charge_over_the_routing_maximum_is_limit_exceeded(merchant: Merchant) -> None:
    response = merchant.charge(card("tok_live_0000000001"), amount="6000.00", currency="USD", key=merchant.live_key)
    assert response.json() == problem_for(
        422,
        "limit_exceeded",
        "The routing maximum for this charge is 5000.00 USD.",
        rule="routing_max",
        rejection_id=response.json()["rejection_id"],
    )


def test_when_no_psp_is_available_the_charge_is_no_route(stack: RunningStack, merchant: Merchant) -> None:
    management = stack.state["regions"]["mz"]["management"]
    operator = {"Authorization": f"Bearer {stack.state['operator_token']}"}
    url = f"{management}/v1/psps/simulator/availability"
    down = requests.put(url, json={"available": False, "reason": "maintenance"}, headers=operator, timeout=30)
    assert (down.status_code, down.json()["available"], down.json()["reason"]) == (200, False, "maintenance")
    try:
        response = merchant.charge(wallet("+258840000000"))
        assert (response.status_code, response.headers["Retry-After"]) == (503, "30")
        assert response.json() == problem_for(
            503,
            "no_route",
            "No eligible PSP is available right now; retry later with the same Idempotency-Key.",
            rule="availability",
            rejection_id=response.json()["rejection_id"],
        )
    finally:
        requests.put(url, json={"available": True}, headers=operator, timeout=30)
    assert merchant.charge(wallet("+258840000000")).json()["status"] == "succeeded"
    listed = requests.get(f"{management}/v1/psps", headers=operator, timeout=30).json()["psps"]
    assert [(p["psp_id"], p["available"]) for p in listed] == [
        ("simulator", True),
        ("vodacom-mpesa", True),
        ("movitel-emola", True),
        ("tmcel-mkesh", True),
        ("bci-cards", True),
    ]
    unknown = requests.put(
        f"{management}/v1/psps/nope/availability", json={"available": True}, headers=operator, timeout=30
    )
    assert unknown.json() == problem_for(404, "not_found", "No such PSP.")


# ---------------------------------------------------------------- account ceilings
def set_limits(stack: RunningStack, merchant: Merchant, **limits: Any) -> dict[str, Any]:
    management = stack.state["regions"]["mz"]["management"]
    response = requests.put(
        f"{management}/v1/accounts/{merchant.account['id']}/limits",
        json={"mode": "test", **limits},
        headers={"Authorization": f"Bearer {stack.state['operator_token']}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def refusal(response: requests.Response, rule: str, detail: str) -> None:
    assert response.json() == problem_for(
        422, "limit_exceeded", detail, rule=rule, rejection_id=response.json()["rejection_id"]
    )


def test_an_account_limited_to_some_currencies_refuses_others(stack: RunningStack) -> None:
    shop = Merchant(stack)
    assert set_limits(stack, shop, currencies=["MZN"]) == {
        "account_id": shop.account["id"],
        "mode": "test",
        "currencies": ["MZN"],
        "per_transaction": {},
        "daily": {},
    }
    refusal(
        shop.charge(card("tok_test_visa"), currency="USD"), "key_currency", "This account may charge in MZN, not USD."
    )
    assert shop.charge(card("tok_test_visa")).json()["status"] == "succeeded"


def test_the_per_transaction_ceiling(stack: RunningStack) -> None:
    shop = Merchant(stack)
    set_limits(stack, shop, per_transaction={"MZN": "100.00"})
    refusal(
        shop.charge(wallet("+258840000000"), amount="100.01"),
        "per_transaction",
        "The per-transaction ceiling of this account is 100.00 MZN.",
    )
    assert shop.charge(wallet("+258840000000"), amount="100.00").json()["status"] == "succeeded"


def test_the_daily_ceiling_counts_only_what_payments_take(stack: RunningStack) -> None:
    shop = Merchant(stack)
    set_limits(stack, shop, daily={"MZN": "100.00"})
    daily = "The daily ceiling of this account (100.00 MZN) would be exceeded."
    assert shop.charge(wallet("+258840000000"), amount="40.00").json()["status"] == "succeeded"  # 40
    assert shop.charge(wallet("+258840000001"), amount="30.00").json()["status"] == "failed"  # given back
    held = shop.charge(card("tok_test_authorize"), amount="50.00").json()  # 90 reserved
    refusal(shop.charge(wallet("+258840000000"), amount="20.00"), "daily", daily)
    pid = held["provider_payment_id"]
    captured = shop.call("POST", f"/charges/{pid}/capture", {"amount": {"amount": "30.00"}})
    assert captured.json()["captured_amount"] == "30.00"  # 20 given back: 70
    assert shop.charge(wallet("+258840000000"), amount="30.00").json()["status"] == "succeeded"  # 100
    refusal(shop.charge(wallet("+258840000000"), amount="1.00"), "daily", daily)
    refusal(shop.charge(wallet("+258840000000"), amount="100.01"), "daily", daily)


def test_a_voided_authorization_gives_its_reservation_back(stack: RunningStack) -> None:
    shop = Merchant(stack)
    set_limits(stack, shop, daily={"MZN": "100.00"})
    pid = shop.charge(card("tok_test_authorize"), amount="100.00").json()["provider_payment_id"]
    refusal(
        shop.charge(wallet("+258840000000"), amount="10.00"),
        "daily",
        "The daily ceiling of this account (100.00 MZN) would be exceeded.",
    )
    assert shop.call("POST", f"/charges/{pid}/void").json()["status"] == "canceled"
    assert shop.charge(wallet("+258840000000"), amount="100.00").json()["status"] == "succeeded"


def test_concurrent_charges_never_pass_the_daily_ceiling(stack: RunningStack) -> None:
    shop = Merchant(stack)
    set_limits(stack, shop, daily={"MZN": "100.00"})
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda _: shop.charge(wallet("+258840000000"), amount="20.00"), range(10)))
    succeeded = [a for a in answers if a.status_code == 200]
    refused = [a for a in answers if a.status_code == 422]
    assert (len(succeeded), len(refused)) == (5, 5)
    assert all(a.json()["status"] == "succeeded" for a in succeeded)
    assert {(a.json()["code"], a.json()["rule"]) for a in refused} == {("limit_exceeded", "daily")}


def test_limits_are_validated(stack: RunningStack) -> None:
    shop = Merchant(stack)
    management = stack.state["regions"]["mz"]["management"]
    response = requests.put(
        f"{management}/v1/accounts/{shop.account['id']}/limits",
        json={"mode": "test", "daily": {"MZN": "-5"}},
        headers={"Authorization": f"Bearer {stack.state['operator_token']}"},
        timeout=30,
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"field": "daily", "code": "invalid_amount", "message": "ceilings are positive decimal strings"}
    ]


# ---------------------------------------------------------------- the other methods
def test_a_payment_reference_is_valid_for_its_amount_and_is_paid_at_the_atm(merchant: Merchant) -> None:
    from decimal import Decimal

    from mzpay.domain.payments.references import reference_valid

    created = merchant.charge({"type": "reference"}, amount="1250.00")
    action = created.json()["next_action"]
    assert created.json()["status"] == "requires_action"
    assert set(action) == {"type", "entity", "reference", "expires_at"}
    assert (action["type"], action["entity"]) == ("display_reference", "21000")
    assert re.fullmatch(r"\d{11}", action["reference"])
    assert reference_valid("21000", action["reference"], Decimal("1250.00"))
    assert not reference_valid("21000", action["reference"], Decimal("1250.01"))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", action["expires_at"])
    paid = merchant.call("POST", f"/charges/{created.json()['provider_payment_id']}/complete-action")
    assert (paid.json()["status"], paid.json()["captured_amount"]) == ("succeeded", "1250.00")


@pytest.mark.parametrize(
    ("method", "action_type", "fields"),
    [
        ("ussd", "display_ussd_code", {"type", "ussd_code", "expires_at"}),
        ("qr", "display_qr_code", {"type", "qr_code_url", "qr_code_data", "expires_at"}),
        ("bank_transfer", "redirect_to_url", {"type", "redirect_url", "return_url"}),
        ("bnpl", "redirect_to_url", {"type", "redirect_url", "return_url", "bnpl_provider"}),
    ],
)
def test_each_method_says_what_the_payer_does_then_succeeds(
    merchant: Merchant, method: str, action_type: str, fields: set[str]
) -> None:
    created = merchant.charge({"type": method}, amount="800.00", return_url="/thanks")
    action = created.json()["next_action"]
    assert (created.json()["status"], action["type"], set(action)) == ("requires_action", action_type, fields)
    done = merchant.call("POST", f"/charges/{created.json()['provider_payment_id']}/complete-action")
    assert done.json()["status"] == "succeeded"


@pytest.mark.parametrize("method", ["reference", "ussd", "qr", "bank_transfer", "bnpl"])
def test_methods_only_the_simulator_carries_are_not_live(merchant: Merchant, method: str) -> None:
    response = merchant.charge({"type": method}, amount="800.00", key=merchant.live_key)
    assert response.json() == problem_for(
        422,
        "not_supported",
        f"{method} is not live yet.",
        rule="method_not_live",
        rejection_id=response.json()["rejection_id"],
    )


def test_bnpl_has_its_own_minimum(merchant: Merchant) -> None:
    response = merchant.charge({"type": "bnpl"}, amount="100.00")
    assert response.json()["code"] == "amount_too_low"
    assert response.json()["detail"] == "money.amount: the minimum for bnpl in MZN is 500.00."


# ---------------------------------------------------------------- risk stage
def test_the_risk_stage_declines_the_documented_test_number(stack: RunningStack, merchant: Merchant) -> None:
    response = merchant.charge(wallet("+258849999999"))
    rejection_id = response.json()["rejection_id"]
    assert response.json() == problem_for(
        422, "risk_declined", "The charge was declined by the risk checks.", rule="risk", rejection_id=rejection_id
    )
    assert rejections(stack, rejection_id) == [
        {"type": "transaction.rejected", "code": "risk_declined", "rule": "risk"}
    ]


def test_live_velocity_per_phone_declines_the_sixth_attempt(stack: RunningStack) -> None:
    shop = Merchant(stack)
    phone = "+25884" + str(ULID())[-7:].translate(str.maketrans("ABCDEFGHJKMNPQRSTVWXYZ", "0123456789012345678901"))
    answers = [shop.charge(wallet(phone), key=shop.live_key).json()["code"] for _ in range(6)]
    assert answers == ["no_connector_binding"] * 5 + ["risk_declined"]
    other_phone = shop.charge(wallet("+258851234567"), key=shop.live_key)
    assert other_phone.json()["code"] == "no_connector_binding"  # velocity is per phone


RAW_CARD = "4111111111111111"
RAW_CARD_MESSAGE = "a card number is never accepted here: send the acquirer's card token"


@pytest.mark.parametrize(
    "card_fields",
    [
        {"number": RAW_CARD, "exp_month": 12, "exp_year": 2030, "cvc": "123"},
        {"number": RAW_CARD, "exp_month": 12, "exp_year": 2030, "holder_name": "Ana Machava"},
        {"token": "tok_test_visa", "cvv": "123"},
        {"pan": RAW_CARD, "exp_month": "12"},
    ],
    ids=["number-with-cvc", "number-with-expiry", "token-with-cvv", "pan-field"],
)
def test_raw_card_data_is_refused_first_whatever_its_neighbours(
    stack: RunningStack, merchant: Merchant, card_fields: dict[str, Any]
) -> None:
    payment_id = str(ULID())
    body = {
        "payment_id": payment_id,
        "money": {"amount": "150.00", "currency": "MZN"},
        "source": {"type": "card", "card": card_fields},
        "country": "MZ",
    }
    for key in (merchant.test_key, merchant.live_key):
        response = merchant.call("POST", "/charges", body, key=key)
        assert response.status_code == 400, response.text
        code = "gateway.raw_card_data_not_accepted"
        field = "source.card.number" if "cvc" not in card_fields and "number" in card_fields else "source.card"
        message = (
            "send the acquirer's card token, never the card number" if field.endswith("number") else RAW_CARD_MESSAGE
        )
        assert response.json()["code"] == code
        assert response.json()["errors"] == [{"field": field, "code": code, "message": message}]
        assert RAW_CARD not in response.text and "123" not in response.text.replace("req_", "")
    stored = json.dumps(stack.aws("dynamodb").scan(TableName=stack.state["resources"]["mz"]["PaymentsTable"])["Items"])
    assert RAW_CARD not in stored
    assert RAW_CARD not in stack.log() and RAW_CARD not in stack.function_log()


def test_a_documented_test_card_with_its_expiry_passes_in_test_mode(merchant: Merchant) -> None:
    source = {"type": "card", "card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2030}}
    response = merchant.charge(source)
    assert response.status_code == 200, response.text
    assert response.json()["source"] == {"type": "card", "card": {"token": "tok_test_visa", "last4": "4242"}}

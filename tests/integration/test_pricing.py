"""The service's fee against in-process moto with the stack of template.yaml: operators set an
account's schedule through the management API (audited; bad input 400 naming the field, nothing
stored; only the operator's credential passes the authorizer), and a capture writes the capture's
entry and the service fee's own entry with one balance update, the fee kept on the payment so a
later schedule never changes it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import boto3
import pytest
from ulid import ULID

from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import access, charges, refunds
from mzpay.domain.access.keys import generate_key
from mzpay.domain.access.principal import Principal
from mzpay.domain.operators.audit import AuditFilter
from mzpay.domain.payments.charges import ChargeRequest
from tests.events import authorizer_event, rest_event
from tests.integration.support import function_app, provisioned_stack

OPERATOR_TOKEN = "op-token-0123456789abcdef"
MPESA = {"method": "mpesa", "currency": "MZN", "percent": "1.5", "fixed": "0.50", "minimum": "1.00", "maximum": "50.00"}
CARD = {"method": "card", "currency": "MZN", "percent": "2.9", "fixed": "5.00"}


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProvisionedStack]:
    with provisioned_stack() as provisioned:
        for function in ("GatewayPaymentsFunction", "GatewayRefundsFunction", "ManagementAccountsFunction"):
            for name, value in provisioned.functions[function].environment.items():
                monkeypatch.setenv(name, value)
        monkeypatch.setenv("OPERATOR_IP_ALLOWLIST", "")
        deps.reset()
        yield provisioned
        deps.reset()


@pytest.fixture
def management(stack: ProvisionedStack) -> Any:
    return function_app("management_accounts", "management_accounts_pricing").lambda_handler


def operator_call(handler: Any, method: str, account_id: str, body: Any = None) -> tuple[int, Any]:
    path = f"/v1/accounts/{account_id}/pricing"
    event = rest_event(
        method,
        path,
        headers={"Content-Type": "application/json"},
        body=json.dumps(body) if body is not None else None,
        resource="/v1/accounts/{account_id}/pricing",
        path_parameters={"account_id": account_id},
        context={
            "requestId": "r-1",
            "stage": "prod",
            "identity": {"sourceIp": "198.51.100.7"},
            "authorizer": {"role": "operator", "operator": "ana", "source_ip": "198.51.100.7"},
        },
    )
    answer = handler(event, None)
    return answer["statusCode"], json.loads(answer["body"])


def new_account() -> str:
    return access.create_account("Loja Pricing", "mz").id


def merchant(account_id: str) -> Principal:
    scopes = frozenset({"payments:write", "payments:read", "refunds:write", "balance:read"})
    return Principal(account_id, "test", scopes, "01JKEY00000000000000000000", frozenset(), None, account_id)


def charge(account_id: str, source: dict[str, Any], amount: str = "150.00") -> Any:
    body = {
        "payment_id": str(ULID()),
        "money": {"amount": amount, "currency": "MZN"},
        "source": source,
        "country": "MZ",
    }
    return charges.create_charge(merchant(account_id), ChargeRequest.model_validate(body))


WALLET = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": "+258840000000"}}


def entries(account_id: str) -> list[dict[str, Any]]:
    return [
        {key: item[key] for key in ("kind", "resource_id", "legs")}
        for item in deps.ledger().entries(account_id, "test", "MZN")
    ]


def test_an_operator_sets_an_accounts_schedule_and_reads_it_back_audited(management: Any) -> None:
    account_id, other = new_account(), new_account()
    assert operator_call(management, "GET", account_id) == (
        200,
        {"account_id": account_id, "default": True, "fees": [], "updated_at": None},
    )
    status, body = operator_call(management, "PUT", account_id, {"fees": [MPESA, CARD]})
    assert status == 200, body
    shown_card = CARD | {"minimum": "0.00", "maximum": None}
    assert body == {
        "account_id": account_id,
        "default": False,
        "fees": [MPESA, shown_card],
        "updated_at": body["updated_at"],
    }
    assert operator_call(management, "GET", account_id) == (200, body)
    assert operator_call(management, "GET", other)[1]["default"] is True  # another account is not touched
    records, _ = deps.audit_trail().page(AuditFilter(account_id=account_id), 10, None)
    (record,) = [r.public() for r in records]
    assert (record["actor"]["id"], record["action"], record["target"], record["outcome"]) == (
        "ana",
        "set_fee_schedule",
        {"type": "fee_schedule", "id": account_id},
        {"status": 200, "code": None},
    )
    assert (record["before"]["default"], record["after"]["fees"], record["request"]) == (
        True,
        [MPESA, shown_card],
        {"fees": [MPESA, CARD]},
    )


@pytest.mark.parametrize(
    ("rule", "field"),
    [
        (MPESA | {"percent": "101"}, "fees.0.percent"),
        (MPESA | {"fixed": "-1.00"}, "fees.0.fixed"),
        (MPESA | {"minimum": "60.00"}, "fees.0.maximum"),
        (MPESA | {"method": "pix"}, "fees.0.method"),
        (MPESA | {"maximum": "9" * 40}, "fees.0.maximum"),
    ],
)
def test_a_bad_schedule_is_400_naming_the_field_and_nothing_is_stored(
    management: Any, rule: dict[str, Any], field: str
) -> None:
    account_id = new_account()
    status, body = operator_call(management, "PUT", account_id, {"fees": [rule]})
    assert (status, body["code"], [error["field"] for error in body["errors"]]) == (400, "invalid_request", [field])
    assert operator_call(management, "GET", account_id)[1]["default"] is True
    assert deps.fee_schedules().read(account_id).updated_at is None


def test_an_unknown_account_is_404_and_gets_no_schedule(management: Any) -> None:
    missing = str(ULID())
    status, body = operator_call(management, "PUT", missing, {"fees": [MPESA]})
    assert (status, body["code"]) == (404, "not_found")
    assert deps.fee_schedules().read(missing).updated_at is None


def test_only_the_operators_credential_passes_the_management_authorizer(
    stack: ProvisionedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    arn = boto3.client("secretsmanager", region_name="af-south-1").create_secret(
        Name="operator-pricing", SecretString=OPERATOR_TOKEN
    )["ARN"]
    monkeypatch.setenv("OPERATOR_TOKEN_SECRET_ARN", arn)
    deps.reset()
    authorize = function_app("management_authorizer", "management_authorizer_pricing").lambda_handler
    path = "/v1/accounts/01JACCOUNT0000000000000000/pricing"
    business_token = "eyJhbGciOiJSUzI1NiJ9.eyJhY2NvdW50X2lkIjoiYml6In0.c2lnbmF0dXJl"  # a collection token's shape
    for credential in (generate_key("test"), generate_key("live"), business_token):
        with pytest.raises(Exception, match=r"^Unauthorized$"):
            authorize(authorizer_event("PUT", path, f"Bearer {credential}", "198.51.100.7"), None)
    allowed = authorize(authorizer_event("PUT", path, f"Bearer {OPERATOR_TOKEN}", "198.51.100.7"), None)
    assert allowed["context"]["role"] == "operator"


def test_a_capture_writes_its_entry_and_the_service_fees_own_entry_with_one_balance_update(
    management: Any,
) -> None:
    account_id, other = new_account(), new_account()
    assert operator_call(management, "PUT", account_id, {"fees": [MPESA, CARD]})[0] == 200
    paid = charge(account_id, WALLET)  # 1.5% of 150.00 + 0.50 = 2.75
    assert (paid.status, paid.fees.model_dump() if paid.fees else None) == (
        "succeeded",
        {"provider": "0.00", "service": "2.75"},
    )
    pid = paid.provider_payment_id
    assert entries(account_id) == [
        {
            "kind": "payment.captured",
            "resource_id": pid,
            "legs": {"available": Decimal("150"), "clearing": Decimal("-150")},
        },
        {
            "kind": "service_fee",
            "resource_id": pid,
            "legs": {"available": Decimal("-2.75"), "service_fees": Decimal("2.75")},
        },
    ]
    assert refunds.balance(merchant(account_id)).model_dump(exclude_unset=True)["balances"] == [
        {"currency": "MZN", "available": "147.25", "held": "0.00", "fees": "0.00", "service_fees": "2.75"}
    ]
    # a card the acquirer keeps 2.5% of: 2.9% of 200.00 + 5.00 = 10.80 beside its 5.00
    fee_card = charge(account_id, {"type": "card", "card": {"token": "tok_test_fee"}}, "200.00")
    assert fee_card.fees is not None and fee_card.fees.model_dump() == {"provider": "5.00", "service": "10.80"}
    assert refunds.balance(merchant(account_id)).model_dump(exclude_unset=True)["balances"] == [
        {"currency": "MZN", "available": "331.45", "held": "0.00", "fees": "5.00", "service_fees": "13.55"}
    ]
    # an account without a schedule of its own pays the default: nothing, and its balance keeps its shape
    charge(other, WALLET)
    assert [e["kind"] for e in entries(other)] == ["payment.captured"]
    assert refunds.balance(merchant(other)).model_dump(exclude_unset=True)["balances"] == [
        {"currency": "MZN", "available": "150.00", "held": "0.00", "fees": "0.00"}
    ]


def test_a_later_schedule_never_changes_a_payment_captured_before(management: Any) -> None:
    account_id = new_account()
    assert operator_call(management, "PUT", account_id, {"fees": [MPESA]})[0] == 200
    before = charge(account_id, WALLET).provider_payment_id
    assert operator_call(management, "PUT", account_id, {"fees": [MPESA | {"percent": "3", "fixed": "0.00"}]})[0] == 200
    after = charge(account_id, WALLET).provider_payment_id
    fees = {pid: charges.read_payment(merchant(account_id), pid).fees for pid in (before, after)}
    assert {pid: fee.model_dump() if fee else None for pid, fee in fees.items()} == {
        before: {"provider": "0.00", "service": "2.75"},
        after: {"provider": "0.00", "service": "4.50"},
    }
    assert [e["legs"].get("service_fees") for e in entries(account_id)] == [None, Decimal("2.75"), None, Decimal("4.5")]


def test_a_refund_gives_the_payer_the_amount_and_the_service_keeps_its_fee(management: Any) -> None:
    account_id = new_account()
    assert operator_call(management, "PUT", account_id, {"fees": [MPESA]})[0] == 200
    first, second = charge(account_id, WALLET), charge(account_id, WALLET)
    assert (
        refunds.create_refund(merchant(account_id), first.provider_payment_id, str(ULID()), None, None).status
        == "succeeded"
    )
    # 2 x 150.00 captured, 2 x 2.75 charged, 150.00 refunded: the fee of the refunded payment stays charged
    assert refunds.balance(merchant(account_id)).model_dump(exclude_unset=True)["balances"] == [
        {"currency": "MZN", "available": "144.50", "held": "0.00", "fees": "0.00", "service_fees": "5.50"}
    ]
    assert charges.read_payment(merchant(account_id), first.provider_payment_id).fees.model_dump() == {  # type: ignore[union-attr]
        "provider": "0.00",
        "service": "2.75",
    }
    assert second.status == "succeeded"


def test_an_authorized_card_pays_the_schedule_in_force_when_it_is_captured(management: Any) -> None:
    account_id = new_account()
    held = charge(account_id, {"type": "card", "card": {"token": "tok_test_authorize"}}, "100.00")
    assert (held.status, held.fees) == ("authorized", None)  # no money moved: no fees yet
    assert operator_call(management, "PUT", account_id, {"fees": [CARD]})[0] == 200
    captured = charges.capture(merchant(account_id), held.provider_payment_id, "60.00", "MZN")
    assert captured.fees is not None and captured.fees.model_dump() == {"provider": "0.00", "service": "6.74"}
    assert [e["kind"] for e in entries(account_id)] == ["payment.captured", "service_fee"]

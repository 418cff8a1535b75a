"""The spec's collection details, each written from the spec's own text, so that a client written
from the spec works (issue 34, item 5): the payer's app list by phone, KYC reviews, payment-method
transactions, a payer's VAT number, payment methods' card and bank-account fields, the PUT of a
collection request."""

from __future__ import annotations

import pytest

from devstack.launcher import RunningStack
from tests.e2e.collection_client import Collection, assert_error, assert_ok, validation
from tests.e2e.test_collection_requests import create, payer, unique_phone

pytestmark = pytest.mark.e2e
KULPAY_LIST = "/v1/kulpay/collection-requests/list-by-phone-number/"
E164 = "an E.164 number: + and the country code, e.g. +258841234567"


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return Collection(stack, "mz")


def test_a_phone_not_in_e164_is_400_naming_the_field_not_an_empty_list(mz: Collection) -> None:
    """Spec, collection requests: "GET | /v1/kulpay-free list by phone:
    /v1/kulpay/collection-requests/list-by-phone-number/{phone_number} | phone in E.164"; errors:
    "validation_error 400". A number spelt otherwise is bad input, whatever the request."""
    phone = unique_phone()
    proof = create(mz, payer=payer(phone))
    listed = assert_ok(mz.call("GET", KULPAY_LIST + phone, token=None, params={"request_id": proof["id"]}))
    assert [item["id"] for item in listed["items"]] == [proof["id"]]
    spaced = f"{phone[:4]} {phone[4:6]} {phone[6:9]} {phone[9:]}"  # +258 84 123 4567
    dashed = f"{phone[:4]}-{phone[4:6]}-{phone[6:]}"
    for number in (spaced, dashed, phone[1:], "00" + phone[1:], f"+({phone[1:4]}){phone[4:]}", "+0841234567"):
        assert_error(
            mz.call("GET", KULPAY_LIST + number, token=None, params={"request_id": proof["id"]}),
            400,
            "validation_error",
            "The request has problems: phone_number.",
            validation(("phone_number", "INVALID_FORMAT", E164)),
        )
    assert_error(  # a well-formed number that no plan knows
        mz.call("GET", KULPAY_LIST + "+2580000000", token=None, params={"request_id": proof["id"]}),
        400,
        "validation_error",
        "The request has problems: phone_number.",
        validation(("phone_number", "INVALID_FORMAT", "not a valid phone number")),
    )

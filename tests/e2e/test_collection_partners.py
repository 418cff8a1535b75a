"""Partners over HTTP (mz): the list and its type filter, one partner, the card-scheme logo of
a BIN; a card number is refused (and never echoed); every answer whole."""

from __future__ import annotations

import base64

import pytest

from devstack.launcher import RunningStack
from tests.e2e.collection_client import Collection, assert_error, assert_invalid, assert_ok, licensed

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def mz(stack: RunningStack) -> Collection:
    return licensed(stack)


def test_partners_list_filter_and_read(mz: Collection) -> None:
    listed = assert_ok(mz.call("GET", "/v1/partners"))
    assert (listed["object"], listed["has_more"]) == ("list", False)
    ids = [p["partner_id"] for p in listed["data"]]
    assert {
        "ptn_mpesa",
        "ptn_emola",
        "ptn_mkesh",
        "ptn_bci",
        "ptn_millennium_bim",
        "ptn_standard_bank",
        "ptn_absa",
    } <= set(ids)
    wallets = assert_ok(mz.call("GET", "/v1/partners", params={"type": "mobile_wallet"}))["data"]
    assert sorted(p["partner_id"] for p in wallets) == ["ptn_emola", "ptn_mkesh", "ptn_mpesa"]
    one = assert_ok(mz.call("GET", "/v1/partners/ptn_mpesa"))
    assert one["object"] == "partner" and one["partner"] == next(
        p for p in listed["data"] if p["partner_id"] == "ptn_mpesa"
    )
    phone = one["partner"]["pm_types"][0]["attributes"][0]
    assert (phone["field_name"], phone["prefix"], phone["required"], phone["minsize"], phone["maxsize"]) == (
        "phone_number",
        "+258",
        True,
        13,
        13,
    )
    assert_error(mz.call("GET", "/v1/partners/ptn_nobody"), 404, "not_found", "No such partner.")
    assert_invalid(
        mz.call("GET", "/v1/partners", params={"type": "cash"}),
        ("type", "INVALID_FORMAT", "one of mobile_wallet, bank_account, card"),
    )


def test_a_bin_gets_its_schemes_logo_and_a_card_number_is_refused(mz: Collection) -> None:
    answer = assert_ok(mz.call("POST", "/v1/partners/get-logo", {"card_number": "41111111"}))
    assert (answer["object"], answer["scheme"], answer["card_number"]) == ("card_logo", "visa", "41111111")
    assert base64.b64decode(answer["logo"]).startswith(b"<svg")
    assert_error(
        mz.call("POST", "/v1/partners/get-logo", {"card_number": "601100"}),
        404,
        "not_found",
        "No card scheme has this BIN.",
    )
    refused = mz.call("POST", "/v1/partners/get-logo", {"card_number": "4111111111111111"})
    assert_invalid(refused, ("card_number", "INVALID_FORMAT", "the card's first 6 to 8 digits (its BIN), never more"))
    assert "4111111111111111" not in refused.text
    assert mz.call("GET", "/v1/partners", token=None).status_code == 401

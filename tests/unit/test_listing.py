"""A merchant list's query (mzpay.domain.common.listing) and its sealed page tokens
(mzpay.domain.common.page_tokens.seal/unseal): every refusal names its field."""

from __future__ import annotations

from decimal import Decimal

import pytest

from mzpay.domain.common.errors import ServiceError
from mzpay.domain.common.listing import Filters, Kind, documented, parse
from mzpay.domain.common.page_tokens import seal, unseal

KIND = Kind(
    "payments",
    frozenset({"succeeded", "failed"}),
    own_id="payment_id",
    parent="collection_request_id",
    methods=frozenset({"mobile_wallet", "card"}),
    metadata=True,
)
PLAIN = Kind("refunds", frozenset({"pending"}), own_id="refund_id", parent="payment")


def refused(kind: Kind, query: dict[str, str]) -> dict[str, object]:
    with pytest.raises(ServiceError) as caught:
        parse(kind, query)
    error = caught.value
    assert (error.status, error.code) == (400, "invalid_request")
    assert len(error.errors) == 1
    return error.errors[0].as_dict()


def test_every_filter_is_read_and_dates_are_utc_to_the_second() -> None:
    request = parse(
        KIND,
        {
            "status": "succeeded",
            "created_gte": "2026-11-01T02:00:00+02:00",
            "created_lt": "2026-11-02",
            "currency": "MZN",
            "method": "mobile_wallet",
            "network": "mpesa",
            "amount_gte": "10",
            "amount_lte": "99.50",
            "collection_request_id": "01JD8Z5M7B2C3D4E5F6G7H8J9K",
            "metadata[order]": "A-1",
            "page_size": "20",
            "page_token": "abc.def",
            "account_id": "ignored: the principal's",
            "mode": "test",
            "customer_id": "cust-1",
        },
    )
    assert request.filters == Filters(
        status="succeeded",
        created_gte="2026-11-01T00:00:00Z",
        created_lt="2026-11-02T00:00:00Z",
        currency="MZN",
        method="mobile_wallet",
        network="mpesa",
        amount_gte=Decimal("10"),
        amount_lte=Decimal("99.50"),
        parent="01JD8Z5M7B2C3D4E5F6G7H8J9K",
        metadata=("order", "A-1"),
    )
    assert (request.page_size, request.page_token) == (20, "abc.def")
    assert parse(KIND, {}).page_size == 50


@pytest.mark.parametrize(
    ("query", "field", "code"),
    [
        ({"colour": "red"}, "colour", "unknown_field"),
        ({"metadata[order]": "A"}, "metadata[order]", "unknown_field"),  # a list without metadata
        ({"method": "card"}, "method", "unknown_field"),  # a list without methods
        ({"page_size": "0"}, "page_size", "invalid_value"),
        ({"page_size": "101"}, "page_size", "invalid_value"),
        ({"page_size": "ten"}, "page_size", "invalid_value"),
        ({"created_gte": "yesterday"}, "created_gte", "invalid_value"),
        ({"created_lt": "2026-13-01"}, "created_lt", "invalid_value"),
        ({"created_gte": "2026-11-02", "created_lt": "2026-11-02"}, "created_gte", "invalid_value"),
        ({"status": "succeeded"}, "status", "invalid_value"),
        ({"currency": "mzn"}, "currency", "invalid_value"),
        ({"amount_gte": "-1"}, "amount_gte", "invalid_value"),
        ({"amount_lte": "1.001"}, "amount_lte", "invalid_value"),
        ({"amount_gte": "NaN"}, "amount_gte", "invalid_value"),
        ({"amount_gte": "9", "amount_lte": "5"}, "amount_gte", "invalid_value"),
        ({"payment": "a b"}, "payment", "invalid_value"),
        ({"refund_id": "x" * 201}, "refund_id", "invalid_value"),
        ({"payment": ""}, "payment", "invalid_value"),
    ],
)
def test_a_bad_filter_is_refused_by_name(query: dict[str, str], field: str, code: str) -> None:
    assert refused(PLAIN, query) == {"field": field, "code": code, "message": refused(PLAIN, query)["message"]}


def test_one_metadata_filter_at_a_time() -> None:
    assert refused(KIND, {"metadata[a]": "1", "metadata[b]": "2"})["field"] == "metadata[b]"
    assert refused(KIND, {"method": "cash"})["field"] == "method"


def test_the_digest_tells_filters_apart() -> None:
    assert Filters(status="failed").digest() != Filters(status="succeeded").digest() != Filters().digest()
    assert Filters(metadata=("a", "1")).digest() == Filters(metadata=("a", "1")).digest()


def test_the_document_names_every_parameter_of_the_list() -> None:
    names = [parameter["name"] for parameter in documented(KIND)]
    assert names == sorted(KIND.parameters() | {"metadata[key]"})
    assert all(parameter["in"] == "query" and parameter["required"] is False for parameter in documented(KIND))


BINDING = {"a": "01JACC", "m": "test", "k": "payments", "f": "0123456789abcdef", "c": "x"}
KEY = b"k" * 32


def test_a_sealed_token_opens_only_for_its_binding_and_key() -> None:
    token = seal("2026-11-02T10:00:00Z#01JD8Z5M7B2C3D4E5F6G7H8J9K", BINDING, KEY)
    assert unseal(token, BINDING, KEY) == "2026-11-02T10:00:00Z#01JD8Z5M7B2C3D4E5F6G7H8J9K"
    body, _, tag = token.partition(".")
    forged = seal("2099-01-01T00:00:00Z#Z", BINDING, b"another key" * 3)
    for bad in (
        {**BINDING, "a": "01JOTHER"},
        {**BINDING, "m": "live"},
        {**BINDING, "f": "fedcba9876543210"},
        {**BINDING, "k": "refunds"},
    ):
        with pytest.raises(ServiceError) as caught:
            unseal(token, bad, KEY)
        assert caught.value.errors[0].field == "page_token"
    for tampered in (
        body[:-2] + ("A" if body[-2] != "A" else "B") + body[-1] + "." + tag,
        body + "." + tag[:-1],
        forged,
        "not a token",
        "a.b",
        "x" * 600,
        "",
    ):
        with pytest.raises(ServiceError) as caught:
            unseal(tampered, BINDING, KEY)
        assert (caught.value.status, caught.value.code, caught.value.errors[0].field) == (
            400,
            "invalid_request",
            "page_token",
        )

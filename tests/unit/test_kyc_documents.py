"""A document's expiry date sits beside its uploaded sides: saving it (again) never drops a file,
and a closed verification takes no date, as it takes no document."""

from __future__ import annotations

import pytest

from mzpay.collection import kyc
from mzpay.domain.collection.kyc import NOTHING_MORE
from mzpay.domain.common.errors import ServiceError
from tests.unit.test_openapi_collection_models import BUSINESS, PNG, multipart, world  # noqa: F401 (fixture)

pytestmark = pytest.mark.usefixtures("world")  # in-memory stores of the collection surface


def bi_side(side: str) -> tuple[bytes, str]:
    fields = {"reference": "BI-1", "document_name": "BI", "type": "bi", "side": side}
    return multipart(fields, "attachment", f"{side}.png", PNG)


def documents(kyc_id: str) -> list[tuple[str, str | None, str | None]]:
    log = kyc.log(BUSINESS, kyc_id).wire()["kyclog"]["additional_documents"]
    return [(d["reference"], d.get("side"), d.get("expiry_date")) for d in log]


def test_saving_a_date_keeps_the_documents_uploaded_under_its_reference() -> None:
    customer = kyc.register(BUSINESS, "Ana Machava", "bi").wire()
    kyc_id = customer["kyc"]["kyc_id"]
    kyc.save_document(BUSINESS, kyc_id, *bi_side("front"))
    kyc.save_document(BUSINESS, kyc_id, *bi_side("back"))
    kyc.save_date(BUSINESS, kyc_id, "2030-01-31", "BI-1")
    kyc.save_date(BUSINESS, kyc_id, "2031-01-31", "BI-1")  # corrected: replaces the date only
    assert documents(kyc_id) == [("BI-1", "front", None), ("BI-1", "back", None), ("BI-1", None, "2031-01-31")]
    assert kyc.ready(BUSINESS, customer["id"], kyc_id).submit is True  # both sides still there


def test_a_closed_verification_takes_no_date() -> None:
    customer = kyc.register(BUSINESS, "Ana Machava", "passport").wire()
    kyc_id = customer["kyc"]["kyc_id"]
    kyc.review(BUSINESS, customer["id"], kyc_id, "verified", "reviewer-7", None, NOTHING_MORE)
    with pytest.raises(ServiceError) as refused:
        kyc.save_date(BUSINESS, kyc_id, "2031-01-31", "PA-1")
    assert (refused.value.status, refused.value.code, refused.value.message) == (
        400,
        "invalid_request",
        "A verification that is verified takes no documents.",
    )
    assert documents(kyc_id) == []

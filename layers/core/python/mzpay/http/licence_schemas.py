"""Request bodies of the collection surface's licence routes (system group)."""

from __future__ import annotations

from pydantic import Field

from mzpay.domain.collection.licence import MAX_KEY_LENGTH
from mzpay.domain.common.model import StrictText as Strict
from mzpay.domain.common.model import examples


class LicenseKey(Strict):
    model_config = examples({"license_key": "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJlc2NvbGEtbWFwdXRvIn0.c2lnbmF0dXJl"})

    license_key: str = Field(min_length=1, max_length=MAX_KEY_LENGTH)


class Empty(Strict):
    """`{}`: the body of POST /v1/license/deactivate (optional)."""

    model_config = examples({})

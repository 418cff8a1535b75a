"""Bodies of the gateway access group: POST /v1/api-keys/{key_id}/roll, PUT /v1/webhook-endpoint,
POST /v1/client-certificates, PUT /v1/mtls."""

from __future__ import annotations

from pydantic import Field

from mzpay.domain.access.keys import MAX_ROLL_OVERLAP_SECONDS, ROLL_OVERLAP_SECONDS
from mzpay.domain.common.model import StrictText as Strict
from mzpay.domain.common.model import examples


class RollApiKey(Strict):
    model_config = examples({"overlap_seconds": 3600})

    overlap_seconds: int = Field(default=ROLL_OVERLAP_SECONDS, ge=0, le=MAX_ROLL_OVERLAP_SECONDS)


class WebhookEndpointIn(Strict):
    model_config = examples({"url": "https://loja-machava.co.mz/mzpay/webhooks"})

    url: str = Field(min_length=1, max_length=2048, description="where the account's own events are posted")


class ClientCertificateIn(Strict):
    model_config = examples({})  # no CSR: the service makes the key pair and answers it once

    csr: str | None = Field(default=None, max_length=16384, description="a PEM CSR; none: a key pair is made")


class MtlsIn(Strict):
    model_config = examples({"required": True})

    required: bool

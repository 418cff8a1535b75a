"""Collection API: partners (the providers customers pay through) and the card-scheme logo of a BIN."""

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from mzpay.domain import partners
from mzpay.domain.collection_access import SIGNED_IN
from mzpay.entry import collection_app
from mzpay.http.partner_schemas import CardBin
from mzpay.http.resolver import lambda_handler as handler_for

app, routes = collection_app()


@routes.get("/v1/partners", SIGNED_IN)
def list_partners(type: Annotated[str | None, Query(max_length=32)] = None) -> dict[str, Any]:
    return {"object": "list", "data": partners.partners(type), "has_more": False}


@routes.get("/v1/partners/<partner_id>", SIGNED_IN)
def get_partner(partner_id: str) -> dict[str, Any]:
    return {"object": "partner", "partner": partners.partner(partner_id)}


@routes.post("/v1/partners/get-logo", SIGNED_IN)
def card_logo(body: Annotated[CardBin, Body()]) -> dict[str, Any]:
    return partners.card_logo(body.card_number)


lambda_handler = handler_for(app, routes.admit)

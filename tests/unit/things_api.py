"""A small API of things, for the tests of what every API does before a route runs (the body
screen, the card data screen): its routes record in RAN that they ran."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Body
from pydantic import BaseModel

RAN: list[str] = []


class Thing(BaseModel):
    name: str
    metadata: dict[str, str] | None = None


def add_thing_routes(app: Any) -> None:
    """POST /v1/things (a JSON body), POST /v1/form (any body) and GET /v1/things/<thing_id>."""

    @app.post("/v1/things")
    def create_thing(thing: Annotated[Thing, Body()]) -> dict[str, Any]:
        RAN.append(thing.name)
        return {"name": thing.name}

    @app.post("/v1/form")
    def form() -> dict[str, Any]:
        RAN.append("form")
        return {"ok": True}

    @app.get("/v1/things/<thing_id>")
    def read_thing(thing_id: str) -> dict[str, Any]:
        RAN.append(thing_id)
        return {"id": thing_id}

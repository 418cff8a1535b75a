"""What the management API's answers share: the service regions, the scopes a key or client holds,
per-currency ceilings, and its list that pages by token (`Paged`)."""

from __future__ import annotations

from typing import Generic

from pydantic import Field

from mzpay.answers.base import Currency, DecimalText, Item, ListOf

Ceilings = dict[Currency, DecimalText]


class Paged(ListOf[Item], Generic[Item]):
    """A management list that pages by token: the envelope and the token of the next page."""

    next_page_token: str | None = Field(description="Send it as page_token for the next page; null at the end.")

"""What a function's routes annotate and answer with: Powertools' Body, Query and Response,
imported through mzpay so that mzpay's package init runs before Powertools' (see mzpay/__init__:
the event handler's resolvers load on first use)."""

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

__all__ = ["Body", "Query", "Response"]

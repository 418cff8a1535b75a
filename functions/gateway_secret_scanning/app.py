"""Gateway API: the secret-scanning receiver (no authorizer: a report is authenticated by the
provider's signature over its raw body)."""

from mzpay.answers.service import SecretScanningLabels
from mzpay.domain.access.secret_scanning import FORWARDED_HEADER, KEY_ID_HEADER, SIGNATURE_HEADER
from mzpay.http.body import raw_body
from mzpay.http.errors import Surface
from mzpay.http.marks import errors
from mzpay.http.request_id import header_value
from mzpay.http.resolver import create_resolver
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import secret_scanning

app = create_resolver(Surface.GATEWAY)


@app.post("/secret-scanning/<provider>")
@errors("invalid_signature")
def report(provider: str) -> SecretScanningLabels:
    """Receive a secret-scanning report

    A code host's report of tokens found in public code, signed by the provider. A live API
    key, client secret or access token among them is revoked at once; each token is answered
    with its label."""
    event = app.current_event.raw_event
    return secret_scanning.receive(
        provider,
        raw_body(event),
        header_value(event, KEY_ID_HEADER),
        header_value(event, SIGNATURE_HEADER),
        header_value(event, FORWARDED_HEADER),
    )


lambda_handler = handler_for(app)

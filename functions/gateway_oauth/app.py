"""Gateway API: the OAuth 2.0 token endpoint (client credentials; no authorizer: the client
authenticates in the request itself). Errors in OAuth's format, never problem documents."""

from mzpay.answers.access import OAuthToken
from mzpay.http import oauth_form
from mzpay.http.authorizers import client_certificate
from mzpay.http.errors import Surface
from mzpay.http.marks import errors
from mzpay.http.params import Response
from mzpay.http.public_urls import public_url
from mzpay.http.resolver import create_resolver
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import oauth

app = create_resolver(Surface.OAUTH)


@app.post("/oauth/token")
@errors("invalid_client", "invalid_scope", "unsupported_grant_type", "client_certificate_required")
def token() -> Response[OAuthToken]:
    """Get an OAuth 2.0 access token

    Client credentials only (`grant_type=client_credentials`, a form): authenticate with the
    client secret (HTTP Basic or the form) or a private-key JWT (`client_assertion`). The token
    lasts an hour and is used like an API key. Errors are OAuth's `{error, error_description}`.
    Over mutual TLS the token is bound to the client certificate presented (RFC 8705, `cnf`) and
    works only with it; an account that requires mutual TLS gets tokens only that way."""
    event = app.current_event.raw_event
    request = oauth_form.token_request(event)
    token_url = public_url(app.current_event, "PUBLIC_GATEWAY_URL") + "/oauth/token"
    return oauth_form.token_response(oauth.issue_token(request, token_url, client_certificate(event)))


lambda_handler = handler_for(app)

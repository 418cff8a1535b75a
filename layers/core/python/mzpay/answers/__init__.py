"""The answers of the APIs, each declared once as a pydantic model: the use case returns it, the
handler answers it (mzpay.http.resolver dumps it, leaving out the keys it was not given), and the
OpenAPI generator (devstack/openapi.py) documents it. One module per capability, so that a
function loads only the models of its own routes. Below the use cases: imports only pydantic and
mzpay.domain."""

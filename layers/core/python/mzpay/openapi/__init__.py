"""Response models of the OpenAPI documents; imported by the generator (devstack/openapi.py) and tests
only, never by a function. (The documents/ folder beside them is data the layer ships and
mzpay.http.api_docs serves; reading it imports this package, which loads no model.)"""

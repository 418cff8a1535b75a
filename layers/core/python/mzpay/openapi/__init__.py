"""The route tables of the OpenAPI documents (`<api>.ROUTES`: route -> the model of its answer) and the
answer models not moved to mzpay.answers yet; imported by the generator (devstack/openapi.py) and
tests, and by a function only through mzpay.answers (mzpay.answers.bills takes the biller models of
management_bills). The documents/ folder beside them is data the layer ships and mzpay.http.api_docs
serves; reading it imports this package, which loads no model."""

"""The answers of the APIs as typed models, each shape declared once: the use case returns the model,
the route declares it as its return type (Powertools validates and serializes it), and the OpenAPI
documents are generated from it (devstack/openapi.py, through mzpay.openapi.<api>.ROUTES).

Below the use cases and above the domain: a model may use the domain's constants, the domain never
imports a model. One module per capability, so a function loads only the answers of its routes."""

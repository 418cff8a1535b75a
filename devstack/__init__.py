"""The local stack: dev tooling that plays AWS and API Gateway on localhost (never shipped)."""

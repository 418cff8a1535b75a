"""Who a gateway request acts as: principal, API keys, OAuth clients, client certificates, rate
limits, leaked-credential reports (docs/access.md)."""

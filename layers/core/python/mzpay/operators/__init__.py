"""The operators' use cases: what the management API and the operator console do (PSPs and their
onboarding and certification, billers, connector bindings, reconciliation, the audit trail,
webhook deliveries and dispatch failures, the operators' reads). Siblings never import each other,
nor the gateway's use cases (mzpay.cases) or the collection's."""

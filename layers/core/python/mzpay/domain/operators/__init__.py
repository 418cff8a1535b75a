"""Who an operator is, console sessions, the audit trail."""

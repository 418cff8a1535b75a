"""The event envelope, delivery rules and records, signing secrets."""

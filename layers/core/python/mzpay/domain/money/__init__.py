"""Amounts as Decimal and the double-entry ledger."""

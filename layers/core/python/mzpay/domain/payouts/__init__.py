"""Payouts, their destinations, limits, batches, name lookups, cash deposits."""

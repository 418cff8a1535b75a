"""Ports: what one use-case package reaches of another through an interface below both, bound by
the composition root (mzpay.entry), so that no use-case package imports another."""

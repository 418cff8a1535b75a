"""Webhook signing and verification (standard library only; see ``signing``)."""

from mzpay.webhooks.signing import DEFAULT_TOLERANCE, SignatureError, sign, verify

__all__ = ["DEFAULT_TOLERANCE", "SignatureError", "sign", "verify"]

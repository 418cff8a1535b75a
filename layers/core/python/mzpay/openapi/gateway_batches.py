"""The payout batch answer, under the name mzpay.openapi.management still imports it by; it lives in
mzpay.answers.payouts (this module goes when management imports it from there)."""

from mzpay.answers.payouts import PayoutBatch

__all__ = ["PayoutBatch"]

"""Charges and the payment lifecycle: methods, cards, phones, routing to a PSP, hosted checkout,
expiry, risk, receipts, references, manual payments, refunds, disputes."""

"""What the management API's answers share: per-currency ceilings (its list that pages by token is
mzpay.answers.base.Paged)."""

from __future__ import annotations

from mzpay.answers.base import Currency, DecimalText

Ceilings = dict[Currency, DecimalText]

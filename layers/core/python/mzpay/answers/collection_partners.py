"""The collection API's answers about partners and card logos (mzpay.domain.partners.catalogue) and
customers' payment methods (mzpay.domain.partners.payment_methods: PaymentMethod.view), as
mzpay.collection.payment_methods and the collection_partners function return them."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.answers.base import Answer, ItsName, ListObject, ListOf, Mode, Timestamp, UpdatedAt, examples
from mzpay.answers.collection_kyc import CUSTOMER

PmType = Literal["mobile_wallet", "bank_account", "card"]


# Keys that answers of this module share, described once.
MethodObject = Annotated[Literal["payment_method"], Field(description="Always payment_method.")]


class PartnerAttribute(Answer):
    """A field of the form a payment method of this kind fills."""

    label: str = Field(description="The field's label, for people.")
    field_name: str = Field(description="Its key in the payment method's details.")
    required: bool = Field(description="Whether it must be given.")
    prefix: str = Field(description="What the value starts with (may be empty).")
    regex: str = Field(description="The pattern the whole value matches.")
    sufix: str = Field(description="What the value ends with (may be empty; the spec's spelling).")
    minsize: int = Field(description="Its least length.")
    maxsize: int = Field(description="Its greatest length.")


class PartnerPmType(Answer):
    """A kind of payment method a partner takes, with its form."""

    type: PmType = Field(description="The payment method's type.")
    attributes: list[PartnerAttribute] = Field(description="The form's fields.")


_PARTNER = {
    "partner_id": "ptn_mpesa",
    "name": "M-Pesa (Vodacom)",
    "pm_types": [
        {
            "type": "mobile_wallet",
            "attributes": [
                {
                    "label": "Número M-Pesa",
                    "field_name": "phone_number",
                    "required": True,
                    "prefix": "+258",
                    "regex": "^\\+258(84|85)[0-9]{7}$",
                    "sufix": "",
                    "minsize": 13,
                    "maxsize": 13,
                }
            ],
        }
    ],
}


class Partner(Answer):
    """A provider customers pay through (mobile money, a bank, card schemes)."""

    partner_id: str = Field(description="The partner's id (ptn_...).")
    name: ItsName
    pm_types: list[PartnerPmType] = Field(description="The payment-method types it takes.")


class PartnerList(ListOf[Partner]):
    """The partners (those taking `type`, when given)."""

    model_config = examples({"object": "list", "data": [_PARTNER], "has_more": False})

    data: list[Partner] = Field(description="The partners.")
    has_more: Literal[False] = Field(description="Always false: the list is whole.")


class PartnerRead(Answer):
    """A partner."""

    model_config = examples({"object": "partner", "partner": _PARTNER})

    object: Literal["partner"] = Field(description="Always partner.")
    partner: Partner = Field(description="The partner.")


class CardLogo(Answer):
    """The scheme of a BIN and its logo."""

    model_config = examples(
        {"object": "card_logo", "scheme": "visa", "logo": "PHN2ZyB4bWxucz0i...", "card_number": "424242"}
    )

    object: Literal["card_logo"] = Field(description="Always card_logo.")
    scheme: Literal["visa", "mastercard", "amex"] = Field(description="The card scheme.")
    logo: str = Field(description="The scheme's logo: an SVG, base64.")
    card_number: str = Field(description="The BIN looked up (6 to 8 digits, spaces removed).")


# ---------------------------------------------------------------- payment methods
_METHOD = {
    "object": "payment_method",
    "id": "pm_01JD9K3A4B5C6D7E8F9G0H1J2K",
    "account_id": CUSTOMER,
    "type": "card",
    "partner_id": "ptn_card_schemes",
    "details": {"card_token": "tok_****4242", "last4": "4242", "exp_month": "12", "exp_year": "2029", "brand": "visa"},
    "mode": "live",
    "status": "active",
    "created_at": "2026-11-02T10:00:00Z",
    "updated_at": "2026-11-02T10:00:00Z",
}


class PaymentMethod(Answer):
    """A customer's payment method (a card's token masked)."""

    object: MethodObject
    id: str = Field(description="The method's id (pm_...).")
    account_id: str = Field(description="The customer's id (usr_...), as the spec names it.")
    type: PmType = Field(description="mobile_wallet, bank_account or card.")
    partner_id: str = Field(description="The partner it is of.")
    details: dict[str, str] = Field(description="The partner's form, filled (a card token as tok_****<last 4>).")
    mode: Mode = Field(description="test: its transactions run in the gateway's test mode.")
    status: Literal["active", "inactive"] = Field(description="Only an active method transacts.")
    created_at: Timestamp = Field(description="When it was added.")
    updated_at: UpdatedAt


class PaymentMethodResult(Answer):
    """A customer's payment method (added, read, or switched on or off)."""

    model_config = examples({"object": "payment_method", "payment_method": _METHOD})

    object: MethodObject
    payment_method: PaymentMethod = Field(description="The method.")


class PaymentMethodList(Answer):
    """A customer's payment methods (at most 50)."""

    model_config = examples({"object": "list", "data": [_METHOD]})

    object: ListObject
    data: list[PaymentMethod] = Field(description="Every method of the customer (no has_more: the list is whole).")

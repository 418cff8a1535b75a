"""What the payer must do next (a payment's `next_action`), for the gateway's OpenAPI document;
the conventions are mzpay.openapi.gateway's."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mzpay.openapi.gateway_more import Answer, Timestamp, sometimes


class PollAction(Answer):
    """The payer approves a prompt on their phone: read the payment again until it moves on."""

    type: Literal["poll"] = Field(description="poll: nothing to show the payer.")
    poll_interval_secs: int = Field(description="Seconds to wait between two reads of the payment.")


class RedirectAction(Answer):
    """Send the payer to `redirect_url` (3-D Secure, their bank, a lender, the open-amount page)."""

    type: Literal["redirect_to_url"] = Field(description="redirect_to_url: open redirect_url for the payer.")
    redirect_url: str = Field(description="The page where the payer completes the payment.")
    return_url: str | None = Field(description="Where the payer is sent back afterwards: the charge's return_url.")
    bnpl_provider: str = sometimes("The lender's name; buy-now-pay-later payments only.")


class OtpFormAction(Answer):
    """Ask the payer for the one-time code they received, then send it to complete-action as `otp`."""

    type: Literal["display_otp_form"] = Field(description="display_otp_form: show a form for the code.")
    otp_hint: str = Field(description="A hint to show beside the form.")
    otp_length: int = Field(description="How many digits the code has.")
    masked_dest: str = Field(description="Where the code was sent, masked.")


class ReferenceAction(Answer):
    """Show the payer an entity and reference to pay at an ATM or in their banking app."""

    type: Literal["display_reference"] = Field(description="display_reference: show entity and reference.")
    entity: str = Field(description="The payment entity number.")
    reference: str = Field(description="The payment reference for this payment and amount.")
    expires_at: Timestamp = Field(description="When the reference stops being payable.")


class UssdCodeAction(Answer):
    """Show the payer a USSD code to dial."""

    type: Literal["display_ussd_code"] = Field(description="display_ussd_code: show ussd_code.")
    ussd_code: str = Field(description="The code the payer dials, e.g. *500*21000*123456789#.")
    expires_at: Timestamp = Field(description="When the code stops working.")


class QrCodeAction(Answer):
    """Show the payer a QR code to scan with their wallet app."""

    type: Literal["display_qr_code"] = Field(description="display_qr_code: show the QR code.")
    qr_code_url: str = Field(description="An image of the QR code.")
    qr_code_data: str = Field(description="The QR code's content, to render it yourself.")
    expires_at: Timestamp = Field(description="When the code stops working.")


NextAction = Annotated[
    PollAction | RedirectAction | OtpFormAction | ReferenceAction | UssdCodeAction | QrCodeAction,
    Field(discriminator="type"),
]

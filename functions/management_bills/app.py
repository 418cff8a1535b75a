"""Management API: billers and their bill products, accounts' SMS channels (docs/bills.md) and
fiscal details (docs/payments.md, "Receipts")."""

from typing import Annotated

from mzpay.answers import billers as answers
from mzpay.answers.receipts import AccountFiscalDetails
from mzpay.domain.bills.billers import BillerIn, BillerPatch, ProductIn, SmsChannelIn
from mzpay.domain.payments.fiscal import FiscalDetails
from mzpay.entry import management_app
from mzpay.http.marks import errors
from mzpay.http.params import Body, Response
from mzpay.http.resolver import created
from mzpay.http.resolver import lambda_handler as handler_for
from mzpay.lazy import deferred_imports

with deferred_imports():  # each route's use case is loaded when a request first needs it
    from mzpay.cases import bill_resends, fiscal
    from mzpay.operators import billers

app = management_app()


@app.post("/v1/billers")
@errors("invalid_account", "invalid_state")
def create_biller(body: Annotated[BillerIn, Body()]) -> Response[answers.Biller]:
    """Register a biller

    A new active biller, paid through channels (`POST /v1/bill-payments`); `owned_by_origin`
    keeps its commercial fields (name, category, logo, credit account) with its back office."""
    return created(billers.create_biller(body))


@app.get("/v1/billers")
def list_billers() -> answers.BillerList:
    """List billers

    Every biller of the region with its products, retired ones included."""
    return billers.list_billers()


@app.get("/v1/billers/<biller_id>")
def read_biller(biller_id: str) -> answers.Biller:
    """Read a biller

    The biller and its products."""
    return billers.read_biller(biller_id)


@app.patch("/v1/billers/<biller_id>")
@errors("owned_by_origin", "invalid_account", "invalid_state")
def change_biller(biller_id: str, body: Annotated[BillerPatch, Body()]) -> answers.Biller:
    """Change a biller

    Only the fields given change; `status` pauses the biller (it takes no quotes: 422
    `biller_unavailable`) or makes it active again. A commercial field of a biller owned by its
    origin is 409 `owned_by_origin`."""
    return billers.change_biller(biller_id, body)


@app.post("/v1/billers/<biller_id>/retire")
@errors("owned_by_origin", "invalid_state")
def retire_biller(biller_id: str) -> answers.Biller:
    """Retire a biller

    For good: it takes no more quotes or payments. A biller owned by its origin is retired
    there (409 `owned_by_origin`)."""
    return billers.retire_biller(biller_id)


@app.post("/v1/billers/<biller_id>/products")
@errors("fee_bearer_conflict", "invalid_amount", "invalid_currency", "invalid_state")
def add_bill_product(biller_id: str, body: Annotated[ProductIn, Body()]) -> Response[answers.BillProduct]:
    """Add a bill product

    A fixed price, denominations, an open amount between min and max, or invoices (partial and
    overpayment rules); a fee and a discount with who bears each (a contradictory configuration
    is 422 `fee_bearer_conflict`); daily limits per reference and per channel."""
    return created(billers.add_product(biller_id, body))


@app.post("/v1/billers/<biller_id>/products/<product_id>/retire")
@errors("invalid_state")
def retire_bill_product(biller_id: str, product_id: str) -> answers.BillProduct:
    """Retire a bill product

    It takes no more quotes."""
    return billers.retire_product(biller_id, product_id)


@app.put("/v1/accounts/<account_id>/sms-channel")
@errors("wrong_region")
def set_sms_channel(account_id: str, body: Annotated[SmsChannelIn, Body()]) -> answers.SmsChannel:
    """Give an account an SMS channel

    Its payers' SMS (a bill payment's token or receipt resent) go out under `sender_id`;
    without one, a resend by SMS is 503 `sms_unavailable`."""
    return bill_resends.set_sms_channel(account_id, body.sender_id)


@app.delete("/v1/accounts/<account_id>/sms-channel")
@errors("wrong_region")
def remove_sms_channel(account_id: str) -> answers.SmsChannel:
    """Take an account's SMS channel away"""
    return bill_resends.set_sms_channel(account_id, None)


@app.put("/v1/accounts/<account_id>/fiscal-details")
@errors("wrong_region")
def set_fiscal_details(account_id: str, body: Annotated[FiscalDetails, Body()]) -> AccountFiscalDetails:
    """Set an account's fiscal details

    Its legal name, NUIT and address, and whether it is registered for IVA (at `vat_rate`, 0.16
    unless given): its receipts (JSON, PDF and the payer's page) carry them, with the IVA in the
    amount paid when it is registered. Replaces what was set before."""
    return fiscal.set_fiscal_details(account_id, body)


@app.get("/v1/accounts/<account_id>/fiscal-details")
@errors("wrong_region", "not_found")
def read_fiscal_details(account_id: str) -> AccountFiscalDetails:
    """Read an account's fiscal details

    404 `not_found` while none were set."""
    return fiscal.read_fiscal_details(account_id)


lambda_handler = handler_for(app)

"""The management API's answers about connector bindings (mzpay.operators.bindings)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.base import ACCOUNT, AccountId, AlwaysFalse, Answer, Timestamp, examples

BindingMethod = Literal["emola", "mkesh", "mpesa", "card", "bank_transfer", "reference", "ussd", "qr", "bnpl"]
# ---------------------------------------------------------------- connector bindings
_BINDING = {
    "account_id": ACCOUNT,
    "mode": "live",
    "method": "mpesa",
    "psp_id": "vodacom-mpesa",
    "credential_fields": ["api_key", "public_key", "service_provider_code"],
    "created_at": "2026-10-03T08:00:00Z",
    "updated_at": "2026-10-03T08:00:00Z",
}


class ConnectorBinding(Answer):
    """The live PSP connector an account's method goes through (its credentials are never shown)."""

    model_config = examples(_BINDING)

    account_id: AccountId
    mode: Literal["live"] = Field(description="Always live: test traffic goes to the simulator.")
    method: BindingMethod = Field(description="The method: a wallet network, or a non-wallet method.")
    psp_id: str = Field(description="The PSP whose connector carries it.")
    credential_fields: list[str] = Field(description="The names of the credentials stored (encrypted).")
    created_at: Timestamp = Field(description="When the method was first bound.")
    updated_at: Timestamp = Field(description="When it was last bound.")


class ConnectorBindingList(Answer):
    """An account's connector bindings."""

    model_config = examples({"bindings": [_BINDING]})

    bindings: list[ConnectorBinding] = Field(description="Every binding of the account.")


class Unbinding(Answer):
    """A binding removed: the method's live traffic has no connector until it is bound again."""

    model_config = examples({"account_id": ACCOUNT, "mode": "live", "method": "mpesa", "bound": False})

    account_id: AccountId
    mode: Literal["live"] = Field(description="The mode of the binding removed.")
    method: BindingMethod = Field(description="The method of the binding removed.")
    bound: AlwaysFalse

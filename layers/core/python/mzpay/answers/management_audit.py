"""The management API's answers about the identity providers' audit records, as
mzpay.collection.identity_providers.audit_records returns them (and the `Actor` of a review)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mzpay.answers.base import Answer, Paged, When, examples


class Actor(Answer):
    """Who did it: the kind of principal and the issuer, subject and account of its access token."""

    kind: Literal["administrator", "business"] | None = Field(
        default=None, description="administrator (bootstrap issuer, no account_id) or business; absent on old records."
    )
    subject: str = Field(description="The token's subject (sub).")
    issuer: str = Field(description="The token's issuer (iss).")
    account_id: str | None = Field(description="The business account the token acts for; null: none.")


class FieldChange(Answer):
    """A field's value before and after (a secret only as its hint)."""

    from_: str | list[str] | None = Field(alias="from", description="Before; null when unset (account_ids: a list).")
    to: str | list[str] | None = Field(description="After; null when unset (account_ids: a list).")


class AuditRecord(Answer):
    """One change of an identity provider."""

    object: Literal["audit_record"] = Field(description="Always audit_record.")
    id: str = Field(description="The record's id (aud_...).")
    resource: Literal["identity_provider"] = Field(description="Always identity_provider.")
    resource_id: str = Field(description="The provider (idp_...).")
    action: Literal["created", "updated", "deleted"] = Field(description="What was done.")
    actor: Actor = Field(description="Who did it.")
    ip: str = Field(description="The address it came from.")
    at: When
    changes: dict[str, FieldChange] = Field(description="By field, what changed; empty for a deletion.")


class IdentityProviderAuditList(Paged[AuditRecord]):
    """A page of an identity provider's audit records, newest first."""

    model_config = examples(
        {
            "object": "list",
            "data": [
                {
                    "object": "audit_record",
                    "id": "aud_01JD9G1H2J3K4M5N6P7Q8R9S0T",
                    "resource": "identity_provider",
                    "resource_id": "idp_01JD9G0A1B2C3D4E5F6G7H8J9K",
                    "action": "updated",
                    "actor": {"subject": "admin-1", "issuer": "https://id.mzpay.example", "account_id": None},
                    "ip": "198.51.100.7",
                    "at": "2026-11-02T11:00:00.000Z",
                    "changes": {"client_secret": {"from": "****1a2b", "to": "****9z8y"}},
                }
            ],
            "has_more": False,
            "next_page_token": None,
        }
    )

    data: list[AuditRecord] = Field(description="The records of this page.")

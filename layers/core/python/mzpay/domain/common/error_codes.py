"""The catalogue of request error codes: each code's HTTP status(es), what it means and how a
client should retry it (the spec's "Errors" tables, and the codes the service adds). The OpenAPI
documents list, per route, the codes it can answer from here, and a test holds every code the
code base raises to being catalogued. Imported by tooling and tests only, never by a function.

Retry classes (spec "Errors / Formats" 1): fix (the same request fails again), as_is (transient:
retry with the same Idempotency-Key, backing off), later (wait for Retry-After), after_action
(retry once something else happened: consent, approval, enabling, KYB approval).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    statuses: tuple[int, ...]
    meaning: str
    retry: str = "fix"


def _c(statuses: int | tuple[int, ...], meaning: str, retry: str = "fix") -> Code:
    return Code(statuses if isinstance(statuses, tuple) else (statuses,), meaning, retry)


GATEWAY: dict[str, Code] = {
    # Authentication and access
    "already_rolled": _c(409, "Roll called on a key already rolled or revoked."),
    "client_certificate_required": _c(
        (401, 409), "mTLS is required and no valid certificate was presented; or enabling mTLS without one."
    ),
    "sign_in_failed": _c(401, "Dashboard sign-in: the e-mail or password is not right (or no dashboard user)."),
    "csrf_invalid": _c(403, "CSRF token missing, mismatched or not issued by the service."),
    "csrf_missing": _c(403, "CSRF cookie absent."),
    "customer_not_allowed": _c(403, "The key is restricted to other customers."),
    "insufficient_scope": _c(403, "The key lacks the route's scope (`missing_scope` names it).", "after_action"),
    "invalid_api_key": _c(401, "The key has the prefix but is malformed or fails its checksum."),
    "invalid_code": _c(401, "Dashboard sign-in: the TOTP code is not the authenticator's current one."),
    "live_unconfirmed": _c(400, "Dashboard: a form posted in live mode without its confirmation box ticked."),
    "over_refund_limit": _c(403, "Dashboard: a support user's refund above the account's limit (`limit` names it)."),
    "field_too_long": _c(400, "Dashboard: a form field longer than its maximum (`field`, `most`)."),
    "invalid_email": _c(400, "Dashboard team: not an e-mail address of at most 254 characters."),
    "invalid_role": _c(400, "Dashboard team: not one of the roles."),
    "already_member": _c(409, "Dashboard team: the e-mail already has a dashboard user."),
    "weak_password": _c(400, "Dashboard: the password breaks the pool's policy (12+ characters, cases, a digit)."),
    "link_invalid": _c(410, "Dashboard: an invitation's or reset's link unknown, used or expired."),
    "invalid_signature": _c(401, "A secret-scanning report whose signature does not verify."),
    "ip_not_allowed": _c(403, "The caller's address is outside the key's allowlist.", "after_action"),
    "key_expired": _c(401, "The key is past its expires_at.", "after_action"),
    "signature_invalid": _c(401, "Webhook signature header malformed or no secret matches."),
    "signature_timestamp_outside_tolerance": _c(401, "The signature's t= is too far from the clock."),
    "unauthorized": _c(401, "No bearer header, or an unknown key or token."),
    "wrong_environment": _c(401, "A test key on live data or a live key on test data."),
    "account_suspended": _c(403, "The account is suspended.", "after_action"),
    "wrong_region": _c(421, "The tenant's data lives in another region (Service-Region names it)."),
    # Malformed requests
    "invalid_amount": _c(400, "An amount that is not a positive amount of the currency's minor units."),
    "invalid_callback_url": _c(400, "callback_url is not an http(s) URL a webhook may be posted to."),
    "invalid_currency": _c(400, "currency is not 3 upper-case letters."),
    "invalid_request": _c(400, "Unparseable body, a missing or out-of-range field, or a service rule."),
    "invalid_return_url": _c(400, "return_url neither starts with http nor with /."),
    "metadata_too_large": _c(400, "More than 50 metadata keys."),
    "metadata_value_too_large": _c(400, "A metadata key over 100 characters or a value over 500."),
    "not_found": _c(404, "Absent, or not visible to the caller's account or mode."),
    # Idempotency
    "idempotency_key_required": _c(400, "A money-moving request without an Idempotency-Key header."),
    "idempotency_key_reused": _c(409, "The key was used in this account and mode for another request."),
    "idempotency_unavailable": _c(503, "The idempotency store is unreachable; the request did not run.", "as_is"),
    "invalid_idempotency_key": _c(400, "Idempotency-Key longer than 255 bytes."),
    "request_in_progress": _c(409, "The same key is still being processed; Retry-After 1.", "later"),
    # Payments and refunds
    "amount_exceeds_remaining": _c((400, 422), "A refund above the payment's amount minus what was refunded."),
    "amount_too_high": _c(400, "Over the method's per-transaction maximum (the detail names it)."),
    "amount_too_low": _c(400, "Under the method's minimum."),
    "invalid_card": _c(400, "Test mode: not 13 to 19 digits, or fails Luhn."),
    "invalid_card_token": _c(400, "The token is not a valid tokenizer reference."),
    "invalid_otp": _c(422, "The OTP does not match."),
    "invalid_phone": _c(400, "The phone number does not match the method's pattern."),
    "invalid_state": _c(409, "The object is not in a state that allows the action."),
    "not_receiptable": _c(409, "A receipt was asked for before money moved.", "after_action"),
    "limit_exceeded": _c(422, "The amount breaks a ceiling; `rule` and `rejection_id` name it."),
    "live_payment": _c(403, "A hosted-checkout test action on a live payment."),
    "missing_otp": _c(400, "complete-action in the OTP flow without otp."),
    "missing_phone": _c(400, "A mobile-money source without a phone number."),
    "no_connector_binding": _c(409, "No connector is bound for the method.", "after_action"),
    "no_route": _c(503, "No eligible PSP is available; Retry-After 30 s, same Idempotency-Key.", "later"),
    "not_supported": _c(
        (400, 422), "Type, method, currency or country not enabled, or an operation the provider does not offer."
    ),
    "pilot_limit": _c(
        422, "A live transaction of a PSP in pilot breaks the pilot rule named in `rule`.", "after_action"
    ),
    "gateway.raw_card_data_not_accepted": _c(400, "A raw card number where an acquirer token is required."),
    "risk_declined": _c(422, "Declined by the risk stage before any provider call."),
    "unsupported_currency": _c(400, "The currency is not configured for the method."),
    # PSP transactions and cash deposits
    "duplicate_originator_reference": _c(409, "A PSP transaction's originator_reference was already submitted."),
    "not_refundable": _c(
        422, "A refund through /v1/psp/transactions of a non-refundable original or above its remainder."
    ),
    "not_a_partner": _c(403, "A cash-deposit call with a key of an account that is not a partner.", "after_action"),
    "lookup_used": _c(409, "A cash-deposit intent from a lookup that started a deposit of another amount or currency."),
    "deposit_refused": _c(422, "A cash-deposit intent refused on merits (expired lookup, amount outside limits)."),
    "option_locked": _c(409, "Selecting another option of an ambiguous lookup after a deposit started from it."),
    # Payouts
    "beneficiary_name_required": _c(400, "A bank payout without beneficiary name."),
    "invalid_account": _c(400, "The beneficiary account is not a valid NIB."),
    "insufficient_balance": _c(422, "The available balance does not cover the payout.", "after_action"),
    "invalid_method": _c(400, "destination.type is not a supported payout method."),
    "upstream_error": _c(502, "The provider could not answer.", "later"),
    # Bills (channels)
    "amount_out_of_range": _c(422, "The amount is not one the bill product or the reference accepts."),
    "biller_unavailable": _c(
        (422, 503),
        "503 + Retry-After 60: the biller's supplier is down; 422: the biller takes no payments or has no supplier.",
        "later",
    ),
    "consent_required": _c(422, "A payer subscription without accepted consent and a terms version.", "after_action"),
    "fee_bearer_conflict": _c(422, "A bill product's fee and discount configuration contradicts itself."),
    "invoice_closed": _c(409, "The invoice is no longer open (paid, cancelled or expired)."),
    "quote_expired": _c(422, "The quote's validity passed; quote again."),
    "quote_used": _c(409, "The quote is no longer quoted (a payment used it)."),
    "reference_not_found": _c(422, "The biller knows no customer or account for the reference."),
    "reference_rejected": _c(422, "The biller's supplier refused the lookup or the quote."),
    "resend_limit": _c(422, "The token or receipt was already resent 3 times."),
    "sms_unavailable": _c(503, "A resend by sms while no SMS channel is configured."),
    # Billers' own API
    "invoice_locked": _c(409, "The invoice is no longer open, or already (partly) paid."),
    "owned_by_origin": _c(409, "A commercial field or the retirement of a biller its origin back office owns."),
    "not_a_biller": _c(403, "The key's organisation is not a registered biller.", "after_action"),
    # PSP onboarding (management API)
    "already_submitted": _c(409, "PSP application submitted or edited as a draft after submission."),
    "application_incomplete": _c(422, "Submission with required fields missing; `missing` lists them."),
    "certification_running": _c(409, "A certification run of the application is already in progress.", "later"),
    "document_tampered": _c(
        409, "A stored KYB document no longer matches its recorded checksum (`document` names it).", "after_action"
    ),
    "invalid_logo": _c(400, "PSP logo upload or review refused on merits (type, size, dimensions; `errors`)."),
    # a merchant's own id sent again with another request
    "payment_id_reused": _c(409, "This payment_id belongs to another charge (other amount, source or details)."),
    "refund_id_reused": _c(409, "This refund_id belongs to another refund."),
    "payout_id_reused": _c(409, "This payout_id belongs to another payout."),
    # the service's own
    "rate_limited": _c(
        429, "Too many requests for the key, or uploads for the account (`rule`); Retry-After says when.", "later"
    ),
    "service_unavailable": _c(503, "A dependency is unreachable; Retry-After says when to retry.", "as_is"),
    "internal_error": _c(500, "A fault of the service; safe to retry money-moving calls with the same key.", "as_is"),
    # the management API's own
    "already_connected": _c(409, "The two accounts are already connected; remove the connection first."),
    "invalid_scope": _c(400, "A scope that does not exist (the detail names it)."),
    "invalid_cidr": _c(400, "An ip_allowlist entry that is not an IPv4 or IPv6 address or CIDR."),
    "missing_ceiling": _c(400, "A pilot's ceilings leave out one of its currencies."),
    "too_large": _c(400, "A connector credential's name over 64 characters or value over 8,192."),
    # the operator console's own
    "report_not_ready": _c(
        409, "A report's download asked before it succeeded (pending) or after it failed.", "after_action"
    ),
}

COLLECTION: dict[str, Code] = {
    "invalid_request": _c(400, "The request is malformed."),
    "validation_error": _c(400, "A field breaks its rule; metadata.errors names each."),
    "missing_field": _c(400, "Required fields are absent; metadata.errors names each."),
    "unauthorized": _c(401, "The access token is missing, invalid or expired."),
    "license_expired": _c(401, "The system licence has expired.", "after_action"),
    "license_invalid": _c(401, "The system licence is missing or invalid.", "after_action"),
    "forbidden": _c(403, "The identity lacks the permission.", "after_action"),
    "not_found": _c(404, "Absent, or not visible to the caller's account."),
    "customer_not_found": _c(404, "No such customer."),
    "already_exists": _c(409, "A duplicate."),
    "already_connected": _c(409, "Already connected."),
    "conflict": _c(409, "The object changed meanwhile, or its state does not allow the action."),
    "invalid_state": _c(409, "The object is not in a state that allows the action."),
    "transaction_failed": _c(400, "The provider refused the transaction."),
    "processing_error": _c((500, 503), "A fault of the service or a dependency; retry later.", "later"),
    "provider_error": _c(502, "The provider could not answer.", "later"),
    "wrong_region": _c(421, "The tenant's data lives in another region."),
    "rate_limited": _c(429, "Too many uploads for the account (`rule`, `limit`); Retry-After says when.", "later"),
    **{
        code: GATEWAY[code]
        for code in (
            "idempotency_key_required",
            "idempotency_key_reused",
            "idempotency_unavailable",
            "invalid_idempotency_key",
            "request_in_progress",
        )
    },
    # a transaction on a customer's payment method moves money through the gateway, whose refusals it answers
    "amount_too_low": _c(400, "Under the minimum of the method (the detail names it)."),
    "amount_too_high": _c(400, "Over the per-transaction maximum of the method (the detail names it)."),
    "invalid_card_token": _c(400, "The payment method's card token is not a valid tokenizer reference."),
    "no_connector_binding": _c(409, "No live connector is bound for the method.", "after_action"),
    "insufficient_balance": _c(422, "The business's available balance does not cover the payout.", "after_action"),
    "limit_exceeded": _c(422, "The amount breaks a ceiling; metadata.rule and metadata.rejection_id name it."),
    "not_supported": _c(422, "No provider carries the method, currency or operation."),
    "risk_declined": _c(422, "Declined by the risk stage before any provider call."),
    "pilot_limit": _c(422, "A live transaction of a PSP in pilot breaks the rule in metadata.rule.", "after_action"),
    "no_route": _c(503, "No eligible provider is available now; Retry-After 30 s, same Idempotency-Key.", "later"),
    # a pay_bill's quote, refused by the biller before the customer is charged (docs/bills.md)
    **{code: GATEWAY[code] for code in ("reference_not_found", "reference_rejected", "biller_unavailable")},
    # a payment recorded against a collection request (the spec's codes of an invoice's payment rules)
    "invoice_closed": _c(409, "The collection request is paid: nothing is due on it (pay_bill: the biller's invoice)."),
    "amount_out_of_range": _c(
        422,
        "More than is due on the collection request, or a part of one that takes a single payment"
        " (pay_bill: an amount the bill product or the reference does not take).",
    ),
}


OAUTH: dict[str, Code] = {  # the token endpoint (RFC 6749 5.2), in OAuth's {error, error_description}
    "invalid_request": _c(400, "The form is malformed: a parameter missing, repeated or unknown."),
    "invalid_client": _c(401, "Client authentication failed: unknown, revoked, bad assertion, suspended account."),
    "client_certificate_required": _c(
        401, "The account requires mTLS and none of its valid certificates was presented (tokens are bound to one)."
    ),
    "invalid_scope": _c(400, "A scope the client was not granted."),
    "unsupported_grant_type": _c(400, "A grant_type other than client_credentials."),
    "wrong_region": _c(421, "The client's account lives in another region."),
    "temporarily_unavailable": _c(503, "The token store is unreachable; Retry-After says when to retry.", "later"),
    "server_error": _c(500, "A fault of the service.", "as_is"),
}

# an API's surface (http.errors.Surface) -> its catalogue; management answers problem documents too
CATALOGUES: dict[str, dict[str, Code]] = {
    "gateway": GATEWAY,
    "management": GATEWAY,
    "collection": COLLECTION,
    "oauth": OAUTH,
}


def statuses(catalogue: dict[str, Code], codes: list[str] | tuple[str, ...]) -> dict[int, list[str]]:
    """status -> the codes of `codes` answered with it, in the given order (KeyError: uncatalogued)."""
    grouped: dict[int, list[str]] = {}
    for code in codes:
        for status in catalogue[code].statuses:
            grouped.setdefault(status, [])
            if code not in grouped[status]:
                grouped[status].append(code)
    return dict(sorted(grouped.items()))

"""Mutual TLS for a merchant account (docs/access.md, "Mutual TLS"): client certificates issued
by the region's private CA (POST /v1/client-certificates), and the account's switch
(PUT /v1/mtls): once required, every gateway request of the account needs one of its
certificates (the authorizer answers 401 client_certificate_required otherwise; OAuth tokens
are bound to one, mzpay.cases.oauth). Certificates are issued to the key's own account only; the
switch of a connected account moves only with a certificate of that account."""

from __future__ import annotations

from datetime import UTC, datetime

from mzpay import deps
from mzpay.answers.access import ClientCertificate as CertificateAnswer
from mzpay.answers.access import MtlsSetting
from mzpay.deps import settings
from mzpay.domain.access import client_certs as rules
from mzpay.domain.access.client_certs import CertStatus, ClientCertificate
from mzpay.domain.access.principal import Principal
from mzpay.domain.common.clock import iso
from mzpay.domain.common.errors import ServiceError, ensure_room, invalid_field
from mzpay.steps.accounts import home_account
from mzpay.store.client_certs import MAX_CERTS_PER_ACCOUNT, MtlsChanged


def certificate_required(detail: str, status: int = 401) -> ServiceError:
    return ServiceError(status, "client_certificate_required", detail)


def issue(principal: Principal, csr: str | None) -> CertificateAnswer:
    """A certificate for the account: from the merchant's CSR, or with a key pair made here whose
    private key is in this answer and nowhere else. Recorded by its SHA-256 fingerprint. Only
    for the key's own account: like API keys, certificates are not reached through a platform
    connection (404), since one would outlive the connection and open the account's mutual TLS
    (and its switch) to the platform."""
    if principal.acting_account_id != principal.account_id:
        raise ServiceError(404, "not_found", "No such account.")
    account = home_account(principal.acting_account_id, "gateway")
    ensure_room(deps.client_certs().count_of(account.account_id), MAX_CERTS_PER_ACCOUNT, "An account", "certificates")
    private_key = None
    if csr is not None:
        try:
            public_key = rules.csr_public_key(csr)
        except ValueError as exc:
            raise invalid_field("csr", str(exc)) from exc
    else:
        public_key, private_key = rules.new_key_pair()
    now = datetime.now(UTC)
    ca_key, ca_certificate = deps.client_certs().ca(lambda: rules.new_ca(settings().service_region, now))
    certificate = rules.issue(ca_key, ca_certificate, account.account_id, public_key, now)
    described = rules.described(certificate)
    record = ClientCertificate(
        fingerprint=described["fingerprint"],
        account_id=account.account_id,
        home_region=account.home_region,
        serial_number=described["serial_number"],
        subject=described["subject"],
        not_before=iso(described["not_before"]),
        not_after=iso(described["not_after"]),
        status=CertStatus.ACTIVE,
        created_at=iso(now),
    )
    deps.client_certs().add(record)
    answer = {**record.public(), "certificate": certificate, "ca_certificate": ca_certificate}
    if private_key is not None:
        answer["private_key"] = private_key
    return CertificateAnswer.of(answer)


def presented_counts(account_id: str, presented_pem: str | None, now: datetime) -> bool:
    """True when the request presented a valid certificate of `account_id`."""
    fingerprint = rules.fingerprint_of(presented_pem) if presented_pem else None
    record = deps.client_certs().get(fingerprint) if fingerprint else None
    return rules.counts(record, account_id, now)


def mtls(principal: Principal) -> MtlsSetting:
    account = home_account(principal.acting_account_id, "gateway")
    return MtlsSetting(account_id=account.account_id, required=account.mtls_required)


def set_mtls(principal: Principal, required: bool, presented_pem: str | None) -> MtlsSetting:
    """Require client certificates (only from a request that presents one of the account's: 409
    client_certificate_required otherwise, so nobody locks themselves out), or stop requiring
    (while required, only from a request that presents one of the account's: 401
    client_certificate_required otherwise, whoever asks: the account's own key or token, which
    the authorizer already held to it, or a platform acting with ?account_id=, whose own
    credential says nothing about the connected account's certificates)."""
    account = home_account(principal.acting_account_id, "gateway")
    presented = presented_counts(account.account_id, presented_pem, datetime.now(UTC))
    if required and not presented:
        raise certificate_required(
            "Present a client certificate of this account to require one: the request that enables "
            "mutual TLS shows that it works.",
            status=409,
        )
    if not required and account.mtls_required and not presented:
        raise certificate_required(
            "This account requires mutual TLS: only a request presenting one of its client certificates "
            "may stop requiring it."
        )
    try:
        deps.client_certs().set_mtls(account.account_id, required, account.version)
    except MtlsChanged as exc:
        raise ServiceError(409, "invalid_state", "The account changed meanwhile; read it and retry.") from exc
    return MtlsSetting(account_id=account.account_id, required=required)

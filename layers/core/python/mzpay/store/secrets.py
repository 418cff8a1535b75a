"""Secrets held in AWS Secrets Manager, cached per execution environment."""

from __future__ import annotations

from mzpay.config import env

SECRET_CACHE_SECONDS = 300


def operator_token() -> str:
    """The management API's operator credentials as stored: one bearer token (the stack generates
    it; its holder is named `operator`) or a JSON object naming each operator's token (see
    mzpay.domain.operators.credentials)."""
    from aws_lambda_powertools.utilities import parameters  # deferred: keeps boto3 off cold start of other paths

    value = parameters.get_secret(env("OPERATOR_TOKEN_SECRET_ARN"), max_age=SECRET_CACHE_SECONDS)
    return str(value)


def key_pepper() -> str:
    """The secret that API keys are hashed with (one value in every region: any region must
    recognise any key to answer 421)."""
    from aws_lambda_powertools.utilities import parameters

    value = parameters.get_secret(env("KEY_PEPPER_SECRET"), max_age=SECRET_CACHE_SECONDS)
    return str(value)


def page_token_key() -> bytes:
    """The key that seals page tokens which carry a position the service must trust (the
    balance transactions' running balance): derived from the key pepper, never the pepper itself."""
    import hashlib
    import hmac

    return hmac.new(key_pepper().encode(), b"mzpay sealed page tokens", hashlib.sha256).digest()

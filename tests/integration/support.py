"""What every in-process moto test needs: a clean fake-AWS environment and fresh mzpay caches."""

from __future__ import annotations

from aws_lambda_powertools.utilities import parameters

from mzpay import access, config
from mzpay.http import merchant_auth, operator_auth
from mzpay.store import aws

REGION = "af-south-1"


def reset_mzpay_caches() -> None:
    """Forget every client, table, secret and setting that mzpay cached per execution environment."""
    parameters.clear_caches()
    for cached in (
        aws._session_and_config,
        aws.table,
        aws.client,
        config.settings,
        merchant_auth._directory,
        access.directory,
        access.webhook_secrets,
        operator_auth._allowlist,
    ):
        cached.cache_clear()


def create_directory_table(name: str) -> None:
    """The tenant directory's key schema (pk/sk), as template.yaml declares it."""
    import boto3

    boto3.client("dynamodb", region_name=REGION).create_table(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    )

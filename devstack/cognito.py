"""The merchant dashboard's Cognito user pool and app client in moto (docs/dashboard.md).

moto checks TOTP codes only with MOTO_COGNITO_IDP_USER_POOL_ENABLE_TOTP=true (devstack.moto_server
sets it for the local stack, the integration tests for in-process moto); it then verifies a code
against one secret for every user, the SecretCode AssociateSoftwareToken answers (moto's
COGNITO_TOTP_MFA_SECRET), at the current 30-second step only, as a 6-digit SHA-1 TOTP."""

from __future__ import annotations

from typing import Any

from devstack.provision import ACCOUNT_ID, _Context, _props, provisioner

POOL_KEYS = (
    "UsernameAttributes",
    "UsernameConfiguration",
    "AutoVerifiedAttributes",
    "MfaConfiguration",
    "AdminCreateUserConfig",
    "AccountRecoverySetting",
    "Policies",
    "DeletionProtection",
)
CLIENT_KEYS = (
    "GenerateSecret",
    "ExplicitAuthFlows",
    "PreventUserExistenceErrors",
    "AccessTokenValidity",
    "IdTokenValidity",
    "RefreshTokenValidity",
    "TokenValidityUnits",
)


@provisioner("AWS::Cognito::UserPool")
def _user_pool(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    client = ctx.client("cognito-idp")
    kwargs = {key: props[key] for key in POOL_KEYS if key in props}
    pool = client.create_user_pool(PoolName=props.get("UserPoolName") or ctx.physical_name(logical, 128), **kwargs)
    pool_id = pool["UserPool"]["Id"]
    if "SOFTWARE_TOKEN_MFA" in (props.get("EnabledMfas") or []):
        client.set_user_pool_mfa_config(
            UserPoolId=pool_id,
            SoftwareTokenMfaConfiguration={"Enabled": True},
            MfaConfiguration=props.get("MfaConfiguration", "OPTIONAL"),
        )
    arn = f"arn:aws:cognito-idp:{ctx.stack.region}:{ACCOUNT_ID}:userpool/{pool_id}"
    ctx.set(logical, pool_id, Arn=arn, ProviderName=f"cognito-idp.{ctx.stack.region}.amazonaws.com/{pool_id}")


@provisioner("AWS::Cognito::UserPoolClient")
def _user_pool_client(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    kwargs = {key: props[key] for key in CLIENT_KEYS if key in props}
    created = ctx.client("cognito-idp").create_user_pool_client(
        UserPoolId=props["UserPoolId"], ClientName=props.get("ClientName") or logical, **kwargs
    )
    ctx.set(logical, created["UserPoolClient"]["ClientId"], Name=props.get("ClientName") or logical)

"""Merchant users of the local stack's dashboard (docs/dashboard.md): `make run` seeds the demo
account's owner, with TOTP set up, and writes its e-mail, password and TOTP secret to
.local/stack.json (`regions` of `dashboard`'s block); the tests make users of other accounts
the same way. Users are made as an account's owner would invite them (AdminCreateUser), then
signed in once to set up TOTP, as the dashboard's setup step does."""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime
from typing import Any

import boto3
from cryptography.hazmat.primitives.hashes import SHA1
from cryptography.hazmat.primitives.twofactor.totp import TOTP

STEP = 30  # seconds of one TOTP code (Cognito's, and authenticator apps')
MARGIN = 3  # a code with less than this left of its step is not typed: the next one is awaited


def totp_code(secret: str, at: float | None = None) -> str:
    """The 6-digit code an authenticator app shows for `secret` (base32, as AssociateSoftwareToken
    answers it) at `at` (now)."""
    import base64

    padded = secret.upper() + "=" * (-len(secret) % 8)
    totp = TOTP(base64.b32decode(padded), 6, SHA1(), STEP, enforce_key_length=False)
    return totp.generate(int(time.time() if at is None else at)).decode("ascii")


def fresh_totp_code(secret: str, deadline_seconds: float = STEP + 5) -> str:
    """A code that stays valid for at least MARGIN seconds (moto, like a strict verifier, takes
    the current step's code only): near a step's end, the next step's start is awaited."""
    deadline = time.monotonic() + deadline_seconds
    while STEP - time.time() % STEP < MARGIN:
        if time.monotonic() > deadline:
            raise TimeoutError("no TOTP step began in time")
        time.sleep(STEP - time.time() % STEP + 0.05)  # until the next step begins
    return totp_code(secret)


def demo_password() -> str:
    """A password the pool's policy takes: 12+ characters, upper and lower case, a digit."""
    return f"Demo-{secrets.token_urlsafe(12)}-a1A"


def create_user(
    *,
    endpoint: str | None,
    region: str,
    pool_id: str,
    client_id: str,
    accounts_table: str,
    account_id: str,
    email: str,
    role: str,
    with_totp: bool = True,
) -> dict[str, str]:
    """A merchant user of `account_id` with `role`: the Cognito user (password permanent, TOTP set
    up when `with_totp`) and its record; its e-mail, password and TOTP secret ("" without)."""
    session = boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name=region)
    cognito: Any = session.client("cognito-idp", endpoint_url=endpoint)
    email = email.lower()  # as the dashboard signs users in (the pool's usernames ignore case on AWS)
    password = demo_password()
    cognito.admin_create_user(
        UserPoolId=pool_id,
        Username=email,
        UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}],
        MessageAction="SUPPRESS",
    )
    cognito.admin_set_user_password(UserPoolId=pool_id, Username=email, Password=password, Permanent=True)
    secret = ""
    if with_totp:
        signed_in = cognito.admin_initiate_auth(
            UserPoolId=pool_id,
            ClientId=client_id,
            AuthFlow="ADMIN_USER_PASSWORD_AUTH",
            AuthParameters={"USERNAME": email, "PASSWORD": password},
        )
        token = signed_in["AuthenticationResult"]["AccessToken"]
        secret = cognito.associate_software_token(AccessToken=token)["SecretCode"]
        cognito.verify_software_token(AccessToken=token, UserCode=fresh_totp_code(secret), FriendlyDeviceName="demo")
        cognito.set_user_mfa_preference(
            AccessToken=token, SoftwareTokenMfaSettings={"Enabled": True, "PreferredMfa": True}
        )
    from mzpay.store.dashboard import DashboardUser, user_items  # the stack's own mzpay (launcher's PYTHONPATH)

    table = session.resource("dynamodb", endpoint_url=endpoint).Table(accounts_table)
    user = DashboardUser(email, account_id, role, datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    for item in user_items(user):
        table.put_item(Item=item)
    return {"email": email, "password": password, "totp_secret": secret}

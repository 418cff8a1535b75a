"""The merchant users' identity provider: the dashboard's Cognito user pool (docs/dashboard.md).

The server signs a user in (AdminInitiateAuth with ADMIN_USER_PASSWORD_AUTH, then
AdminRespondToAuthChallenge with the TOTP code); a user without TOTP whose role needs it sets one
up with the access token of that sign-in (AssociateSoftwareToken, VerifySoftwareToken,
SetUserMFAPreference). Tokens never reach the browser; the dashboard keeps its own session."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mzpay.config import env

REFUSED = frozenset({"NotAuthorizedException", "UserNotFoundException", "UserNotConfirmedException"})
WRONG_CODE = frozenset({"CodeMismatchException", "ExpiredCodeException", "EnableSoftwareTokenMFAException"})
DEVICE = "mzpay dashboard"


def error_code(exc: BaseException) -> str:
    """The AWS error code of a botocore ClientError ("" for anything else)."""
    return str((getattr(exc, "response", None) or {}).get("Error", {}).get("Code", ""))


@dataclass(frozen=True)
class Answer:
    """What a sign-in step led to: `challenge` (Cognito's session, the TOTP code next) or
    `access_token` (signed in), or neither (refused)."""

    challenge: str = ""
    access_token: str = ""

    @property
    def refused(self) -> bool:
        return not (self.challenge or self.access_token)


class Identity:
    def __init__(self, cognito: Any, pool_id: str, client_id: str) -> None:
        self.cognito = cognito  # the cognito-idp client (mzpay.store.aws.client: the stack's endpoint)
        self.pool_id = pool_id
        self.client_id = client_id

    @classmethod
    def from_env(cls, client: Callable[[str], Any]) -> Identity:
        return cls(client("cognito-idp"), env("DASHBOARD_USER_POOL_ID"), env("DASHBOARD_CLIENT_ID"))

    def password(self, email: str, password: str) -> Answer:
        """The password step: a TOTP challenge, or signed in, or refused (wrong password, no such user)."""
        try:
            answer = self.cognito.admin_initiate_auth(
                UserPoolId=self.pool_id,
                ClientId=self.client_id,
                AuthFlow="ADMIN_USER_PASSWORD_AUTH",
                AuthParameters={"USERNAME": email, "PASSWORD": password},
            )
        except Exception as exc:
            if error_code(exc) in REFUSED:
                return Answer()
            raise
        if answer.get("ChallengeName") == "SOFTWARE_TOKEN_MFA":
            return Answer(challenge=answer["Session"])
        return Answer(access_token=(answer.get("AuthenticationResult") or {}).get("AccessToken", ""))

    def totp(self, email: str, challenge: str, code: str) -> bool:
        """The TOTP step: the code is the user's authenticator's now."""
        try:
            answer = self.cognito.admin_respond_to_auth_challenge(
                UserPoolId=self.pool_id,
                ClientId=self.client_id,
                ChallengeName="SOFTWARE_TOKEN_MFA",
                Session=challenge,
                ChallengeResponses={"USERNAME": email, "SOFTWARE_TOKEN_MFA_CODE": code},
            )
        except Exception as exc:
            if error_code(exc) in WRONG_CODE | REFUSED:
                return False
            raise
        return "AuthenticationResult" in answer

    def new_totp_secret(self, access_token: str) -> str:
        """The secret of a TOTP being set up (shown once, typed into an authenticator app)."""
        return str(self.cognito.associate_software_token(AccessToken=access_token)["SecretCode"])

    def confirm_totp(self, access_token: str, code: str) -> bool:
        """The first code of the new TOTP: right, and TOTP is the user's MFA from now on."""
        try:
            verified = self.cognito.verify_software_token(
                AccessToken=access_token, UserCode=code, FriendlyDeviceName=DEVICE
            )
        except Exception as exc:
            if error_code(exc) in WRONG_CODE:
                return False
            raise
        if verified.get("Status") != "SUCCESS":
            return False
        self.cognito.set_user_mfa_preference(
            AccessToken=access_token, SoftwareTokenMfaSettings={"Enabled": True, "PreferredMfa": True}
        )
        return True

    # ---------------------------------------------------------------- the team (invitations, resets, removal)
    def create_user(self, email: str, password: str) -> bool:
        """An accepted invitation's user: created with no message (the invitation was ours) and
        its password made permanent. False when the pool has the e-mail already."""
        try:
            self.cognito.admin_create_user(
                UserPoolId=self.pool_id,
                Username=email,
                UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}],
                MessageAction="SUPPRESS",
            )
        except Exception as exc:
            if error_code(exc) == "UsernameExistsException":
                return False
            raise
        try:
            self.set_password(email, password)
        except Exception:
            self.delete_user(email)  # nothing half-done
            raise
        return True

    def set_password(self, email: str, password: str) -> None:
        """A new permanent password (an accepted invitation, a reset); TOTP stays as it was."""
        self.cognito.admin_set_user_password(UserPoolId=self.pool_id, Username=email, Password=password, Permanent=True)

    def delete_user(self, email: str) -> None:
        """The user gone from the pool (a removal); already gone is done."""
        try:
            self.cognito.admin_delete_user(UserPoolId=self.pool_id, Username=email)
        except Exception as exc:
            if error_code(exc) != "UserNotFoundException":
                raise

    def has_totp(self, email: str) -> bool:
        """The user has set TOTP up (the team page's MFA status)."""
        try:
            user = self.cognito.admin_get_user(UserPoolId=self.pool_id, Username=email)
        except Exception as exc:
            if error_code(exc) == "UserNotFoundException":
                return False
            raise
        return "SOFTWARE_TOKEN_MFA" in (user.get("UserMFASettingList") or [])

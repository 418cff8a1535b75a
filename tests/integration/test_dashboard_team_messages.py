"""A dashboard user's e-mails through the notification sender on in-process moto (docs/dashboard.md,
"Team"): an invitation and a password reset, sent once however often the queue delivers them, in
Portuguese or English, and recorded with the link masked (operators reading the records never see
a usable link)."""

from __future__ import annotations

from devstack.provision import ProvisionedStack
from mzpay import deps
from mzpay.cases import notifications
from mzpay.domain.dashboard import team
from tests.integration.test_messages import sent_emails, stack  # noqa: F401 (fixture)
from tests.integration.test_notices import read_email

ACCOUNT = "acct_01JD5XK0W8Q5W3M4N6P7R8S9TV"
LINK = "https://dash.example/invitations/" + "t" * 43


def message(notice: str, language: str, cause: str, link: str = LINK) -> dict[str, str]:
    return {
        "kind": team.QUEUE_KIND,
        "notice": notice,
        "to": "ana@example.co.mz",
        "account_id": ACCOUNT,
        "language": language,
        "link": link,
        "cause": cause,
        "inviter": "owner@example.co.mz",
        "role": "support",
    }


def test_an_invitation_is_sent_once_in_portuguese_and_recorded_without_its_link(stack: ProvisionedStack) -> None:  # noqa: F811
    invitation = message(team.INVITATION, "pt", "dashboard.invitation:abc")
    for _ in range(3):  # the queue delivers a message more than once
        notifications.deliver(invitation)
    (sent,) = sent_emails()
    mail, text, html = read_email(sent)
    assert (mail["To"], mail["Subject"]) == ("ana@example.co.mz", "Foi convidado para o painel mzpay de mzpay")
    assert "owner@example.co.mz convida-o para o painel mzpay de mzpay como apoio ao cliente." in text
    assert LINK in text and f'href="{LINK}"' in html
    (record,) = deps.message_records().about(ACCOUNT)
    assert (record["cause"], record["status"]) == ("dashboard.invitation:abc", "sent")
    assert LINK not in str(record) and "[link]" in record["text"]


def test_a_reset_in_english(stack: ProvisionedStack) -> None:  # noqa: F811
    link = "https://dash.example/password-reset/" + "r" * 43
    notifications.deliver(message(team.PASSWORD_RESET, "en", "dashboard.password_reset:def", link))
    (sent,) = sent_emails()
    mail, text, _html = read_email(sent)
    assert mail["Subject"] == "Reset your mzpay dashboard password"
    assert text.startswith("Hello,") and "open this link within an hour" in text and link in text

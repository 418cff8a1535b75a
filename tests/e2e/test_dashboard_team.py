"""The dashboard's team over HTTP on the local stack (docs/dashboard.md, "Team"): the team page,
an invitation e-mailed (read back from moto's SES), re-sent and accepted (with TOTP set up), two
accepts racing, the roles' limits, another account's users and invitations (404), a role changed,
a user removed (its session ends at once), an invitation revoked, a password reset without
telling who is a user, bad input refused with nothing stored; the audit trail of each change."""

from __future__ import annotations

import re
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from devstack.dashboard_demo import demo_password, fresh_totp_code
from devstack.launcher import RunningStack
from tests.e2e.dashboard_client import (
    DashboardUser,
    accept_invitation,
    csrf,
    dashboard_link,
    email_text,
    emails_sent_to,
    new_user,
    team_shown,
)
from tests.e2e.test_charges import Merchant
from tests.e2e.test_payouts import management, operator

pytestmark = pytest.mark.e2e


def unique(role: str) -> str:
    return f"{role}-{uuid.uuid4().hex[:10]}@example.co.mz"


def signed_in(stack: RunningStack, account_id: str, role: str, lang: str | None = None) -> tuple[DashboardUser, str]:
    member = new_user(stack, account_id, unique(role), role)
    user = DashboardUser(stack, lang=lang)
    assert user.sign_in(member).status_code == 303
    return user, member["email"]


def dashboard_records(stack: RunningStack, actor: str) -> list[dict[str, Any]]:
    answer = requests.get(
        f"{management(stack)}/v1/audit-records", params={"actor": actor}, headers=operator(stack), timeout=30
    )
    assert answer.status_code == 200, answer.text
    return sorted(answer.json()["data"], key=lambda record: str(record["id"]))  # oldest first (ULIDs)


def refused(answer: requests.Response, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.headers["X-Error-Code"] == code and f'data-code="{code}"' in answer.text
    assert answer.headers["Cache-Control"] == "no-store"


def test_an_owner_invites_a_support_user_who_accepts_sets_up_totp_and_signs_in(stack: RunningStack) -> None:
    shop = Merchant(stack)
    owner, owner_email = signed_in(stack, shop.account["id"], "owner")
    page = owner.call("GET", "/team")
    assert page.status_code == 200 and 'data-page="team"' in page.text and page.headers["Content-Language"] == "pt"
    shown = team_shown(page)
    assert list(shown) == [owner_email]
    assert shown[owner_email]["role"] == "owner" and shown[owner_email]["status"] == "active"
    assert shown[owner_email]["totp"] == "yes"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", shown[owner_email]["last_sign_in"])
    assert 'data-nav="team"' in page.text and "Equipa" in page.text

    invitee = unique("support")
    sent = owner.post("/team/invitations", {"email": invitee.upper(), "role": "support"}, "/team")
    assert (sent.status_code, sent.headers["Location"]) == (303, "/team")
    shown = team_shown(owner.call("GET", "/team"))
    assert shown[invitee] == {"role": "support", "status": "invited", "totp": "no", "last_sign_in": ""}
    first = emails_sent_to(stack, invitee)[0]
    assert first["Subject"] == "Foi convidado para o painel mzpay de mzpay"
    assert f"{owner_email} convida-o para o painel mzpay de mzpay como apoio ao cliente." in email_text(first)
    first_link = dashboard_link(first, "invitations")

    again = owner.post("/team/invitations", {"email": invitee, "role": "support"}, "/team")  # a re-send
    assert again.status_code == 303 and list(team_shown(owner.call("GET", "/team"))) == [owner_email, invitee]
    link = dashboard_link(emails_sent_to(stack, invitee, 2)[1], "invitations")
    assert link != first_link
    refused(DashboardUser(stack).call("GET", first_link), 410, "link_invalid")  # the old link stops working

    visitor = DashboardUser(stack)
    opened = visitor.call("GET", link)
    assert opened.status_code == 200 and f'data-invitation="{invitee}" data-role="support"' in opened.text
    weak = visitor.post(link, {"password": "short"}, link)
    refused(weak, 400, "weak_password")
    assert "A palavra-passe precisa de 12 a 256 caracteres" in weak.text
    assert csrf(weak) and team_shown(owner.call("GET", "/team"))[invitee]["status"] == "invited"  # nothing made

    password = demo_password()
    member = accept_invitation(stack, link, password)
    home = member.call("GET", "/")
    assert home.status_code == 200 and f'data-user="{invitee}"' in home.text and 'data-nav="team"' not in home.text
    refused(member.call("GET", "/team"), 403, "forbidden")  # support holds no team:write
    refused(DashboardUser(stack).call("GET", link), 410, "link_invalid")  # used

    shown = team_shown(owner.call("GET", "/team"))
    assert (shown[invitee]["role"], shown[invitee]["status"], shown[invitee]["totp"]) == ("support", "active", "yes")
    again_in = DashboardUser(stack)  # signs in as any user: password, then the TOTP set up
    credentials = {"email": invitee, "password": password, "totp_secret": member.totp_secret}
    assert again_in.sign_in(credentials).status_code == 303

    invited = [r for r in dashboard_records(stack, owner_email) if r["action"] == "team_invite"]
    assert [(r["outcome"]["status"], r["surface"], r["actor"]["kind"], r["account_id"]) for r in invited] == [
        (303, "dashboard", "merchant_user", shop.account["id"])
    ] * 2
    assert invited[0]["target"] == {"type": "dashboard_invitation", "id": invitee}
    assert invited[0]["after"]["role"] == "support"
    accepted = [r for r in dashboard_records(stack, invitee) if r["action"] == "invitation_accept"]
    assert [(r["outcome"]["status"], r["outcome"]["code"]) for r in accepted] == [(400, "weak_password"), (303, None)]
    assert accepted[1]["after"] == {"email": invitee, "role": "support", "invited_by": owner_email}
    assert all("short" not in str(r["request"]) and password not in str(r["request"]) for r in accepted)


def test_two_racing_accepts_of_one_invitation_make_one_user(stack: RunningStack) -> None:
    shop = Merchant(stack)
    owner, _ = signed_in(stack, shop.account["id"], "owner")
    invitee = unique("finance")
    assert owner.post("/team/invitations", {"email": invitee, "role": "finance"}, "/team").status_code == 303
    link = dashboard_link(emails_sent_to(stack, invitee)[0], "invitations")
    browsers = [DashboardUser(stack), DashboardUser(stack)]
    tokens = [csrf(browser.call("GET", link)) for browser in browsers]
    passwords = [demo_password(), demo_password()]
    with ThreadPoolExecutor(2) as pool:
        answers = list(
            pool.map(
                lambda i: browsers[i].call("POST", link, {"password": passwords[i], "csrf_token": tokens[i]}), (0, 1)
            )
        )
    assert sorted(a.status_code for a in answers) == [303, 410], [a.text for a in answers]
    winner = next(i for i, a in enumerate(answers) if a.status_code == 303)
    assert answers[winner].headers["Location"] == "/"  # finance signs in without TOTP until it sets one up
    shown = team_shown(owner.call("GET", "/team"))
    assert [e for e in shown if e == invitee] == [invitee] and shown[invitee]["status"] == "active"
    loser = DashboardUser(stack)
    refused(loser.sign_in({"email": invitee, "password": passwords[1 - winner]}), 401, "sign_in_failed")


def test_the_roles_limits_and_another_accounts_team_and_bad_input(stack: RunningStack) -> None:
    shop, other = Merchant(stack), Merchant(stack)
    owner_email = new_user(stack, shop.account["id"], unique("owner"), "owner")["email"]
    admin, admin_email = signed_in(stack, shop.account["id"], "administrator", lang="en")
    support, _ = signed_in(stack, shop.account["id"], "support")
    outsider = new_user(stack, other.account["id"], unique("developer"), "developer")["email"]
    other_owner, _ = signed_in(stack, other.account["id"], "owner")
    foreign_invitee = unique("support")
    invited = other_owner.post("/team/invitations", {"email": foreign_invitee, "role": "support"}, "/team")
    assert invited.status_code == 303
    before = team_shown(admin.call("GET", "/team"))

    page = admin.call("GET", "/team")
    assert 'value="owner"' not in page.text and 'value="administrator"' in page.text  # an owner only by an owner
    made_owner = admin.post("/team/invitations", {"email": unique("x"), "role": "owner"}, "/team")
    refused(made_owner, 403, "forbidden")
    assert 'data-page="team"' in made_owner.text and "Your role may not do this." in made_owner.text
    refused(admin.post("/team/role", {"email": owner_email, "role": "support"}, "/team"), 403, "forbidden")
    refused(admin.post("/team/remove", {"email": owner_email}, "/team"), 403, "forbidden")
    refused(admin.post("/team/role", {"email": admin_email, "role": "owner"}, "/team"), 403, "forbidden")
    refused(admin.post("/team/remove", {"email": admin_email}, "/team"), 403, "forbidden")  # not itself
    refused(admin.post("/team/remove", {"email": outsider}, "/team"), 404, "not_found")
    refused(admin.post("/team/role", {"email": outsider, "role": "support"}, "/team"), 404, "not_found")
    refused(admin.post("/team/invitations/revoke", {"email": foreign_invitee}, "/team"), 404, "not_found")
    refused(support.post("/team/invitations", {"email": unique("y"), "role": "support"}, "/"), 403, "forbidden")
    refused(support.post("/team/remove", {"email": admin_email}, "/"), 403, "forbidden")

    too_long = admin.post("/team/invitations", {"email": "a" * 250 + "@example.co.mz", "role": "support"}, "/team")
    refused(too_long, 400, "invalid_email")
    assert "Type an e-mail address of at most 254 characters." in too_long.text and csrf(too_long)
    refused(admin.post("/team/invitations", {"email": unique("z"), "role": "boss"}, "/team"), 400, "invalid_role")
    card = admin.post("/team/invitations", {"email": "4242424242424242", "role": "support"}, "/team")
    assert card.status_code == 400 and "A card number may not be typed here" in card.text
    assert card.headers["Content-Language"] == "en" and csrf(card) == csrf(admin.call("GET", "/team"))
    assert team_shown(admin.call("GET", "/team")) == before  # nothing stored, nothing changed
    assert team_shown(other_owner.call("GET", "/team"))[outsider]["role"] == "developer"
    codes = [r["outcome"]["code"] for r in dashboard_records(stack, admin_email) if r["action"] == "team_invite"]
    assert codes[:3] == ["forbidden", "invalid_email", "invalid_role"]


def test_a_role_changed_a_user_removed_and_an_invitation_revoked(stack: RunningStack) -> None:
    shop = Merchant(stack)
    owner, owner_email = signed_in(stack, shop.account["id"], "owner")
    developer, developer_email = signed_in(stack, shop.account["id"], "developer")
    finance, finance_email = signed_in(stack, shop.account["id"], "finance")
    copied = dict(finance.cookies)

    assert owner.post("/team/role", {"email": developer_email, "role": "administrator"}, "/team").status_code == 303
    assert team_shown(owner.call("GET", "/team"))[developer_email]["role"] == "administrator"
    assert developer.call("GET", "/team").status_code == 200  # the new role holds from the next request

    assert finance.call("GET", "/").status_code == 200
    removed = owner.post("/team/remove", {"email": finance_email}, "/team")
    assert (removed.status_code, removed.headers["Location"]) == (303, "/team")
    assert finance_email not in team_shown(owner.call("GET", "/team"))
    thief = DashboardUser(stack)
    thief.cookies = copied
    gone = thief.call("GET", "/")
    assert (gone.status_code, gone.headers["Location"]) == (303, "/sign-in")  # its session ended at once
    stranger = DashboardUser(stack)
    refused(stranger.sign_in({"email": finance_email, "password": "Whatever-123456"}), 401, "sign_in_failed")

    invitee = unique("support")
    assert owner.post("/team/invitations", {"email": invitee, "role": "support"}, "/team").status_code == 303
    link = dashboard_link(emails_sent_to(stack, invitee)[0], "invitations")
    revoked = owner.post("/team/invitations/revoke", {"email": invitee}, "/team")
    assert (revoked.status_code, revoked.headers["Location"]) == (303, "/team")
    assert invitee not in team_shown(owner.call("GET", "/team"))
    refused(DashboardUser(stack).call("GET", link), 410, "link_invalid")

    actions = {(r["action"], r["outcome"]["status"]) for r in dashboard_records(stack, owner_email)}
    assert {("team_role", 303), ("team_remove", 303), ("team_revoke", 303)} <= actions
    removal = next(r for r in dashboard_records(stack, owner_email) if r["action"] == "team_remove")
    assert removal["before"] == {"email": finance_email, "role": "finance"} and removal["after"] == {"removed": True}
    assert removal["actor"]["id"] == owner_email and removal["surface"] == "dashboard"


def test_a_password_reset_tells_nobody_who_is_a_user_and_ends_the_sessions(stack: RunningStack) -> None:
    shop = Merchant(stack)
    member = new_user(stack, shop.account["id"], unique("developer"), "developer")
    old_session = DashboardUser(stack)
    assert old_session.sign_in(member).status_code == 303
    visitor = DashboardUser(stack, lang="en")
    asked = visitor.post("/password-reset", {"email": member["email"]}, "/password-reset")
    unknown = visitor.post("/password-reset", {"email": unique("nobody")}, "/password-reset")
    assert asked.status_code == unknown.status_code == 200
    unique_parts = r'(value|nonce)="[^"]+"'  # the form's token and the style's nonce: new each time
    assert re.sub(unique_parts, "", asked.text) == re.sub(unique_parts, "", unknown.text)
    assert "If this address belongs to a dashboard user, we sent it a link" in asked.text
    mail = emails_sent_to(stack, member["email"])[0]
    assert mail["Subject"] == "Reset your mzpay dashboard password"
    link = dashboard_link(mail, "password-reset")

    page = visitor.call("GET", link)
    assert page.status_code == 200 and f'data-reset="{member["email"]}"' in page.text
    refused(visitor.post(link, {"password": "alllowercase1"}, link), 400, "weak_password")
    new_password = demo_password()
    done = visitor.post(link, {"password": new_password}, link)
    assert (done.status_code, done.headers["Location"]) == (303, "/sign-in")
    ended = old_session.call("GET", "/")
    assert (ended.status_code, ended.headers["Location"]) == (303, "/sign-in")
    refused(DashboardUser(stack).sign_in(member), 401, "sign_in_failed")  # the old password
    again = DashboardUser(stack)
    first = again.post("/sign-in", {"email": member["email"], "password": new_password}, "/sign-in")
    assert (first.status_code, first.headers["Location"]) == (303, "/sign-in/code")  # TOTP still asked
    code = again.post("/sign-in/code", {"code": fresh_totp_code(member["totp_secret"])}, "/sign-in/code")
    assert (code.status_code, code.headers["Location"]) == (303, "/")
    refused(visitor.call("GET", link), 410, "link_invalid")  # once

    email = unique("limited")
    answers = [visitor.post("/password-reset", {"email": email}, "/password-reset") for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429] and answers[3].headers["Retry-After"] == "60"
    reset = [r for r in dashboard_records(stack, member["email"]) if r["action"] == "reset_password"]
    outcomes = [(r["outcome"]["status"], r["actor"]["kind"]) for r in reset]
    assert outcomes == [(400, "merchant_user"), (303, "merchant_user")]
    assert reset[1]["after"] == {"password_reset": True} and reset[1]["account_id"] == shop.account["id"]

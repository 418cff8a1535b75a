"""The audit trail over HTTP: every state-changing request of an operator (management API) or a
reviewer (collection surface) is recorded once, with who, from where, when, what, the outcome and
the target before and after; operators read it filtered and paged; secrets never reach it."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from tests.e2e.collection_client import licensed
from tests.e2e.test_charges import wallet
from tests.e2e.test_payouts import funded, manage, management, operator, payout, set_payout_limits
from tests.expected import payout_approval_record, problem_for
from tests.polling import eventually

pytestmark = pytest.mark.e2e


def trail(stack: RunningStack, **filters: str) -> requests.Response:
    return requests.get(f"{management(stack)}/v1/audit-records", params=filters, headers=operator(stack), timeout=30)


def records(stack: RunningStack, **filters: str) -> list[dict[str, Any]]:
    answer = trail(stack, **filters)
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]  # type: ignore[no-any-return]


def test_a_payout_approval_is_recorded_with_who_what_before_and_after(stack: RunningStack) -> None:
    shop = funded(stack, "5000.00")
    set_payout_limits(stack, shop, approval_threshold={"MZN": "1000.00"})
    big = payout(shop, wallet("+258840000000"), "1500.00").json()
    payout_id = big["provider_payout_id"]
    url = f"{management(stack)}/v1/payouts/{payout_id}/approve"
    approved = requests.post(url, headers=operator(stack), timeout=30)
    assert approved.status_code == 200, approved.text
    again = requests.post(url, headers=operator(stack), timeout=30)
    assert again.status_code == 409

    found = records(stack, target_type="payout", target_id=payout_id)
    assert len(found) == 2
    refused, done = found  # newest first
    assert done["id"] < refused["id"]
    assert done == payout_approval_record(
        done,
        "operator",
        "127.0.0.1",
        payout_id,
        account_id=shop.account["id"],
        request=None,
        before=done["before"],
        after=done["after"],
        request_id=approved.headers["X-Request-ID"],
    )
    assert (done["before"]["status"], done["after"]["status"]) == ("waiting_for_approval", "pending")
    assert done["after"] == approved.json()
    assert abs(datetime.fromisoformat(done["at"]) - datetime.now(UTC)) < timedelta(minutes=2)
    assert refused["outcome"] == {"status": 409, "code": "invalid_state"}
    assert (refused["before"], refused["after"]) == (None, None)  # the refusal changed nothing
    assert refused["request_id"] == again.headers["X-Request-ID"]

    read = requests.get(f"{management(stack)}/v1/audit-records/{done['id']}", headers=operator(stack), timeout=30)
    assert (read.status_code, read.json()) == (200, done)


def test_the_trail_filters_by_account_action_actor_and_time(stack: RunningStack) -> None:
    shop = funded(stack)
    account_id = shop.account["id"]
    set_payout_limits(stack, shop, approval_threshold={"MZN": "1000.00"})
    suspended = manage(stack, "POST", f"/v1/accounts/{account_id}/suspend", {"reason": "KYC review"})
    assert suspended.status_code == 200, suspended.text

    mine = records(stack, account_id=account_id)
    # newest first: the suspension, the payout limits, the two API keys, ... the account's creation
    assert [r["action"] for r in mine[:2]] == ["suspend_account", "set_payout_limits"]
    assert {r["account_id"] for r in mine} == {account_id}
    suspension = mine[0]
    assert suspension["target"] == {"type": "account", "id": account_id}
    assert suspension["request"] == {"reason": "KYC review"}
    assert (suspension["before"]["status"], suspension["after"]["status"]) == ("active", "suspended")

    assert [r["id"] for r in records(stack, account_id=account_id, action="suspend_account")] == [suspension["id"]]
    assert suspension["id"] in [r["id"] for r in records(stack, actor="operator", action="suspend_account")]
    assert records(stack, actor="nobody-by-this-name") == []
    moment = datetime.fromisoformat(suspension["at"])
    window = {
        "since": (moment - timedelta(seconds=1)).isoformat(),
        "until": (moment + timedelta(seconds=1)).isoformat(),
    }
    assert suspension["id"] in [r["id"] for r in records(stack, account_id=account_id, **window)]
    later = (moment + timedelta(hours=1)).isoformat()
    assert records(stack, account_id=account_id, since=later) == []


def test_pages_follow_each_other_and_a_foreign_token_is_refused(stack: RunningStack) -> None:
    shop = funded(stack)
    account_id = shop.account["id"]
    for reason in ("one", "two"):
        for action in ("suspend", "reactivate"):
            body = {"reason": reason} if action == "suspend" else None
            url = f"{management(stack)}/v1/accounts/{account_id}/{action}"
            assert requests.post(url, json=body, headers=operator(stack), timeout=30).status_code == 200
    everything = records(stack, account_id=account_id)
    first = trail(stack, account_id=account_id, limit="2").json()
    assert (first["data"], first["has_more"]) == (everything[:2], True)
    second = trail(stack, account_id=account_id, limit="2", page_token=first["next_page_token"]).json()
    assert second["data"] == everything[2:4]

    other = trail(stack, account_id=str(ULID()), page_token=first["next_page_token"])
    assert other.json() == problem_for(
        400,
        "invalid_request",
        "page_token: not a page_token this list gave.",
        errors=[{"field": "page_token", "code": "invalid_value", "message": "not a page_token this list gave"}],
    )


@pytest.mark.parametrize(
    ("filters", "field", "message"),
    [
        ({"since": "yesterday"}, "since", "an ISO 8601 date-time with its offset, e.g. 2026-11-25T10:00:00Z"),
        ({"until": "2026-11-25T10:00:00"}, "until", "an ISO 8601 date-time with its offset, e.g. 2026-11-25T10:00:00Z"),
        (
            {"since": "2026-11-25T10:00:00Z", "until": "2026-11-25T09:00:00Z"},
            "until",
            "a moment after `since`",
        ),
        ({"target_id": "01JD8Z5Q1R2S3T4V5W6X7Y8Z9B"}, "target_type", "needed with target_id"),
    ],
)
def test_bad_filters_are_400(stack: RunningStack, filters: dict[str, str], field: str, message: str) -> None:
    answer = trail(stack, **filters)
    assert answer.json() == problem_for(
        400,
        "invalid_request",
        f"{field}: {message}.",
        errors=[{"field": field, "code": "invalid_value", "message": message}],
    )


def test_an_unknown_record_is_404(stack: RunningStack) -> None:
    for audit_id in (str(ULID()), "not-an-id"):
        answer = requests.get(f"{management(stack)}/v1/audit-records/{audit_id}", headers=operator(stack), timeout=30)
        assert answer.json() == problem_for(404, "not_found", "No such audit record.")


def test_secrets_sent_by_an_operator_never_reach_the_trail(stack: RunningStack) -> None:
    shop = funded(stack)
    account_id = shop.account["id"]
    secret = f"sk-{ULID()}"
    requests.put(
        f"{management(stack)}/v1/accounts/{account_id}/connector-bindings/live/mpesa",
        json={
            "psp_id": "vodacom-mpesa",
            "credentials": {"api_key": secret, "public_key": secret, "service_provider_code": "171717"},
        },
        headers=operator(stack),
        timeout=30,
    )
    issued = requests.post(
        f"{management(stack)}/v1/accounts/{account_id}/api-keys",
        json={"mode": "test"},
        headers=operator(stack),
        timeout=30,
    ).json()["key"]
    mine = records(stack, account_id=account_id)
    binding = next(r for r in mine if r["action"] == "bind_connector")
    assert binding["request"] == {"psp_id": "vodacom-mpesa", "credentials": "[redacted]"}
    assert binding["target"] == {"type": "account", "id": account_id}
    text = json.dumps(mine)
    assert secret not in text and issued not in text
    assert stack.state["operator_token"] not in text


def test_a_reviewers_decision_on_the_collection_surface_is_recorded(stack: RunningStack) -> None:
    mz = licensed(stack)
    subject = f"reviewer-{ULID()}"
    token = mz.mint_admin(sub=subject, scope="account:review")
    unknown = str(ULID())
    answer = mz.call("POST", f"/v1/accounts/{unknown}/approve", token=token)
    assert answer.status_code == 404, answer.text
    found = eventually(lambda: records(stack, actor=subject), bool)
    assert len(found) == 1
    record = found[0]
    assert record["actor"] == mz.audited_administrator(subject)
    assert (record["surface"], record["action"], record["path"]) == (
        "collection",
        "approve_account",
        "/v1/accounts/{account_id}/approve",
    )
    assert record["target"] == {"type": "account", "id": unknown}
    assert record["outcome"] == {"status": 404, "code": "not_found"}
    # a business's own requests are not reviewers' actions: not recorded
    assert records(stack, actor="owner-of-nothing") == []


def test_racing_approvals_leave_one_record_each_and_one_success(stack: RunningStack) -> None:
    shop = funded(stack, "5000.00")
    set_payout_limits(stack, shop, approval_threshold={"MZN": "1000.00"})
    payout_id = payout(shop, wallet("+258840000000"), "1500.00").json()["provider_payout_id"]
    url = f"{management(stack)}/v1/payouts/{payout_id}/approve"
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: requests.post(url, headers=operator(stack), timeout=30), range(6)))
    assert sorted(a.status_code for a in answers) == [200, 409, 409, 409, 409, 409]
    found = records(stack, target_type="payout", target_id=payout_id)
    assert sorted(r["request_id"] for r in found) == sorted(a.headers["X-Request-ID"] for a in answers)
    assert sorted((r["outcome"]["status"], r["outcome"]["code"]) for r in found) == [
        (200, None),
        *[(409, "invalid_state")] * 5,
    ]
    winner = next(r for r in found if r["outcome"]["status"] == 200)
    assert (winner["before"]["status"], winner["after"]["status"]) == ("waiting_for_approval", "pending")


def test_a_regions_trail_stays_in_its_region(stack: RunningStack) -> None:
    shop = funded(stack)
    account_id = shop.account["id"]
    mine = records(stack, account_id=account_id)
    assert mine  # the account's creation, its keys, ...
    elsewhere = stack.state["regions"]["regional-sa"]["management"]
    listed = requests.get(
        f"{elsewhere}/v1/audit-records", params={"account_id": account_id}, headers=operator(stack), timeout=30
    )
    assert (listed.status_code, listed.json()["data"]) == (200, [])
    read = requests.get(f"{elsewhere}/v1/audit-records/{mine[0]['id']}", headers=operator(stack), timeout=30)
    assert read.json() == problem_for(404, "not_found", "No such audit record.")


@pytest.mark.parametrize("name", ["account_id", "actor", "action", "target_type", "target_id", "since", "until"])
def test_an_empty_filter_is_400_not_an_empty_key(stack: RunningStack, name: str) -> None:
    answer = trail(stack, **{name: ""})
    body = answer.json()
    assert (answer.status_code, body["code"], [e["field"] for e in body["errors"]]) == (400, "invalid_request", [name])


def test_an_uploaded_file_is_recorded_by_its_media_type_and_size(stack: RunningStack) -> None:
    from tests.e2e.test_psp_onboarding import LOGO, Operator, draft

    ops = Operator(stack)
    application = draft(ops)
    application_id = application["application_id"]
    ops.ok("PUT", f"/v1/admin/psps/{application_id}/logo", raw=LOGO, media="image/png")
    found = records(stack, target_type="psp_application", target_id=application_id)
    assert [(r["action"], r["outcome"]["status"]) for r in found] == [
        ("put_psp_logo", 200),
        ("create_psp_application", 201),
    ]
    assert found[0]["request"] == {"media_type": "image/png", "bytes": len(LOGO)}
    assert found[0]["after"]["logo"]["status"] == "pending_review"


def test_a_request_refused_by_body_validation_is_recorded_with_its_code(stack: RunningStack) -> None:
    shop = funded(stack)
    account_id = shop.account["id"]
    refused = requests.post(
        f"{management(stack)}/v1/accounts/{account_id}/suspend",
        json={"reason": 5, "unknown": True},
        headers=operator(stack),
        timeout=30,
    )
    assert refused.status_code == 400, refused.text
    assert [(e["field"], e["code"]) for e in refused.json()["errors"]] == [
        ("reason", "invalid_type"),
        ("unknown", "unknown_field"),
    ]
    not_json = requests.post(
        f"{management(stack)}/v1/accounts/{account_id}/suspend",
        data="reason=x",
        headers={**operator(stack), "Content-Type": "application/x-www-form-urlencoded"},
        timeout=30,
    )
    assert (not_json.status_code, not_json.json()["code"]) == (400, "invalid_request")

    found = records(stack, account_id=account_id, action="suspend_account")
    assert [(r["outcome"]["status"], r["outcome"]["code"]) for r in found] == [
        (400, "invalid_request"),  # the form: "The request body must be JSON"
        (400, "invalid_request"),  # the management API's validation code, its fields in `errors`
    ]
    assert [r["request"] for r in found] == [{"reason": "x"}, {"reason": 5, "unknown": True}]
    assert {(r["actor"]["kind"], r["actor"]["id"], r["surface"]) for r in found} == {
        ("operator", "operator", "management")
    }
    assert {r["target"]["id"] for r in found} == {account_id}
    account = requests.get(f"{management(stack)}/v1/accounts/{account_id}", headers=operator(stack), timeout=30)
    assert account.json()["status"] == "active"  # nothing changed


def test_a_request_refused_by_the_body_screen_is_recorded_without_its_body(stack: RunningStack) -> None:
    shop = funded(stack)
    account_id = shop.account["id"]
    refused = requests.post(
        f"{management(stack)}/v1/accounts/{account_id}/suspend",
        data='{"reason": ' + "9" * 4300 + "}",  # refused before any route reads it
        headers={**operator(stack), "Content-Type": "application/json"},
        timeout=30,
    )
    assert (refused.status_code, refused.json()["code"]) == (400, "invalid_request")

    (found,) = records(stack, account_id=account_id, action="suspend_account")
    assert (found["method"], found["path"], found["target"], found["outcome"]) == (
        "POST",
        "/v1/accounts/{account_id}/suspend",
        {"type": "account", "id": account_id},
        {"status": 400, "code": "invalid_request"},
    )
    assert found["request"] is None  # never read: what the screen refuses is never kept
    assert (found["actor"]["kind"], found["actor"]["id"], found["surface"]) == ("operator", "operator", "management")
    account = requests.get(f"{management(stack)}/v1/accounts/{account_id}", headers=operator(stack), timeout=30)
    assert account.json()["status"] == "active"  # nothing changed

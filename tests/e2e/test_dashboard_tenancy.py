"""The tenancy matrix over the merchant dashboard (issue 38, item 5): another account's object is the
404 page through every page and form that names one, and the other mode's object is the 404 page too.

The route list comes from the dashboard's resolver (functions/dashboard/app.py, loaded as
devstack.openapi loads a function's module): a route with a path parameter and no entry in OBJECTS
(or EXEMPT, with its reason) fails `test_every_dashboard_route_with_an_id_is_in_the_matrix`.

A victim (an active business of the collection surface, so it has collection requests and
customers too) holds one object of every kind in test mode, made through the APIs; an attacker (the
owner of another business) opens every page with the victim's ids and posts every form with its own
CSRF token: the 404 page, none of the victim's ids or amounts in it, and the victim's objects read
through the APIs before and after the post are equal. The victim's own owner switched to live mode
gets the 404 page for every page with the victim's test ids."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import requests
from ulid import ULID

from devstack.launcher import RunningStack
from devstack.modules import load_module
from mzpay.domain.webhooks.rules import delivery_id_for
from mzpay.http.page_locale import money
from tests.e2e.collection_client import Collection
from tests.e2e.dashboard_client import DashboardUser, new_user, signed_in_user, team_shown
from tests.e2e.management_client import Operator
from tests.e2e.test_charges import resource_events
from tests.e2e.test_dashboard_collection import Business
from tests.e2e.test_disputes import PDF
from tests.e2e.test_webhooks import Receiver
from tests.polling import eventually
from tests.receivers import serving

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PHONE = "+258840000000"  # the simulated M-Pesa's success
FAILING_RECEIVER = 503

# Each route naming an object by a path parameter, and the kind of object it names (a new route with
# an id must join the matrix: the test below fails naming it).
OBJECTS: dict[tuple[str, str], str] = {
    ("GET", "/payments/{payment_id}"): "payment",
    ("GET", "/payments/{payment_id}/receipt"): "payment",
    ("POST", "/payments/{payment_id}/refund"): "payment",
    ("GET", "/refunds/{refund_id}"): "refund",
    ("GET", "/payouts/{payout_id}"): "payout",
    ("GET", "/disputes/{dispute_id}"): "dispute",
    ("POST", "/disputes/{dispute_id}/evidence"): "dispute",
    ("POST", "/disputes/{dispute_id}/accept"): "dispute",
    ("GET", "/reports/{report_id}/download"): "report",
    ("GET", "/keys/{key_id}"): "key",
    ("POST", "/keys/{key_id}/roll"): "key",
    ("POST", "/keys/{key_id}/revoke"): "key",
    ("GET", "/webhooks/deliveries/{delivery_id}"): "delivery",
    ("POST", "/webhooks/deliveries/{delivery_id}/replay"): "delivery",
    ("GET", "/collection-requests/{request_id}"): "collection_request",
    ("GET", "/customers/{customer_id}"): "customer",
}
_TOKEN = "a token is not an account's object id: a public page's own tests try unknown, used and expired ones"
EXEMPT: dict[tuple[str, str], str] = {
    ("GET", "/invitations/{token}"): _TOKEN,
    ("POST", "/invitations/{token}"): _TOKEN,
    ("GET", "/password-reset/{token}"): _TOKEN,
    ("POST", "/password-reset/{token}"): _TOKEN,
}
# Forms naming an object by a field rather than the path (the team's, by e-mail: one for both modes).
FIELD_OBJECTS: dict[tuple[str, str], str] = {
    ("POST", "/team/role"): "member",
    ("POST", "/team/remove"): "member",
    ("POST", "/team/invitations/revoke"): "invitation",
}
# Kinds whose objects have no mode: the other mode's session sees them (docs/dashboard.md, "Collection").
MODELESS = {"customer": "the customer directory has no mode"}

# What each form posts (valid, so that only the object's owner can refuse it); multipart files apart.
FORMS: dict[str, dict[str, str]] = {
    "/payments/{payment_id}/refund": {"amount": "1.00", "reason": "tenancy"},
    "/disputes/{dispute_id}/evidence": {"text": "Delivered on 2026-11-20, signed note attached."},
    "/disputes/{dispute_id}/accept": {},
    "/keys/{key_id}/roll": {"overlap_seconds": "60"},
    "/keys/{key_id}/revoke": {},
    "/webhooks/deliveries/{delivery_id}/replay": {},
}
FILES: dict[str, dict[str, tuple[str, bytes]]] = {"/disputes/{dispute_id}/evidence": {"file": ("proof.pdf", PDF)}}

# The victim's amounts (unusual ones, so a page showing them is not a coincidence).
PAID, REFUNDED, PAID_OUT, DISPUTED, HOOKED = "7391.37", "13.29", "613.47", "529.83", "417.61"


def dashboard_routes() -> set[tuple[str, str]]:
    """(method, path with {parameters}) of every route of the dashboard's resolver."""
    module = load_module(ROOT / "functions" / "dashboard" / "app.py", "tenancy_matrix_dashboard_app")
    found = set()
    for route in [*module.app._static_routes, *module.app._dynamic_routes]:  # Powertools' route tables
        methods = route.method if isinstance(route.method, list | tuple) else [route.method]
        found |= {(str(method).upper(), route.openapi_path) for method in methods}
    return found


ROUTES = dashboard_routes()
GETS = sorted(route for route in OBJECTS if route[0] == "GET")
POSTS = sorted(route for route in OBJECTS if route[0] == "POST")


def test_every_dashboard_route_with_an_id_is_in_the_matrix() -> None:
    with_ids = {route for route in ROUTES if "{" in route[1]}
    missing = sorted(with_ids - set(OBJECTS) - set(EXEMPT))
    assert not missing, f"dashboard routes with an id and no entry in OBJECTS (or EXEMPT): {missing}"
    assert not (set(OBJECTS) | set(EXEMPT)) - ROUTES, "entries of routes the dashboard no longer has"
    assert set(OBJECTS).isdisjoint(EXEMPT)
    assert {path for method, path in POSTS} == set(FORMS)
    assert set(FIELD_OBJECTS) <= ROUTES


# ---------------------------------------------------------------- the victim
@dataclass
class Victim:
    """An active business with one test-mode object of every kind the dashboard names by id."""

    stack: RunningStack
    business: Business
    key: dict[str, Any]  # the test API key made for it (id, key)
    ids: dict[str, str]  # kind -> id

    @property
    def account_id(self) -> str:
        return self.business.account_id

    def gateway(self, method: str, path: str, body: Any = None) -> requests.Response:
        headers = {"Authorization": f"Bearer {self.key['key']}"}
        if method == "POST":
            headers["Idempotency-Key"] = str(uuid.uuid4())
        url = self.stack.state["regions"]["mz"]["gateway"] + path
        return requests.request(method, url, json=body, headers=headers, timeout=30)

    def ok(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        answer = self.gateway(method, path, body)
        assert answer.status_code in (200, 201), answer.text
        return answer.json()  # type: ignore[no-any-return]

    def charge(self, amount: str, **extra: Any) -> str:
        body = {
            "payment_id": str(ULID()),
            "money": {"amount": amount, "currency": "MZN"},
            "source": {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": PHONE}},
            "country": "MZ",
            **extra,
        }
        made = self.ok("POST", "/charges", body)
        assert made["status"] == "succeeded", made
        return str(made["provider_payment_id"])

    def snapshot(self) -> dict[str, Any]:
        """Every object of the victim as the APIs answer it (a report's link, signed anew on every
        read, left out)."""
        operator = Operator(self.stack, "mz")
        report = self.ok("GET", f"/v1/reports/{self.ids['report']}")
        return {
            "payment": self.ok("GET", f"/v1/payments/{self.ids['payment']}"),
            "refunds": self.ok("GET", f"/v1/payments/{self.ids['payment']}/refunds"),
            "refund": self.ok("GET", f"/v1/refunds/{self.ids['refund']}"),
            "payout": self.ok("GET", f"/v1/payouts/{self.ids['payout']}"),
            "dispute": self.ok("GET", f"/v1/disputes/{self.ids['dispute']}"),
            "report": {k: v for k, v in report.items() if k not in ("url", "url_expires_at")},
            "key": self.ok("GET", "/v1/api-keys/current"),
            "delivery": operator.ok("GET", f"/v1/webhook-deliveries/{self.ids['delivery']}"),
            "collection_request": self.business.ok("GET", f"/v1/collection-requests/{self.ids['collection_request']}"),
            "customer": self.business.ok("GET", f"/v1/customers/{self.ids['customer']}"),
        }

    def secrets(self) -> list[str]:
        """What no page of another account or mode may show: the victim's ids and amounts (as the
        API writes them and as a page in either language would)."""
        shown = [self.account_id, *self.ids.values()]
        for amount in (PAID, REFUNDED, PAID_OUT, DISPUTED, HOOKED):
            shown += [amount, money(Decimal(amount), "MZN", "pt"), money(Decimal(amount), "MZN", "en")]
        return shown


def furnished(stack: RunningStack, receiver: Receiver) -> Victim:
    business = Business(Collection(stack, "mz"), "Loja Vítima")
    operator = Operator(stack, "mz")
    key = operator.ok("POST", f"/v1/accounts/{business.account_id}/api-keys", {"mode": "test"})
    victim = Victim(stack, business, key, {"key": key["id"]})
    ids = victim.ids
    ids["collection_request"], ids["customer"] = business.request, business.customer["id"]
    ids["payment"] = victim.charge(PAID)
    refund = {"refund_id": str(ULID()), "amount": {"amount": REFUNDED, "currency": "MZN"}}
    ids["refund"] = victim.ok("POST", f"/v1/payments/{ids['payment']}/refund", refund)["provider_refund_id"]
    wallet = {"type": "mobile_wallet", "mobile_wallet": {"network": "mpesa", "phone_number": PHONE}}
    payout = {"payout_id": str(ULID()), "money": {"amount": PAID_OUT, "currency": "MZN"}, "destination": wallet}
    ids["payout"] = victim.ok("POST", "/payouts", payout)["provider_payout_id"]
    settled = eventually(
        lambda: victim.ok("GET", f"/v1/payouts/{ids['payout']}")["status"], lambda s: s in ("paid", "failed")
    )
    assert settled == "paid"  # settled through the queue: nothing moves by itself afterwards
    disputed = {"account_id": victim.account_id, "provider_payment_id": victim.charge(DISPUTED), "reason": "general"}
    ids["dispute"] = operator.ok("POST", "/v1/disputes", disputed)["dispute_id"]
    asked = {"type": "payments", "interval_start": "2026-01-01", "interval_end": "2026-12-31"}
    ids["report"] = victim.ok("POST", "/v1/reports", asked)["report_id"]
    written = eventually(
        lambda: victim.ok("GET", f"/v1/reports/{ids['report']}")["status"], lambda s: s != "pending", timeout=60
    )
    assert written == "succeeded"
    url = receiver.endpoint(FAILING_RECEIVER, fast=True)  # the delivery dead-letters: a replay would act
    hooked = victim.charge(HOOKED, callback_url=url)
    event = eventually(lambda: events_of(stack, hooked), lambda found: "payment.succeeded" in found)
    ids["delivery"] = delivery_id_for(event["payment.succeeded"], url)
    failed = eventually(
        lambda: operator.call("GET", f"/v1/webhook-deliveries/{ids['delivery']}"),
        lambda answer: answer.status_code == 200 and answer.json()["status"] == "failed",
        timeout=60,
    )
    assert failed.json()["status"] == "failed", failed.text
    return victim


def events_of(stack: RunningStack, resource_id: str) -> dict[str, str]:
    """The stored events of a resource: type -> event id."""
    return {item["type"]["S"]: item["id"]["S"] for item in resource_events(stack, resource_id)}


@pytest.fixture(scope="module")
def victim(stack: RunningStack) -> Iterator[Victim]:
    with serving(Receiver()) as receiver:
        yield furnished(stack, receiver)


@pytest.fixture(scope="module")
def attacker(stack: RunningStack) -> DashboardUser:
    """The owner of another business, signed in (test mode)."""
    account_id, _ = Collection(stack, "mz").active_business("Loja Atacante", f"attacker-{uuid.uuid4().hex[:8]}")
    return signed_in_user(stack, account_id, "owner")


@pytest.fixture(scope="module")
def live_owner(stack: RunningStack, victim: Victim) -> DashboardUser:
    """The victim's own owner, switched to live mode."""
    owner = signed_in_user(stack, victim.account_id, "owner")
    switched = owner.post("/mode", {"mode": "live"}, "/")
    assert (switched.status_code, switched.headers.get("Location")) == (303, "/"), switched.text
    return owner


@pytest.fixture(scope="module")
def own_owner(stack: RunningStack, victim: Victim) -> DashboardUser:
    """The victim's own owner, in test mode."""
    return signed_in_user(stack, victim.account_id, "owner")


@pytest.fixture(scope="module")
def team(stack: RunningStack, victim: Victim, own_owner: DashboardUser) -> dict[str, str]:
    """The victim's team beside its owners: a developer and an open invitation (kind -> e-mail)."""
    member = new_user(stack, victim.account_id, f"developer-{uuid.uuid4().hex[:10]}@vitima.example", "developer")
    invited = f"invited-{uuid.uuid4().hex[:10]}@vitima.example"
    sent = own_owner.post("/team/invitations", {"email": invited, "role": "support"}, "/team")
    assert (sent.status_code, sent.headers.get("Location")) == (303, "/team"), sent.text
    return {"member": member["email"], "invitation": invited}


def path_for(route: tuple[str, str], victim: Victim) -> str:
    kind = OBJECTS[route]
    return re.sub(r"\{[a-z_]+\}", victim.ids[kind], route[1])


def assert_not_found(answer: requests.Response, victim: Victim, path: str) -> None:
    """The 404 page (a refusal whose code is a 404's), showing nothing of the victim's (but the
    path asked for, in the language switch's links: the asker's own words)."""
    assert answer.status_code == 404, (answer.status_code, answer.headers.get("Location"), answer.text[:2000])
    assert re.findall(r'<main data-page="([^"]+)"', answer.text) == ["refused"], answer.text
    (code,) = re.findall(r'role="alert" data-code="([^"]+)"', answer.text)
    assert answer.headers.get("X-Error-Code") == code and code.endswith("not_found"), code
    text = answer.text.replace(f'href="{path}?lang=', "")
    leaked = [secret for secret in victim.secrets() if secret in text]
    assert not leaked, leaked


# ---------------------------------------------------------------- another account
@pytest.mark.parametrize("route", GETS, ids=[path for _, path in GETS])
def test_another_accounts_object_is_the_404_page(
    route: tuple[str, str], victim: Victim, attacker: DashboardUser
) -> None:
    path = path_for(route, victim)
    assert_not_found(attacker.call("GET", path), victim, path)


@pytest.mark.parametrize("route", POSTS, ids=[path for _, path in POSTS])
def test_another_accounts_object_takes_no_form_and_stays_as_it_was(
    route: tuple[str, str], victim: Victim, attacker: DashboardUser
) -> None:
    form = {**FORMS[route[1]], **({"form_token": str(ULID())} if route[1].endswith("/refund") else {})}
    before = victim.snapshot()
    path = path_for(route, victim)
    files = FILES.get(route[1])
    answer = attacker.upload(path, form, files, "/") if files else attacker.post(path, form, "/")
    assert_not_found(answer, victim, path)
    assert victim.snapshot() == before


@pytest.mark.parametrize("route", sorted(FIELD_OBJECTS), ids=[path for _, path in sorted(FIELD_OBJECTS)])
def test_another_accounts_user_or_invitation_named_in_a_team_form_is_not_found_and_stays(
    route: tuple[str, str], own_owner: DashboardUser, team: dict[str, str], attacker: DashboardUser
) -> None:
    email = team[FIELD_OBJECTS[route]]
    before = team_shown(own_owner.call("GET", "/team"))
    assert email in before
    answer = attacker.post(route[1], {"email": email, "role": "owner"}, "/team")
    assert (answer.status_code, answer.headers.get("X-Error-Code")) == (404, "not_found"), answer.text
    assert email not in answer.text.replace(f'value="{email}"', "")  # the attacker's own typing, kept in its form
    assert team_shown(own_owner.call("GET", "/team")) == before


# ---------------------------------------------------------------- the matrix's own check: the ids are the victim's
@pytest.mark.parametrize("route", GETS, ids=[path for _, path in GETS])
def test_the_victims_own_owner_opens_every_page(
    route: tuple[str, str], victim: Victim, own_owner: DashboardUser
) -> None:
    answer = own_owner.call("GET", path_for(route, victim))
    assert answer.status_code in (200, 303), answer.text  # a report's download: 303 to its link
    assert 'data-page="refused"' not in answer.text


# ---------------------------------------------------------------- the other mode
@pytest.mark.parametrize("route", GETS, ids=[path for _, path in GETS])
def test_the_other_modes_object_is_the_404_page(
    route: tuple[str, str], victim: Victim, live_owner: DashboardUser
) -> None:
    path = path_for(route, victim)
    if OBJECTS[route] in MODELESS:
        answer = live_owner.call("GET", path)
        assert answer.status_code == 200, answer.text  # the account's own, in either mode
        return
    assert_not_found(live_owner.call("GET", path), victim, path)

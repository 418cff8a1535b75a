"""The audit trail's rules: secrets masked at any depth, parts capped, time filters as ULID
bounds, the target a route names, and a trail no function may edit."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from devstack.template import template_files
from mzpay.domain.common.errors import ServiceError
from mzpay.domain.operators.audit import PART_LIMIT, AuditFilter, capped, redacted
from mzpay.steps.audit import _target_of

ROOT = Path(__file__).resolve().parents[2]


def test_secret_fields_are_masked_at_any_depth_and_ids_of_secrets_are_kept() -> None:
    given = {
        "psp_id": "vodacom-mpesa",
        "credentials": {"api_key": "k"},
        "nested": [{"accessToken": "t", "token_type": "Bearer", "key_id": "kid_1"}],
        "webhook_secret": "whsec_1",
        "csrf_token": "c",
        "company": "Loja",
        "pin": "",
        "reason": "fraud",
        "per_key": 100,
        "public_key": "pk",
        "key": "k",
        "license_key": "lk",
    }
    assert redacted(given) == {
        "psp_id": "vodacom-mpesa",
        "credentials": "[redacted]",
        "nested": [{"accessToken": "[redacted]", "token_type": "Bearer", "key_id": "kid_1"}],
        "webhook_secret": "[redacted]",
        "csrf_token": "[redacted]",
        "company": "Loja",
        "pin": "",
        "reason": "fraud",
        "per_key": 100,
        "public_key": "pk",
        "key": "[redacted]",
        "license_key": "[redacted]",
    }


def test_a_part_too_long_for_an_item_is_noted_by_its_size() -> None:
    assert capped(None) is None
    assert capped({"note": "x" * 10}) == {"note": "x" * 10}
    big = capped({"note": "x" * PART_LIMIT})
    assert big == {"truncated": True, "size": PART_LIMIT + len('{"note":""}')}


def test_time_filters_become_ulid_bounds() -> None:
    low, high = AuditFilter(since="2026-11-25T10:00:00Z", until="2026-11-25T10:00:01Z").id_bounds()
    assert low is not None and high is not None
    assert low < high and low.endswith("0" * 16) and high.endswith("Z" * 16)
    assert AuditFilter().id_bounds() == (None, None)
    with pytest.raises(ServiceError) as refused:
        AuditFilter(since="2026-11-25T10:00:00").check()
    assert (refused.value.status, refused.value.code) == (400, "invalid_request")


def test_the_target_is_what_the_path_names_last() -> None:
    assert _target_of({"payout_id": "P"}) == ("payout", "P")
    assert _target_of({"account_id": "A"}) == ("account", "A")
    assert _target_of({"account_id": "A", "connected_account_id": "B"}) == ("connected_account", "B")
    assert _target_of({"account_id": "A", "mode": "live", "method": "mpesa"}) == ("account", "A")
    assert _target_of({"application_id": "X"}) == ("psp_application", "X")
    assert _target_of({"batch_id": "B"}) == ("payout_batch", "B")
    assert _target_of({}) == (None, None)


def _grants(template: dict) -> dict[str, set[str]]:  # type: ignore[type-arg]
    found: dict[str, set[str]] = {}
    for name, resource in template["Resources"].items():
        for policy in resource.get("Properties", {}).get("Policies", []) or []:
            for statement in policy.get("Statement", []) if isinstance(policy, dict) else []:
                if str(statement.get("Sid", "")).startswith("AuditTable"):
                    found.setdefault(name, set()).update(statement["Action"])
    return found


def test_no_function_may_change_or_delete_an_audit_record() -> None:
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    grants: dict[str, set[str]] = {}
    for path in template_files(ROOT / "template.yaml"):  # the root and its nested templates
        grants.update(_grants(yaml.load(path.read_text(), Loader=Loader)))
    assert {"ManagementOperationsFunction", "ManagementAccountsFunction", "CollectionOnboardingFunction"} <= set(grants)
    for function, actions in grants.items():
        assert actions <= {"dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:Query"}, function

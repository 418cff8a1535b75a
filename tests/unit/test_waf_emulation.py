"""The local stack's AWS WAF: the template's rate-based rule, applied per source address."""

from __future__ import annotations

import json

import pytest

from devstack.template import Intrinsics, load_template, parameter_values
from devstack.waf import RateRule, WebAcl, matcher, rate_rules
from tests.unit.test_template import ROOT, TEMPLATE


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def template_acl(limit: str = "10", window: str = "60") -> WebAcl:
    template = load_template(ROOT / "template.yaml")
    overrides = {"KulpayRateLimit": limit, "KulpayRateWindowSeconds": window, "ServiceRegion": "mz"}
    values = parameter_values(template, overrides)
    intrinsics = Intrinsics(parameters=values, pseudo={"AWS::Region": "af-south-1"}, conditions={})
    props = intrinsics.resolve(template["Resources"]["CollectionPayerWebAcl"]["Properties"])
    return WebAcl(rate_rules(props))


def test_the_template_throttles_the_payer_endpoints_per_address_with_429() -> None:
    acl = TEMPLATE["Resources"]["CollectionPayerWebAcl"]["Properties"]
    (rule,) = acl["Rules"]
    rate = rule["Statement"]["RateBasedStatement"]
    assert rate["AggregateKeyType"] == "IP"
    assert rate["Limit"] == {"Ref": "KulpayRateLimit"}
    assert rule["Action"]["Block"]["CustomResponse"]["ResponseCode"] == 429
    assert rule["Action"]["Block"]["CustomResponse"]["ResponseHeaders"] == [
        {"Name": "Retry-After", "Value": {"Ref": "KulpayRateWindowSeconds"}}
    ]
    association = TEMPLATE["Resources"]["CollectionPayerWebAclAssociation"]["Properties"]
    assert "${CollectionApi}/stages/${CollectionApi.Stage}" in association["ResourceArn"]["Fn::Sub"]


def test_an_address_over_the_limit_is_answered_429_and_others_are_not() -> None:
    acl = template_acl(limit="10")
    clock = Clock()
    for rule in acl.rules:
        rule.clock = clock
    path = "/v1/v1/kulpay/collection-requests/list-by-phone-number/+258841234567"
    assert [acl.judge(path, "203.0.113.5") for _ in range(10)] == [None] * 10
    blocked = acl.judge(path, "203.0.113.5")
    assert blocked is not None
    assert (blocked.status, blocked.headers, blocked.content_type) == (429, {"Retry-After": "60"}, "application/json")
    assert json.loads(blocked.body) == {
        "code": "rate_limited",
        "message": "Too many requests from this address; retry after the Retry-After seconds.",
        "request_id": None,
        "metadata": {},
    }
    assert acl.judge("/v1/pay/cr_01ARZ3NDEKTSV4RRFFQ69G5FAV", "203.0.113.5") is not None  # the link too
    assert acl.judge(path, "203.0.113.6") is None  # another address has its own count
    assert acl.judge("/v1/v1/collection-requests", "203.0.113.5") is None  # other routes are not in scope
    assert acl.judge("/v1/v1/customers/usr_1/payment_methods", "203.0.113.5") is None
    clock.now += 60  # the window slides past every earlier request
    assert acl.judge(path, "203.0.113.5") is None


def test_statements_it_cannot_play_are_refused() -> None:
    with pytest.raises(NotImplementedError):
        matcher({"GeoMatchStatement": {"CountryCodes": ["MZ"]}})
    with pytest.raises(NotImplementedError):
        matcher({"ByteMatchStatement": {"FieldToMatch": {"QueryString": {}}, "SearchString": "x"}})
    rule = RateRule(
        "r",
        1,
        60,
        matcher(
            {
                "ByteMatchStatement": {
                    "FieldToMatch": {"UriPath": {}},
                    "PositionalConstraint": "STARTS_WITH",
                    "SearchString": "/a",
                    "TextTransformations": [{"Priority": 0, "Type": "NONE"}],
                }
            }
        ),
        response=None,
    )  # type: ignore[arg-type]
    assert rule.in_scope("/a/b") and not rule.in_scope("/b/a")

"""Least privilege that is sufficient: every function of template.yaml is granted exactly the
KMS, DynamoDB, SQS, S3 and Secrets Manager actions its code uses, on the resources it uses them on.

What the code needs is derived by devstack.permissions (its docstring says how): from the
handler module through every mzpay module it can reach, the mzpay.deps factories called there
(and the store methods called on what they build), the environment variables those stores read
(resolved through the function's Environment to the template's resources), and the boto3 calls
they make; plus what encryption with the stack's key implies (kms:Decrypt to use a table, secret
or stream it encrypts). A new function is checked as soon as it is in template.yaml: it declares
what it touches by the environment variables it is given and the stores its code calls;
`python -m devstack.permissions <LogicalId>` prints the Policies it needs.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from devstack import permissions
from devstack.template import load_template

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = load_template(ROOT / "template.yaml")
FUNCTIONS = permissions.functions(TEMPLATE)
DIRECTORY_ARN = "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${DirectoryTableName}"


def difference(logical_id: str, template: dict[str, Any]) -> tuple[set[permissions.Grant], set[permissions.Grant]]:
    """(missing, superfluous) grants of the function."""
    needed, granted = permissions.needs(logical_id, template), permissions.grants(logical_id, template)
    return needed - granted, granted - needed


@pytest.mark.parametrize("logical_id", FUNCTIONS)
def test_each_function_is_granted_exactly_what_its_code_uses(logical_id: str) -> None:
    missing, superfluous = difference(logical_id, TEMPLATE)
    assert not missing, f"{logical_id} lacks {sorted(missing)}: python -m devstack.permissions {logical_id}"
    assert not superfluous, f"{logical_id} is granted more than its code uses: {sorted(superfluous)}"
    assert permissions.needs(logical_id, TEMPLATE), f"{logical_id} touches nothing?"


def copy_of(logical_id: str) -> dict[str, Any]:
    """The template with a copy of the function's definition (the rest shared: read only)."""
    resources = {**TEMPLATE["Resources"], logical_id: copy.deepcopy(TEMPLATE["Resources"][logical_id])}
    return {**TEMPLATE, "Resources": resources}


def _statements(template: dict[str, Any], logical_id: str) -> list[dict[str, Any]]:
    policies = template["Resources"][logical_id]["Properties"]["Policies"]
    return [statement for policy in policies for statement in policy["Statement"]]


@pytest.mark.parametrize("logical_id", FUNCTIONS)
def test_removing_any_one_grant_is_caught(logical_id: str) -> None:
    """For every action of every statement: a copy of the template without it fails the check,
    naming exactly that grant as missing."""
    needed = permissions.needs(logical_id, TEMPLATE)  # the code, not the policies: the same for every copy
    for index, statement in enumerate(_statements(TEMPLATE, logical_id)):
        if statement["Effect"] != "Allow":
            continue  # a Deny grants nothing (the SMS-only one: tests/unit/test_template.py)
        for action in statement["Action"]:
            template = copy_of(logical_id)
            changed = _statements(template, logical_id)[index]
            changed["Action"] = [a for a in changed["Action"] if a != action]
            resources = changed["Resource"] if isinstance(changed["Resource"], list) else [changed["Resource"]]
            granted = permissions.grants(logical_id, template)
            missing, superfluous = needed - granted, granted - needed
            expected = {(action, *permissions.grant_resource(r, template)) for r in resources}
            assert missing == expected, (logical_id, action)
            assert not superfluous


@pytest.mark.parametrize(
    ("logical_id", "statement"),
    [
        # a read-only authorizer given a write on its table
        (
            "GatewayAuthorizerFunction",
            {
                "Effect": "Allow",
                "Action": ["dynamodb:PutItem"],
                "Resource": {"Fn::Sub": DIRECTORY_ARN},
            },
        ),
        # a table the function's code never touches
        (
            "ManagementAuthorizerFunction",
            {"Effect": "Allow", "Action": ["dynamodb:GetItem"], "Resource": {"Fn::GetAtt": ["PaymentsTable", "Arn"]}},
        ),
        # encrypting with the key where the code only decrypts
        (
            "WebhookDeadLetterFunction",
            {"Effect": "Allow", "Action": ["kms:Encrypt"], "Resource": {"Fn::GetAtt": ["DataKey", "Arn"]}},
        ),
    ],
)
def test_a_superfluous_grant_is_caught(logical_id: str, statement: dict[str, Any]) -> None:
    template = copy_of(logical_id)
    template["Resources"][logical_id]["Properties"]["Policies"].append({"Statement": [statement]})
    missing, superfluous = difference(logical_id, template)
    assert not missing
    assert superfluous == {
        (action, *permissions.grant_resource(statement["Resource"], template)) for action in statement["Action"]
    }


def test_a_store_reading_a_variable_the_function_is_not_given_is_refused() -> None:
    """A store reached from the handler needs an environment variable the template does not set:
    the function would fail at run time (and no grant could be derived)."""
    template = copy_of("GatewayAuthorizerFunction")
    del template["Resources"]["GatewayAuthorizerFunction"]["Properties"]["Environment"]["Variables"]["DIRECTORY_TABLE"]
    with pytest.raises(LookupError, match="DIRECTORY_TABLE"):
        permissions.needs("GatewayAuthorizerFunction", template)


def test_the_management_authorizer_may_decrypt_the_operator_token() -> None:
    """The operator-token secret is encrypted with the stack's key: reading it needs kms:Decrypt."""
    granted = permissions.grants("ManagementAuthorizerFunction", TEMPLATE)
    assert ("kms:Decrypt", "DataKey", "") in granted
    assert ("secretsmanager:GetSecretValue", "OperatorTokenSecret", "") in granted


@pytest.mark.parametrize(
    "logical_id", ["GatewayPaymentsFunction", "GatewayCheckoutFunction", "CollectionTransactionsFunction"]
)
def test_a_charges_admission_may_batch_read_the_accounts_table(logical_id: str) -> None:
    """A charge's admission reads its ceilings and fee schedule (accounts table) in the same
    BatchGetItem as its claim and routing state (payments table): both tables need the grant, or
    every charge is refused on AWS (moto does not check IAM; before, only the payments table had it)."""
    granted = permissions.grants(logical_id, TEMPLATE)
    assert {("dynamodb:BatchGetItem", "AccountsTable", ""), ("dynamodb:BatchGetItem", "PaymentsTable", "")} <= granted


def test_every_reader_of_a_table_encrypted_with_the_stack_key_may_decrypt_with_it() -> None:
    encrypted = {
        name
        for name, spec in TEMPLATE["Resources"].items()
        if spec["Type"] == "AWS::DynamoDB::Table" and permissions.kms_key_of(name, TEMPLATE) == "DataKey"
    }
    assert {"PaymentsTable", "EventsTable", "AccountsTable"} <= encrypted
    for logical_id in FUNCTIONS:
        granted = permissions.grants(logical_id, TEMPLATE)
        if any(action.startswith("dynamodb:") and key in encrypted for action, key, _ in granted):
            assert ("kms:Decrypt", "DataKey", "") in granted, logical_id


def test_every_exception_is_still_reachable() -> None:
    """NOT_REACHED names store classes the analysis reaches but the function never uses: each must
    still be reached (else the exception is stale and must go)."""
    for logical_id, unit in permissions.NOT_REACHED:
        handler = permissions.handler_file(TEMPLATE["Resources"][logical_id])
        reached = {f"{module}.{name}" for module, name in permissions.used_units(handler)}
        assert unit in reached, (logical_id, unit)


def test_the_derivation_sees_what_an_authorizer_does() -> None:
    """A spot check of the derivation itself: the merchant authorizer reads keys (the directory),
    records a key's last use (at most hourly, on the key's item) and reads the key pepper, nothing else."""
    assert permissions.needs("GatewayAuthorizerFunction", TEMPLATE) == {
        ("dynamodb:GetItem", "param:DirectoryTableName", ""),
        ("dynamodb:BatchGetItem", "param:DirectoryTableName", ""),
        ("dynamodb:UpdateItem", "param:DirectoryTableName", ""),
        ("secretsmanager:GetSecretValue", "param:KeyPepperSecretName", ""),
    }


def test_every_aws_call_the_code_makes_is_one_the_derivation_knows() -> None:
    """An AWS operation the derivation did not know would be granted nothing: in every module that
    makes AWS clients (mzpay.store.aws's `client` or `table`, or a store.base class), each call
    named like an operation of a service the stack uses, and not like a method of mzpay's own, is
    one of code_reach.CALLS."""
    import ast

    import botocore.session
    from botocore import xform_name

    from devstack.code_reach import CALLS, PACKAGE_ROOT

    session = botocore.session.get_session()
    operations = {
        xform_name(name)
        for service in ("dynamodb", "dynamodbstreams", "sqs", "s3", "kms", "secretsmanager", "ssm", "sesv2", "sns")
        for name in session.get_service_model(service).operation_names
    }
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in (PACKAGE_ROOT / "mzpay").rglob("*.py")}
    own = {node.name for tree in trees.values() for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    # what makes AWS clients: store.aws's functions, or the store base classes that call them
    stores = {"TableStore", "PaymentsTableStore", "SealedTableStore", "UploadsTableStore"}
    makers = {"mzpay.store.aws": {"client", "table"}, "mzpay.store.base": stores}
    aws_modules = [
        tree
        for tree in trees.values()
        if any(
            isinstance(node, ast.ImportFrom) and {a.name for a in node.names} & makers.get(node.module or "", set())
            for node in ast.walk(tree)
        )
    ]
    called = {
        node.func.attr
        for tree in aws_modules
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }
    assert len(aws_modules) > 20 and {"get_item", "send_message", "put_object"} <= called & operations
    assert (called & operations) - own - set(CALLS) == set()

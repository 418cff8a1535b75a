"""What each function of template.yaml needs of IAM, derived from the code, and what the
template grants it: the two must be the same (tests/unit/test_iam.py).

Needs. A function's handler module (CodeUri + Handler) is followed through the mzpay code it can
reach (devstack.code_reach): the store classes mzpay.deps builds for it, through the methods it
calls on them, and the store functions it calls. Each of those touches:

* the resources named by the environment variables it reads (`env("PAYMENTS_TABLE")`,
  `optional_env("CLIENT_CA_SECRET")`, both answered by mzpay.config's settings), resolved
  through the function's Environment in template.yaml to a table, queue, key, bucket or secret; and
* with the AWS calls written in it (and in the store helpers it calls): `get_item` is
  dynamodb:GetItem, `transact_write_items` the item actions its "Put"/"Update"/"Delete"/
  "ConditionCheck" entries name, `send_message` sqs:SendMessage, `encrypt` kms:Encrypt, ...,
  each applied to the resources of that service among those variables (`IndexName=` adds the
  table's indexes).

What the stack's encryption implies follows: kms:Decrypt on the key of every table encrypted with
a customer-managed key that the function reads or writes (DynamoDB asks KMS with the caller's
rights), and of a secret so encrypted; kms:GenerateDataKey to write into a bucket so encrypted,
kms:Decrypt to read one; an event source on a stream of such a table needs kms:Decrypt too (the
stream and queue event sources' own reads are granted by the managed policies SAM attaches).

Grants. Each function's `Policies` are inline `Statement`s only (no SAM policy template: those
grant Scan, DescribeTable and more that no code asks for), resources named by `!GetAtt X.Arn`,
`!Ref X` or an ARN `!Sub`; each (action, resource) pair they allow is a grant.

A new function (or a new store) therefore declares what it touches by the environment variables
its stores read and the calls they make; `python -m devstack.permissions <FunctionLogicalId>`
prints the statements it needs.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from devstack.code_reach import ROOT, used_units
from devstack.template import load_template

__all__ = ["NOT_REACHED", "grants", "handler_file", "needs", "used_units"]

SERVICE_OF_TYPE = {
    "AWS::DynamoDB::Table": "dynamodb",
    "AWS::DynamoDB::GlobalTable": "dynamodb",
    "AWS::SQS::Queue": "sqs",
    "AWS::KMS::Key": "kms",
    "AWS::S3::Bucket": "s3",
    "AWS::SecretsManager::Secret": "secretsmanager",
    "AWS::SES::ConfigurationSet": "ses",
    "AWS::SES::EmailIdentity": "ses",
    "AWS::Cognito::UserPool": "cognito-idp",
}
# ses resources' ARN kinds; SNS's Publish to a phone number has no resource to name: "*" (IAM's
# only way to allow SMS), and only that call (and the opt-out check, which has no resource at
# all) is granted so.
SES_ARN_KIND = {"AWS::SES::ConfigurationSet": "configuration-set", "AWS::SES::EmailIdentity": "identity"}
# A Deny on every topic follows that grant, so it allows SMS to phone numbers only.
ANY_RESOURCE = {"sns:Publish", "sns:CheckIfPhoneNumberIsOptedOut"}
TOPICS = "!Sub arn:${AWS::Partition}:sns:*:*:*"

# Store functions handed an ARN by data rather than by the environment: the environment variable
# of the table whose stream it is (the dispatcher's on-failure messages name EventsTable's stream).
ARNS_FROM_DATA: dict[tuple[str, str], str] = {("mzpay.store.dispatch_failures", "stream_records"): "EVENTS_TABLE"}

# Stores whose BatchGetItem also reads another store's table, handed in as that store (the
# admission of a charge reads the account's ceilings and fee schedule from the accounts table in
# the same BatchGetItem as its payment_id claim and the PSPs' routing state): the environment
# variable of that table, granted BatchGetItem wherever the function has it.
BATCH_READS_ALSO: dict[tuple[str, str], str] = {("mzpay.store.payments", "Payments"): "ACCOUNTS_TABLE"}

# Store classes a function's code can reach that it never uses there, each with the reason (the
# smallest list that keeps the derivation honest; a reason must say why the path cannot run).
NOT_REACHED: dict[tuple[str, str], str] = {
    ("CollectionRequestsFunction", "mzpay.store.bindings.Bindings"): (
        "steps.payments.current lets the simulated payer answer a test payment (never a bound live "
        "connector); the payment link only opens checkouts, which carry no connector yet"
    ),
}

Grant = tuple[str, str, str]  # (action, resource key, part: "" | "index" | "stream" | "objects")


# ---------------------------------------------------------------- the template
def resource_key(value: Any, template: Mapping[str, Any]) -> tuple[str, str] | None:
    """(resource key, service) of an environment value: a resource's logical id, or
    'param:<Name>' for a parameter naming a resource the template declares (or may declare)."""
    resources, parameters = template["Resources"], template.get("Parameters", {})
    if isinstance(value, dict) and "Ref" in value:
        ref = value["Ref"]
        if ref in resources:
            return ref, SERVICE_OF_TYPE.get(resources[ref]["Type"], "")
        if ref in parameters:
            for spec in resources.values():
                props = spec.get("Properties", {})
                if {"Ref": ref} in (props.get("TableName"), props.get("Name")):
                    return f"param:{ref}", SERVICE_OF_TYPE.get(spec["Type"], "")
        return None
    if isinstance(value, dict) and "Fn::Sub" in value and isinstance(value["Fn::Sub"], str):
        return f"sub:{value['Fn::Sub']}", "secretsmanager"  # a name the code creates (the client CA)
    return None


def kms_key_of(logical_id: str, template: Mapping[str, Any]) -> str | None:
    """The customer-managed key (logical id) that encrypts a table, bucket or secret, if any."""
    spec = template["Resources"].get(logical_id)
    if spec is None:
        return None
    props = spec.get("Properties", {})
    candidates = [
        props.get("SSESpecification", {}).get("KMSMasterKeyId"),
        props.get("KmsKeyId"),
        *(
            rule.get("ServerSideEncryptionByDefault", {}).get("KMSMasterKeyID")
            for rule in props.get("BucketEncryption", {}).get("ServerSideEncryptionConfiguration", [])
        ),
    ]
    for candidate in candidates:
        if isinstance(candidate, dict) and candidate.get("Ref") in template["Resources"]:
            return str(candidate["Ref"])
    return None


def _environment(function: Mapping[str, Any], template: Mapping[str, Any]) -> dict[str, Any]:
    variables = dict(template.get("Globals", {}).get("Function", {}).get("Environment", {}).get("Variables", {}))
    variables.update(function["Properties"].get("Environment", {}).get("Variables", {}))
    return variables


def handler_file(function: Mapping[str, Any]) -> Path:
    props = function["Properties"]
    return ROOT / props["CodeUri"] / f"{props['Handler'].rpartition('.')[0]}.py"


def needs(logical_id: str, template: Mapping[str, Any]) -> set[Grant]:
    """The (action, resource, part) grants the function's code needs."""
    function = template["Resources"][logical_id]
    variables = _environment(function, template)
    needed: set[Grant] = set()
    for (module, name), unit in used_units(handler_file(function)).items():
        if (logical_id, f"{module}.{name}") in NOT_REACHED:
            continue
        if (module, name) in ARNS_FROM_DATA:
            unit.optional_env.add(ARNS_FROM_DATA[(module, name)])
        also = BATCH_READS_ALSO.get((module, name))
        if also in variables and ("dynamodb", "dynamodb:BatchGetItem") in unit.actions:
            resolved_also = resource_key(variables[also], template)
            if resolved_also is not None:
                needed.add(("dynamodb:BatchGetItem", resolved_also[0], ""))
        for variable in sorted(unit.env | unit.optional_env):
            if variable not in variables:
                if variable in unit.env:
                    raise LookupError(f"{logical_id}: {module}.{name} needs {variable}, not in its Environment")
                continue
            resolved = resource_key(variables[variable], template)
            if resolved is None:
                continue
            key, service = resolved
            for call_service, action in unit.actions:
                if call_service == "dynamodbstreams" and service == "dynamodb":
                    needed.add((action, key, "stream"))
                elif call_service == service:
                    part = "objects" if service == "s3" else ""
                    needed.add((action, key, part))
                    if service == "dynamodb" and unit.indexes and action == "dynamodb:Query":
                        needed.add((action, key, "index"))
        needed |= {(action, "*", "") for _service, action in unit.actions if action in ANY_RESOURCE}
    for event in (function["Properties"].get("Events") or {}).values():
        if event["Type"] == "DynamoDB":
            stream_key = kms_key_of(event["Properties"]["Stream"]["Fn::GetAtt"][0], template)
            if stream_key:
                needed.add(("kms:Decrypt", stream_key, ""))
    implied: set[Grant] = set()
    for action, key, _part in needed:
        cmk = kms_key_of(key, template)
        if cmk is None:
            continue
        if action.startswith("dynamodb:") or action == "secretsmanager:GetSecretValue" or action == "s3:GetObject":
            implied.add(("kms:Decrypt", cmk, ""))
        elif action == "s3:PutObject":
            implied.add(("kms:GenerateDataKey", cmk, ""))
    return needed | implied


_SUB_ARN = re.compile(
    r"^arn:\$\{AWS::Partition\}:(?:dynamodb|secretsmanager|sqs|kms|s3|ses)"
    r":(?:\$\{AWS::Region\}|[^:]*):(?:\$\{AWS::AccountId\}|[^:]*)"
    r":(?:table/|secret:|key/|configuration-set/|identity/)?(?P<rest>.*)$"
)


def grant_resource(value: Any, template: Mapping[str, Any]) -> tuple[str, str]:
    """(resource key, part) of a statement's Resource entry."""
    if value == "*":
        return "*", ""
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        logical_id, attribute = value["Fn::GetAtt"]
        return logical_id, {"Arn": "", "StreamArn": "stream"}.get(attribute, attribute)
    if isinstance(value, dict) and "Ref" in value:
        return str(value["Ref"]), ""
    if isinstance(value, dict) and "Fn::Sub" in value and isinstance(value["Fn::Sub"], str):
        text = value["Fn::Sub"]
        part = ""
        for suffix, name in (("/index/*", "index"), ("/stream/*", "stream"), ("/*", "objects"), ("-*", "")):
            if text.endswith(suffix):
                text, part = text[: -len(suffix)], name
                break
        match = _SUB_ARN.match(text)
        rest = match.group("rest") if match else text
        whole = re.fullmatch(r"\$\{([A-Za-z0-9]+)(?:\.Arn)?\}", rest)
        if whole and whole.group(1) in template["Resources"]:
            return whole.group(1), part
        if whole and whole.group(1) in template.get("Parameters", {}):
            return f"param:{whole.group(1)}", part
        return f"sub:{rest}", part
    raise ValueError(f"unsupported Resource {value!r}")


def grants(logical_id: str, template: Mapping[str, Any]) -> set[Grant]:
    """The (action, resource, part) grants the function's Policies make."""
    granted: set[Grant] = set()
    for policy in template["Resources"][logical_id]["Properties"].get("Policies") or []:
        if not (isinstance(policy, dict) and set(policy) == {"Statement"}):
            raise ValueError(
                f"{logical_id}: Policies are inline Statements only, not {policy!r}; "
                f"python -m devstack.permissions {logical_id} prints what its code needs"
            )
        for statement in policy["Statement"]:
            if statement.get("Effect") != "Allow":
                continue
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
            for resource in resources:
                key, part = grant_resource(resource, template)
                granted |= {(action, key, part) for action in actions}
    return granted


def functions(template: Mapping[str, Any]) -> list[str]:
    return sorted(k for k, v in template["Resources"].items() if v["Type"] == "AWS::Serverless::Function")


# ---------------------------------------------------------------- printing what a function needs
def _arn(key: str, part: str, template: Mapping[str, Any], outside: bool = False) -> str:
    """The statement's Resource; `outside`: the resource is another nested stack's, so the
    function's template has its ARN as a parameter named <Resource><Attribute>."""
    suffix = {"": "", "index": "/index/*", "stream": "/stream/*", "objects": "/*"}[part]
    if key.startswith("param:"):
        name = key.removeprefix("param:")
        service = "secretsmanager" if "Secret" in name else "dynamodb"
        kind = "secret:" if service == "secretsmanager" else "table/"
        tail = "-*" if service == "secretsmanager" else suffix
        return f"!Sub arn:${{AWS::Partition}}:{service}:${{AWS::Region}}:${{AWS::AccountId}}:{kind}${{{name}}}{tail}"
    if key == "*":
        return '"*"'
    if template["Resources"].get(key, {}).get("Type") in SES_ARN_KIND:
        kind = SES_ARN_KIND[template["Resources"][key]["Type"]]
        return f"!Sub arn:${{AWS::Partition}}:ses:${{AWS::Region}}:${{AWS::AccountId}}:{kind}/${{{key}}}"
    if key.startswith("sub:"):
        name = key.removeprefix("sub:")
        return f"!Sub arn:${{AWS::Partition}}:secretsmanager:${{AWS::Region}}:${{AWS::AccountId}}:secret:{name}-*"
    arn, stream = (f"{key}Arn", f"{key}StreamArn") if outside else (f"{key}.Arn", f"{key}.StreamArn")
    if part == "stream":
        return f"!Ref {stream}" if outside else f"!GetAtt {stream}"
    if template["Resources"][key]["Type"] == "AWS::SecretsManager::Secret":
        return f"!Ref {key}"  # a secret's Ref is its ARN
    if part:
        return f'!Sub "${{{arn}}}{suffix}"'
    return f"!Ref {arn}" if outside else f"!GetAtt {arn}"


def _neighbours(logical_id: str, template: Mapping[str, Any]) -> set[str]:
    """The resources of the template the function is written in (its nested stack's, or all)."""
    for stack in (template.get("NestedStacks") or {}).values():
        if logical_id in stack["Resources"]:
            return set(stack["Resources"])
    return set(template["Resources"])


def statements_yaml(logical_id: str, template: Mapping[str, Any]) -> str:
    """The Policies a function needs, as lines of its template (template.yaml or its nested
    stack's; one statement per resource)."""
    neighbours = _neighbours(logical_id, template)
    by_resource: dict[tuple[str, str], tuple[set[str], set[str]]] = {}
    for action, key, part in needs(logical_id, template):
        # a table's indexes (Query) and its stream (GetRecords...): statements of their own
        own = part if part in ("index", "stream") else ""
        actions, arns = by_resource.setdefault((key, own), (set(), set()))
        actions.add(action)
        arns.add(_arn(key, part, template, outside=":" not in key and key not in neighbours))
    lines = [
        "      Policies:  # derived from the code: python -m devstack.permissions " + logical_id,
        "        - Statement:",
    ]
    for key, statement in sorted(by_resource):
        actions, arns = by_resource[(key, statement)]
        kind, _, name = key.rpartition(":")
        sid = name.removesuffix("Name") if kind == "param" else name
        if key == "*":
            sid = "SmsToPhoneNumbers"
        if kind == "sub":
            sid = "".join(word.title() for word in re.split(r"[^A-Za-z0-9]", name.split("/")[-1]))
        sid += {"": "", "index": "Indexes", "stream": "Stream"}[statement]
        lines += [
            f"            - Sid: {sid}",
            "              Effect: Allow",
            f"              Action: [{', '.join(sorted(actions))}]",
        ]
        if len(arns) == 1:
            lines.append(f"              Resource: {next(iter(arns))}")
        else:
            lines.append("              Resource:")
            lines += [f"                - {arn}" for arn in sorted(arns)]
        if key == "*":  # SMS to phone numbers, never to a topic
            lines += [
                "            - Sid: NoTopics",
                "              Effect: Deny",
                f"              Action: [{', '.join(sorted(actions))}]",
                f"              Resource: {TOPICS}",
            ]
    return "\n".join(lines)


def main(argv: Iterable[str]) -> None:
    template = load_template(ROOT / "template.yaml")
    for logical_id in list(argv) or functions(template):
        print(f"  # {logical_id}\n{statements_yaml(logical_id, template)}\n")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Create one regional stack's resources from template.yaml: AWS resources in moto, and the
local descriptions of functions, layers and APIs that the emulators run."""

from __future__ import annotations

import json
import secrets
import string
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from graphlib import TopologicalSorter
from pathlib import Path
from typing import Any

import boto3

from devstack.template import Intrinsics, references

ACCOUNT_ID = "123456789012"  # moto's default account


@dataclass
class FunctionSpec:
    """A Lambda function as the local runtime runs it."""

    logical_id: str
    name: str
    arn: str
    region: str
    code_dir: Path
    handler: str
    environment: dict[str, str]
    timeout: int
    memory: int
    layer_paths: list[Path]
    events: dict[str, dict[str, Any]]


@dataclass
class ProvisionedStack:
    """What a stack created: its resolver of intrinsics, and the local specs."""

    region: str
    stack_name: str
    intrinsics: Intrinsics
    functions: dict[str, FunctionSpec] = field(default_factory=dict)
    apis: dict[str, dict[str, Any]] = field(default_factory=dict)  # logical id -> resolved properties
    layers: dict[str, Path] = field(default_factory=dict)
    physical: dict[str, str] = field(default_factory=dict)  # logical id -> physical id, for people
    skipped: list[str] = field(default_factory=list)  # resources whose Condition is false
    global_tables: dict[str, list[str]] = field(default_factory=dict)  # table name -> replica AWS regions
    web_acls: dict[str, dict[str, Any]] = field(default_factory=dict)  # logical id -> resolved properties
    api_web_acls: dict[str, str] = field(default_factory=dict)  # API logical id -> its web ACL's logical id


Provisioner = Callable[["_Context", str, dict[str, Any]], None]
_PROVISIONERS: dict[str, Provisioner] = {}


def provisioner(resource_type: str) -> Callable[[Provisioner], Provisioner]:
    def register(func: Provisioner) -> Provisioner:
        _PROVISIONERS[resource_type] = func
        return func

    return register


_NOT_FUNCTION_DEPENDENCIES = ("Events", "DeploymentPreference")


def supported_resource_types() -> frozenset[str]:
    """Every resource type the local stack knows how to create."""
    return frozenset(_PROVISIONERS)


_CLIENTS: dict[tuple[str, str | None, str], Any] = {}  # _Context.client's, with the fixed test credentials


@dataclass
class _Context:
    stack: ProvisionedStack
    session: boto3.session.Session
    endpoint: str | None  # None: boto3's default (in-process moto in tests)
    root: Path
    globals_function: dict[str, Any]
    seed_secrets: Mapping[str, str]
    observability: bool = True  # False: alarms and log groups named, not created (provision)

    def client(self, service: str) -> Any:
        """One client per service and endpoint for the process (making one costs about 20 ms; a
        stack has about a hundred resources, and the integration tests provision one per test:
        their clients, made while moto is imported, reach each test's fresh in-process moto)."""
        key = (self.session.region_name, self.endpoint, service)
        if key not in _CLIENTS:
            _CLIENTS[key] = self.session.client(service, endpoint_url=self.endpoint)
        return _CLIENTS[key]

    def physical_name(self, logical_id: str, max_length: int = 80) -> str:
        return f"{self.stack.stack_name}-{logical_id}"[:max_length]

    def set(self, logical_id: str, ref: Any, **attrs: Any) -> None:
        self.stack.intrinsics.refs[logical_id] = ref
        self.stack.physical[logical_id] = str(ref)
        for name, value in attrs.items():
            self.stack.intrinsics.attrs[(logical_id, name)] = value


def provision(
    template: dict[str, Any],
    intrinsics: Intrinsics,
    *,
    region: str,
    stack_name: str,
    endpoint: str | None,
    root: Path,
    seed_secrets: Mapping[str, str] | None = None,
    observability: bool = True,
) -> ProvisionedStack:
    """Create every resource of `template` in dependency order. An unknown resource type is
    an error, never a silent skip. `observability=False` names the CloudWatch alarms and log
    groups (their Ref and Arn resolve) without creating them: two thirds of a stack's AWS calls,
    which in-process tests of the functions' code never read (tests/integration/support.py)."""
    resources: dict[str, Any] = template["Resources"]
    unknown = {spec["Type"] for spec in resources.values()} - supported_resource_types()
    if unknown:
        raise NotImplementedError(f"the local stack cannot create {sorted(unknown)}")
    session = boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name=region)
    stack = ProvisionedStack(region=region, stack_name=stack_name, intrinsics=intrinsics)
    ctx = _Context(
        stack=stack,
        session=session,
        endpoint=endpoint,
        root=root,
        globals_function=(template.get("Globals") or {}).get("Function") or {},
        seed_secrets=seed_secrets or {},
        observability=observability,
    )
    graph = {logical: references(spec) & set(resources) for logical, spec in resources.items()}
    # A function's events name its API; the API's authorizer names the function: create the
    # function first, since its ARN is all the API needs. Its deployment preference names alarms
    # on the function itself (on AWS they belong to the CodeDeploy group SAM makes, not to it).
    for logical, spec in resources.items():
        if spec["Type"] == "AWS::Serverless::Function":
            merged = _merge_globals(ctx.globals_function, spec.get("Properties") or {})
            own = {k: v for k, v in merged.items() if k not in _NOT_FUNCTION_DEPENDENCIES}
            graph[logical] = references(own) & set(resources)
    for logical in TopologicalSorter(graph).static_order():
        spec = resources[logical]
        condition = spec.get("Condition")
        if condition and not intrinsics.condition(condition):
            stack.skipped.append(logical)
            continue
        _PROVISIONERS[spec["Type"]](ctx, logical, spec)
    return stack


def _props(ctx: _Context, spec: dict[str, Any]) -> dict[str, Any]:
    return ctx.stack.intrinsics.resolve(spec.get("Properties") or {})  # type: ignore[no-any-return]


@provisioner("AWS::KMS::Key")
def _kms_key(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    key = ctx.client("kms").create_key(Description=props.get("Description", logical))["KeyMetadata"]
    ctx.set(logical, key["KeyId"], Arn=key["Arn"], KeyId=key["KeyId"])


@provisioner("AWS::KMS::Alias")
def _kms_alias(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    ctx.client("kms").create_alias(AliasName=props["AliasName"], TargetKeyId=props["TargetKeyId"])
    ctx.set(logical, props["AliasName"])


@provisioner("AWS::SecretsManager::Secret")
def _secret(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    if logical in ctx.seed_secrets:
        value = ctx.seed_secrets[logical]
    elif "SecretString" in props:
        value = props["SecretString"]
    else:
        generate = props.get("GenerateSecretString") or {}
        alphabet = string.ascii_letters + string.digits
        if not generate.get("ExcludePunctuation"):
            alphabet += "!#$%&()*+,-.:;<=>?@[]^_{|}~"
        value = "".join(secrets.choice(alphabet) for _ in range(int(generate.get("PasswordLength", 32))))
    name = props.get("Name") or ctx.physical_name(logical)
    created = ctx.client("secretsmanager").create_secret(
        Name=name, SecretString=value, Description=props.get("Description", "")
    )
    for replica in props.get("ReplicaRegions") or []:  # the same secret, readable in each region
        client = ctx.session.client("secretsmanager", region_name=replica["Region"], endpoint_url=ctx.endpoint)
        client.create_secret(Name=name, SecretString=value, Description=props.get("Description", ""))
    ctx.set(logical, created["ARN"], Id=created["ARN"])


def _create_table(client: Any, name: str, props: dict[str, Any]) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": props["AttributeDefinitions"],
        "KeySchema": props["KeySchema"],
        "BillingMode": props.get("BillingMode", "PROVISIONED"),
    }
    if kwargs["BillingMode"] == "PROVISIONED":
        kwargs["ProvisionedThroughput"] = props["ProvisionedThroughput"]
    if props.get("GlobalSecondaryIndexes"):
        kwargs["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
    if props.get("StreamSpecification"):
        kwargs["StreamSpecification"] = {"StreamEnabled": True, **props["StreamSpecification"]}
    sse = props.get("SSESpecification")
    if sse and sse.get("SSEEnabled"):
        kwargs["SSESpecification"] = {"Enabled": True, "SSEType": sse.get("SSEType", "KMS")}
        if sse.get("KMSMasterKeyId"):
            kwargs["SSESpecification"]["KMSMasterKeyId"] = sse["KMSMasterKeyId"]
    table = client.create_table(**kwargs)["TableDescription"]
    ttl = props.get("TimeToLiveSpecification")
    if ttl and ttl.get("Enabled"):
        client.update_time_to_live(TableName=name, TimeToLiveSpecification=ttl)
    return table  # type: ignore[no-any-return]


@provisioner("AWS::DynamoDB::Table")
def _table(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    name = props.get("TableName") or ctx.physical_name(logical)
    table = _create_table(ctx.client("dynamodb"), name, props)
    ctx.set(logical, name, Arn=table["TableArn"], StreamArn=table.get("LatestStreamArn"))


@provisioner("AWS::DynamoDB::GlobalTable")
def _global_table(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    """One table per replica region (moto does not replicate; devstack.globaltables does)."""
    props = _props(ctx, spec)
    name = props.get("TableName") or ctx.physical_name(logical)
    regions = [replica["Region"] for replica in props["Replicas"]]
    created = {}
    for region in regions:
        client = ctx.session.client("dynamodb", region_name=region, endpoint_url=ctx.endpoint)
        created[region] = _create_table(client, name, props)
    ctx.stack.global_tables[name] = regions
    here = created.get(ctx.stack.region) or next(iter(created.values()))
    ctx.set(logical, name, Arn=here["TableArn"], StreamArn=here.get("LatestStreamArn"))


@provisioner("AWS::SQS::Queue")
def _queue(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    fifo = bool(props.get("FifoQueue"))
    name = props.get("QueueName") or ctx.physical_name(logical, 75) + (".fifo" if fifo else "")
    attributes: dict[str, str] = {}
    for key in (
        "VisibilityTimeout",
        "MessageRetentionPeriod",
        "DelaySeconds",
        "MaximumMessageSize",
        "ReceiveMessageWaitTimeSeconds",
        "FifoQueue",
        "ContentBasedDeduplication",
        "SqsManagedSseEnabled",
    ):
        if key in props:
            value = props[key]
            attributes[key] = str(value).lower() if isinstance(value, bool) else str(value)
    if "RedrivePolicy" in props:
        attributes["RedrivePolicy"] = json.dumps(props["RedrivePolicy"])
    client = ctx.client("sqs")
    url = client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    arn = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    ctx.set(logical, url, Arn=arn, QueueName=name, QueueUrl=url)


@provisioner("AWS::S3::Bucket")
def _bucket(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    name = (props.get("BucketName") or ctx.physical_name(logical, 63)).lower()
    client = ctx.client("s3")
    if ctx.stack.region == "us-east-1":
        client.create_bucket(Bucket=name)
    else:
        client.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": ctx.stack.region})
    if "BucketEncryption" in props:
        rules = [  # CloudFormation's ServerSideEncryptionByDefault is the API's ApplyServerSideEncryptionByDefault
            {
                ("ApplyServerSideEncryptionByDefault" if k == "ServerSideEncryptionByDefault" else k): v
                for k, v in rule.items()
            }
            for rule in props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
        ]
        client.put_bucket_encryption(Bucket=name, ServerSideEncryptionConfiguration={"Rules": rules})
    if "PublicAccessBlockConfiguration" in props:
        client.put_public_access_block(
            Bucket=name, PublicAccessBlockConfiguration=props["PublicAccessBlockConfiguration"]
        )
    if "VersioningConfiguration" in props:
        client.put_bucket_versioning(
            Bucket=name, VersioningConfiguration={"Status": props["VersioningConfiguration"]["Status"]}
        )
    ctx.set(logical, name, Arn=f"arn:aws:s3:::{name}", DomainName=f"{name}.s3.amazonaws.com")


@provisioner("AWS::SNS::Topic")
def _topic(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    arn = ctx.client("sns").create_topic(Name=props.get("TopicName") or ctx.physical_name(logical, 256))["TopicArn"]
    ctx.set(logical, arn, TopicArn=arn, TopicName=arn.rsplit(":", 1)[1])


@provisioner("AWS::SNS::Subscription")
def _subscription(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    arn = ctx.client("sns").subscribe(
        TopicArn=props["TopicArn"], Protocol=props["Protocol"], Endpoint=props["Endpoint"]
    )["SubscriptionArn"]
    ctx.set(logical, arn)


@provisioner("AWS::SES::ConfigurationSet")
def _ses_configuration_set(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    name = props.get("Name") or ctx.physical_name(logical, 64)
    options = {k: v for k, v in props.items() if k in ("SendingOptions", "ReputationOptions", "SuppressionOptions")}
    ctx.client("sesv2").create_configuration_set(ConfigurationSetName=name, **options)
    ctx.set(logical, name)


@provisioner("AWS::SES::ConfigurationSetEventDestination")
def _ses_event_destination(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    """Recorded only: moto's SES publishes no configuration-set events (its SES v2 has no event
    destinations, and its SES v1 keeps them without publishing). The local stack's tests publish
    SES-shaped events to the destination's SNS topic themselves (docs/notifications.md)."""
    props = _props(ctx, spec)
    ctx.set(logical, f"{props['ConfigurationSetName']}|{props['EventDestination']['Name']}")


@provisioner("AWS::SQS::QueuePolicy")
def _queue_policy(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    for url in props["Queues"]:
        ctx.client("sqs").set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps(props["PolicyDocument"])})
    ctx.set(logical, logical)


@provisioner("AWS::SES::EmailIdentity")
def _ses_email_identity(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    """The sending identity, verified at once (moto's identities are: no DNS to prove here), so
    that the local stack's e-mails are sent."""
    props = _props(ctx, spec)
    identity = props["EmailIdentity"]
    extra = {}
    if props.get("ConfigurationSetAttributes"):
        extra["ConfigurationSetName"] = props["ConfigurationSetAttributes"]["ConfigurationSetName"]
    ctx.client("sesv2").create_email_identity(EmailIdentity=identity, **extra)
    ctx.set(logical, identity)


@provisioner("AWS::CloudWatch::Alarm")
def _alarm(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    name = props.get("AlarmName") or ctx.physical_name(logical, 255)
    kwargs = {k: v for k, v in props.items() if k != "AlarmName"}
    kwargs["Threshold"] = float(kwargs["Threshold"])
    for key in ("Period", "EvaluationPeriods", "DatapointsToAlarm"):
        if key in kwargs:
            kwargs[key] = int(kwargs[key])
    if ctx.observability:
        ctx.client("cloudwatch").put_metric_alarm(AlarmName=name, **kwargs)
    ctx.set(logical, name, Arn=f"arn:aws:cloudwatch:{ctx.stack.region}:{ACCOUNT_ID}:alarm:{name}")


@provisioner("AWS::Logs::LogGroup")
def _log_group(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    name = props.get("LogGroupName") or ctx.physical_name(logical, 512)
    if ctx.observability:
        logs = ctx.client("logs")
        logs.create_log_group(logGroupName=name)
        if "RetentionInDays" in props:
            logs.put_retention_policy(logGroupName=name, retentionInDays=int(props["RetentionInDays"]))
    ctx.set(logical, name, Arn=f"arn:aws:logs:{ctx.stack.region}:{ACCOUNT_ID}:log-group:{name}:*")


# API Gateway's account setting (the role it writes access logs with) and that role: nothing
# enforces IAM locally, and the local API servers write no CloudWatch logs; both are recorded.
@provisioner("AWS::IAM::Role")
def _role(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    name = ctx.physical_name(logical, 64)
    ctx.set(logical, name, Arn=f"arn:aws:iam::{ACCOUNT_ID}:role/{name}", RoleId=name)


@provisioner("AWS::ApiGateway::Account")
def _api_gateway_account(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    ctx.set(logical, f"{ctx.stack.region}-account")


@provisioner("AWS::Serverless::LayerVersion")
def _layer(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    content = (ctx.root / props["ContentUri"]).resolve()
    # Python layers put importable code under python/ (the makefile build copies it there).
    path = content / "python" if (content / "python").is_dir() else content
    ctx.stack.layers[logical] = path
    arn = f"arn:aws:lambda:{ctx.stack.region}:{ACCOUNT_ID}:layer:{props.get('LayerName', logical)}:1"
    ctx.set(logical, arn, LayerVersionArn=arn)


@provisioner("AWS::Serverless::Function")
def _function(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    intrinsics = ctx.stack.intrinsics
    merged = _merge_globals(ctx.globals_function, spec.get("Properties") or {})
    events = merged.pop("Events", {}) or {}
    merged.pop("DeploymentPreference", None)  # gradual deployment (CodeDeploy): nothing to do locally
    props = intrinsics.resolve(merged)
    name = props.get("FunctionName") or ctx.physical_name(logical, 64)
    arn = f"arn:aws:lambda:{ctx.stack.region}:{ACCOUNT_ID}:function:{name}"
    ctx.set(logical, name, Arn=arn)
    layer_arns = props.get("Layers") or []
    layer_paths = [path for lid, path in ctx.stack.layers.items() if intrinsics.refs.get(lid) in layer_arns]
    environment = {k: str(v) for k, v in ((props.get("Environment") or {}).get("Variables") or {}).items()}
    ctx.stack.functions[logical] = FunctionSpec(
        logical_id=logical,
        name=name,
        arn=arn,
        region=ctx.stack.region,
        code_dir=(ctx.root / props["CodeUri"]).resolve(),
        handler=props["Handler"],
        environment=environment,
        timeout=int(props.get("Timeout", 3)),
        memory=int(props.get("MemorySize", 128)),
        layer_paths=layer_paths,
        events=events,  # resolved later, once every resource exists
    )


@provisioner("AWS::Serverless::Api")
def _api(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    api_id = "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(10))
    ctx.stack.apis[logical] = {"api_id": api_id, **props}
    ctx.set(logical, api_id, RootResourceId=api_id, Stage=str(props.get("StageName", "prod")))


# WAF has no local service: the web ACL is kept for the API it is associated with, whose local
# server applies its rules (devstack.waf), as API Gateway's WAF integration would.
@provisioner("AWS::WAFv2::WebACL")
def _web_acl(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    ctx.stack.web_acls[logical] = props
    acl_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{ctx.stack.stack_name}/{logical}"))
    arn = f"arn:aws:wafv2:{ctx.stack.region}:123456789012:regional/webacl/{props['Name']}/{acl_id}"
    ctx.set(logical, f"{props['Name']}|{acl_id}|REGIONAL", Arn=arn, Id=acl_id)


@provisioner("AWS::WAFv2::WebACLAssociation")
def _web_acl_association(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    acl = next(
        lid for (lid, attr), arn in ctx.stack.intrinsics.attrs.items() if attr == "Arn" and arn == props["WebACLArn"]
    )
    resource = str(props["ResourceArn"])
    api = next((lid for lid, api in ctx.stack.apis.items() if f"/restapis/{api['api_id']}/stages/" in resource), None)
    if api is None:
        raise NotImplementedError(f"{logical}: the local stack associates web ACLs with its REST APIs only")
    ctx.stack.api_web_acls[api] = acl
    ctx.set(logical, f"{acl}|{api}")


def _merge_globals(globals_function: dict[str, Any], properties: dict[str, Any]) -> dict[str, Any]:
    """SAM's Globals rules: maps merge (function wins), lists concatenate, scalars are replaced."""
    merged = dict(globals_function)
    for key, value in properties.items():
        base = merged.get(key)
        if isinstance(base, dict) and isinstance(value, dict) and key == "Environment":
            merged[key] = {"Variables": {**base.get("Variables", {}), **value.get("Variables", {})}}
        elif isinstance(base, dict) and isinstance(value, dict):
            merged[key] = {**base, **value}
        elif isinstance(base, list) and isinstance(value, list):
            merged[key] = base + value
        else:
            merged[key] = value
    return merged


# A custom domain with mutual TLS has no local DNS or ACM: the local stack serves each gateway
# over TLS on a port of its own, client certificates optional and checked against the region's
# client CA (devstack.tls), which is what the domain does on AWS. The resources are recorded.
@provisioner("AWS::ApiGateway::DomainName")
def _domain_name(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    ctx.set(logical, props["DomainName"], RegionalDomainName=f"d-local.execute-api.{ctx.stack.region}.amazonaws.com")


@provisioner("AWS::ApiGateway::BasePathMapping")
def _base_path_mapping(ctx: _Context, logical: str, spec: dict[str, Any]) -> None:
    props = _props(ctx, spec)
    ctx.set(logical, f"{props['DomainName']}/{props.get('BasePath', '')}")


from devstack import cognito  # noqa: E402, F401  - registers the Cognito resources' provisioners

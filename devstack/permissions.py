"""What each function of template.yaml needs of IAM, derived from the code, and what the
template grants it: the two must be the same (tests/unit/test_iam.py).

Needs. A function's handler module (CodeUri + Handler) is followed through every `mzpay` import
it can reach, nested imports and `mzpay.lazy.deferred("...")` included; `if TYPE_CHECKING:`
blocks are skipped, and `mzpay.deps` is not followed as a whole: only the factories the reached
code calls (`deps.payments()`) count, each standing for the store class it builds. Each store
class (or function of a `mzpay.store` module) reached that way touches:

* the resources named by the environment variables it reads (`env("PAYMENTS_TABLE")`,
  `os.environ.get("CLIENT_CA_SECRET")`), resolved through the function's Environment in
  template.yaml to a table, queue, key, bucket or secret; and
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

import ast
import functools
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from devstack.template import load_template

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_ROOT = ROOT / "layers" / "core" / "python"

# boto3 call -> (service, IAM actions); transact_write_items is expanded from the items' kinds.
CALLS: dict[str, tuple[str, tuple[str, ...]]] = {
    "get_item": ("dynamodb", ("dynamodb:GetItem",)),
    "put_item": ("dynamodb", ("dynamodb:PutItem",)),
    "update_item": ("dynamodb", ("dynamodb:UpdateItem",)),
    "delete_item": ("dynamodb", ("dynamodb:DeleteItem",)),
    "query": ("dynamodb", ("dynamodb:Query",)),
    "scan": ("dynamodb", ("dynamodb:Scan",)),
    "batch_get_item": ("dynamodb", ("dynamodb:BatchGetItem",)),
    "batch_writer": ("dynamodb", ("dynamodb:BatchWriteItem",)),
    "transact_get_items": ("dynamodb", ("dynamodb:GetItem",)),
    "transact_write_items": ("dynamodb", ()),
    "get_shard_iterator": ("dynamodbstreams", ("dynamodb:GetShardIterator",)),
    "get_records": ("dynamodbstreams", ("dynamodb:GetRecords",)),
    "describe_stream": ("dynamodbstreams", ("dynamodb:DescribeStream",)),
    "send_message": ("sqs", ("sqs:SendMessage",)),
    "receive_message": ("sqs", ("sqs:ReceiveMessage",)),
    "delete_message": ("sqs", ("sqs:DeleteMessage",)),
    "change_message_visibility": ("sqs", ("sqs:ChangeMessageVisibility",)),
    "change_message_visibility_batch": ("sqs", ("sqs:ChangeMessageVisibility",)),
    "encrypt": ("kms", ("kms:Encrypt",)),
    "decrypt": ("kms", ("kms:Decrypt",)),
    "generate_data_key": ("kms", ("kms:GenerateDataKey",)),
    "put_object": ("s3", ("s3:PutObject",)),
    "get_object": ("s3", ("s3:GetObject",)),
    "get_secret_value": ("secretsmanager", ("secretsmanager:GetSecretValue",)),
    "get_secret": ("secretsmanager", ("secretsmanager:GetSecretValue",)),  # Powertools parameters
    "create_secret": ("secretsmanager", ("secretsmanager:CreateSecret",)),
}
TRANSACTION_ITEMS = {
    "Put": "dynamodb:PutItem",
    "Update": "dynamodb:UpdateItem",
    "Delete": "dynamodb:DeleteItem",
    "ConditionCheck": "dynamodb:ConditionCheckItem",
}
SERVICE_OF_TYPE = {
    "AWS::DynamoDB::Table": "dynamodb",
    "AWS::DynamoDB::GlobalTable": "dynamodb",
    "AWS::SQS::Queue": "sqs",
    "AWS::KMS::Key": "kms",
    "AWS::S3::Bucket": "s3",
    "AWS::SecretsManager::Secret": "secretsmanager",
}

# Store functions handed an ARN by data rather than by the environment: the environment variable
# of the table whose stream it is (the dispatcher's on-failure messages name EventsTable's stream).
ARNS_FROM_DATA: dict[tuple[str, str], str] = {("mzpay.store.dispatch_failures", "stream_records"): "EVENTS_TABLE"}

# Store classes a function's code can reach that it never uses there, each with the reason (the
# smallest list that keeps the derivation honest; a reason must say why the path cannot run).
NOT_REACHED: dict[tuple[str, str], str] = {
    ("CollectionRequestsFunction", "mzpay.store.connectors.Bindings"): (
        "steps.payments.current lets the simulated payer answer a test payment (never a bound live "
        "connector); the payment link only opens checkouts, which carry no connector yet"
    ),
}

Grant = tuple[str, str, str]  # (action, resource key, part: "" | "index" | "stream" | "objects")


# ---------------------------------------------------------------- the code
@dataclass
class Unit:
    """A class or function of a mzpay.store module: what it reads of the environment and calls."""

    env: set[str] = field(default_factory=set)  # required: env("X"), os.environ["X"]
    optional_env: set[str] = field(default_factory=set)  # os.environ.get("X"): absent is allowed
    actions: set[tuple[str, str]] = field(default_factory=set)  # (service, action)
    indexes: bool = False
    calls: set[str] = field(default_factory=set)  # names it calls (same-module or imported helpers)


def module_file(name: str) -> Path | None:
    base = PACKAGE_ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk_runtime(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under `node` that runs: not the bodies of `if TYPE_CHECKING:` (their else
    counts), not annotations."""
    for field_name, value in ast.iter_fields(node):
        if field_name in ("annotation", "returns"):
            continue
        children = value if isinstance(value, list) else [value]
        for child in children:
            if not isinstance(child, ast.AST):
                continue
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for other in child.orelse:
                    yield other
                    yield from _walk_runtime(other)
                continue
            yield child
            yield from _walk_runtime(child)


SELF = ("self", "cls")
MODULE = "<module>"  # a module's top-level code (imports, decorators, assignments)
HANDLER = "__handler__"


@dataclass
class Module:
    """A module's top-level definitions, its import bindings, and what each part references."""

    units: dict[str, list[ast.AST]]  # name -> nodes (MODULE: the top-level statements that run on import)
    bindings: dict[str, tuple[str, str]]  # local name -> (module, "" for the module itself | a name in it)


def _absolute(module: str, node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return module
    parts = package.split(".")
    base = parts[: len(parts) - node.level + 1]
    return ".".join([*base, module] if module else base)


@functools.cache
def load(name: str, path: Path | None = None) -> Module:
    """The module `name` (or the file `path`, a function's handler), split into units."""
    path = path or module_file(name)
    if path is None:
        return Module({}, {})
    tree = parsed(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    units: dict[str, list[ast.AST]] = {MODULE: []}
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            units[statement.name] = [statement]
            units[MODULE].extend(statement.decorator_list)
        else:
            units[MODULE].append(statement)
    bindings: dict[str, tuple[str, str]] = {}
    for node in _walk_runtime(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("mzpay"):
                    bindings[alias.asname or alias.name.split(".")[0]] = (alias.name, "")
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node.module or "", node, package)
            if not source.startswith("mzpay"):
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                target = (submodule, "") if module_file(submodule) else (source, alias.name)
                bindings[alias.asname or alias.name] = target
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            deferred = _deferred_name(node.value)
            if deferred:
                bindings.update({t.id: (deferred, "") for t in node.targets if isinstance(t, ast.Name)})
    return Module(units, bindings)


def _deferred_name(call: ast.Call) -> str | None:
    """'mzpay.cases.x' of `deferred("mzpay.cases.x")` (mzpay.lazy: a module loaded on first use)."""
    if isinstance(call.func, ast.Name) and call.func.id == "deferred" and call.args:
        first = call.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def _deps_call(node: ast.AST) -> str | None:
    """'payments' of `deps.payments()`."""
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "deps":
        return func.attr
    return None


def deps_uses(nodes: Iterable[ast.AST]) -> set[tuple[str, str | None]]:
    """(factory, method) for each `deps.x().method` or `store = deps.x()` ... `store.method` in
    `nodes`; (factory, None) where the store is passed on (all its methods count)."""
    uses: set[tuple[str, str | None]] = set()
    for top in nodes:
        walked = [top, *_walk_runtime(top)]
        variables: dict[str, str] = {}
        direct: set[int] = set()
        for node in walked:
            if isinstance(node, ast.Expr):  # `deps.x()` or `(deps.x(), deps.y())` alone: built, not used
                built = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                direct |= {id(call) for call in built if _deps_call(call)}
            if isinstance(node, ast.Assign) and _deps_call(node.value) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    variables[target.id] = str(_deps_call(node.value))
                    direct.add(id(node.value))
            elif isinstance(node, ast.Attribute) and _deps_call(node.value):
                uses.add((str(_deps_call(node.value)), node.attr))
                direct.add(id(node.value))
        for node in walked:
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in variables:
                uses.add((variables[node.value.id], node.attr))
            elif isinstance(node, ast.Name) and node.id in variables and isinstance(node.ctx, ast.Load):
                if not any(
                    isinstance(p, ast.Attribute) and p.value is node for p in walked
                ):  # the store itself passed on
                    uses.add((variables[node.id], None))
            elif _deps_call(node) and id(node) not in direct:
                uses.add((str(_deps_call(node)), None))
    return uses


def _references(nodes: Iterable[ast.AST]) -> tuple[set[str], set[tuple[str, str]], set[str]]:
    """(names, (name, attribute) pairs, modules imported) in `nodes`, TYPE_CHECKING blocks left out."""
    names: set[str] = set()
    attributes: set[tuple[str, str]] = set()
    imported: set[str] = set()
    for top in nodes:
        for node in [top, *_walk_runtime(top)]:
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                attributes.add((node.value.id, node.attr))
            elif isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Call) and _deferred_name(node):
                imported.add(str(_deferred_name(node)))
    return names, attributes, imported


def reach(handler: Path) -> tuple[set[tuple[str, str]], set[tuple[str, str | None]]]:
    """The (module, definition) pairs of mzpay the handler file can run, and the mzpay.deps
    factories they call: a definition counts when something reached names it (through an import
    binding, `module.name`, or from its own module); importing a module runs its top-level code."""
    handler_module = load(HANDLER, handler)
    reached: set[tuple[str, str]] = set()
    factories: set[tuple[str, str | None]] = set()
    pending = [(HANDLER, name) for name in handler_module.units]

    def module_of(name: str) -> Module:
        return handler_module if name == HANDLER else load(name)

    while pending:
        key = pending.pop()
        if key in reached:
            continue
        reached.add(key)
        module_name, unit = key
        module = module_of(module_name)
        names, attributes, imported = _references(module.units.get(unit, []))
        factories |= deps_uses(module.units.get(unit, []))
        found: list[tuple[str, str]] = [(m, MODULE) for m in imported if m.startswith("mzpay") and m != "mzpay.deps"]
        for name in names:
            if name in module.units and name != unit:
                found.append((module_name, name))
            elif name in module.bindings:
                source, member = module.bindings[name]
                if source == "mzpay.deps":
                    factories.add((member, None))
                elif member:
                    found.append((source, member))
        for base, attribute in attributes:
            source, member = module.bindings.get(base, ("", "x"))
            if member or not source:
                continue
            if source == "mzpay.deps":
                continue  # deps_uses has it, with the method called
            elif module_file(f"{source}.{attribute}"):
                found.append((f"{source}.{attribute}", MODULE))
            else:
                found.append((source, attribute))
        pending.extend((m, u) for m, u in found if m.startswith("mzpay") and m != "mzpay.deps" and u in load(m).units)
    return reached, factories


@functools.cache
def deps_factories() -> dict[str, tuple[str, str]]:
    """mzpay.deps factory name -> (store module, class) it returns."""
    found: dict[str, tuple[str, str]] = {}
    path = module_file("mzpay.deps")
    assert path is not None
    for node in parsed(path).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        imported = {
            alias.asname or alias.name: stmt.module
            for stmt in node.body
            if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.module.startswith("mzpay.store")
            for alias in stmt.names
        }
        for stmt in ast.walk(node):
            if (
                isinstance(stmt, ast.Call)
                and isinstance(stmt.func, ast.Attribute)
                and stmt.func.attr == "from_env"
                and isinstance(stmt.func.value, ast.Name)
                and stmt.func.value.id in imported
            ):
                found[node.name] = (str(imported[stmt.func.value.id]), stmt.func.value.id)
    return found


def _env_name(call: ast.Call) -> str | None:
    func = call.func
    is_env = (isinstance(func, ast.Name) and func.id == "env") or (
        isinstance(func, ast.Attribute)
        and func.attr in ("get", "getenv")
        and isinstance(func.value, ast.Attribute | ast.Name)
        and (getattr(func.value, "attr", None) == "environ" or getattr(func.value, "id", None) == "os")
    )
    if is_env and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def _unit_of(node: ast.AST) -> Unit:
    unit = Unit()
    kinds: set[str] = set()
    transacts = False
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            name = _env_name(child)
            if name:
                optional = isinstance(child.func, ast.Attribute)
                (unit.optional_env if optional else unit.env).add(name)
            func = child.func
            if isinstance(func, ast.Attribute) and func.attr in CALLS:
                service, actions = CALLS[func.attr]
                unit.actions |= {(service, action) for action in actions}
                transacts |= func.attr == "transact_write_items"
            if isinstance(func, ast.Name):
                unit.calls.add(func.id)
            if any(k.arg == "IndexName" for k in child.keywords):
                unit.indexes = True
        elif isinstance(child, ast.Subscript) and isinstance(child.slice, ast.Constant):
            value = child.value
            if isinstance(value, ast.Attribute) and value.attr == "environ" and isinstance(child.slice.value, str):
                unit.env.add(child.slice.value)
        elif isinstance(child, ast.Dict):
            kinds |= {k.value for k in child.keys if isinstance(k, ast.Constant) and k.value in TRANSACTION_ITEMS}
        if isinstance(child, ast.Constant) and child.value == "IndexName":
            unit.indexes = True
    if transacts or kinds:
        unit.actions |= {("dynamodb", TRANSACTION_ITEMS[k]) for k in kinds}
    return unit


@functools.cache
def _parts(module: str) -> dict[str, tuple[Unit, set[str]]]:
    """The functions of a mzpay.store module and the methods of its classes ("Class.method"),
    each with the `self.<method>` names it calls; "Class." is the class body outside methods."""
    path = module_file(module)
    parts: dict[str, tuple[Unit, set[str]]] = {}
    for node in parsed(path).body if path else []:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            parts[node.name] = (_unit_of(node), set())
        elif isinstance(node, ast.ClassDef):
            body = [n for n in node.body if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
            parts[f"{node.name}."] = (_unit_of(ast.Module(body=body, type_ignores=[])), set())
            for method in node.body:
                if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                    own = {
                        n.attr
                        for n in ast.walk(method)
                        if isinstance(n, ast.Attribute)
                        and isinstance(n.value, ast.Name)
                        and n.value.id in ("self", "cls")
                    }
                    parts[f"{node.name}.{method.name}"] = (_unit_of(method), own)
    return parts


def store_unit(module: str, name: str, methods: frozenset[str] | None = None) -> Unit | None:
    """What a store function, or a store class used through `methods` (None: all of them), reads
    of the environment and calls, its own helpers' calls (same module or other stores) included."""
    parts = _parts(module)
    if name in parts:
        selected = [name]
    elif f"{name}." in parts:
        everything = {key.partition(".")[2] for key in parts if key.startswith(f"{name}.")} - {""}
        wanted = set(everything if methods is None else methods) | {"from_env", "__init__"}
        selected, pending = [f"{name}."], sorted(wanted)
        while pending:
            method = pending.pop()
            key = f"{name}.{method}"
            if key in parts and key not in selected:
                selected.append(key)
                pending.extend(parts[key][1])
    else:
        return None
    imported = {local: bound for local, bound in load(module).bindings.items() if bound[1]}
    unit = Unit()
    for key in selected:
        unit.env |= parts[key][0].env
        unit.optional_env |= parts[key][0].optional_env
    seen: set[str] = set()
    pending_units = [parts[key][0] for key in selected]
    while pending_units:
        helper = pending_units.pop()
        unit.actions |= helper.actions
        unit.indexes |= helper.indexes
        for callee in helper.calls - seen:
            seen.add(callee)
            if callee in parts:
                pending_units.append(parts[callee][0])
            elif callee in imported and imported[callee][0].startswith("mzpay.store"):
                other = store_unit(*imported[callee])
                if other is not None:
                    pending_units.append(other)
    return unit


def _is_function(module: str, name: str) -> bool:
    nodes = load(module).units.get(name) or []
    return name != MODULE and bool(nodes) and isinstance(nodes[0], ast.FunctionDef)


def used_units(handler: Path) -> dict[tuple[str, str], Unit]:
    """(store module, name) -> Unit for every store class or function the handler can use: the
    classes mzpay.deps builds for the factories it calls (through the methods called on them),
    and the store functions it reaches."""
    reached, uses = reach(handler)
    factories = deps_factories()
    methods: dict[tuple[str, str], set[str] | None] = {}
    for factory, method in uses:
        if factory not in factories:
            continue  # deps' own helpers (settings, once, remembered)
        key = factories[factory]
        known = methods.get(key, set())
        methods[key] = None if method is None or known is None else known | {method}
    units: dict[tuple[str, str], Unit] = {}
    for key, called in methods.items():
        unit = store_unit(key[0], key[1], None if called is None else frozenset(called))
        if unit is not None:
            units[key] = unit
    for module, name in reached:
        if module.startswith("mzpay.store.") and _is_function(module, name):
            unit = store_unit(module, name)
            if unit is not None:
                units[(module, name)] = unit
    return {key: unit for key, unit in units.items() if unit.env or unit.optional_env or unit.actions}


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
    r"^arn:\$\{AWS::Partition\}:(?:dynamodb|secretsmanager|sqs|kms|s3)"
    r":(?:\$\{AWS::Region\}|[^:]*):(?:\$\{AWS::AccountId\}|[^:]*):(?:table/|secret:|key/)?(?P<rest>.*)$"
)


def grant_resource(value: Any, template: Mapping[str, Any]) -> tuple[str, str]:
    """(resource key, part) of a statement's Resource entry."""
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
            raise ValueError(f"{logical_id}: only inline Statements are checked, not {policy!r}")
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
def _arn(key: str, part: str, template: Mapping[str, Any]) -> str:
    suffix = {"": "", "index": "/index/*", "stream": "/stream/*", "objects": "/*"}[part]
    if key.startswith("param:"):
        name = key.removeprefix("param:")
        service = "secretsmanager" if "Secret" in name else "dynamodb"
        kind = "secret:" if service == "secretsmanager" else "table/"
        tail = "-*" if service == "secretsmanager" else suffix
        return f"!Sub arn:${{AWS::Partition}}:{service}:${{AWS::Region}}:${{AWS::AccountId}}:{kind}${{{name}}}{tail}"
    if key.startswith("sub:"):
        name = key.removeprefix("sub:")
        return f"!Sub arn:${{AWS::Partition}}:secretsmanager:${{AWS::Region}}:${{AWS::AccountId}}:secret:{name}-*"
    if part == "stream":
        return f"!GetAtt {key}.StreamArn"
    if template["Resources"][key]["Type"] == "AWS::SecretsManager::Secret":
        return f"!Ref {key}"  # a secret's Ref is its ARN
    if part:
        return f'!Sub "${{{key}.Arn}}{suffix}"'
    return f"!GetAtt {key}.Arn"


def statements_yaml(logical_id: str, template: Mapping[str, Any]) -> str:
    """The Policies a function needs, as template.yaml lines (one statement per resource)."""
    by_resource: dict[tuple[str, str], tuple[set[str], set[str]]] = {}
    for action, key, part in needs(logical_id, template):
        # a table's indexes (Query) and its stream (GetRecords...): statements of their own
        own = part if part in ("index", "stream") else ""
        actions, arns = by_resource.setdefault((key, own), (set(), set()))
        actions.add(action)
        arns.add(_arn(key, part, template))
    lines = [
        "      Policies:  # derived from the code: python -m devstack.permissions " + logical_id,
        "        - Statement:",
    ]
    for key, statement in sorted(by_resource):
        actions, arns = by_resource[(key, statement)]
        kind, _, name = key.rpartition(":")
        sid = name.removesuffix("Name") if kind == "param" else name
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
    return "\n".join(lines)


def main(argv: Iterable[str]) -> None:
    template = load_template(ROOT / "template.yaml")
    for logical_id in list(argv) or functions(template):
        print(f"  # {logical_id}\n{statements_yaml(logical_id, template)}\n")


if __name__ == "__main__":
    main(sys.argv[1:])

"""What a function's code can do to AWS, read from its source: the mzpay definitions its handler
can reach, the store classes (and the methods of theirs) and store functions it uses, and for
each of those the environment variables it reads and the AWS calls it makes. devstack.permissions
turns that into IAM grants (its docstring says how).

Reaching: the handler file's definitions all count; a definition counts when something reached
names it (through an import binding, `module.name`, or from its own module), and importing a
module runs its top-level code (imports, decorators, assignments). Nested imports and
`mzpay.lazy.deferred("...")` and imports inside `with deferred_imports():` count;
`if TYPE_CHECKING:` bodies and annotations do not.
`mzpay.deps` is not followed as a whole: `deps.payments().get(...)` (or `store = deps.payments()`
... `store.get(...)`) uses the class that factory builds through `get` (and what `get` calls on
`self`); a store passed on whole uses all its methods; `deps.x()` alone (built, not used) none.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

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
    "generate_presigned_url": ("s3", ("s3:GetObject",)),  # the link carries the signer's right to read
    "get_secret_value": ("secretsmanager", ("secretsmanager:GetSecretValue",)),
    "get_secret": ("secretsmanager", ("secretsmanager:GetSecretValue",)),  # Powertools parameters
    "create_secret": ("secretsmanager", ("secretsmanager:CreateSecret",)),
    "send_email": ("ses", ("ses:SendEmail",)),  # SES API v2 (its IAM actions keep the ses: prefix)
    "publish": ("sns", ("sns:Publish",)),
    "check_if_phone_number_is_opted_out": ("sns", ("sns:CheckIfPhoneNumberIsOptedOut",)),
    # the dashboard's sign-in (the token-bearing calls, AssociateSoftwareToken and the like, need no IAM right)
    "admin_initiate_auth": ("cognito-idp", ("cognito-idp:AdminInitiateAuth",)),
    "admin_respond_to_auth_challenge": ("cognito-idp", ("cognito-idp:AdminRespondToAuthChallenge",)),
    # the dashboard's team: an accepted invitation, a reset, a removal, the MFA status
    "admin_create_user": ("cognito-idp", ("cognito-idp:AdminCreateUser",)),
    "admin_set_user_password": ("cognito-idp", ("cognito-idp:AdminSetUserPassword",)),
    "admin_delete_user": ("cognito-idp", ("cognito-idp:AdminDeleteUser",)),
    "admin_get_user": ("cognito-idp", ("cognito-idp:AdminGetUser",)),
}
# Connectors whose provider is an AWS service: followed like the stores (mzpay.deps builds them
# with `from_env`), so their calls are granted like a store's.
AWS_CONNECTORS = ("mzpay.connectors.messaging", "mzpay.connectors.cognito")
TRANSACTION_ITEMS = {
    "Put": "dynamodb:PutItem",
    "Update": "dynamodb:UpdateItem",
    "Delete": "dynamodb:DeleteItem",
    "ConditionCheck": "dynamodb:ConditionCheckItem",
}


@dataclass
class Unit:
    """A class or function of a mzpay.store module: what it reads of the environment and calls."""

    env: set[str] = field(default_factory=set)  # required: env("X") (mzpay.config), os.environ["X"]
    optional_env: set[str] = field(default_factory=set)  # optional_env("X"), os.environ.get("X"): absent is allowed
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
    """mzpay.deps factory name -> (store or AWS connector module, class) it returns."""
    found: dict[str, tuple[str, str]] = {}
    path = module_file("mzpay.deps")
    assert path is not None
    for node in parsed(path).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        imported = {
            alias.asname or alias.name: stmt.module
            for stmt in node.body
            if isinstance(stmt, ast.ImportFrom)
            and stmt.module
            and (stmt.module.startswith("mzpay.store") or stmt.module in AWS_CONNECTORS)
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
    is_env = (isinstance(func, ast.Name) and func.id in ("env", "optional_env")) or (
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
                optional = isinstance(child.func, ast.Attribute) or getattr(child.func, "id", "") == "optional_env"
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
            for base in node.bases:  # what it inherits from a store class (mzpay.store.base's)
                named = getattr(base, "id", "")
                source, member = (module, named) if f"{named}." in parts else load(module).bindings.get(named, ("", ""))
                if source.startswith("mzpay.store") and member:
                    for key, part in list((parts if source == module else _parts(source)).items()):
                        owner, _, inherited = key.partition(".")
                        if owner == member and inherited:
                            parts.setdefault(f"{node.name}.{inherited}", part)
    return parts


def store_unit(module: str, name: str, methods: frozenset[str] | None = None) -> Unit | None:
    """What a store function, or a store class used through `methods` (None: all of them), reads
    of the environment and calls, its own helpers' calls (same module or other stores) included."""
    parts = _parts(module)
    if name in parts:
        selected = [name]
    elif f"{name}." in parts:
        # all its own methods (those it inherits count when its own call them, or when named)
        nodes = load(module).units.get(name) or []
        everything = {
            method.name
            for node in nodes
            for method in getattr(node, "body", [])
            if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef)
        }
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

"""What the fork server of the local Lambda service imports before it forks an execution
environment (devstack.lambdas): the libraries every function uses, and the layer's modules whose
import reads nothing of the process (so that importing them once, before the environment has its
own variables, is the same as importing them in each environment).

A cold start then costs a fork and what the function's own handler adds: on a test run's stacks,
each of the ~65 environments of a stack (and each one more that concurrency starts) otherwise
spends about half a CPU-second building the same pydantic models and dataclasses again.

Which layer modules qualify is read from the layer's source, not listed by hand: a module is
imported ahead unless it imports, at module level and directly or through others, one of
READS_ENVIRONMENT_AT_IMPORT (a module that builds something from the environment while it is
imported: the Powertools Logger reads its service name and level when it is constructed).
tests/unit/test_preload.py imports the chosen modules with the environment watched and fails if
any of them reads it, so a new module-level read is caught and named here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

# pydantic and Powertools load most of themselves lazily (`pydantic` alone does not import
# pydantic.main), so the submodules the functions end up importing are named one by one.
LIBRARIES = [
    "boto3",
    "boto3.dynamodb.conditions",
    "boto3.dynamodb.types",
    "botocore.session",
    "botocore.client",
    "pydantic",
    "pydantic.main",
    "pydantic.fields",
    "pydantic.types",
    "pydantic.json_schema",
    "pydantic.functional_validators",
    "pydantic.functional_serializers",
    "pydantic.root_model",
    "pydantic.type_adapter",
    "pydantic.networks",
    "annotated_types",
    "aws_lambda_powertools",
    "aws_lambda_powertools.logging",
    "aws_lambda_powertools.metrics",
    "aws_lambda_powertools.event_handler",
    "aws_lambda_powertools.utilities.batch",
    "aws_lambda_powertools.utilities.parser",
    "jinja2",
    "simplejson",
    "ulid",
    "zoneinfo",
    "email.headerregistry",
    "jwt",
    "cryptography.x509",
    "phonenumbers",
    "stdnum",
]

READS_ENVIRONMENT_AT_IMPORT = frozenset({"mzpay.observability"})


def _module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(name: str, is_package: bool, tree: ast.Module) -> set[str]:
    """The modules `tree` imports outside its functions and classes (a `with` or `if` block at
    module level counts: deferred imports are counted as if they were not)."""
    found: set[str] = set()
    package = name.split(".") if is_package else name.split(".")[:-1]
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                module = ".".join([*base, *([node.module] if node.module else [])])
                found.add(module)
                found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def layer_modules(layers: Iterable[Path]) -> list[str]:
    """The modules of the Python layers `layers` that can be imported ahead, in a stable order."""
    graph: dict[str, set[str]] = {}
    for root in layers:
        for path in sorted(root.rglob("*.py")):
            name = _module_name(root, path)
            tree = ast.parse(path.read_bytes(), filename=str(path))
            graph[name] = _imports(name, path.name == "__init__.py", tree)
    importers: dict[str, set[str]] = {}
    for name, imported in graph.items():
        parents = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        for dependency in imported | parents:
            importers.setdefault(dependency, set()).add(name)
    tainted = set(READS_ENVIRONMENT_AT_IMPORT)
    pending = list(tainted)
    while pending:
        for importer in importers.get(pending.pop(), ()):
            if importer not in tainted:
                tainted.add(importer)
                pending.append(importer)
    return [name for name in sorted(graph) if name not in tainted]

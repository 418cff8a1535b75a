"""What every measurement shares: paths, the Lambda-like environment, the template's functions."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devstack.template import load_template

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "template.yaml"
LAYER_PATH = ROOT / "layers" / "core" / "python"
PYTHON = ROOT / ".venv" / "bin" / "python"
FUNCTION_TYPE = "AWS::Serverless::Function"

# What every function sees on Lambda (values of the `mz` stack; no AWS is contacted at import).
LAMBDA_ENVIRONMENT: dict[str, str] = {
    "SERVICE_REGION": "mz",
    "STAGE": "prod",
    "AWS_DEFAULT_REGION": "af-south-1",
    "AWS_REGION": "af-south-1",
}
# Stand-ins for variables the template fills with references to other resources; a function
# gets the ones its template environment declares.
PLACEHOLDER_VARIABLES: dict[str, str] = {
    "OPERATOR_TOKEN_SECRET_ARN": "arn:aws:secretsmanager:af-south-1:123456789012:secret:x",
}
# Process variables a fresh interpreter keeps from ours; nothing AWS_*, POWERTOOLS_* or PYTHON*.
_INHERITED = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")


def python_executable() -> str:
    """The project's interpreter (.venv), else the one running the benchmark."""
    return str(PYTHON) if PYTHON.exists() else sys.executable


@dataclass(frozen=True)
class FunctionInfo:
    """A function of template.yaml, as far as importing its handler goes."""

    logical_id: str
    code_dir: Path
    handler: str  # module.attribute, e.g. app.lambda_handler
    environment: dict[str, str]  # the Lambda-like environment of this function

    @property
    def group(self) -> str:
        """functions/gateway_payments/ -> gateway_payments."""
        return self.code_dir.name

    @property
    def module_name(self) -> str:
        return self.handler.rpartition(".")[0]

    @property
    def attribute(self) -> str:
        return self.handler.rpartition(".")[2]

    @property
    def module_file(self) -> Path:
        """The file that defines the handler module (app -> functions/<group>/app.py)."""
        return self.code_dir.joinpath(*self.module_name.split(".")).with_suffix(".py")


def function_environment(group: str, declared: Mapping[str, Any]) -> dict[str, str]:
    """Lambda-like variables of one function: the common ones, its service name (the template's
    literal value, else its code folder), and placeholders for the references it declares."""
    service = declared.get("POWERTOOLS_SERVICE_NAME")
    environment = {**LAMBDA_ENVIRONMENT, "POWERTOOLS_SERVICE_NAME": service if isinstance(service, str) else group}
    environment.update({name: value for name, value in PLACEHOLDER_VARIABLES.items() if name in declared})
    return environment


def template_functions(template_path: Path = TEMPLATE) -> list[FunctionInfo]:
    """Every AWS::Serverless::Function of the template that has a CodeUri and a Handler."""
    template = load_template(template_path)
    globals_function = (template.get("Globals") or {}).get("Function") or {}
    functions: list[FunctionInfo] = []
    for logical_id, resource in template["Resources"].items():
        if resource.get("Type") != FUNCTION_TYPE:
            continue
        props = {**globals_function, **(resource.get("Properties") or {})}
        code_uri, handler = props.get("CodeUri"), props.get("Handler")
        if not isinstance(code_uri, str) or not isinstance(handler, str):
            continue
        code_dir = (template_path.parent / code_uri).resolve()
        declared = ((resource.get("Properties") or {}).get("Environment") or {}).get("Variables") or {}
        functions.append(FunctionInfo(logical_id, code_dir, handler, function_environment(code_dir.name, declared)))
    return functions


def subprocess_environment(variables: Mapping[str, str]) -> dict[str, str]:
    """A clean environment for a fresh interpreter: the basics of ours plus `variables`."""
    base = {name: os.environ[name] for name in _INHERITED if name in os.environ}
    return {**base, **variables}


@contextmanager
def patched_environ(variables: Mapping[str, str]) -> Iterator[None]:
    """os.environ with `variables` set, restored on exit."""
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

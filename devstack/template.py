"""Read template.yaml (CloudFormation YAML, short-form intrinsics) and resolve intrinsics."""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

_TAGS = (
    "Ref",
    "Sub",
    "GetAtt",
    "Join",
    "Select",
    "Split",
    "If",
    "Equals",
    "Not",
    "And",
    "Or",
    "FindInMap",
    "Base64",
    "ImportValue",
    "GetAZs",
    "Condition",
    "Cidr",
)


class _CfnLoader(yaml.SafeLoader):
    """SafeLoader that turns `!Ref X` into {"Ref": "X"}, `!Sub s` into {"Fn::Sub": s}, ..."""


def _intrinsic(tag: str) -> Any:
    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> dict[str, Any]:
        value: Any
        if isinstance(node, yaml.ScalarNode):
            value = loader.construct_scalar(node)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
        if tag == "GetAtt" and isinstance(value, str):
            value = value.split(".", 1)
        if tag in ("Ref", "Condition"):
            return {tag: value}
        return {f"Fn::{tag}": value}

    return construct


for _tag in _TAGS:
    _CfnLoader.add_constructor(f"!{_tag}", _intrinsic(_tag))


def load_template(path: Path) -> dict[str, Any]:
    """The template as plain data, intrinsics in their long form."""
    with path.open(encoding="utf-8") as handle:
        data = yaml.load(handle, Loader=_CfnLoader)
    if not isinstance(data, dict) or "Resources" not in data:
        raise ValueError(f"{path} is not a CloudFormation template")
    return data


def load_samconfig(path: Path, env: str) -> dict[str, Any]:
    """The `[env]` environment of samconfig.toml: region, stack_name and parameter overrides."""
    config = tomllib.loads(path.read_text(encoding="utf-8"))
    if env not in config:
        raise KeyError(f"samconfig.toml has no [{env}] environment")
    section = config[env]
    global_params = section.get("global", {}).get("parameters", {})
    deploy_params = section.get("deploy", {}).get("parameters", {})
    overrides: dict[str, str] = {}
    raw = deploy_params.get("parameter_overrides", "")
    for item in shlex.split(raw) if isinstance(raw, str) else raw:
        key, _, value = item.partition("=")
        # list entries keep their quotes ("Key=\"\"" is an empty value, as SAM CLI reads it)
        overrides[key] = value if isinstance(raw, str) else "".join(shlex.split(value))
    return {
        "region": global_params.get("region") or deploy_params.get("region"),
        "stack_name": global_params.get("stack_name") or deploy_params.get("stack_name") or f"mzpay-{env}",
        "parameter_overrides": overrides,
    }


NO_VALUE = object()  # AWS::NoValue: the property disappears


class Intrinsics:
    """Resolves Ref, Fn::Sub, Fn::GetAtt, Fn::If and friends against one stack's values."""

    def __init__(
        self,
        *,
        parameters: Mapping[str, Any],
        pseudo: Mapping[str, str],
        conditions: Mapping[str, Any],
    ) -> None:
        self.parameters = dict(parameters)
        self.pseudo = dict(pseudo)
        self.refs: dict[str, Any] = {}
        self.attrs: dict[tuple[str, str], Any] = {}
        self._raw_conditions = dict(conditions)
        self._conditions: dict[str, bool] = {}

    def condition(self, name: str) -> bool:
        if name not in self._conditions:
            self._conditions[name] = bool(self.resolve(self._raw_conditions[name]))
        return self._conditions[name]

    def ref(self, name: str) -> Any:
        if name == "AWS::NoValue":
            return NO_VALUE
        if name in self.pseudo:
            return self.pseudo[name]
        if name in self.parameters:
            return self.parameters[name]
        if name in self.refs:
            return self.refs[name]
        raise KeyError(f"Ref to unknown or not yet created {name!r}")

    def get_att(self, logical: str, attribute: str) -> Any:
        try:
            return self.attrs[(logical, attribute)]
        except KeyError:
            raise KeyError(f"GetAtt {logical}.{attribute} is not known locally") from None

    def _sub(self, text: str, variables: Mapping[str, Any]) -> str:
        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return str(self.resolve(variables[name]))
            if "." in name and not name.startswith("AWS::"):
                logical, attribute = name.split(".", 1)
                return str(self.get_att(logical, attribute))
            return str(self.ref(name))

        return re.sub(r"\$\{([^}]+)\}", replace, text)

    def resolve(self, node: Any) -> Any:
        """`node` with every intrinsic replaced by its value."""
        if isinstance(node, list):
            return [item for item in (self.resolve(i) for i in node) if item is not NO_VALUE]
        if not isinstance(node, dict):
            return node
        if len(node) == 1:
            ((key, value),) = node.items()
            if key == "Ref":
                return self.ref(value)
            if key == "Condition" and isinstance(value, str):
                return self.condition(value)
            if key == "Fn::GetAtt":
                logical, attribute = value if isinstance(value, list) else value.split(".", 1)
                return self.get_att(logical, attribute)
            if key == "Fn::Sub":
                if isinstance(value, list):
                    return self._sub(value[0], value[1])
                return self._sub(value, {})
            if key == "Fn::Join":
                separator, items = value
                return str(separator).join(str(i) for i in self.resolve(items))
            if key == "Fn::Select":
                index, items = value
                return self.resolve(items)[int(self.resolve(index))]
            if key == "Fn::Split":
                separator, text = value
                return str(self.resolve(text)).split(separator)
            if key == "Fn::If":
                name, when_true, when_false = value
                return self.resolve(when_true if self.condition(name) else when_false)
            if key == "Fn::Equals":
                left, right = (self.resolve(v) for v in value)
                return left == right
            if key == "Fn::Not":
                return not self.resolve(value[0])
            if key == "Fn::And":
                return all(self.resolve(v) for v in value)
            if key == "Fn::Or":
                return any(self.resolve(v) for v in value)
            if key.startswith("Fn::"):
                raise NotImplementedError(f"{key} is not supported by the local stack")
        resolved = {k: self.resolve(v) for k, v in node.items()}
        return {k: v for k, v in resolved.items() if v is not NO_VALUE}


def references(node: Any) -> set[str]:
    """Logical ids (and parameters) that `node` refers to."""
    found: set[str] = set()
    if isinstance(node, list):
        for item in node:
            found |= references(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "Ref" and isinstance(value, str):
                found.add(value)
            elif key == "Fn::GetAtt":
                found.add(value[0] if isinstance(value, list) else value.split(".", 1)[0])
            elif key == "Fn::Sub":
                text = value[0] if isinstance(value, list) else value
                found |= {name.split(".", 1)[0] for name in re.findall(r"\$\{([^}!][^}]*)\}", text)}
                if isinstance(value, list):
                    found |= references(value[1])
            else:
                found |= references(value)
    return found


def parameter_values(template: Mapping[str, Any], overrides: Mapping[str, str]) -> dict[str, Any]:
    """Parameter values: overrides, else defaults; AllowedValues enforced like CloudFormation."""
    values: dict[str, Any] = {}
    for name, spec in (template.get("Parameters") or {}).items():
        if name in overrides:
            value: Any = overrides[name]
        elif "Default" in spec:
            value = spec["Default"]
        else:
            raise ValueError(f"parameter {name} has no value and no default")
        value = str(value)
        allowed = spec.get("AllowedValues")
        if allowed and value not in [str(a) for a in allowed]:
            raise ValueError(f"parameter {name}={value!r} is not one of {allowed}")
        if spec.get("Type") == "CommaDelimitedList":
            values[name] = [part.strip() for part in value.split(",")] if value else []
        else:
            values[name] = value
    unknown = set(overrides) - set(values)
    if unknown:
        raise ValueError(f"overrides name parameters the template lacks: {sorted(unknown)}")
    return values

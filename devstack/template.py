"""Read template.yaml (CloudFormation YAML, short-form intrinsics) and resolve intrinsics.

template.yaml composes nested applications (AWS::Serverless::Application or
AWS::CloudFormation::Stack whose Location/TemplateURL is a local file, stacks/*.yaml). Every reader
of the template (the local stack, the OpenAPI generator, the IAM and operations tests) sees them
through `load_template`, which merges them into one stack as CloudFormation would run it: each
nested template's parameters replaced by what its parent passes, `!GetAtt App.Outputs.X` by the
nested stack's output, code folders relative to the root. Logical ids, conditions and Globals must
not clash across the templates (a nested stack's parameter named like the resource it stands for,
PaymentsTable for `!Ref PaymentsTable`, keeps the merged view equal to one big template).
"""

from __future__ import annotations

import copy
import posixpath
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


# libyaml's parser when PyYAML has it (its wheels do): the same documents, about ten times faster
# than the pure-Python one (the local stack, the integration tests' stacks and the template tests
# read the six templates again and again).
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _CfnLoader(_SafeLoader):  # type: ignore[misc]
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


def read_template(path: Path) -> dict[str, Any]:
    """One template file as plain data, intrinsics in their long form (nested stacks left as they are)."""
    with path.open(encoding="utf-8") as handle:
        data = yaml.load(handle, Loader=_CfnLoader)
    if not isinstance(data, dict) or "Resources" not in data:
        raise ValueError(f"{path} is not a CloudFormation template")
    return data


def load_template(path: Path) -> dict[str, Any]:
    """The template as plain data, intrinsics in their long form, its nested templates in local
    files merged in (module docstring); "NestedStacks" names each one's file and resources."""
    return _merged(read_template(path), path.parent, path.parent)


NESTED_TYPES = {"AWS::Serverless::Application": "Location", "AWS::CloudFormation::Stack": "TemplateURL"}


def nested_location(spec: Mapping[str, Any]) -> str | None:
    """The local file a nested application or stack names (relative to its template), else None."""
    key = NESTED_TYPES.get(spec.get("Type", ""))
    location = (spec.get("Properties") or {}).get(key) if key else None
    if isinstance(location, str) and not re.match(r"^[a-z0-9]+://", location):
        return location
    return None


def template_files(path: Path) -> list[Path]:
    """`path` and, depth first, every nested template it names in a local file."""
    found = [path]
    for spec in read_template(path)["Resources"].values():
        location = nested_location(spec)
        if location is not None:
            found += template_files(path.parent / location)
    return found


def template_text(path: Path) -> str:
    """The text of `path` and of every nested template it names (for checks of what is written)."""
    return "\n".join(file.read_text(encoding="utf-8") for file in template_files(path))


def substitute(node: Any, values: Mapping[str, Any]) -> Any:
    """`node` with `Ref: name` and `Fn::GetAtt: [A, B]` (as "A.B") replaced by values[name]; in
    Fn::Sub strings a Ref or GetAtt value is written back as ${X}/${X.Y}, a literal inline, any
    other expression as a Sub variable."""
    if isinstance(node, list):
        return [substitute(item, values) for item in node]
    if not isinstance(node, dict):
        return node
    if len(node) == 1:
        ((key, value),) = node.items()
        if key == "Ref" and isinstance(value, str) and value in values:
            return copy.deepcopy(values[value])
        if key == "Fn::GetAtt":
            name = ".".join(value) if isinstance(value, list) else value
            if name in values:
                return copy.deepcopy(values[name])
        if key == "Fn::Sub":
            text, variables = (value[0], dict(value[1])) if isinstance(value, list) else (value, {})
            variables = {k: substitute(v, values) for k, v in variables.items()}

            def replace(match: re.Match[str]) -> str:
                name = match.group(1)
                if name.startswith("!") or name in variables or name not in values:
                    return match.group(0)
                found = values[name]
                if isinstance(found, dict) and set(found) == {"Ref"}:
                    return "${" + str(found["Ref"]) + "}"
                if isinstance(found, dict) and set(found) == {"Fn::GetAtt"}:
                    attribute = found["Fn::GetAtt"]
                    return "${" + (".".join(attribute) if isinstance(attribute, list) else attribute) + "}"
                if isinstance(found, (str, int, float)):
                    return str(found)
                variables[name] = copy.deepcopy(found)
                return match.group(0)

            text = re.sub(r"\$\{([^}]+)\}", replace, text)
            return {key: [text, variables] if variables else text}
    return {k: substitute(v, values) for k, v in node.items()}


def _rebased(resources: dict[str, Any], folder: Path, root: Path) -> None:
    """Code folders (CodeUri, ContentUri) relative to the root template's folder."""
    if folder == root:
        return
    for spec in resources.values():
        properties = spec.get("Properties") or {}
        for key in ("CodeUri", "ContentUri"):
            uri = properties.get(key)
            if isinstance(uri, str) and not re.match(r"^[a-z0-9]+://", uri):
                joined = posixpath.relpath(posixpath.normpath((folder / uri).as_posix()), root.as_posix())
                properties[key] = joined + "/" if uri.endswith("/") else joined


def _names(value: str | list[str] | None) -> list[str]:
    return [value] if isinstance(value, str) else list(value or [])


def _depending(resources: dict[str, Any], on: str | list[str] | None) -> None:
    """A nested stack's DependsOn holds for each of its resources (created after those)."""
    for spec in resources.values() if on else ():
        names = list(dict.fromkeys(_names(spec.get("DependsOn")) + _names(on)))
        spec["DependsOn"] = names[0] if len(names) == 1 else names


def _passed(spec: Mapping[str, Any], value: Any) -> Any:
    """What a nested stack's parameter stands for: CloudFormation passes strings, so a
    CommaDelimitedList goes down as !Join [",", list] and is the list again inside."""
    if spec.get("Type") == "CommaDelimitedList":
        join = value.get("Fn::Join") if isinstance(value, dict) else None
        if join and join[0] == ",":
            return join[1]
        if isinstance(value, str):
            return [part.strip() for part in value.split(",")] if value else []
    return value


def _merge(into: dict[str, Any], section: str, found: Mapping[str, Any], where: str) -> None:
    target = into.setdefault(section, {})
    for name, value in found.items():
        if name in target and target[name] != value:
            raise ValueError(f"{where}: {section} {name} differs from another template's")
        target[name] = value


def _merged(template: dict[str, Any], folder: Path, root: Path) -> dict[str, Any]:
    merged = {k: v for k, v in template.items() if k not in ("Resources", "Conditions", "Globals", "Outputs")}
    merged["Resources"] = {}
    merged["NestedStacks"] = {}
    for section in ("Conditions", "Globals"):
        if template.get(section):
            merged[section] = copy.deepcopy(template[section])
    outputs: dict[str, Any] = {}
    for name, spec in template["Resources"].items():
        location = nested_location(spec)
        if location is None:
            merged["Resources"][name] = copy.deepcopy(spec)
            continue
        path = folder / location
        child = _merged(read_template(path), path.parent, root)
        passed = (spec.get("Properties") or {}).get("Parameters") or {}
        values: dict[str, Any] = {}
        for parameter, declared in (child.get("Parameters") or {}).items():
            if parameter in passed:
                values[parameter] = _passed(declared, passed[parameter])
            elif "Default" in declared:
                values[parameter] = _passed(declared, str(declared["Default"]))
            else:
                raise ValueError(f"{name} passes no value for {location}'s parameter {parameter}")
        unknown = set(passed) - set(values)
        if unknown:
            raise ValueError(f"{name} passes parameters {location} lacks: {sorted(unknown)}")
        child = substitute({k: v for k, v in child.items() if k != "Parameters"}, values)
        clash = set(child["Resources"]) & (set(merged["Resources"]) | set(template["Resources"]))
        if clash:
            raise ValueError(f"{location} declares logical ids its parent has: {sorted(clash)}")
        _rebased(child["Resources"], path.parent, root)
        _depending(child["Resources"], spec.get("DependsOn"))
        merged["Resources"].update(child["Resources"])
        for section in ("Conditions", "Globals"):
            _merge(merged, section, child.get(section) or {}, location)
        for output, declared in (child.get("Outputs") or {}).items():
            outputs[f"{name}.Outputs.{output}"] = declared["Value"]
        relative = posixpath.relpath(path.as_posix(), root.as_posix())
        merged["NestedStacks"][name] = {"Location": relative, "Resources": sorted(child["Resources"])}
        merged["NestedStacks"].update(child.get("NestedStacks") or {})
    if template.get("Outputs"):
        merged["Outputs"] = copy.deepcopy(template["Outputs"])
    for _ in range(len(outputs) + 1):  # an output may name a sibling's output: until none is left
        resolved = substitute(merged, outputs)
        if resolved == merged:
            break
        merged = resolved
    return merged


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

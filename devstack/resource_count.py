"""How many CloudFormation resources each template becomes after SAM's transform: template.yaml and
every nested template it names (stacks/*.yaml). CloudFormation refuses a stack of more than 500;
`make validate` prints the count of each stack and fails when one passes RESOURCE_BUDGET.

Runs in .venv-sam (aws-sam-translator comes with aws-sam-cli): `.venv-sam/bin/python -m
devstack.resource_count [TEMPLATE ...]`. Code locations are replaced by S3 URIs and nested
templates' local Locations by URLs, as `sam package` does."""

from __future__ import annotations

import collections
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from devstack.template import nested_location, template_files

CLOUDFORMATION_LIMIT = 500
RESOURCE_BUDGET = 250  # per stack, half the limit: room to grow; raise it knowingly (docs/operations.md)
ROOT = Path(__file__).resolve().parents[1]


class _NoManagedPolicies:
    def load(self) -> dict[str, str]:
        return collections.defaultdict(lambda: "arn:aws:iam::aws:policy/placeholder")


def transformed(path: Path) -> dict[str, Any]:
    from samtranslator.translator.transform import transform
    from samtranslator.yaml_helper import yaml_parse

    template = yaml_parse(path.read_text(encoding="utf-8"))
    for resource in template["Resources"].values():
        properties = resource.get("Properties") or {}
        for key in ("CodeUri", "ContentUri"):
            if isinstance(properties.get(key), str):
                properties[key] = "s3://bucket/code.zip"
        if nested_location(resource) is not None:
            key = "Location" if "Location" in properties else "TemplateURL"
            properties[key] = "https://s3.amazonaws.com/bucket/nested.yaml"
    os.environ.setdefault("AWS_DEFAULT_REGION", "af-south-1")
    logging.getLogger("samtranslator").setLevel(logging.ERROR)  # its feature-toggle notices
    return transform(template, {"ServiceRegion": "mz"}, _NoManagedPolicies())  # type: ignore[no-any-return]


def transformed_count(path: Path) -> collections.Counter[str]:
    """The CloudFormation resource types `path` becomes (after SAM's transform), counted."""
    return collections.Counter(spec["Type"] for spec in transformed(path)["Resources"].values())


def over_budget(
    paths: list[Path],
    budget: int = RESOURCE_BUDGET,
    count: Callable[[Path], collections.Counter[str]] = transformed_count,
) -> list[str]:
    """Print each template's count (and its commonest types); the templates past `budget`."""
    over = []
    for path in paths:
        kinds = count(path)
        total = sum(kinds.values())
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"{shown}: {total} CloudFormation resources (budget {budget}, limit {CLOUDFORMATION_LIMIT})")
        for kind, number in kinds.most_common(3):
            print(f"  {number:4d} {kind}")
        if total > budget:
            over.append(str(shown))
    return over


def main(argv: list[str]) -> int:
    roots = [Path(arg).resolve() for arg in argv] or [ROOT / "template.yaml"]
    over = over_budget([path for root in roots for path in template_files(root)])
    if over:
        print(f"over the budget of {RESOURCE_BUDGET} per stack: {', '.join(over)}", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

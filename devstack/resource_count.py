"""How many CloudFormation resources template.yaml becomes after SAM's transform (CloudFormation
refuses a stack of more than 500): `make validate` prints it and fails past RESOURCE_BUDGET.

Runs in .venv-sam (aws-sam-translator comes with aws-sam-cli): `.venv-sam/bin/python -m
devstack.resource_count`. Code locations are replaced by S3 URIs, as `sam package` does."""

from __future__ import annotations

import collections
import logging
import os
import sys
from pathlib import Path
from typing import Any

CLOUDFORMATION_LIMIT = 500
RESOURCE_BUDGET = 475  # room for a deployment's own additions; raise it knowingly, not by accident (docs/operations.md)


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
    os.environ.setdefault("AWS_DEFAULT_REGION", "af-south-1")
    logging.getLogger("samtranslator").setLevel(logging.ERROR)  # its feature-toggle notices
    return transform(template, {"ServiceRegion": "mz"}, _NoManagedPolicies())  # type: ignore[no-any-return]


def main() -> int:
    resources = transformed(Path(__file__).resolve().parents[1] / "template.yaml")["Resources"]
    kinds = collections.Counter(spec["Type"] for spec in resources.values())
    print(f"{len(resources)} CloudFormation resources (budget {RESOURCE_BUDGET}, limit {CLOUDFORMATION_LIMIT})")
    for kind, number in kinds.most_common(5):
        print(f"  {number:4d} {kind}")
    return 0 if len(resources) <= RESOURCE_BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())

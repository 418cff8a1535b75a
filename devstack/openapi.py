"""`python -m devstack.openapi` (make openapi): each API's OpenAPI document, generated from the
resolvers of the functions the template routes to it, written to docs/openapi/<api>.json."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from devstack.modules import load_module
from devstack.template import load_template

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "openapi"
API_VERSION = "1.0.0"


def _resolver(code_uri: str, handler: str) -> Any:
    module_name = handler.rpartition(".")[0]
    path = ROOT / code_uri / f"{module_name}.py"
    return getattr(load_module(path, f"openapi_{code_uri.strip('/').replace('/', '_')}"), "app", None)


def documents() -> dict[str, dict[str, Any]]:
    """API name -> its OpenAPI document (paths merged over the API's functions)."""
    sys.path.insert(0, str(ROOT / "layers" / "core" / "python"))
    template = load_template(ROOT / "template.yaml")
    docs: dict[str, dict[str, Any]] = {}
    for spec in template["Resources"].values():
        if spec["Type"] != "AWS::Serverless::Function":
            continue
        props = spec["Properties"]
        apis = {e["Properties"]["RestApiId"]["Ref"] for e in (props.get("Events") or {}).values() if e["Type"] == "Api"}
        if not apis:
            continue
        app = _resolver(props["CodeUri"], props["Handler"])
        for api in apis:
            name = api.removesuffix("Api").lower()
            schema = json.loads(app.get_openapi_json_schema(title=f"mzpay {name} API", version=API_VERSION))
            merged = docs.setdefault(name, schema)
            if merged is not schema:
                merged["paths"].update(schema["paths"])
                merged.setdefault("components", {}).setdefault("schemas", {}).update(
                    schema.get("components", {}).get("schemas", {})
                )
    return docs


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, document in sorted(documents().items()):
        path = OUT / f"{name}.json"
        path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)} ({len(document['paths'])} paths)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

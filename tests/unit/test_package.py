"""`make package`'s checks and template rewriting (devstack.package), without pip: Lambda's size
limits, the imports a function needs against what its zips hold, arm64 ELF headers, deterministic
zips, and the packaged template."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest

from devstack.package import (
    EM_AARCH64,
    PASSED_IN,
    ROOT,
    UNZIPPED_LIMIT,
    ZIPPED_LIMIT,
    Artifact,
    bytecode_compiler,
    elf_problem,
    goes_in_zip,
    imported_modules,
    missing_modules,
    package,
    packaged_template,
    requirements_named,
    size_problems,
    stacks,
    template_code,
    top_level_names,
    write_zip,
    zip_name,
)
from devstack.template import load_template, read_template


def artifact(source: str, kind: str, zipped: int, unzipped: int) -> Artifact:
    return Artifact(source, kind, Path(zip_name(source)), zipped, unzipped, frozenset())


# ------------------------------------------------------------------ sizes


def test_sizes_at_the_limits_pass() -> None:
    artifacts = {
        "layers/core/": artifact("layers/core/", "layer", ZIPPED_LIMIT, UNZIPPED_LIMIT - 1000),
        "functions/a/": artifact("functions/a/", "function", 400, 1000),
    }
    assert size_problems(artifacts, {"AFunction": ["functions/a/", "layers/core/"]}) == []


def test_a_zip_over_50_mb_is_refused() -> None:
    artifacts = {"layers/core/": artifact("layers/core/", "layer", ZIPPED_LIMIT + 1, 1000)}
    assert size_problems(artifacts, {}) == ["core.zip: 52.4 MB zipped, over Lambda's 52.4 MB"]


def test_a_function_over_250_mb_with_its_layers_is_refused() -> None:
    artifacts = {
        "layers/core/": artifact("layers/core/", "layer", 1000, UNZIPPED_LIMIT - 1000),
        "layers/extra/": artifact("layers/extra/", "layer", 1000, 500),
        "functions/a/": artifact("functions/a/", "function", 400, 501),
        "functions/b/": artifact("functions/b/", "function", 400, 1000),
    }
    layers_of = {"AFunction": ["functions/a/", "layers/core/", "layers/extra/"], "BFunction": ["functions/b/"]}
    assert size_problems(artifacts, layers_of) == [
        "AFunction: 262.1 MB unzipped with its layers, over Lambda's 262.1 MB"
    ]


# ------------------------------------------------------------------ imports


def test_imports_that_run_are_found_and_the_others_not() -> None:
    source = """
from __future__ import annotations
import os.path, simplejson as json
from pydantic import BaseModel
from . import sibling
from .models import Thing
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
else:
    import ulid
try:
    import orjson
except ImportError:
    import yaml_fallback
try:
    import jwt
except ValueError:
    pass

def later():
    import segno
"""
    assert imported_modules(source) == {
        "__future__",
        "os",
        "simplejson",
        "pydantic",
        "typing",
        "ulid",
        "yaml_fallback",
        "jwt",
        "segno",
    }


def test_top_level_names_of_a_layer_and_a_function() -> None:
    layer = [
        "python/mzpay/__init__.py",
        "python/mzpay/http/app.py",
        "python/pydantic_core/_pydantic_core.cpython-312-aarch64-linux-gnu.so",
        "python/pydantic_core-2.50.5.dist-info/METADATA",
        "python/pillow.libs/libjpeg.so.62",
        "python/typing_extensions.py",
        "python/_cffi_backend.cpython-312-aarch64-linux-gnu.so",
        "python/google/protobuf/__init__.py",
        "python/lib/python3.12/site-packages/extra/__init__.py",
        "python/README.txt",
        "elsewhere/ignored.py",
    ]
    assert top_level_names(layer, ("python/", "python/lib/python3.12/site-packages/")) == {
        "mzpay",
        "pydantic_core",
        "typing_extensions",
        "_cffi_backend",
        "google",
        "lib",
        "extra",
    }
    assert top_level_names(["app.py", "helpers.py", "requirements.txt"]) == {"app", "helpers"}


def test_missing_modules_are_named_per_file() -> None:
    imports = {
        "functions/a/app.py": {"json", "boto3", "botocore", "mzpay", "app_helpers"},
        "layers/core/python/mzpay/x.py": {"pydantic", "simplejson", "distutils"},
        "layers/core/python/mzpay/y.py": {"collections"},
    }
    assert missing_modules(imports, {"mzpay", "pydantic", "app_helpers"}) == {
        "layers/core/python/mzpay/x.py": ["distutils", "simplejson"],  # distutils is gone in 3.12
    }


# ------------------------------------------------------------------ platform


def elf_header(machine: int) -> bytes:
    return b"\x7fELF" + bytes([2, 1, 1]) + bytes(9) + (3).to_bytes(2, "little") + machine.to_bytes(2, "little")


def test_only_aarch64_extensions_for_cpython_312_pass() -> None:
    good = "python/pydantic_core/_pydantic_core.cpython-312-aarch64-linux-gnu.so"
    assert elf_problem(good, elf_header(EM_AARCH64)) is None
    assert elf_problem("python/cryptography/_rust.abi3.so", elf_header(EM_AARCH64)) is None
    assert elf_problem("python/x.cpython-312-x86_64-linux-gnu.so", elf_header(62)) == (
        "python/x.cpython-312-x86_64-linux-gnu.so: ELF machine 62, not AArch64 (183)"
    )
    assert elf_problem("python/y.cpython-311-aarch64-linux-gnu.so", elf_header(EM_AARCH64)) == (
        "python/y.cpython-311-aarch64-linux-gnu.so: built for CPython 311, not 3.12"
    )
    assert elf_problem("python/not_elf.so", b"#!/bin/sh\n" + bytes(10)) is None


# ------------------------------------------------------------------ zips


def test_zips_are_deterministic_and_leave_bytecode_out(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "pkg" / "__pycache__").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text("x = 1\n")
    (tree / "pkg" / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"stale")
    (tree / "tool").write_text("#!/bin/sh\n")
    (tree / "tool").chmod(0o755)
    first = write_zip(tree, tmp_path / "one.zip")
    second = write_zip(tree, tmp_path / "two.zip")
    assert first == second == len("x = 1\n") + len("#!/bin/sh\n")
    assert (tmp_path / "one.zip").read_bytes() == (tmp_path / "two.zip").read_bytes()
    with zipfile.ZipFile(tmp_path / "one.zip") as archive:
        assert archive.namelist() == ["pkg/__init__.py", "tool"]
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
        dates = {info.date_time for info in archive.infolist()}
    assert modes == {"pkg/__init__.py": 0o100644, "tool": 0o100755}
    assert dates == {(1980, 1, 1, 0, 0, 0)}


def test_only_cpython_312_bytecode_goes_into_a_zip() -> None:
    assert goes_in_zip("pkg/__init__.py")
    assert goes_in_zip("pkg/__pycache__/__init__.cpython-312.pyc")
    assert not goes_in_zip("pkg/__pycache__/__init__.cpython-311.pyc")
    assert not goes_in_zip("pkg/__pycache__/__init__.cpython-312.opt-1.pyc")
    assert not goes_in_zip("pkg/legacy.pyc")
    assert not goes_in_zip("pkg/__pycache__/notes.txt")


def test_bytecode_of_another_python_is_refused(tmp_path: Path) -> None:
    python = tmp_path / "python3.12"
    python.write_text("#!/bin/sh\necho 3.11\n")
    python.chmod(0o755)
    with pytest.raises(SystemExit, match=r"is Python 3\.11; the bytecode must be 3\.12's"):
        bytecode_compiler(str(python))
    python.write_text("#!/bin/sh\nexit 127\n")  # what a pyenv shim of a missing version does
    with pytest.raises(SystemExit, match=r"is Python not runnable \(127\)"):
        bytecode_compiler(str(python))
    python.write_text("#!/bin/sh\necho 3.12\n")
    assert bytecode_compiler(str(python)) == str(python)


def test_requirements_named() -> None:
    assert not requirements_named("# Dependencies come from the core layer.\n\n")
    assert requirements_named("# x\nsegno>=1.6  # QR codes\n")


# ------------------------------------------------------------------ template


TEMPLATE: dict[str, Any] = {
    "Globals": {"Function": {"Runtime": "python3.12", "Layers": [{"Ref": "CoreLayer"}]}},
    "Resources": {
        "CoreLayer": {"Type": "AWS::Serverless::LayerVersion", "Properties": {"ContentUri": "layers/core/"}},
        "ExtraLayer": {"Type": "AWS::Serverless::LayerVersion", "Properties": {"ContentUri": "layers/extra/"}},
        "AFunction": {
            "Type": "AWS::Serverless::Function",
            "Properties": {"CodeUri": "functions/a/", "Handler": "app.lambda_handler"},
        },
        "BFunction": {
            "Type": "AWS::Serverless::Function",
            "Properties": {"CodeUri": "functions/b/", "Layers": [{"Ref": "ExtraLayer"}]},
        },
        "Remote": {
            "Type": "AWS::Serverless::Function",
            "Properties": {"CodeUri": {"Bucket": "b", "Key": "k.zip"}},
        },
        "Table": {"Type": "AWS::DynamoDB::Table", "Properties": {"TableName": "t"}},
    },
}


def test_template_code_adds_globals_layers_to_each_function() -> None:
    code = template_code(TEMPLATE)
    assert code.functions == {"AFunction": "functions/a/", "BFunction": "functions/b/"}
    assert code.layers == {"CoreLayer": "layers/core/", "ExtraLayer": "layers/extra/"}
    assert code.layers_of == {
        "AFunction": ["functions/a/", "layers/core/"],
        "BFunction": ["functions/b/", "layers/core/", "layers/extra/"],
    }
    assert code.nested == {}


def test_a_layer_that_is_not_the_templates_cannot_be_measured() -> None:
    template = {
        "Resources": {
            "AFunction": {
                "Type": "AWS::Serverless::Function",
                "Properties": {"CodeUri": "functions/a/", "Layers": ["arn:aws:lambda:af-south-1:1:layer:x:1"]},
            }
        }
    }
    with pytest.raises(
        ValueError,
        match="AFunction: layer 'arn:aws:lambda:af-south-1:1:layer:x:1' is not a Ref to a layer or a parameter",
    ):
        template_code(template)


def test_the_packaged_template_names_the_zips_and_changes_nothing_else() -> None:
    zips = {source: zip_name(source) for source in ("layers/core/", "layers/extra/", "functions/a/", "functions/b/")}
    packaged = packaged_template(TEMPLATE, zips)
    resources = packaged["Resources"]
    assert resources["CoreLayer"]["Properties"] == {"ContentUri": "layers/core.zip"}
    assert resources["ExtraLayer"]["Properties"] == {"ContentUri": "layers/extra.zip"}
    assert resources["AFunction"]["Properties"] == {"CodeUri": "functions/a.zip", "Handler": "app.lambda_handler"}
    assert resources["BFunction"]["Properties"]["CodeUri"] == "functions/b.zip"
    assert resources["Remote"] == TEMPLATE["Resources"]["Remote"]
    assert resources["Table"] == TEMPLATE["Resources"]["Table"]
    assert packaged["Globals"] == TEMPLATE["Globals"]
    assert TEMPLATE["Resources"]["AFunction"]["Properties"]["CodeUri"] == "functions/a/"  # the input is left alone


def test_every_function_of_the_template_has_its_code_and_the_core_layer() -> None:
    code = template_code(load_template(ROOT / "template.yaml"))
    assert code.layers == {"CoreLayer": "layers/core/"}
    assert len(code.functions) == len(list((ROOT / "functions").glob("*/app.py")))
    for function, sources in code.layers_of.items():
        assert sources[1:] == ["layers/core/"], function
        assert (ROOT / sources[0] / "app.py").is_file(), function


NESTED_ROOT = """
Resources:
  CoreLayer:
    Type: AWS::Serverless::LayerVersion
    Properties: {ContentUri: layers/core/}
  Gateway:
    Type: AWS::Serverless::Application
    Properties:
      Location: stacks/gateway.yaml
      Parameters: {CoreLayerArn: !Ref CoreLayer}
  Published:
    Type: AWS::Serverless::Application
    Properties:
      Location: {ApplicationId: arn:aws:serverlessrepo:af-south-1:1:applications/x, SemanticVersion: 1.0.0}
  Remote:
    Type: AWS::CloudFormation::Stack
    Properties: {TemplateURL: https://s3.amazonaws.com/bucket/child.yaml}
"""

NESTED_GATEWAY = """
Parameters:
  CoreLayerArn: {Type: String}
Globals:
  Function:
    Layers: [!Ref CoreLayerArn]
Resources:
  PaymentsFunction:
    Type: AWS::Serverless::Function
    Properties: {CodeUri: ../functions/gateway_payments/, Handler: app.lambda_handler}
"""


def test_nested_templates_in_local_files_are_followed(tmp_path: Path) -> None:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "template.yaml").write_text(NESTED_ROOT)
    (tmp_path / "stacks" / "gateway.yaml").write_text(NESTED_GATEWAY)
    root, gateway = stacks(tmp_path)
    assert (root.path, gateway.path) == ("template.yaml", "stacks/gateway.yaml")
    assert root.code.nested == {"Gateway": "stacks/gateway.yaml"}  # not the published nor the remote one
    assert root.code.layers == {"CoreLayer": "layers/core/"}
    assert gateway.code.layers_of == {"PaymentsFunction": ["../functions/gateway_payments/", PASSED_IN]}
    assert gateway.rooted("../functions/gateway_payments/") == "functions/gateway_payments/"
    assert root.rooted("stacks/gateway.yaml") == "stacks/gateway.yaml"
    packaged = packaged_template(root.template, {"layers/core/": "layers/core.zip"}, {"stacks/gateway.yaml": "x.yaml"})
    assert packaged["Resources"]["Gateway"]["Properties"] == {
        "Location": "x.yaml",
        "Parameters": {"CoreLayerArn": {"Ref": "CoreLayer"}},
    }
    assert packaged["Resources"]["Published"] == root.template["Resources"]["Published"]
    assert packaged["Resources"]["Remote"] == root.template["Resources"]["Remote"]


def test_a_build_checks_the_imports_and_writes_every_packaged_template(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A whole build, offline: a layer without requirements (so no pip), a nested template."""
    root = tmp_path / "repo"
    (root / "stacks").mkdir(parents=True)
    (root / "template.yaml").write_text(NESTED_ROOT)
    (root / "stacks" / "gateway.yaml").write_text(NESTED_GATEWAY)
    (root / "layers" / "core" / "python" / "corepkg").mkdir(parents=True)
    (root / "layers" / "core" / "python" / "corepkg" / "__init__.py").write_text("import json\nimport boto3\n")
    (root / "functions" / "gateway_payments").mkdir(parents=True)
    app = "import corepkg\nimport simplejson\n\ndef lambda_handler(event, context):\n    return {}\n"
    (root / "functions" / "gateway_payments" / "app.py").write_text(app)
    out = tmp_path / "out"

    assert package(root, out) == 1
    assert capsys.readouterr().err == (
        "PROBLEM stacks/gateway.yaml:PaymentsFunction: functions/gateway_payments/app.py imports simplejson,"
        " in none of its artifacts\n"
    )

    (root / "layers" / "core" / "python" / "simplejson.py").write_text("")
    assert package(root, out) == 0
    assert capsys.readouterr().err == ""
    with zipfile.ZipFile(out / "layers" / "core.zip") as archive:
        assert archive.namelist() == ["python/corepkg/__init__.py", "python/simplejson.py"]
    with zipfile.ZipFile(out / "functions" / "gateway_payments.zip") as archive:
        assert archive.namelist() == ["app.py"]
    packaged_root = read_template(out / "template.yaml")
    packaged_gateway = read_template(out / "stacks" / "gateway.yaml")
    assert packaged_root["Resources"]["CoreLayer"]["Properties"] == {"ContentUri": "layers/core.zip"}
    assert packaged_root["Resources"]["Gateway"]["Properties"]["Location"] == "stacks/gateway.yaml"
    assert packaged_gateway["Resources"]["PaymentsFunction"]["Properties"] == {
        "CodeUri": "../functions/gateway_payments.zip",
        "Handler": "app.lambda_handler",
    }
    assert (out / "stacks" / packaged_gateway["Resources"]["PaymentsFunction"]["Properties"]["CodeUri"]).is_file()

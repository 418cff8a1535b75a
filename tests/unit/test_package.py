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
    ROOT,
    UNZIPPED_LIMIT,
    ZIPPED_LIMIT,
    Artifact,
    bytecode_compiler,
    elf_problem,
    goes_in_zip,
    imported_modules,
    missing_modules,
    packaged_template,
    requirements_named,
    size_problems,
    template_code,
    top_level_names,
    write_zip,
    zip_name,
)
from devstack.template import load_template


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


def test_a_layer_that_is_not_the_templates_cannot_be_measured() -> None:
    template = {
        "Resources": {
            "AFunction": {
                "Type": "AWS::Serverless::Function",
                "Properties": {"CodeUri": "functions/a/", "Layers": ["arn:aws:lambda:af-south-1:1:layer:x:1"]},
            }
        }
    }
    with pytest.raises(ValueError, match="AFunction: layer 'arn:aws:lambda:af-south-1:1:layer:x:1' is not a Ref"):
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

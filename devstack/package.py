"""`make package`: the template's layer and function artifacts for Lambda (python3.12, arm64),
built without Docker, checked, and a packaged template that points at them.

- Each AWS::Serverless::LayerVersion with a local ContentUri gets `python/` = its
  requirements.txt installed by pip for the target platform (PIP_PLATFORM below: manylinux
  wheels for aarch64 and CPython 3.12 only, never a source build) plus its own `python/` folder
  (the mzpay package). Each AWS::Serverless::Function with a local CodeUri gets its folder's files,
  plus its requirements.txt installed the same way when that file names any requirement.
- Every artifact is a deterministic zip (sorted entries, fixed timestamps): the same sources give
  the same bytes, so `sam deploy` uploads only what changed.
- Checks, each failing the command: Lambda's size limits (ZIPPED_LIMIT per zip; UNZIPPED_LIMIT for
  a function's code plus all its layers); every compiled extension is an AArch64 ELF file (and, when
  tagged, one for CPython 3.12); every top-level module that a function's app.py or the mzpay
  package imports (statically; not under `if TYPE_CHECKING:`) is in the standard library, provided
  by the Lambda runtime (RUNTIME_PROVIDED) or inside the function's zip or one of its layers' zips.
- The packaged template (the template with CodeUri/ContentUri naming the zips, relative to it) is
  written beside the zips, and so is each nested template in a local file (at its own path; the
  parent's Location/TemplateURL names the copy): `sam deploy --template-file .aws-sam/package/template.yaml` uploads the
  zips to its S3 bucket, as `sam package` would, and deploys (docs/operations.md, "Packaging").

Pure parts (sizes, imports, ELF headers, template rewriting) are separate from the build for the
unit tests (tests/unit/test_package.py).
"""

from __future__ import annotations

import argparse
import ast
import copy
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from devstack.template import read_template

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / ".aws-sam" / "package"

RUNTIME = "python3.12"
ARCHITECTURE = "arm64"
PIP_PLATFORM = "manylinux2014_aarch64"
PIP_PYTHON_VERSION = "3.12"
# Lambda's quotas: 50 MB for a zip uploaded directly, 250 MB unzipped for a function and all its
# layers together (the byte counts of Lambda's own error messages).
ZIPPED_LIMIT = 50 * 1024 * 1024
UNZIPPED_LIMIT = 262_144_000
# The python3.12 runtime ships these (layers/core/requirements.txt leaves them out).
RUNTIME_PROVIDED = frozenset({"boto3", "botocore"})
# Modules the running interpreter (3.11) knows as standard but Python 3.12 removed.
REMOVED_IN_312 = frozenset({"asynchat", "asyncore", "distutils", "imp", "smtpd"})
STDLIB = frozenset(sys.stdlib_module_names) - REMOVED_IN_312
# Where Lambda puts a layer's Python code on sys.path (the zip is extracted to /opt).
LAYER_PATHS = ("python/", f"python/lib/{RUNTIME}/site-packages/")
ELF_MAGIC = b"\x7fELF"
EM_AARCH64 = 183
_EXTENSION_TAG = re.compile(r"\.cpython-(\d+)-")
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)
BYTECODE_TAG = f".cpython-{PIP_PYTHON_VERSION.replace('.', '')}.pyc"


# ------------------------------------------------------------------ pure parts


@dataclass(frozen=True)
class Artifact:
    """One built zip: `source` is the template's CodeUri/ContentUri (a folder), `kind` function
    or layer, sizes in bytes (unzipped: the sum of its files' sizes)."""

    source: str
    kind: str
    zip_path: Path
    zipped: int
    unzipped: int
    top_level: frozenset[str]


def size_problems(artifacts: Mapping[str, Artifact], layers_of: Mapping[str, list[str]]) -> list[str]:
    """Lambda's limits: each zip at most ZIPPED_LIMIT; each function (logical id -> the sources of
    its code and then of its layers, in `layers_of`) at most UNZIPPED_LIMIT unzipped in all."""
    problems = [
        f"{artifact.zip_path.name}: {mb(artifact.zipped)} zipped, over Lambda's {mb(ZIPPED_LIMIT)}"
        for artifact in artifacts.values()
        if artifact.zipped > ZIPPED_LIMIT
    ]
    for function, sources in sorted(layers_of.items()):
        total = sum(artifacts[source].unzipped for source in sources)
        if total > UNZIPPED_LIMIT:
            problems.append(f"{function}: {mb(total)} unzipped with its layers, over Lambda's {mb(UNZIPPED_LIMIT)}")
    return problems


def mb(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB" if size >= 1_000_000 else f"{size / 1000:.1f} kB"


def imported_modules(source: str) -> set[str]:
    """The top-level names of the absolute imports in `source` that run: anywhere in the module
    (functions included) except `if TYPE_CHECKING:` bodies and `try:` bodies whose handler catches
    ImportError (optional imports)."""
    found: set[str] = set()

    def visit(nodes: Iterable[ast.AST]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                visit(node.orelse)
                continue
            if isinstance(node, ast.Try) and _catches_import_error(node):
                visit(node.orelse)
                visit(node.finalbody)
                for handler in node.handlers:
                    visit(handler.body)
                continue
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
            visit(ast.iter_child_nodes(node))

    visit(ast.parse(source).body)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _catches_import_error(node: ast.Try) -> bool:
    names: set[str] = set()
    for handler in node.handlers:
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        names.update(kind.id for kind in kinds if isinstance(kind, ast.Name))
    return bool(names & {"ImportError", "ModuleNotFoundError"})


def top_level_names(entries: Iterable[str], prefixes: Iterable[str] = ("",)) -> frozenset[str]:
    """The importable top-level names of a zip's entries found under one of `prefixes` (a
    function's root; a layer's python/ and python/lib/python3.12/site-packages/): packages
    (folders, namespace ones included), modules and compiled extensions."""
    names: set[str] = set()
    for entry in entries:
        for prefix in prefixes:
            if not entry.startswith(prefix):
                continue
            first, _, rest = entry[len(prefix) :].partition("/")
            if rest:  # a folder
                if first.isidentifier():
                    names.add(first)
            elif first.endswith((".py", ".so")):
                stem = first.split(".")[0]
                if stem.isidentifier():
                    names.add(stem)
    return frozenset(names)


def missing_modules(imports: Mapping[str, set[str]], available: Iterable[str]) -> dict[str, list[str]]:
    """Per importing file, the imported top-level names found neither in the standard library,
    nor among RUNTIME_PROVIDED, nor in `available`."""
    known = set(available) | STDLIB | RUNTIME_PROVIDED
    missing = {where: sorted(names - known) for where, names in imports.items()}
    return {where: names for where, names in sorted(missing.items()) if names}


def elf_problem(name: str, header: bytes) -> str | None:
    """Why the file `name` starting with `header` cannot load on Lambda arm64 / CPython 3.12, or
    None: an ELF file must be for AArch64, an extension tagged for CPython must be for 3.12."""
    if not header.startswith(ELF_MAGIC) or len(header) < 20:
        return None
    machine = int.from_bytes(header[18:20], "little" if header[5] == 1 else "big")
    if machine != EM_AARCH64:
        return f"{name}: ELF machine {machine}, not AArch64 ({EM_AARCH64})"
    tag = _EXTENSION_TAG.search(name.rsplit("/", 1)[-1])
    if tag and tag.group(1) != PIP_PYTHON_VERSION.replace(".", ""):
        return f"{name}: built for CPython {tag.group(1)}, not {PIP_PYTHON_VERSION}"
    return None


@dataclass(frozen=True)
class Code:
    """The template's local code: sources of functions and layers, and per function the sources
    of its code and layers (its own Layers after Globals'; SAM adds the two lists)."""

    functions: dict[str, str]
    layers: dict[str, str]
    layers_of: dict[str, list[str]]
    nested: dict[str, str]


# In Code.layers_of: a layer that a parent stack passes in as a parameter (a nested template's).
PASSED_IN = "<passed in>"
_NESTED = {"AWS::Serverless::Application": "Location", "AWS::CloudFormation::Stack": "TemplateURL"}


def template_code(template: Mapping[str, Any]) -> Code:
    """The local code of `template` (a string CodeUri/ContentUri; S3 locations are left alone) and
    its nested templates in local files. A function's layer must be a `Ref` to a layer of the
    template (else its size cannot be told) or to a parameter (PASSED_IN: a nested template's
    layer comes from its parent; `package` counts every layer of the build for it)."""
    resources: Mapping[str, Any] = template.get("Resources") or {}
    parameters: Mapping[str, Any] = template.get("Parameters") or {}
    functions: dict[str, str] = {}
    layers: dict[str, str] = {}
    nested: dict[str, str] = {}
    for name, resource in resources.items():
        properties = resource.get("Properties") or {}
        location = properties.get(_NESTED.get(resource.get("Type", ""), ""))
        if isinstance(location, str) and not re.match(r"^(s3|https?)://", location):
            nested[name] = location
        if resource.get("Type") == "AWS::Serverless::Function" and isinstance(properties.get("CodeUri"), str):
            functions[name] = properties["CodeUri"]
        if resource.get("Type") == "AWS::Serverless::LayerVersion" and isinstance(properties.get("ContentUri"), str):
            layers[name] = properties["ContentUri"]
    global_layers = ((template.get("Globals") or {}).get("Function") or {}).get("Layers") or []
    layers_of: dict[str, list[str]] = {}
    for name, source in functions.items():
        sources = [source]
        for layer in [*global_layers, *(resources[name]["Properties"].get("Layers") or [])]:
            ref = layer.get("Ref") if isinstance(layer, dict) else None
            if ref in layers:
                sources.append(layers[ref])
            elif ref in parameters:
                sources.append(PASSED_IN)
            else:
                raise ValueError(f"{name}: layer {layer!r} is not a Ref to a layer or a parameter of this template")
        layers_of[name] = sources
    return Code(functions, layers, layers_of, nested)


def packaged_template(
    template: Mapping[str, Any], zips: Mapping[str, str], nested: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """A copy of `template` whose functions' CodeUri and layers' ContentUri name the zip built
    from them (`zips`: source -> path relative to the packaged template) and whose nested
    templates' locations name their packaged copies (`nested`: location -> path); nothing else
    changes."""
    keys = {"AWS::Serverless::Function": "CodeUri", "AWS::Serverless::LayerVersion": "ContentUri", **_NESTED}
    paths = {**zips, **(nested or {})}
    packaged = copy.deepcopy(dict(template))
    for resource in (packaged.get("Resources") or {}).values():
        properties = resource.get("Properties") or {}
        key = keys.get(resource.get("Type", ""))
        if key and isinstance(properties.get(key), str) and properties[key] in paths:
            properties[key] = paths[properties[key]]
    return packaged


def zip_name(source: str) -> str:
    """functions/gateway_access/ -> functions/gateway_access.zip"""
    return source.strip("/").rstrip("/") + ".zip"


def requirements_named(text: str) -> bool:
    """Whether a requirements file names anything (not only comments and blank lines)."""
    return any(line.split("#", 1)[0].strip() for line in text.splitlines())


# ------------------------------------------------------------------ building


def pip_install(requirements: Path, target: Path) -> None:
    """requirements.txt's packages into `target`, as wheels for Lambda's platform only."""
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-compile",  # this interpreter's bytecode would be for its own version, not 3.12
        "--target",
        str(target),
        "--platform",
        PIP_PLATFORM,
        "--python-version",
        PIP_PYTHON_VERSION,
        "--implementation",
        "cp",
        "--only-binary=:all:",
        "--upgrade",
        "-r",
        str(requirements),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        noise = "is ignored: it is neither a file nor a directory"
        output = "\n".join(line for line in (done.stdout + done.stderr).splitlines() if noise not in line)
        raise SystemExit(f"pip could not install {requirements} for {PIP_PLATFORM}:\n{output}")
    # Console scripts and man pages: nothing on Lambda runs them.
    for folder in ("bin", "share"):
        shutil.rmtree(target / folder, ignore_errors=True)


def copy_sources(source: Path, target: Path) -> None:
    shutil.copytree(source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def goes_in_zip(relative: str) -> bool:
    """Whether a file of a built tree goes into the zip: not bytecode, unless it is CPython 3.12's
    in a __pycache__ folder (what `compile_bytecode` writes)."""
    parts = relative.split("/")
    if "__pycache__" in parts or relative.endswith(".pyc"):
        return parts[-2:-1] == ["__pycache__"] and relative.endswith(BYTECODE_TAG)
    return True


def files(tree: Path) -> Iterator[Path]:
    for path in sorted(tree.rglob("*")):
        if path.is_file() and goes_in_zip(path.relative_to(tree).as_posix()):
            yield path


def bytecode_compiler(choice: str | None) -> str | None:
    """The CPython 3.12 that compiles the artifacts' bytecode: `choice`, else python3.12 on PATH,
    else none (Lambda then compiles the modules at every cold start: /opt and /var/task are
    read-only). Another version's bytecode would be useless on Lambda, so it is refused."""
    found = choice or shutil.which(f"python{PIP_PYTHON_VERSION}")
    if found is None:
        return None
    probe = [found, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"]
    answer = subprocess.run(probe, capture_output=True, text=True, check=False)
    if answer.returncode != 0 and choice is None:
        return None  # a pyenv shim of a version that is not installed
    version = answer.stdout.strip() if answer.returncode == 0 else f"not runnable ({answer.returncode})"
    if version != PIP_PYTHON_VERSION:
        raise SystemExit(f"{found} is Python {version}; the bytecode must be {PIP_PYTHON_VERSION}'s")
    return found


def compile_bytecode(compiler: str, tree: Path) -> None:
    """Bytecode for every module of `tree`, checked by hash never (unchecked-hash): the zips carry
    fixed timestamps, so timestamp-checked bytecode would always look stale."""
    subprocess.run(
        [compiler, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash", str(tree)],
        check=True,
    )


def write_zip(tree: Path, destination: Path) -> int:
    """`tree` into a deterministic zip at `destination`; the unzipped size in bytes."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    unzipped = 0
    with zipfile.ZipFile(destination, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for path in files(tree):
            info = zipfile.ZipInfo(path.relative_to(tree).as_posix(), _FIXED_TIME)
            executable = path.stat().st_mode & 0o111
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            data = path.read_bytes()
            unzipped += len(data)
            archive.writestr(info, data)
    return unzipped


def build_artifact(
    root: Path, source: str, kind: str, staging: Path, out: Path, compiler: str | None = None
) -> Artifact:
    folder = root / source
    tree = staging / source.strip("/")
    if kind == "layer":
        python = tree / "python"
        python.mkdir(parents=True)
        if (folder / "requirements.txt").is_file():
            pip_install(folder / "requirements.txt", python)
        copy_sources(folder / "python", python)
    else:
        tree.mkdir(parents=True)
        copy_sources(folder, tree)
        requirements = folder / "requirements.txt"
        if requirements.is_file() and requirements_named(requirements.read_text(encoding="utf-8")):
            pip_install(requirements, tree)
    if compiler:
        compile_bytecode(compiler, tree)
    destination = out / zip_name(source)
    unzipped = write_zip(tree, destination)
    with zipfile.ZipFile(destination) as archive:
        names = archive.namelist()
    prefixes = LAYER_PATHS if kind == "layer" else ("",)
    return Artifact(source, kind, destination, destination.stat().st_size, unzipped, top_level_names(names, prefixes))


def platform_problems(artifact: Artifact) -> list[str]:
    problems = []
    with zipfile.ZipFile(artifact.zip_path) as archive:
        for name in archive.namelist():
            if name.endswith(".so") or ".so." in name:
                with archive.open(name) as handle:
                    problem = elf_problem(f"{artifact.zip_path.name}:{name}", handle.read(20))
                if problem:
                    problems.append(problem)
    return problems


def import_problems(root: Path, layers_of: Mapping[str, list[str]], artifacts: Mapping[str, Artifact]) -> list[str]:
    """The modules a function's code or its layers' own Python sources import that none of its
    zips (nor the standard library, nor the runtime) holds."""
    problems = []
    for function, sources in sorted(layers_of.items()):
        available: set[str] = set()
        for source in sources:
            available |= artifacts[source].top_level
        imports: dict[str, set[str]] = {}
        own = [root / sources[0]]
        own += [root / layer / "python" for layer in sources[1:]]
        for folder in own:
            for path in sorted(folder.rglob("*.py")):
                imports[path.relative_to(root).as_posix()] = imported_modules(path.read_text(encoding="utf-8"))
        for where, names in missing_modules(imports, available).items():
            problems.append(f"{function}: {where} imports {', '.join(names)}, in none of its artifacts")
    return problems


@dataclass(frozen=True)
class Stack:
    """One template of the build (the root one, or a nested one in a local file): where it is
    (relative to the root folder), what it says, and its local code."""

    path: str
    template: dict[str, Any]
    code: Code

    def rooted(self, location: str) -> str:
        """A location written in this template, relative to the root folder (folders end in /)."""
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(self.path), location))
        return joined + "/" if location.endswith("/") else joined


def stacks(root: Path, path: str = "template.yaml") -> list[Stack]:
    """The template at `path` and, depth first, the nested templates it names in local files."""
    template = read_template(root / path)
    stack = Stack(path, template, template_code(template))
    found = [stack]
    for location in dict.fromkeys(stack.code.nested.values()):
        found += stacks(root, stack.rooted(location))
    return found


def package(root: Path, out: Path, compiler: str | None = None) -> int:
    started = time.monotonic()
    tree = stacks(root)
    layer_sources = list(dict.fromkeys(stack.rooted(s) for stack in tree for s in stack.code.layers.values()))
    function_sources = list(dict.fromkeys(stack.rooted(s) for stack in tree for s in stack.code.functions.values()))
    layers_of: dict[str, list[str]] = {}
    for stack in tree:
        prefix = "" if stack.path == "template.yaml" else f"{stack.path}:"
        for function, sources in stack.code.layers_of.items():
            expanded = [stack.rooted(sources[0])]
            for source in sources[1:]:
                expanded += layer_sources if source == PASSED_IN else [stack.rooted(source)]
            layers_of[prefix + function] = list(dict.fromkeys(expanded))
    if not function_sources:
        raise SystemExit("template.yaml and its nested templates name no function with local code")

    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    artifacts: dict[str, Artifact] = {}
    with tempfile.TemporaryDirectory(prefix="mzpay-package-") as staging:
        for source in layer_sources:
            artifacts[source] = build_artifact(root, source, "layer", Path(staging), out, compiler)
        for source in function_sources:
            artifacts[source] = build_artifact(root, source, "function", Path(staging), out, compiler)
    problems = size_problems(artifacts, layers_of)
    for artifact in artifacts.values():
        problems += platform_problems(artifact)
    problems += import_problems(root, layers_of, artifacts)

    for stack in tree:
        here = posixpath.dirname(stack.path)
        written = {**stack.code.functions, **stack.code.layers}
        zips = {s: posixpath.relpath(zip_name(stack.rooted(s)), here or ".") for s in written.values()}
        nested = {s: posixpath.relpath(stack.rooted(s), here or ".") for s in stack.code.nested.values()}
        packaged = packaged_template(stack.template, zips, nested)
        (out / stack.path).parent.mkdir(parents=True, exist_ok=True)
        (out / stack.path).write_text(yaml.safe_dump(packaged, sort_keys=False, width=100), encoding="utf-8")

    functions = [artifacts[source] for source in function_sources]
    largest = max(functions, key=lambda artifact: artifact.unzipped)
    heaviest = max(layers_of.items(), key=lambda item: sum(artifacts[s].unzipped for s in item[1]))
    for source in layer_sources:
        layer = artifacts[source]
        print(f"layer    {layer.source:<32} {mb(layer.zipped):>9} zipped {mb(layer.unzipped):>9} unzipped")
    print(
        f"{len(functions)} functions; largest {largest.source:<17} {mb(largest.zipped):>9} zipped "
        f"{mb(largest.unzipped):>9} unzipped"
    )
    total = sum(artifacts[source].unzipped for source in heaviest[1])
    print(
        f"heaviest function with its layers: {heaviest[0]} {mb(total)} unzipped "
        f"(limit {mb(UNZIPPED_LIMIT)}; zips limit {mb(ZIPPED_LIMIT)})"
    )
    bytecode = f"bytecode by {compiler}" if compiler else f"no bytecode (no python{PIP_PYTHON_VERSION} here)"
    print(f"packaged template{'s' if len(tree) > 1 else ''}: {out / 'template.yaml'}", end="")
    print(f" (+{len(tree) - 1} nested)" if len(tree) > 1 else "", end="")
    print(f"; {bytecode}; {time.monotonic() - started:.0f} s")
    for problem in problems:
        print(f"PROBLEM {problem}", file=sys.stderr)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=OUT, help="where the zips and the packaged template go")
    parser.add_argument(
        "--bytecode-python",
        help=f"a CPython {PIP_PYTHON_VERSION} to compile the bytecode with "
        f"(default: python{PIP_PYTHON_VERSION} on PATH, if any)",
    )
    args = parser.parse_args(argv)
    return package(ROOT, args.out.resolve(), bytecode_compiler(args.bytecode_python))


if __name__ == "__main__":
    sys.exit(main())

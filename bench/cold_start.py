"""Cold start: import a handler (and run the init its module does) in a fresh interpreter,
next to a bare `import boto3` measured the same way in the same run."""

from __future__ import annotations

import json
import statistics
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import (
    LAMBDA_ENVIRONMENT,
    LAYER_PATH,
    ROOT,
    python_executable,
    subprocess_environment,
    template_functions,
)

REPEATS = 9
TIMEOUT_SECONDS = 60
BASELINE = "import boto3"

# Runs in the fresh interpreter: argv = code dir, module, attribute ("" for none).
# Only the import and the attribute lookup are timed, not the interpreter's own start.
_PROBE = """
import importlib, json, sys, time
code_dir, layer_dir, module_name, attribute = sys.argv[1:5]
sys.path[:0] = [p for p in (code_dir, layer_dir) if p]
loaded = len(sys.modules)
started = time.perf_counter()
module = importlib.import_module(module_name)
if attribute:
    getattr(module, attribute)
elapsed_ms = (time.perf_counter() - started) * 1000
print(json.dumps({"ms": elapsed_ms, "modules": len(sys.modules) - loaded,
                  "boto3": "boto3" in sys.modules, "botocore": "botocore" in sys.modules}))
"""


@dataclass(frozen=True)
class ImportTarget:
    """Something whose import is timed in a fresh interpreter."""

    name: str
    code_dir: Path | None  # put first on sys.path (None: nothing)
    module: str
    attribute: str  # resolved after the import ("" for none)
    environment: Mapping[str, str]


def probe(target: ImportTarget) -> dict[str, Any]:
    """One fresh interpreter importing `target`: {"ms", "modules", "boto3", "botocore"}."""
    argv = [str(target.code_dir or ""), str(LAYER_PATH), target.module, target.attribute]
    result = subprocess.run(
        [python_executable(), "-c", _PROBE, *argv],
        cwd=ROOT,
        env=subprocess_environment(target.environment),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"importing {target.name} failed (exit {result.returncode}):\n{result.stderr}")
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def targets() -> list[ImportTarget]:
    """The boto3 baseline first, then every function of template.yaml."""
    baseline = ImportTarget(BASELINE, None, "boto3", "", {**LAMBDA_ENVIRONMENT, "POWERTOOLS_SERVICE_NAME": "bench"})
    functions = [
        ImportTarget(f.logical_id, f.code_dir, f.module_name, f.attribute, f.environment) for f in template_functions()
    ]
    return [baseline, *functions]


def run(repeats: int = REPEATS) -> list[dict[str, Any]]:
    """Median cold start of every target over `repeats` fresh interpreters, and its ratio to
    the boto3 baseline. Targets take turns (round robin) so drift hits them all alike; one
    unrecorded pass first makes sure bytecode caches exist."""
    chosen = targets()
    for target in chosen:
        probe(target)
    samples: dict[str, list[dict[str, Any]]] = {target.name: [] for target in chosen}
    for _ in range(repeats):
        for target in chosen:
            samples[target.name].append(probe(target))
    baseline_ms = statistics.median(s["ms"] for s in samples[BASELINE])
    rows = []
    for target in chosen:
        runs = samples[target.name]
        times = [s["ms"] for s in runs]
        median_ms = statistics.median(times)
        rows.append(
            {
                "name": target.name,
                "handler": f"{target.module}.{target.attribute}" if target.attribute else target.module,
                "median_ms": median_ms,
                "min_ms": min(times),
                "max_ms": max(times),
                "ratio_to_boto3": median_ms / baseline_ms,
                "modules_loaded": runs[-1]["modules"],
                "loads_boto3": runs[-1]["boto3"],
                "loads_botocore": runs[-1]["botocore"],
                "samples_ms": times,
            }
        )
    return rows

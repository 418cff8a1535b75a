"""Percentiles and summaries of timing samples."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def percentiles(samples: Sequence[float]) -> list[float]:
    """The 1st..99th percentiles of `samples` (index k-1 is the k-th), linearly interpolated
    between order statistics: statistics.quantiles' inclusive method, numpy's default."""
    if not samples:
        raise ValueError("no samples")
    if len(samples) == 1:
        return [float(samples[0])] * 99
    return statistics.quantiles(samples, n=100, method="inclusive")


def latency_summary(samples: Sequence[float], unit: str) -> dict[str, float | int]:
    """n, p50, p90, p99, mean, min and max of `samples`, keys suffixed with `unit` (us, ms)."""
    cuts = percentiles(samples)
    return {
        "n": len(samples),
        f"p50_{unit}": cuts[49],
        f"p90_{unit}": cuts[89],
        f"p99_{unit}": cuts[98],
        f"mean_{unit}": statistics.fmean(samples),
        f"min_{unit}": min(samples),
        f"max_{unit}": max(samples),
    }

"""Interval and test for paired accuracy: article-clustered bootstrap, exact McNemar."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def bootstrap_ci(
    correct: Sequence[bool],
    clusters: Sequence[str],
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile interval of accuracy, resampling whole articles (questions share an article)."""
    if not correct:
        return (math.nan, math.nan)
    ids = sorted(set(clusters))
    index = {c: i for i, c in enumerate(ids)}
    hits = np.zeros(len(ids))
    totals = np.zeros(len(ids))
    for ok, c in zip(correct, clusters, strict=True):
        hits[index[c]] += ok
        totals[index[c]] += 1
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(ids), size=(n_boot, len(ids)))
    acc = hits[picks].sum(axis=1) / totals[picks].sum(axis=1)
    tail = (1 - level) / 2 * 100
    return float(np.percentile(acc, tail)), float(np.percentile(acc, 100 - tail))


def mcnemar_exact(a: Sequence[bool], b: Sequence[bool]) -> tuple[int, int, float]:
    """Discordant counts (a right b wrong, a wrong b right) and the two-sided exact p-value."""
    only_a = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    n = only_a + only_b
    if n == 0:
        return only_a, only_b, 1.0
    tail = sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1)) / 2**n
    return only_a, only_b, min(1.0, 2 * tail)


def format_p(p: float) -> str:
    """A p-value to follow the letter p: '= 0.010', or '< 0.001'."""
    return "< 0.001" if p < 0.001 else f"= {p:.3f}"

"""Intervals and tests for accuracy on clustered, paired questions.

Questions that share a unit of dependence (a Wikipedia title, a DROP passage, an article) are not
independent, so every bootstrap here resamples whole clusters. Methods are compared on the same
questions, so a difference is bootstrapped as pairs (a resampled cluster brings both methods'
verdicts on its questions), beside the exact McNemar test on the discordant pairs.
"""

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
    """Percentile interval of accuracy, resampling whole clusters (their questions are not
    independent)."""
    if not correct:
        return (math.nan, math.nan)
    (hits,), totals = _cluster_sums([correct], clusters)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(totals), size=(n_boot, len(totals)))
    acc = hits[picks].sum(axis=1) / totals[picks].sum(axis=1)
    tail = (1 - level) / 2 * 100
    return float(np.percentile(acc, tail)), float(np.percentile(acc, 100 - tail))


def _cluster_sums(
    columns: Sequence[Sequence[bool]], clusters: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Per cluster: the sum of each column (rows: columns) and the question count."""
    ids = {c: i for i, c in enumerate(sorted(set(clusters)))}
    where = np.array([ids[c] for c in clusters])
    sums = np.stack(
        [np.bincount(where, weights=np.asarray(col, float), minlength=len(ids)) for col in columns]
    )
    return sums, np.bincount(where, minlength=len(ids)).astype(float)


def paired_difference_ci(
    a: Sequence[bool],
    b: Sequence[bool],
    clusters: Sequence[str],
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """accuracy(a) - accuracy(b) on the same questions, and its percentile interval from
    resampling whole clusters with both verdicts of each question kept together."""
    if not a:
        return (math.nan, math.nan, math.nan)
    (sa, sb), n = _cluster_sums([a, b], clusters)
    picks = np.random.default_rng(seed).integers(0, len(n), size=(n_boot, len(n)))
    diff = (sa[picks].sum(axis=1) - sb[picks].sum(axis=1)) / n[picks].sum(axis=1)
    tail = (1 - level) / 2 * 100
    point = (sum(a) - sum(b)) / len(a)
    return point, float(np.percentile(diff, tail)), float(np.percentile(diff, 100 - tail))


def mcnemar_exact(a: Sequence[bool], b: Sequence[bool]) -> tuple[int, int, float]:
    """Discordant counts (a right b wrong, a wrong b right) and the two-sided exact p-value."""
    only_a = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    n = only_a + only_b
    if n == 0:
        return only_a, only_b, 1.0
    tail = sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1)) / 2**n
    return only_a, only_b, min(1.0, 2 * tail)


def holm(p_values: Sequence[float], alpha: float = 0.05) -> list[bool]:
    """Holm's step-down correction: which of the `p_values` are rejected with the family-wise
    error rate held at `alpha` (each in its input order)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    for step, i in enumerate(order):
        if p_values[i] > alpha / (len(p_values) - step):
            break
        rejected[i] = True
    return rejected

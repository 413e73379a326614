"""Statistics: exact McNemar, the cluster bootstrap and the paired difference, the verdict rule."""

from __future__ import annotations

import math

from experiment.evaluate.stats import bootstrap_ci, mcnemar_exact, paired_difference_ci
from experiment.evaluate.summary import verdict


def test_mcnemar_known_values() -> None:
    # 6 discordant pairs all one way: p = 2 * 0.5**6
    assert mcnemar_exact([True] * 6, [False] * 6) == (6, 0, 2 * 0.5**6)
    assert mcnemar_exact([True, False], [True, False]) == (0, 0, 1.0)
    b, c, p = mcnemar_exact([True, False, True], [False, True, True])
    assert (b, c, p) == (1, 1, 1.0)


def test_bootstrap_brackets_accuracy_and_is_seeded() -> None:
    correct = [True, True, False, True, False, True, True, False]
    clusters = ["a", "a", "b", "b", "c", "c", "d", "d"]
    low, high = bootstrap_ci(correct, clusters, seed=1)
    assert low <= 5 / 8 <= high
    assert (low, high) == bootstrap_ci(correct, clusters, seed=1)


def test_bootstrap_of_constant_is_degenerate() -> None:
    assert bootstrap_ci([True] * 4, ["a", "a", "b", "b"]) == (1.0, 1.0)
    assert all(math.isnan(x) for x in bootstrap_ci([], []))


def _clustered_data() -> tuple[list[bool], list[bool], list[str]]:
    """20 clusters of 10 questions each; within a cluster method a is right on all or none, so
    the 200 answers carry the information of 20 draws, not 200."""
    a, b, clusters = [], [], []
    for c in range(20):
        a += [c % 2 == 0] * 10  # a is right on every even cluster
        b += [c % 4 == 0] * 10  # b on every fourth
        clusters += [f"c{c}"] * 10
    return a, b, clusters


def test_clustered_interval_is_wider_than_one_that_ignores_clusters() -> None:
    a, _, clusters = _clustered_data()
    low, high = bootstrap_ci(a, clusters)
    naive_low, naive_high = bootstrap_ci(a, [str(i) for i in range(len(a))])
    # Independent questions: half-width about 1.96 * sqrt(.25/200) = 0.07; 20 clusters: 0.22.
    assert high - low > 0.35 and naive_high - naive_low < 0.16


def test_paired_difference_resamples_clusters_with_both_verdicts() -> None:
    a, b, clusters = _clustered_data()
    diff, low, high = paired_difference_ci(a, b, clusters)
    assert diff == 0.25 and low < diff < high
    # five even clusters where only a is right: with 20 clusters the interval is wide...
    assert high - low > 0.25
    # ...and one that ignores the clusters would claim far more precision
    naive = paired_difference_ci(a, b, [str(i) for i in range(len(a))])
    assert naive[2] - naive[1] < 0.15
    # pairs stay together: identical methods differ by exactly zero in every resample
    assert paired_difference_ci(a, a, clusters) == (0.0, 0.0, 0.0)


def test_verdict_needs_the_interval_to_exclude_zero() -> None:
    assert verdict(0.01, 0.05, 20, 0.01) == "beats"
    assert verdict(-0.05, -0.01, 20, 0.01) == "loses to"
    assert verdict(-0.01, 0.05, 20, 0.01) == "no significant difference"

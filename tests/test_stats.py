"""Statistics: exact McNemar and the article-clustered bootstrap."""

from __future__ import annotations

import math

from experiment.evaluate.stats import bootstrap_ci, mcnemar_exact


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

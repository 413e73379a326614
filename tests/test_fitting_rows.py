"""The selector's fitting arithmetic: imputation, question accuracy at a threshold, set means."""

from __future__ import annotations

import numpy as np
import pytest

from experiment.bench.fit.rows import THRESHOLDS, Row, matrix, question_accuracy, set_means


def _row(q: str, right: bool, unanswerable: bool = False, x: float | None = 1.0) -> Row:
    return Row(q, q, unanswerable, {"a": x, "b": 2.0}, right)


def test_matrix_imputes_missing_features_and_keeps_the_order() -> None:
    rows = [_row("s:1", True), _row("s:2", False, x=None)]
    assert matrix(rows, {"a": 0.5}, ("b", "a")).tolist() == [[2.0, 1.0], [2.0, 0.5]]
    assert matrix(rows, {}, ("a",)).tolist() == [[1.0], [0.0]]


def test_question_accuracy_keeps_the_top_candidate_or_abstains() -> None:
    rows = [_row("s:1", False), _row("s:1", True), _row("s:2", True), _row("s:3", False, True)]
    probs = np.array([0.2, 0.9, 0.4, 0.3])
    # s:4 has no candidate: an abstention, right only when unanswerable
    qs = ["s:1\tc\tFalse", "s:2\tc\tFalse", "s:3\tc\tTrue", "s:4\tc\tTrue"]
    assert question_accuracy(rows, probs, 0.0, qs) == pytest.approx(3 / 4)  # s:3 kept, wrong
    assert question_accuracy(rows, probs, 0.35, qs) == pytest.approx(4 / 4)
    assert question_accuracy(rows, probs, 0.95, qs) == pytest.approx(2 / 4)


def test_set_means_weigh_each_set_the_same() -> None:
    rows = [_row("big:1", True), _row("small:1", False)]
    probs = np.array([0.5, 0.5])
    qs = ["big:1\tc\tFalse", "big:2\tc\tFalse", "big:3\tc\tFalse", "small:1\tc\tTrue"]
    means = set_means(rows, probs, qs, ["big", "small"])
    assert len(means) == len(THRESHOLDS)
    assert means[0] == pytest.approx((1 / 3 + 0) / 2)  # both kept: big 1 of 3, small wrong
    assert means[-1] == pytest.approx((0 + 1) / 2)  # both abstain: small's abstention is right

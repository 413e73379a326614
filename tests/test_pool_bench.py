"""`factqa bench pool-coverage`: coverage of the pool, the fitted N and threshold, the ranking
loss."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiment.base.types import Article, Question
from experiment.bench.analyse.pool_coverage import (
    Row,
    SetResult,
    fit_n,
    fit_threshold,
    loss_kind,
    measure,
)
from experiment.evaluate.pool import pool

TABLE = (
    "| ($ in millions) | 2019 | 2018 |\n"
    "| --- | --- | --- |\n"
    "| Revenue | 142.9 | 120.5 |\n"
    "| Net income | 12.4 | 3.1 |\n"
)


def _article(text: str) -> Article:
    return Article("a1", "t", "2024-01-01", text, Path("a1.md"))


def _q(text: str, gold: str, qid: str = "q1", computed: bool = False) -> Question:
    return Question(qid, "a1", text, (gold,), "figure", computed=computed)


def test_coverage_counts_stated_questions_only_and_n_bounds_it() -> None:
    s = SetResult("x", [Row(True, False, 0, 0.9, 3), Row(True, False, 4, 0.5, 9)])
    s.rows += [Row(False, False, None, 0.4, 2), Row(False, True, None, 0.1, 2)]  # computed, unans.
    assert s.covered() == 1.0 and s.covered(1) == 0.5 and s.covered(5) == 1.0
    # text-only at a threshold: right where the gold ranks first and it answers, or it abstains
    # on the unanswerable one
    assert s.accuracy(0.3, stated=False) == 2 / 4
    assert s.accuracy(0.05, stated=False) == 1 / 4  # now it answers the unanswerable one
    assert s.accuracy(0.3, stated=True) == 1 / 2


def test_n_is_the_smallest_that_keeps_every_fitting_sets_coverage() -> None:
    a = SetResult("a", [Row(True, False, r, 0.9, 20) for r in (0, 0, 1, 5)])
    b = SetResult("b", [Row(True, False, r, 0.9, 20) for r in (0, 2, None)])
    n, curves = fit_n([a, b])
    assert n == 6  # a needs its gold at rank 5 kept (b's coverage is reached at 3)
    assert curves["b"][:3] == [pytest.approx(1 / 3), pytest.approx(1 / 3), pytest.approx(2 / 3)]


def test_the_threshold_maximises_the_mean_accuracy_over_the_sets() -> None:
    # the right answers score high, the wrong one and the unanswerable ones lower
    a = SetResult("a", [Row(True, False, 0, 0.9, 2), Row(True, False, 1, 0.3, 2)])
    b = SetResult("b", [Row(False, True, None, 0.2, 2), Row(False, True, None, 0.4, 2)])
    threshold, acc = fit_threshold([a, b])
    assert threshold == 0.9 and acc == pytest.approx((1 / 2 + 1) / 2)


def test_the_ranking_loss_names_another_period_row_or_scale() -> None:
    a = _article(TABLE)
    q = _q("What was revenue in 2019?", "$142.9 million")
    cands = {c.span.text: c for c in pool(q, a) if c.span.text[0].isdigit() and "." in c.span.text}
    gold = cands["142.9"]
    assert loss_kind(cands["120.5"], gold, a) == "period"  # the same row, another column
    assert loss_kind(cands["12.4"], gold, a) == "row"  # the same column, another row
    prose = _article("Revenue was $142.9 million (the filing says 142.9); 7 shops.")
    cs = {c.span.text: c for c in pool(q, prose)}
    assert loss_kind(cs["142.9"], cs["$142.9 million"], prose) == "scale"
    assert loss_kind(cs["7"], cs["$142.9 million"], prose) == "entity"


def test_measure_ranks_judges_and_runs_text_only_with_no_model() -> None:
    a = _article(TABLE)
    qs = [
        _q("What was revenue in 2019?", "$142.9 million"),
        _q("What was the sum of revenue?", "263.4", "q2", computed=True),
    ]
    got = measure("t", {"a1": a}, qs)
    first, summed = got.rows
    assert first.stated and first.gold_rank is not None and first.size > 4
    assert not summed.stated and got.covered() == 1.0
    assert first.text_only == (first.gold_rank == 0 and first.top_score is not None)

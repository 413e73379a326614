"""The README's table: Holm's correction over its comparisons, and the best methods chosen on
another sample than the one they are reported on."""

from __future__ import annotations

import pandas as pd

from experiment.evaluate.stats import holm
from experiment.evaluate.summary import BEATS, LOSES, TIED
from experiment.report.first_screen import chosen_rows, holm_kept


def test_holm_steps_down_and_stops_at_the_first_kept_hypothesis() -> None:
    assert holm([0.01, 0.04, 0.03, 0.5]) == [True, False, False, False]  # 0.03 > 0.05 / 3
    assert holm([0.001, 0.012, 0.02]) == [True, True, True]  # 0.012 <= 0.05/2, 0.02 <= 0.05
    assert holm([]) == []


def _summary(accuracy: dict[str, float], p: float = 0.01, verdict: str = LOSES) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "method": list(accuracy),
            "accuracy": list(accuracy.values()),
            "large_calls": [0 if m.startswith("small") else 1 for m in accuracy],
            "mcnemar_p": p,
            "verdict": verdict,
        }
    )


def test_a_verdict_that_does_not_survive_holm_is_not_marked() -> None:
    rows = list(_summary({"a": 0.5, "b": 0.5, "c": 0.5}).itertuples())
    rows[1] = rows[1]._replace(mcnemar_p=0.04)
    rows[2] = rows[2]._replace(verdict=TIED, mcnemar_p=0.3)
    assert holm_kept(rows) == [True, False, False]
    assert BEATS != LOSES


def test_the_best_methods_are_chosen_on_another_sample() -> None:
    methods = {"small-text@10": 0.0, "small-selected@10": 0.0, "cascade@30%": 0.0,
               "cascade-text@30%": 0.0, "large@1": 0.0}  # fmt: skip
    development = _summary({**methods, "small-text@10": 0.9, "cascade@30%": 0.8})
    sealed = _summary({**methods, "small-selected@10": 0.7, "cascade-text@30%": 0.6})
    on_itself = chosen_rows(sealed, None, 10)
    assert on_itself is not None and [r.method for r in on_itself] == [
        "small-selected@10", "cascade-text@30%"]  # fmt: skip
    chosen = chosen_rows(sealed, development, 10)
    assert chosen is not None
    assert [(r.method, r.accuracy) for r in chosen] == [
        ("small-text@10", 0.0),
        ("cascade@30%", 0.0),
    ]

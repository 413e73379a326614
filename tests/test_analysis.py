"""Run analysis on hand-made question tables: risk-coverage, AUROC, SQuAD EM/F1, verifier cost."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from experiment.record.migrate import migrate
from experiment.report.analysis import auroc, cost_table, risk_coverage, squad_em_f1, verifier_cost
from experiment.report.run import typed_questions

M = "small-verified@4"


def table(rows: list[tuple[str, str, bool, float, bool]], **extra: list[str]) -> pd.DataFrame:
    """(answer, gold, correct, agreement, abstained) per question, as questions.csv spells it,
    typed as a loaded run has it (a format-0 folder's: no confidence, `migrate`)."""
    frame = pd.DataFrame(
        {
            "gold": [r[1] for r in rows],
            "unanswerable": ["true" if r[1] == "unanswerable" else "false" for r in rows],
            f"{M}.answer": [r[0] for r in rows],
            f"{M}.correct": ["true" if r[2] else "false" for r in rows],
            f"{M}.agreement": [str(r[3]) for r in rows],
            f"{M}.abstained": ["true" if r[4] else "false" for r in rows],
            **extra,
        }
    )
    return typed_questions(migrate({}, {"questions.csv": frame})[1]["questions.csv"])


ROWS = [
    ("1931", "1931", True, 1.0, False),
    ("412 metres", "412 metres | 412", True, 0.75, False),
    ("8,100", "8,200", False, 0.5, False),
    ("", "15,400", False, 0.0, True),
]


def test_risk_coverage_thresholds() -> None:
    rc = risk_coverage(table(ROWS), M)
    assert list(rc.threshold) == [1.0, 0.75, 0.5]
    assert list(rc.coverage) == [0.25, 0.5, 0.75]
    assert list(rc.accuracy.round(3)) == [1.0, 1.0, 0.667]


def test_auroc_ranks_right_above_wrong() -> None:
    assert auroc(table(ROWS), M) == 1.0
    flipped = [(a, g, not c, x, ab) if not ab else (a, g, c, x, ab) for a, g, c, x, ab in ROWS]
    assert auroc(table(flipped), M) == 0.0
    assert math.isnan(auroc(table(ROWS[:2]), M))  # one class only


def test_squad_em_f1_official_normalisation() -> None:
    em, _ = squad_em_f1(table(ROWS), M)
    assert em == pytest.approx(2 / 4)  # "412 metres" matches its first gold exactly
    one = table([("the 412 metres", "412 metres long", True, 1.0, False)])
    assert squad_em_f1(one, M) == (0.0, pytest.approx(0.8))
    abstain = table([("", "unanswerable", True, 0.0, True)])
    assert squad_em_f1(abstain, M) == (1.0, 1.0)  # the v2.0 rule: empty answer is right


def test_verifier_cost_counts_right_answers_the_article_did_not_confirm() -> None:
    q = table(
        ROWS,
        gold_in_text=["true", "true", "false", "false"],
        small_correct=["3", "2", "1", "0"],
        small_correct_confirmed=["3", "2", "0", "0"],
    )
    assert verifier_cost(q, M) == {
        "gold_in_text": 2,
        "gold_not_in_text": 2,
        "lost": 1,
        "lost_gold_not_in_text": 1,
        "right_when_gold_not_in_text": 0,
    }


def test_cost_per_correct() -> None:
    s = pd.DataFrame(
        {
            "method": ["a", "b"],
            "questions": [10, 10],
            "accuracy": [0.5, 0.0],
            "prompt_tokens": [900, 100],
            "completion_tokens": [100, 0],
            "seconds": [20.0, 1.0],
            "large_calls": [10, 0],
        }
    )
    c = cost_table(s).set_index("method")
    assert c.loc["a", "tokens_per_correct"] == 200 and c.loc["a", "seconds_per_correct"] == 4.0
    assert math.isnan(c.loc["b", "tokens_per_correct"])  # no correct answer: no cost per one

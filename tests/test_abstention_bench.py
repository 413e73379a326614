"""`factqa bench abstention`: what the selector abstained on, on all questions or the stated
ones."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from experiment.bench.analyse.abstention import report

M = "small-selected@10"


def _run(tmp_path: Path) -> Path:
    rows = [  # id, unanswerable, computed, answer, correct, confidence
        ("a", False, False, "5", True, 0.9),
        ("b", False, False, "", False, 0.0),
        ("c", True, False, "", True, 0.0),
        ("d", False, True, "7", False, 0.4),
        ("e", False, True, "8", True, 0.2),
    ]
    pd.DataFrame(
        [
            {
                "question_id": i,
                "unanswerable": u,
                "computed": c,
                f"{M}.answer": a,
                f"{M}.correct": r,
                f"{M}.confidence": conf,
                f"{M}.failed": False,
            }
            for i, u, c, a, r, conf in rows
        ]
    ).to_csv(tmp_path / "questions.csv", index=False)
    return tmp_path


def test_all_questions_and_the_stated_ones(tmp_path: Path) -> None:
    run = _run(tmp_path)
    every = report(run, M)
    assert every[0].endswith("(5 questions, 1 unanswerable)")
    assert "- answerable 4: answered 3, right 2, abstained 1" in every
    assert "- accuracy 0.600" in every
    stated = report(run, M, stated=True)
    assert stated[0].endswith("(3 stated questions, 1 unanswerable)")
    assert "- answerable 2: answered 1, right 1, abstained 1" in stated
    assert "- accuracy 0.667" in stated
    assert "| as run | 0.333 | 0.000 | 0.667 |" in stated  # its floor is a's 0.9
    # at 0.5 only "a" is answered, right, and "c"'s abstention is right
    assert (
        "| as run | 0.600 | 0.333 | 0.600 |" in every and "| 0.5 | 0.200 | 0.000 | 0.400 |" in every
    )

"""Questions without gold: the small model's methods judged against large@1's answer instead.

The comparison the user asked for is against one answer of the large model, so a question with no
gold answer is still useful: its reference becomes large@1's answer (its value as written, or
"unanswerable" where the large model said the article does not give it), and every method is
judged against that reference by the strict judge. What comes out is **agreement with large@1,
not accuracy**; large@1 agrees with itself except where it failed (then there is nothing to agree
with, and every method counts as disagreeing). Runs keep the two apart: accuracy over the
questions with gold, agreement over those without (`agreement.csv`, `disagreements.csv`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from experiment.base.types import UNANSWERABLE, Question
from experiment.evaluate.answer import Answer
from experiment.evaluate.methods import REFERENCE
from experiment.evaluate.registry import MethodAnswer, MethodAnswers

SCORED_AGAINST = REFERENCE  # what questions without gold are judged against (`scored_against`)


def with_reference(q: Question, large: Answer) -> Question:
    """`q` itself when it has gold; otherwise `q` with large@1's answer as its gold."""
    if q.gold:
        return q
    if large.value is not None:
        return replace(q, gold=(large.attempt.answer,))
    return replace(q, gold=(UNANSWERABLE,) if large.abstained else ())


def _cells(a: MethodAnswer) -> tuple[str, str]:
    if a.chosen is None:
        return ("abstained" if a.abstained else "failed"), ""
    span = a.chosen.attempt.span
    return a.chosen.attempt.answer, span.text if span else ""


def disagreements(
    questions: Sequence[Question], answers: MethodAnswers, methods: list[str]
) -> list[dict[str, Any]]:
    """One row per question without gold: large@1's answer and evidence beside each of
    `methods`', whether they agree; questions where any of them disagrees come first."""
    rows = []
    for q in questions:
        per = answers[q.id]
        large_answer, large_evidence = _cells(per[REFERENCE])
        row: dict[str, Any] = {
            "question_id": q.id,
            "article_id": q.article_id,
            "question": q.text,
            "large_answer": large_answer,
            "large_evidence": large_evidence,
        }
        for m in methods:
            answer, evidence = _cells(per[m])
            row[f"{m}.answer"], row[f"{m}.evidence"] = answer, evidence
            row[f"{m}.agrees"] = per[m].correct
        row["disagrees"] = not all(per[m].correct for m in methods)
        rows.append(row)
    return sorted(rows, key=lambda r: (not r["disagrees"], r["question_id"]))


def disagreement_columns(methods: list[str]) -> list[str]:
    cols = ["question_id", "article_id", "question", "disagrees", "large_answer", "large_evidence"]
    for m in methods:
        cols += [f"{m}.answer", f"{m}.evidence", f"{m}.agrees"]
    return cols

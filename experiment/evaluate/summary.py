"""One row per method over all questions: accuracy with its clustered interval, coverage, the
confirmed-but-wrong count, cost, and the paired test against large@1; and the one verdict rule
that every output (console, results file, README) states.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from experiment.evaluate.methods import REFERENCE, MethodAnswer
from experiment.evaluate.stats import bootstrap_ci, mcnemar_exact
from experiment.records import Question


@dataclass(frozen=True)
class MethodSummary:
    method: str
    questions: int
    accuracy: float
    ci_low: float
    ci_high: float
    coverage: float
    accuracy_answered: float
    in_text_wrong: int
    in_text_wrong_rate: float
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    large_calls: int
    wins_vs_large: int
    losses_vs_large: int
    mcnemar_p: float


def summarize(
    questions: Sequence[Question],
    answers: dict[str, dict[str, MethodAnswer]],
    methods: Sequence[str],
) -> list[MethodSummary]:
    """One row per method; `answers[question_id][method]`."""
    clusters = [q.article_id for q in questions]
    reference = [answers[q.id][REFERENCE].correct for q in questions]
    rows = []
    for m in methods:
        col = [answers[q.id][m] for q in questions]
        correct = [a.correct for a in col]
        answered = [a for a in col if not a.abstained]
        n = len(col)
        low, high = bootstrap_ci(correct, clusters)
        wins, losses, p = mcnemar_exact(correct, reference)
        wrong_in_text = sum(a.in_text_wrong for a in col)
        rows.append(
            MethodSummary(
                method=m,
                questions=n,
                accuracy=sum(correct) / n if n else 0.0,
                ci_low=low,
                ci_high=high,
                coverage=len(answered) / n if n else 0.0,
                accuracy_answered=sum(a.correct for a in answered) / len(answered)
                if answered
                else 0.0,
                in_text_wrong=wrong_in_text,
                in_text_wrong_rate=wrong_in_text / len(answered) if answered else 0.0,
                prompt_tokens=sum(a.prompt_tokens for a in col),
                completion_tokens=sum(a.completion_tokens for a in col),
                seconds=round(sum(a.seconds for a in col), 3),
                large_calls=sum(a.large_calls for a in col),
                wins_vs_large=wins,
                losses_vs_large=losses,
                mcnemar_p=p,
            )
        )
    return rows


SIGNIFICANCE = 0.05


def verdict(accuracy: float, reference_accuracy: float, p: float) -> str:
    """How a method compares with large@1, in the words every output uses (exact McNemar p)."""
    if accuracy <= reference_accuracy:
        return "does not beat"
    if p < SIGNIFICANCE:
        return "beats"
    return "scores above, but not significantly above,"

"""One row per method over all questions, and the one verdict rule every output states.

Each row: accuracy with its cluster-bootstrap interval, coverage, accuracy on the answered, the
confirmed-but-wrong count (blank for small-pass@k, which keeps no single answer), failures, cost,
and the comparison with large@1 on the same questions: the paired difference with its
cluster-bootstrap interval, the exact McNemar test, and the verdict.

The verdict (`verdict`, the one place it is decided): a method "beats" or "loses to" large@1
only when the questions come from at least `MIN_CLUSTERS` clusters (articles, titles, reports),
the paired cluster-bootstrap interval of the difference excludes 0, and the exact McNemar test
agrees at `ALPHA`. Fewer clusters print "too few clusters" (a bootstrap over one article has an
interval of zero width); otherwise there is "no significant difference".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from experiment.base.types import Question
from experiment.evaluate.methods import REFERENCE
from experiment.evaluate.registry import Method, MethodAnswers, known_sum
from experiment.evaluate.stats import bootstrap_ci, mcnemar_exact, paired_difference_ci

BEATS, LOSES, TIED = "beats", "loses to", "no significant difference"
TOO_FEW = "too few clusters"
MIN_CLUSTERS = 10  # below this a cluster bootstrap cannot support a verdict
ALPHA = 0.05  # the exact McNemar test must agree at this level


@dataclass(frozen=True)
class MethodSummary:
    method: str
    questions: int
    accuracy: float
    ci_low: float
    ci_high: float
    coverage: float
    accuracy_answered: float
    in_text_wrong: int | None  # None: not defined for the method (small-pass@k)
    in_text_wrong_rate: float | None
    failed: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    large_calls: int
    wins_vs_large: int
    losses_vs_large: int
    mcnemar_p: float
    diff_vs_large: float
    diff_ci_low: float
    diff_ci_high: float
    verdict: str
    mean_samples: float = 0.0  # small-model samples per question (fewer than k when adaptive)
    # What the method's samples cost the models, machine-independent (None: some cost unknown)
    evaluated_tokens: int | None = None
    flops: float | None = None
    flops_vs_large: float | None = None  # its FLOPs over large@1's on the same questions


def verdict(diff_ci_low: float, diff_ci_high: float, clusters: int, mcnemar_p: float) -> str:
    """How a method compares with large@1 (module docstring): "too few clusters" below
    `MIN_CLUSTERS`; "beats" or "loses to" only where the paired interval excludes 0 and the
    exact McNemar p is below `ALPHA`; else "no significant difference"."""
    if clusters < MIN_CLUSTERS:
        return TOO_FEW
    if mcnemar_p >= ALPHA:
        return TIED
    if diff_ci_low > 0:
        return BEATS
    if diff_ci_high < 0:
        return LOSES
    return TIED


@dataclass(frozen=True)
class Paired:
    """One method against the reference on the same questions: McNemar's discordant counts and
    exact p, the paired difference with its cluster interval, and the verdict they give."""

    wins: int
    losses: int
    p: float
    diff: float
    low: float
    high: float
    verdict: str


def paired(correct: Sequence[bool], reference: Sequence[bool], clusters: Sequence[str]) -> Paired:
    """`correct` against `reference`, question by question, by the verdict rule (`verdict`)."""
    wins, losses, p = mcnemar_exact(correct, reference)
    diff, low, high = paired_difference_ci(correct, reference, clusters)
    return Paired(wins, losses, p, diff, low, high, verdict(low, high, len(set(clusters)), p))


def summarize(
    questions: Sequence[Question],
    answers: MethodAnswers,
    methods: Sequence[Method],
    k: int,
) -> list[MethodSummary]:
    """One row per method at `k`; `answers[question_id][method name]`."""
    clusters = [q.cluster for q in questions]
    reference = [answers[q.id][REFERENCE].correct for q in questions]
    large_flops = known_sum([answers[q.id][REFERENCE].flops for q in questions])
    rows = []
    for method in methods:
        m = method.name(k)
        col = [answers[q.id][m] for q in questions]
        correct = [a.correct for a in col]
        answered = [a for a in col if a.answered]
        n = len(col)
        low, high = bootstrap_ci(correct, clusters)
        vs = paired(correct, reference, clusters)
        wrong_in_text = sum(a.in_text_wrong for a in col) if method.keeps_one else None
        flops = known_sum([a.flops for a in col])
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
                in_text_wrong_rate=None
                if wrong_in_text is None
                else (wrong_in_text / len(answered) if answered else 0.0),
                failed=sum(a.failed for a in col),
                prompt_tokens=sum(a.prompt_tokens for a in col),
                completion_tokens=sum(a.completion_tokens for a in col),
                seconds=round(sum(a.seconds for a in col), 3),
                large_calls=sum(a.large_calls for a in col),
                wins_vs_large=vs.wins,
                losses_vs_large=vs.losses,
                mcnemar_p=vs.p,
                diff_vs_large=vs.diff,
                diff_ci_low=vs.low,
                diff_ci_high=vs.high,
                verdict="" if m == REFERENCE else vs.verdict,
                mean_samples=round(sum(a.samples for a in col) / n, 3) if n else 0.0,
                evaluated_tokens=known_sum([a.evaluated_tokens for a in col]),
                flops=flops,
                flops_vs_large=round(flops / large_flops, 4)
                if flops is not None and large_flops
                else None,
            )
        )
    return rows

"""A scoring: one way a model weighs texts it did not write, declared once and run by one runner
step (`runner.score_all`).

A `Scoring` names which model scores (`role`), the calls it makes for a question (`probes`: the
prompt and the texts after it, "unknown" last; none where there is nothing to score), how the
scores decide (`decide`) and what a failed question records (`failed`). The large model's checks
of the small model's confirmed candidates (`large_check`, one scoring per mode) and a model's
scores of a question's pool (`drafts`, one per model) are two registrations of it; a new scoring
signal is one more. Every scoring's scores land in one table, a row per question, scoring and
scored text (`record.columns.SCORES`), named by the scoring's `label`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from experiment.base.types import Question
from experiment.evaluate.large_check import Probe
from experiment.generate.models.base import Backend, CandidateScores

T = TypeVar("T")
CHECK, POOL = "check", "pool scores"  # the two registrations' kinds, their labels' first part


def label(kind: str, which: str) -> str:
    """A scoring's label: its kind, and which way or model ("check (whole)", "pool scores
    (small)")."""
    return f"{kind} ({which})"


def score_row(
    qid: str, label: str, text: str, score: float | str, cost: Any, **rest: Any
) -> dict[str, Any]:
    """One row of the run's scores table (`record.columns.SCORES`): a scored text under its
    scoring's label, with the cost its calls carry (`cost`: a result with `prompt_tokens`,
    `seconds`, `evaluated_tokens` and `flops`); `rest`, the columns a scoring fills beside
    (`tokens`, `picked`, `error`, `calls`), blank or false where it does not."""
    return {
        "question_id": qid,
        "scoring": label,
        "text": text,
        "score": score,
        "tokens": "",
        "picked": False,
        "error": "",
        "prompt_tokens": cost.prompt_tokens,
        "seconds": round(cost.seconds, 4),
        "evaluated_tokens": cost.evaluated_tokens,
        "flops": cost.flops,
        "calls": "",
    } | rest


def label_parts(text: str) -> tuple[str, str]:
    """A label's kind and which: `label`'s inverse ("" for which where there is none)."""
    kind, _, which = text.partition(" (")
    return kind, which.removesuffix(")")


@dataclass(frozen=True)
class Scoring(Generic[T]):
    """One way a model scores candidates (module docstring)."""

    label: str  # what the progress display calls it: "check (whole)", "pool scores (small)"
    role: str  # the model that scores: "small" or "large"
    probes: Callable[[Backend, Question], Sequence[Probe]]  # [] where there is nothing to score
    # the question's result from its calls' scores (the backend: its shape, for the cost)
    decide: Callable[[Backend, Question, Sequence[Probe], Sequence[CandidateScores]], T]
    failed: Callable[[Question, str], T]  # a question whose call raised, with the error
    # a question's result as its rows of the run's one scores table (`record.columns.SCORES`):
    # the question's id, this label, each scored text and its score, and the calls' cost
    rows: Callable[[str, T], Iterable[Mapping[str, Any]]] = lambda _qid, _result: ()


@dataclass(frozen=True)
class ScoringResults(Generic[T]):
    """A scoring a run made, and its result by question id (`runner.score_all`)."""

    scoring: Scoring[T]
    made: Mapping[str, T]

    @property
    def kind(self) -> str:
        return label_parts(self.scoring.label)[0]

    @property
    def which(self) -> str:
        return label_parts(self.scoring.label)[1]

    def rows(self, question_ids: Iterable[str]) -> Iterable[Mapping[str, Any]]:
        """Its rows of the scores table, question by question in `question_ids`' order."""
        for qid in question_ids:
            if qid in self.made:
                yield from self.scoring.rows(qid, self.made[qid])

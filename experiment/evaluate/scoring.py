"""A scoring: one way a model weighs texts it did not write, declared once and run by one runner
step (`runner.score_all`).

A `Scoring` names which model scores (`role`), the calls it makes for a question (`probes`: the
prompt and the texts after it, "unknown" last; none where there is nothing to score), how the
scores decide (`decide`) and what a failed question records (`failed`). The large model's checks
of the small model's confirmed candidates (`large_check`, one scoring per mode) and a model's
scores of a question's pool (`drafts`, one per model) are two registrations of it; a new scoring
signal is one more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from experiment.base.types import Question
from experiment.evaluate.large_check import Probe
from experiment.generate.models.base import Backend, CandidateScores

T = TypeVar("T")


@dataclass(frozen=True)
class Scoring(Generic[T]):
    """One way a model scores candidates (module docstring)."""

    label: str  # what the progress display calls it: "check (whole)", "pool scores (small)"
    role: str  # the model that scores: "small" or "large"
    probes: Callable[[Backend, Question], Sequence[Probe]]  # [] where there is nothing to score
    # the question's result from its calls' scores (the backend: its shape, for the cost)
    decide: Callable[[Backend, Question, Sequence[Probe], Sequence[CandidateScores]], T]
    failed: Callable[[Question, str], T]  # a question whose call raised, with the error

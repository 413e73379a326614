"""What a method reads for one question (`QuestionSamples`): its confirmed samples, the large
model's answer, the article, and the checks and pool scores where the run made them. It sits
apart from the `Method` type (`registry`), which so imports no concrete input."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from experiment.base.types import Article, Question
from experiment.evaluate.answer import Answer
from experiment.evaluate.drafts import Drafts
from experiment.evaluate.features import ConfirmedAnswer, candidates
from experiment.evaluate.judge import Gold, gold_of, sample_right
from experiment.evaluate.large_check import Check
from experiment.evaluate.pool import PoolCandidate, pool
from experiment.evaluate.selector import SelectorModel


@dataclass
class QuestionSamples:
    """One question's confirmed samples, as every method's function reads them: the first k of
    the small model's, the large model's answer, the article when the selectors need it."""

    question: Question
    small: list[Answer]
    large: Answer | None  # None where only the small model answered (`factqa ask`)
    k: int
    article: Article | None = None
    selector: SelectorModel | None = None  # None: the shipped one
    checks: Mapping[str, Check] | None = None  # the large model's checks by mode; None: not run
    drafts: Mapping[str, Drafts] | None = None  # each model's scores of the pool; None: not run
    prompt: str = "figure"  # the run's prompt setting: which questions it routes to calculation

    @cached_property
    def gold(self) -> tuple[Gold, ...]:
        return tuple(gold_of(self.question))

    @cached_property
    def candidates(self) -> list[ConfirmedAnswer]:
        """The distinct confirmed answers with their evidence features (the selectors')."""
        assert self.article is not None, "the selectors need the article"
        return candidates(self.question, self.article, self.small)

    @cached_property
    def text_pool(self) -> list[PoolCandidate]:
        """Every value of the asked kind the article states (`pool.pool`, no sample), which the
        text-only and the pool's methods rank."""
        assert self.article is not None, "the pool's methods read the article"
        return pool(self.question, self.article)

    @property
    def large_answer(self) -> Answer:
        """The large model's answer, for the methods that need it."""
        assert self.large is not None, "this method needs the large model's answer"
        return self.large

    @cached_property
    def all_failed(self) -> bool:
        return all(s.failed for s in self.small)

    def right(self, s: Answer) -> bool:
        """Whether one sample's answer is right by the judge."""
        return sample_right(s, self.question, self.gold)

"""The method registry: every way of choosing an answer from the same samples is one `Method`.

A method has a name pattern (`small-verified@{k}`), what it needs (`NEEDS`), whether it keeps
one answer, and one function: per question (`answer`: a question's confirmed samples to a
`Choice`) or over every question (`route`: the routed cascades, which rank questions by another
method's confidence). Everything that lists methods (the summary, curves, routing, exports,
console, Markdown, HTML, notebook) iterates `REGISTRY`, so a new method is one `register` call;
its name is formatted only here (`Method.name`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from experiment.base.types import Question, known_sum
from experiment.evaluate.answer import Answer
from experiment.evaluate.judge import judge

if TYPE_CHECKING:
    from experiment.evaluate.question_samples import QuestionSamples

# What a method can need: the small model's samples, the large model's answer, the article (the
# selectors' evidence features), every question's answers at once (routing by confidence), and
# the large model's checks of the small model's candidates (`large_check`), and each model's
# scores of the question's pool (`drafts`: "small-text", "large-text"), and whether the run gives
# computed questions the calculation prompt, so that the models scored their proposals ("computed").
NEEDS = frozenset(
    {"small", "large", "article", "all-questions", "check", "small-text", "large-text", "computed"}
)


@dataclass(frozen=True)
class Choice:
    """What a method's function decides for one question: the sample whose answer it gives
    (None: it abstained, or `failed`), the samples it paid for, and how sure it is."""

    chosen: Answer | None
    paid: Sequence[Answer]
    agreement: float = 1.0  # share of the k samples that give the chosen value (1: one answer)
    confidence: float | None = None  # the method's own confidence; None: its agreement
    large_calls: int = 0
    failed: bool = False  # no answer because the model failed, not because it abstained
    correct: bool | None = None  # None: judged from `chosen` (small-pass@k decides its own)
    extra: Spend | None = None  # what it paid besides `paid`'s samples (a check's calls)


@dataclass(frozen=True)
class Spend:
    """Model work that is not a sample: the large model's scoring calls."""

    prompt_tokens: int = 0
    seconds: float = 0.0
    evaluated_tokens: int | None = 0
    flops: float | None = 0.0


@dataclass(frozen=True)
class MethodAnswer:
    method: str
    chosen: Answer | None  # the sample whose answer is given; None when there is none
    correct: bool
    agreement: float  # share of the samples that give the chosen value
    confidence: float  # what the routed cascades and risk-coverage rank answers by
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    large_calls: int
    failed: bool = False  # no answer because the model failed, not because it abstained
    samples: int = 0  # small-model samples the method paid for (fewer than k when stopped early)
    evaluated_tokens: int | None = None  # what the paid samples evaluated; None: any unknown
    flops: float | None = None
    # large@1 only: the article prefix its call read from the model's cache, which an earlier
    # question of the article paid for; a call alone would evaluate it too (routed cascades)
    prefix_tokens: int = 0
    prefix_flops: float | None = 0.0

    @property
    def answered(self) -> bool:
        return self.chosen is not None

    @property
    def abstained(self) -> bool:
        """No answer, deliberately: the model said "not stated" or the method declined."""
        return self.chosen is None and not self.failed

    @property
    def in_text_wrong(self) -> bool:
        """Answered, confirmed by the article, and still wrong: the verifier's blind spot."""
        return self.chosen is not None and self.chosen.attempt.confirmed and not self.correct


MethodAnswers = dict[str, dict[str, MethodAnswer]]  # answers[question id][method name]
Answerer = Callable[["QuestionSamples"], Choice]
# (questions, every per-question answer, k, the routed method) -> its answer by question id
Router = Callable[[Sequence[Question], MethodAnswers, int, "Method"], dict[str, MethodAnswer]]


@dataclass(frozen=True)
class Method:
    """One named method. `pattern` holds `{k}` when the method depends on k (then it is in the
    accuracy-against-k curve); `answer` or `route` computes it."""

    pattern: str
    needs: frozenset[str]
    answer: Answerer | None = None
    route: Router | None = None
    keeps_one: bool = True  # names one answer (small-pass@k does not: no confirmed-wrong count)
    confident: bool = False  # its confidence varies by question (AUROC, risk-coverage)
    router_rank: int = 0  # ranks questions for the routing curve (1 first; 0: it does not)
    base: Method | None = None  # the method a routed cascade ranks by
    share: float = 0.0  # the share of questions a routed cascade sends to the large model
    to: Method | None = None  # what a routed cascade sends them to (None: large@1)

    def __post_init__(self) -> None:
        unknown = self.needs - NEEDS
        if unknown or (self.answer is None) == (self.route is None):
            raise ValueError(f"method {self.pattern}: needs {sorted(unknown)}, one function")

    @property
    def per_k(self) -> bool:
        return "{k}" in self.pattern

    @property
    def family(self) -> str:
        """The name without its k: `small-verified` for `small-verified@{k}`."""
        return self.pattern.replace("@{k}", "")

    def name(self, k: int) -> str:
        return self.pattern.format(k=k)

    def available(self, has: frozenset[str]) -> bool:
        return self.needs <= has

    def run(self, qs: QuestionSamples) -> MethodAnswer:
        """This method's answer to one question (a per-question method)."""
        assert self.answer is not None
        return settle(self.name(qs.k), qs, self.answer(qs))


def settle(name: str, qs: QuestionSamples, c: Choice) -> MethodAnswer:
    """A method's `Choice` judged against the gold and costed."""
    extra = c.extra or Spend()
    correct = c.correct
    if correct is None:
        text = c.chosen.attempt.raw_text if c.chosen else ""
        value = c.chosen.value if c.chosen else None
        written = c.chosen.written if c.chosen else None
        correct = judge(value, qs.question, qs.gold, text, not c.failed, written)
    return MethodAnswer(
        method=name,
        chosen=c.chosen,
        correct=correct,
        agreement=c.agreement,
        confidence=c.agreement if c.confidence is None else c.confidence,
        prompt_tokens=sum(s.attempt.prompt_tokens for s in c.paid) + extra.prompt_tokens,
        completion_tokens=sum(s.attempt.completion_tokens for s in c.paid),
        seconds=sum(s.attempt.seconds for s in c.paid) + extra.seconds,
        large_calls=c.large_calls,
        failed=c.failed,
        samples=sum(s.attempt.role == "small" for s in c.paid),
        evaluated_tokens=known_sum(
            [*(s.attempt.evaluated_tokens for s in c.paid), extra.evaluated_tokens]
        ),
        flops=known_sum([*(s.attempt.flops for s in c.paid), extra.flops]),
    )


class Registry:
    """The methods in the order every table lists them."""

    def __init__(self) -> None:
        self._methods: list[Method] = []

    def register(self, method: Method, before: Method | None = None) -> Method:
        if any(m.pattern == method.pattern for m in self._methods):
            raise ValueError(f"method {method.pattern} is registered already")
        at = self._methods.index(before) if before is not None else len(self._methods)
        self._methods.insert(at, method)
        return method

    def unregister(self, method: Method) -> None:
        self._methods.remove(method)

    def __iter__(self) -> Iterator[Method]:
        return iter(list(self._methods))

    def available(self, has: frozenset[str] = NEEDS) -> list[Method]:
        return [m for m in self._methods if m.available(has)]

    def names(self, k: int, has: frozenset[str] = NEEDS) -> list[str]:
        return [m.name(k) for m in self.available(has)]

    def per_question(self, has: frozenset[str] = NEEDS) -> list[Method]:
        return [m for m in self.available(has) if m.answer is not None]

    def routed(self, has: frozenset[str] = NEEDS) -> list[Method]:
        return [m for m in self.available(has) if m.route is not None]

    def routers(self) -> list[Method]:
        """The methods whose confidence the routing curve ranks by, first ranked first."""
        return sorted((m for m in self._methods if m.router_rank), key=lambda m: m.router_rank)

    def curve(self, has: frozenset[str] = NEEDS) -> list[Method]:
        """The k-dependent per-question methods: the accuracy-against-k curve."""
        return [m for m in self.per_question(has) if m.per_k]

    def by_name(self, name: str, k: int) -> Method:
        for m in self._methods:
            if m.name(k) == name:
                return m
        raise KeyError(name)


REGISTRY = Registry()


@contextmanager
def registered(method: Method, before: Method | None = None) -> Iterator[Method]:
    """`method` in the registry for the duration (tests, experiments in a notebook)."""
    REGISTRY.register(method, before)
    try:
        yield method
    finally:
        REGISTRY.unregister(method)

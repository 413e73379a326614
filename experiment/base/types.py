"""Frozen records that flow through the pipeline; their field names become CSV columns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Kind = Literal["figure", "date"]
UNANSWERABLE = "unanswerable"
BUNDLED = "bundled OrigoTech corpus"  # the data set name of the corpus in articles/
ERROR_PREFIX = "error"  # the finish reason of a sample whose generation raised


@dataclass(frozen=True)
class Article:
    id: str
    title: str
    published: str
    text: str
    source: Path


@dataclass(frozen=True)
class Question:
    id: str
    article_id: str
    text: str
    gold: tuple[str, ...]
    kind: Kind
    notes: str = ""
    # The unit of dependence for statistics: questions of one cluster are resampled together
    # (a SQuAD Wikipedia title, a DROP passage, a TAT-QA source unit: the contexts that share a
    # paragraph); empty means the article.
    cluster: str = ""
    computed: bool = False  # the gold is derived from the text (a sum, a count), not stated in it

    def __post_init__(self) -> None:
        if not self.cluster:
            object.__setattr__(self, "cluster", self.article_id)

    @property
    def unanswerable(self) -> bool:
        return self.gold == (UNANSWERABLE,)


@dataclass(frozen=True)
class Generation:
    """What a backend returns for one sample: raw text and its cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str = "stop"
    # Sum of the answer tokens' log-probabilities under the model's own (untempered) distribution,
    # where the backend reports it; the selector reads it as the model's confidence in the answer.
    logprob: float | None = None
    # What the model evaluated for this sample (None: unknown, e.g. a cache row written before
    # they were kept): the tokens it ran through the network (a prompt prefix it had cached is not
    # counted; a prompt shared by k samples is counted on the first) and their model FLOPs
    # (`experiment.generate.models.cost`).
    evaluated_tokens: int | None = None
    flops: float | None = None

    @property
    def errored(self) -> bool:
        """The model raised instead of answering (see `sampling.errored`)."""
        return self.finish_reason.startswith(ERROR_PREFIX)


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Attempt:
    """One sample of one model for one question, raw output beside the processed one."""

    question_id: str
    article_id: str
    role: Literal["small", "large"]
    model: str
    sample_index: int
    seed: int
    temperature: float
    raw_text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached: bool
    answer: str  # the extracted figure or date as written; "" when none
    value: str  # canonical value, "" when none
    candidates: tuple[str, ...] = field(default_factory=tuple)
    confirmed: bool = False
    spans: tuple[Span, ...] = ()  # every place the article confirms the answer, in text order
    reason: str = ""
    context: str = "whole"  # "whole", or the window or excerpt of the article the model read
    logprob: float | None = None  # the answer's log-probability under the model, when known
    round: int = 1  # the sampling round it was drawn in (adaptive sampling; 1 otherwise)
    drawn: int = 1  # samples drawn for its question by this model (k unless stopped early)
    # An answer given with its working (`RESULT = EXPRESSION`, the derive prompt): `answer` is the
    # result; `working` the expression as written, "" for a figure alone; `derived` whether the
    # derivation checker confirms it (every operand in the article, the arithmetic right);
    # `derivation_reason` why not; `operand_spans` each operand's evidence, in written order.
    working: str = ""
    derived: bool = False
    derivation_reason: str = ""
    operand_spans: tuple[Span, ...] = ()
    evaluated_tokens: int | None = None  # as on `Generation`: what this sample cost the model
    flops: float | None = None

    @property
    def span(self) -> Span | None:
        """The first confirming span: the evidence shown for the answer."""
        return self.spans[0] if self.spans else None


def spans_cell(spans: tuple[Span, ...]) -> str:
    """Every confirming span as one CSV cell: `start:end` pairs separated by spaces."""
    return " ".join(f"{s.start}:{s.end}" for s in spans)


def span_cells(span: Span | None) -> dict[str, Any]:
    """The evidence span as the three CSV cells every export uses; empty when there is none."""
    if span is None:
        return {"span_start": "", "span_end": "", "span_text": ""}
    return {"span_start": span.start, "span_end": span.end, "span_text": span.text}


def known_sum(parts: Sequence[float | None]) -> Any:
    """The sum of costs, or None when any part is unknown."""
    return None if any(p is None for p in parts) else sum(parts)  # type: ignore[misc]

"""The distinct confirmed answers of one question, each with evidence features (no gold used).

A candidate is one cluster of confirmed samples that give the same answer (the clusters of
`experiment.evaluate.vote`). Its features, all in [0, 1] or [-1, 0]:

| feature          | what it measures                                                          |
| ---------------- | ------------------------------------------------------------------------- |
| `type_fit`       | the asked type against the candidate's (`answer_type`): 1, 0.5 or 0       |
| `overlap`        | share of the question's terms in the evidence sentence (`evidence`)       |
| `overlap_window` | the same over the sentence and its neighbours                             |
| `bm25`           | the sentence's BM25 score for the question over the best sentence's       |
| `best_sentence`  | 1 when the evidence is in the sentence most similar to the question       |
| `proximity`      | 1 / (1 + words from the span to the nearest question term)                |
| `in_question`    | 1 when the question itself states the value ("in 2019, how many...")      |
| `precision`      | a date's precision: day 1, month 2/3, anything coarser 1/3; numbers 1     |
| `votes`          | the candidate's share of the confirmed samples                            |
| `support`        | the share of confirmed samples that it implies: its own, those of coarser |
|                  | dates it lies within ("1974" backs "March 1974"), those of its bounds     |
|                  | when it is a range ("100" backs "100-150")                                |
| `share`          | its share of all k samples                                                |
| `rivals`         | 1 / the number of distinct confirmed candidates                           |
| `logprob`        | the best log-probability of its samples' text under the small model, /30, |
|                  | clipped to [-1, 0] (empty when the backend does not report it)            |
| `period_same`    | the question's period is its context's (`context`: a cell's headers, the  |
|                  | nearest period in its sentence), by the share of the period kinds asked   |
| `period_other`   | its context names another period of a kind the question asks for          |
| `cover`          | share of the question's measure terms in its context (a cell's row and    |
|                  | column headers and caption; its sentence)                                 |

Three features are the question's, the same for each of its candidates, so that the selector's
threshold can abstain where the article does not answer:

| feature          | what it measures                                                          |
| ---------------- | ------------------------------------------------------------------------- |
| `uncovered`      | share of the question's measure terms in no candidate's context           |
| `period_absent`  | share of the period kinds asked whose atom is nowhere in the article      |
| `not_stated`     | share of the k samples that say the article does not state it             |

Where a candidate is confirmed at several spans (every span its verification found, kept on the
attempt), the span with the best alignment counts, and it is the evidence shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from experiment.base.types import Article, Question, Span
from experiment.evaluate.answer import Answer
from experiment.evaluate.answer_type import asked_type, type_fit
from experiment.evaluate.context import context_of, cover, measure_terms, period_match
from experiment.evaluate.evidence import Alignment, QuestionView
from experiment.evaluate.vote import clusters, shown
from experiment.values.canonical import DateValue, Quantity, Value, quantities_equal, supports
from experiment.values.normalize import scan
from experiment.values.periods import Atom, atoms, by_kind

FEATURES = (
    "type_fit",
    "overlap",
    "overlap_window",
    "bm25",
    "best_sentence",
    "proximity",
    "in_question",
    "precision",
    "votes",
    "support",
    "share",
    "rivals",
    "logprob",
    "period_same",
    "period_other",
    "cover",
    "uncovered",
    "period_absent",
    "not_stated",
)
LOGPROB_SCALE = 30.0


@dataclass(frozen=True)
class ConfirmedAnswer:
    """One distinct confirmed answer of a question, with its evidence and features."""

    value: Value
    canonical: str
    index: int  # the sample whose answer is shown (earliest giving the canonical value)
    samples: tuple[int, ...]  # every sample in the cluster
    span: Span
    sentence: tuple[int, int]
    features: dict[str, float | None]


def _in_question(value: Value, question: str) -> float:
    return float(any(supports(v, value) for m in scan(question) for v in m.values))


def _precision(value: Value) -> float:
    """Finer dates first: a day is never wrong where its month or year is right (the judge)."""
    if not isinstance(value, DateValue):
        return 1.0
    return {"day": 1.0, "month": 2 / 3}.get(value.granularity, 1 / 3)


def _may_back(value: Value) -> bool:
    """Whether another cluster can back `value`: only a range (its bounds) or a date (coarser
    dates); plain numbers that back each other are one cluster already."""
    return not isinstance(value, Quantity) or value.is_range or value.as_year() is not None


def backs(other: Value, value: Value) -> bool:
    """An answer `other` that `value` implies: the same, a coarser date that `value` lies
    within, or one bound of the range `value`."""
    if isinstance(value, Quantity) and isinstance(other, Quantity):
        if value.is_range and not other.is_range and other.unit == value.unit:
            return other.low in (value.low, value.high)
        return quantities_equal(value, other)
    return supports(value, other)


def _logprob(small: Sequence[Answer], members: Sequence[int]) -> float | None:
    known = [small[i].attempt.logprob for i in members if small[i].attempt.logprob is not None]
    if not known:
        return None
    return max(-1.0, min(0.0, max(known) / LOGPROB_SCALE))  # type: ignore[type-var]


def _best_span(view: QuestionView, spans: Sequence[Span]) -> tuple[Span, Alignment]:
    aligned = [(s, view.align(s.start, s.end)) for s in spans]
    return max(aligned, key=lambda sa: (sa[1].score, -sa[0].start))


@dataclass(frozen=True)
class Asked:
    """A question read once for the evidence features of its candidates: its view of the
    article (`evidence`), the type, period and measure it asks for."""

    view: QuestionView
    type: str
    period: tuple[Atom, ...]
    measure: frozenset[str]

    @classmethod
    def of(cls, q: Question, article: Article) -> Asked:
        period = tuple(atoms(q.text))
        return cls(
            QuestionView.of(article.text, q.text), asked_type(q.text), period, measure_terms(q.text)
        )


@dataclass(frozen=True)
class Evidence:
    """A value's evidence at its best span: the span, its sentence, its context's text, and the
    features that need no sample (`type_fit` .. `precision`, `period_same` .. `cover`)."""

    span: Span
    sentence: tuple[int, int]
    context: str
    features: dict[str, float | None]


def evidence(
    asked: Asked, q: Question, article: Article, value: Value, spans: Sequence[Span]
) -> Evidence:
    """The evidence features of `value` where the article states it at `spans` (the best
    aligned span counts; none: an empty span at 0)."""
    span, al = _best_span(asked.view, spans or (Span(0, 0, ""),))
    ctx = context_of(article.text, span.start, span.end, al.sentence)
    match = period_match(asked.period, ctx.period)
    return Evidence(
        span,
        al.sentence,
        ctx.text,
        {
            "type_fit": type_fit(asked.type, value),
            "overlap": al.overlap,
            "overlap_window": al.overlap_window,
            "bm25": al.bm25,
            "best_sentence": al.best_sentence,
            "proximity": al.proximity,
            "in_question": _in_question(value, q.text),
            "precision": _precision(value),
            "period_same": match.same,
            "period_other": match.other,
            "cover": cover(asked.measure, ctx.text),
        },
    )


def question_features(
    asked: Asked, article: Article, contexts: Sequence[str], small: Sequence[Answer]
) -> dict[str, float | None]:
    """The question-level features (`uncovered`, `period_absent`, `not_stated`), given every
    candidate's context text and the small model's samples (none: nothing said "not stated")."""
    asked_kinds = by_kind(list(asked.period))
    stated_kinds = by_kind(atoms(article.text))
    return {
        "uncovered": 1.0 - cover(asked.measure, " ".join(contexts)),
        "period_absent": sum(not asked_kinds[k] & stated_kinds.get(k, set()) for k in asked_kinds)
        / len(asked_kinds)
        if asked_kinds
        else 0.0,
        "not_stated": sum(s.abstained for s in small) / len(small) if small else 0.0,
    }


def sample_features(
    small: Sequence[Answer],
    confirmed: Sequence[int],
    members: Sequence[int],
    groups: Sequence[Sequence[int]],
    value: Value,
) -> dict[str, float | None]:
    """The features the samples give a candidate of `value` whose confirmed samples are
    `members` (none: nothing sampled it), among the question's sampled clusters `groups` of its
    `confirmed` samples: `votes`, `support` (its own and the other clusters it implies: coarser
    dates, a range's bounds), `share`, `rivals`, `logprob`; 0 or empty with nothing to count."""
    backing = len(members)
    if _may_back(value):
        values = [s.value for s in small]
        backing += sum(
            len(other)
            for other in groups
            if list(other) != list(members) and backs(values[shown(values, other)[1]], value)  # type: ignore[arg-type]
        )
    n = len(confirmed)
    return {
        "votes": len(members) / n if n else 0.0,
        "support": backing / n if n else 0.0,
        "share": len(members) / len(small) if small else 0.0,
        "rivals": 1.0 / len(groups) if groups else 0.0,
        "logprob": _logprob(small, members),
    }


def in_order(features: dict[str, float | None]) -> dict[str, float | None]:
    """`features` in `FEATURES` order (the columns every table lists)."""
    return {k: features[k] for k in FEATURES if k in features}


def candidates(q: Question, article: Article, small: Sequence[Answer]) -> list[ConfirmedAnswer]:
    """The distinct confirmed answers among `small`, in the vote's order of first appearance."""
    confirmed = [i for i, s in enumerate(small) if s.value is not None and s.attempt.confirmed]
    if not confirmed:
        return []
    values = [s.value for s in small]
    groups = clusters(values, confirmed)
    asked = Asked.of(q, article)
    contexts = []
    out = []
    for members in sorted(groups, key=min):
        canonical, index = shown(values, members)
        value = values[index]
        assert value is not None
        # where it was confirmed
        ev = evidence(asked, q, article, value, small[index].attempt.spans)
        contexts.append(ev.context)
        features = {**ev.features, **sample_features(small, confirmed, members, groups, value)}
        out.append(
            ConfirmedAnswer(
                value,
                canonical,
                index,
                tuple(sorted(members)),
                ev.span,
                ev.sentence,
                in_order(features),
            )
        )
    question_level = question_features(asked, article, contexts, small)
    for c in out:
        c.features.update(question_level)
    return out

"""The pool: every answer the article states for a question, merged with the small model's.

For a question whose answer the article states, that answer is one of the article's own
mentions of the asked kind, so the candidates are known before any model runs (issue 39,
"the article drafts, the model checks"). The pool of a question is
- **text**: every distinct value of the asked kind the article states (`values/tables`'
  `article_mentions`: prose mentions, and table cells read in their table's scale: "142.9" under
  "$ in millions" is $142.9 million, its written figure kept for the judge; for a date question
  every date the text writes, at the precision it writes it), each with every span stating it;
  a mention inside an instruction addressed to the model is no candidate (as in `verify`);
- **sampled**: the small model's confirmed samples;
- merged as the vote clusters answers (`vote.clusters` over both at once), each candidate with
  its `origin`: `sampled`, `text` or `both`.

Every candidate has the selector's features (`features.evidence` at its best span, the
question's own features over the whole pool); the sample features (`votes`, `share`, `support`,
`logprob`) are 0 or empty where nothing sampled it (`support` still counts the samples that
back it: a sampled "2009" backs the text's "3 March 2009"), and `rivals` is the question's
(1 / the sampled clusters; 0 with none). `text` is the form the article writes (the scale of a
table's cell written out: "$142.9 million"), the form a model would score as the whole answer;
`small_score` is left for that score (issue 39's model scoring; None here).

**The model-free rank** (`text_rank`) is the shipped logistic selector (`selector.learned`)
without its sample features (`SAMPLE_FEATURES`): each then sits at its fitting mean and moves
no score, so the rank reads the evidence alone. It was fitted on sampled candidates, which are
nearly always of the asked type; a logistic regression refitted on the pool's own candidates
(the same evidence features, the fitting halves, out of fold grouped by title) put the gold
first no more often (74.2 / 70.0 / 64.2 % of the stated questions of SQuAD v1.1, v2.0 and TAT-QA
fitting, against 72.8 / 70.0 / 65.8 %), so no second model is shipped. `bounded` keeps the top
`POOL_N` by it, so scoring the pool later costs bounded tokens. `POOL_N` (the smallest N at
which every fitting set keeps the gold for 98 % of the questions its whole pool holds it for)
and `TEXT_ONLY_THRESHOLD` (the `text-only` method's abstention: the best mean accuracy over the
fitting sets) were fitted on the fitting halves by `factqa bench pool-coverage`, which prints
whether they still hold.

Trade-off: the text side is cached per article text and kind, so a question pays only for its
candidates' features (a few alignments each), never for re-reading the article.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from experiment.base.types import Article, Attempt, Question, Span
from experiment.evaluate.answer import Answer
from experiment.evaluate.features import (
    Asked,
    evidence,
    in_order,
    question_features,
    sample_features,
)
from experiment.evaluate.selector import SelectorModel, learned
from experiment.evaluate.vote import clusters, shown
from experiment.values.canonical import DateValue, Quantity, Value, quantities_equal
from experiment.values.numbers import CURRENCY_SYMBOLS
from experiment.values.tables import article_mentions, scaled_reading
from experiment.verify.injection import in_instruction, instruction_ranges

Origin = Literal["sampled", "text", "both"]
# The selector features a model gives (the small model's samples); neutral in `text_rank`
SAMPLE_FEATURES = frozenset({"votes", "support", "share", "rivals", "logprob", "not_stated"})
# Fitted on the fitting halves by `factqa bench pool-coverage` (module docstring)
POOL_N = 14
TEXT_ONLY_THRESHOLD = 0.3215


@dataclass(frozen=True)
class Stated:
    """One reading the article states: its value, the figure as written where the value is a
    scaled table cell's reading, and every mention that states exactly this reading."""

    value: Value
    written: Value | None
    spans: tuple[Span, ...]


@dataclass(frozen=True)
class PoolCandidate:
    """One candidate answer of a question's pool (module docstring)."""

    value: Value
    canonical: str
    text: str  # the article's form of it (with a cell's scale); a sampled-only one: the sample's
    written: Value | None  # the figure as written where `value` is a scaled cell's reading
    origin: Origin
    spans: tuple[Span, ...]  # every span that states it, in text order
    samples: tuple[int, ...]  # the confirmed samples in its cluster (empty: text only)
    index: int | None  # the sample whose answer is shown (None: text only)
    span: Span  # the best aligned span: the evidence shown
    sentence: tuple[int, int]
    features: dict[str, float | None]
    small_score: float | None = None  # the small model's log-probability of `text` (later)


def _of_kind(value: Value, kind: str) -> bool:
    """A figure question's candidates are figures; a date question's the dates the text reads
    as dates (a number in the text is a date only where the scanner read it as one)."""
    return isinstance(value, DateValue) if kind == "date" else isinstance(value, Quantity)


def _readings(value: Value) -> list[Value]:
    """A stated value, and a bound's figure alone: "up to 512 GB" also states 512 GB, as the
    verifier confirms a bare answer against a qualified figure (and as gold often writes it)."""
    if isinstance(value, Quantity) and value.qualifier:
        return [value, replace(value, qualifier="")]
    return [value]


@lru_cache(maxsize=512)
def text_values(text: str, kind: str) -> tuple[Stated, ...]:
    """Every distinct reading of `kind` the text states, in the order of its first mention;
    a bare figure in a scaled table cell stands as its scaled reading, written figure kept, and
    a bound's figure also stands alone (`_readings`)."""
    guarded = bool(instruction_ranges(text))
    found: dict[Value, tuple[Value | None, list[Span]]] = {}
    for m in article_mentions(text):
        if guarded and in_instruction(text, m.start, m.end):
            continue
        span = Span(m.start, m.end, m.text)
        for r in (r for v in m.values if _of_kind(v, kind) for r in _readings(v)):
            scaled = scaled_reading(text, (span,), r)
            value, written = (scaled, r) if scaled is not None else (r, None)
            old_written, spans = found.setdefault(value, (written, []))
            if old_written is None and written is not None:
                found[value] = (written, spans)
            if span not in spans:
                spans.append(span)
    return tuple(Stated(v, w, tuple(spans)) for v, (w, spans) in found.items())


_SYMBOL_OF = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹"}
CURRENCIES = frozenset(_SYMBOL_OF)  # the currencies `scaled_form` writes with their symbol
_FACTOR_WORDS = {1e3: "thousand", 1e6: "million", 1e9: "billion"}
_NOT_FIGURE = re.compile(r"[()\s]|" + "|".join(re.escape(s) for s in CURRENCY_SYMBOLS), re.I)


def written_form(span: Span, value: Value, written: Value | None) -> str:
    """How the article states `value` at `span`: the mention as written, or for a scaled cell
    its figure with the scale written out ("142.9" under "$ in millions": "$142.9 million";
    "(120.5)" there: "-$120.5 million"; under "%": "12.5%")."""
    if written is None or not isinstance(value, Quantity) or not isinstance(written, Quantity):
        return span.text
    return scaled_form(_NOT_FIGURE.sub("", span.text), value, written)


def scaled_form(figure: str, value: Quantity, written: Quantity) -> str:
    """`figure` (the written figure, `written`'s) with the scale of `value` written out:
    "22.4" read as $22.4 million is "$22.4 million"; its sign is `value`'s."""
    figure = figure.lstrip("-−")
    sign = "-" if value.low < 0 else ""
    if value.unit == "%":
        return f"{sign}{figure}%"
    factor = round(value.low / written.low) if written.low else 1
    word = f" {_FACTOR_WORDS[factor]}" if factor in _FACTOR_WORDS else ""
    symbol = _SYMBOL_OF.get(value.unit, "")
    unit = f" {value.unit}" if value.unit and not symbol else ""
    return f"{sign}{symbol}{figure}{word}{unit}"


def _text_pick(members: Sequence[Stated]) -> Stated:
    """The reading a text-only cluster shows: the most often stated (ties: sorts first)."""
    return min(members, key=lambda s: (-len(s.spans), s.value.canonical()))


def pool(
    q: Question, article: Article, small: Sequence[Answer] = (), asked: Asked | None = None
) -> list[PoolCandidate]:
    """The question's whole pool (module docstring): the sampled clusters in the vote's order of
    first appearance, then the text's own in the order the article states them."""
    stated = text_values(article.text, q.kind)
    k = len(small)
    confirmed = [i for i, s in enumerate(small) if s.value is not None and s.attempt.confirmed]
    values: list[Value | None] = [s.value for s in small] + [t.value for t in stated]
    groups = clusters(values, confirmed + list(range(k, len(values))))
    sampled_groups = [[i for i in g if i < k] for g in groups if min(g) < k]
    asked = asked or Asked.of(q, article)
    out: list[PoolCandidate] = []
    contexts: list[str] = []
    for g in sorted(groups, key=min):  # samples first (indices < k), then the text's
        sampled = [i for i in g if i < k]
        texts = [stated[i - k] for i in g if i >= k]
        if sampled:
            canonical, index = shown(values, sampled)
            value, written = small[index].value, small[index].written
            assert value is not None
            own = [*small[index].attempt.spans]
        else:
            pick = _text_pick(texts)
            value, written, index, own = pick.value, pick.written, None, []
            canonical = value.canonical()
        if written is None and isinstance(value, Quantity):
            written = next(
                (
                    t.written
                    for t in texts
                    if t.written is not None
                    and isinstance(t.value, Quantity)
                    and quantities_equal(t.value, value)
                ),
                None,
            )
        spans = tuple(sorted({*own, *(s for t in texts for s in t.spans)}, key=_span_key))
        ev = evidence(asked, q, article, value, spans)
        contexts.append(ev.context)
        text = small[index].attempt.answer if index is not None else ""
        if texts:
            at = next((t for t in texts if ev.span in t.spans), texts[0])
            text = written_form(
                ev.span if ev.span in at.spans else at.spans[0], at.value, at.written
            )
        features = {
            **ev.features,
            **sample_features(small, confirmed, sampled, sampled_groups, value),
        }
        origin: Origin = "both" if sampled and texts else "sampled" if sampled else "text"
        out.append(
            PoolCandidate(
                value,
                canonical,
                text,
                written,
                origin,
                spans,
                tuple(sampled),
                index,
                ev.span,
                ev.sentence,
                in_order(features),
            )
        )
    question_level = question_features(asked, article, contexts, small)
    for c in out:
        c.features.update(question_level)  # the last of `FEATURES`: still in order
    return out


def _span_key(s: Span) -> tuple[int, int]:
    return (s.start, s.end)


@lru_cache(maxsize=1)
def text_rank() -> SelectorModel:
    """The model-free rank: the shipped selector without its sample features (module
    docstring), abstaining under `TEXT_ONLY_THRESHOLD`."""
    model = learned()
    weights = {f: w for f, w in model.weights.items() if f not in SAMPLE_FEATURES}
    return replace(model, name="text-rank", weights=weights, threshold=TEXT_ONLY_THRESHOLD)


def ranked(
    cands: Sequence[PoolCandidate], model: SelectorModel | None = None
) -> list[tuple[PoolCandidate, float]]:
    """`cands` with their scores by `model` (default: `text_rank`), best first; ties go to the
    candidate the article states first."""
    model = model or text_rank()
    scored = [(c, model.score(c.features)) for c in cands]
    return sorted(scored, key=lambda cs: (-cs[1], cs[0].span.start, cs[0].canonical))


def bounded(
    cands: Sequence[PoolCandidate], n: int = POOL_N, model: SelectorModel | None = None
) -> list[PoolCandidate]:
    """The top `n` of `cands` by the model-free rank (all of them where there are fewer)."""
    return [c for c, _ in ranked(cands, model)[:n]]


def text_attempt(
    q: Question, raw_text: str, answer: str, value: str, spans: tuple[Span, ...], **more: object
) -> Attempt:
    """An answer the text drafted, as an attempt: no model said it, so it costs nothing
    (`sample_index` -1, no tokens), confirmed at `spans`; `more` sets the working fields."""
    return Attempt(
        question_id=q.id,
        article_id=q.article_id,
        role="small",
        model="",
        sample_index=-1,
        seed=0,
        temperature=0.0,
        raw_text=raw_text,
        prompt_tokens=0,
        completion_tokens=0,
        seconds=0.0,
        cached=False,
        answer=answer,
        value=value,
        confirmed=True,
        spans=spans,
        context="text",
        evaluated_tokens=0,
        flops=0.0,
        **more,  # type: ignore[arg-type]
    )


def as_answer(c: PoolCandidate, q: Question) -> Answer:
    """A text candidate as the answer a method gives (`text_attempt`), its evidence span shown
    first."""
    others = tuple(s for s in c.spans if s != c.span)
    attempt = text_attempt(q, c.text, c.text, c.canonical, (c.span, *others))
    return Answer(attempt, c.value, c.written)

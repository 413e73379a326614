"""The computed question's pool: the kept proposals, merged with the small model's calculations.

Issue 40's model half. For a question that a run routes to the calculation prompt
(`is_computed`: a figure question whose wording asks for a computation,
`values/question_kind.asks_computation`, under the `calc` prompt, which `auto` gives it), the
models score the calculations the article drafts (`proposals.propose`, the top
`proposals.KEEP_N` by the model-free rank) instead of the values the article states
(`pool.pool`); `drafts.question_pools` routes a question to one pool or the other.

- **text**: each kept proposal's result, as written with its scale (`result_text`: "22.4" over
  cells under "$ in millions" is "$22.4 million"), the text a model would answer;
- **sampled**: the small model's samples that `small-derived@k` votes among (those whose
  working the derivation rule confirms where any is, else those the article confirms);
- merged as the vote clusters answers (`vote.clusters` over both at once): one candidate per
  value, with its `origin` (`sampled`, `text`, `both`), the best-ranked proposal of its cluster
  (its working shown, its text the one scored) and its features: `votes` and `share` (the
  samples in its cluster), `proposal_score` and `proposal_rank` (the best proposal's model-free
  score and rank; None for a value no proposal gives).

A candidate is a `pool.PoolCandidate` (its spans: the operands', its span: the first operand's),
so the scoring and ranking of `drafts` read it as they read the stated pool. Its text, the one
the models score, is in one of two `FORMS`: the result as written (`RESULT`, above), or the
calculation the calculation prompt asks for (`CALCULATION`: the proposal's expression over the
figures as the article writes them, "142.9 - 120.5"; a value only samples give, the sample's
own working). `RunConfig.derived_text` chooses; `factqa bench fit derived` compares them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from experiment.base.types import Article, Question, Span
from experiment.evaluate.answer import Answer
from experiment.evaluate.pool import CURRENCIES, Origin, PoolCandidate, scaled_form
from experiment.evaluate.proposals import (
    AVERAGE,
    DIFFERENCE,
    KEEP_N,
    SUM,
    Proposal,
    kept,
    propose,
    result_scale,
)
from experiment.evaluate.proposals import as_answer as proposal_answer
from experiment.evaluate.vote import clusters, shown
from experiment.generate.prompts import CALC, prompt_for
from experiment.values.canonical import Quantity, Value
from experiment.values.question_kind import asks_computation
from experiment.verify.derive import CALC_PLACES

_SCALE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
RESULT, CALCULATION = "result", "calculation"  # what a computed candidate's scored text is
FORMS = (RESULT, CALCULATION)
_NUMBER = re.compile(r"^[-−\d.,\s]+")


@dataclass(frozen=True)
class ProposedCandidate(PoolCandidate):
    """One value of a computed question's pool: a `PoolCandidate` with the best-ranked proposal
    of its cluster (None: only samples give it) and that proposal's rank (0 first)."""

    proposal: Proposal | None = None
    rank: int | None = None


def is_computed(q: Question, prompt: str) -> bool:
    """Whether a run with the `prompt` setting scores `q`'s proposals (the calculation prompt
    of a figure question that asks for a computation) rather than its stated pool."""
    return q.kind == "figure" and prompt_for(q, prompt) == CALC and asks_computation(q.text)


def result_text(p: Proposal, text: str) -> str:
    """A proposal's result as written with its scale, the form a model would answer and
    scores: table cells' in their table's scale (`proposals.result_scale`: "$22.4 million");
    a sum, difference or average of prose figures of one unit in that unit: an amount in the
    smallest scale word its figures are written with ("€1.12 billion - €982 million":
    "€138 million"), another unit in the first figure's words ("48 seconds - 31 seconds":
    "17 seconds"); else as computed."""
    scaled = result_scale(p, text)
    if scaled is not None:
        return scaled_form(p.result, scaled, p.value)
    units = {o.unit for o in p.operands}
    if p.operation not in (DIFFERENCE, SUM, AVERAGE) or len(units) != 1 or units & {"", "%"}:
        return p.result
    if units - CURRENCIES:
        words = _NUMBER.sub("", p.operands[0].text).strip()
        return f"{p.result} {words}" if words.replace(" ", "").isalpha() else p.result
    words = [f for o in p.operands for w, f in _SCALE_WORDS.items() if w in o.text.lower()]
    factor = min(words, default=1.0)
    low = p.value.low / factor
    figure = f"{abs(low):.{CALC_PLACES}f}".rstrip("0").rstrip(".")
    unit = units.pop()
    value = Quantity(p.value.low, p.value.high, unit)
    return scaled_form(figure, value, Quantity(low, low, unit))


def _voting(small: Sequence[Answer]) -> list[int]:
    """The samples small-derived@k votes among: those with a confirmed working where any has
    one, else the confirmed ones (answered, in either case)."""
    derived = [i for i, s in enumerate(small) if s.value is not None and s.attempt.derived]
    if derived:
        return derived
    return [i for i, s in enumerate(small) if s.value is not None and s.attempt.confirmed]


def proposal_pool(
    q: Question,
    article: Article,
    small: Sequence[Answer] = (),
    n: int = KEEP_N,
    form: str = RESULT,
) -> list[ProposedCandidate]:
    """The question's computed pool (module docstring): the kept top `n` proposals merged with
    `small`'s calculations, in the best proposal's rank order, then the values only samples
    give in the order they were sampled, each candidate's text in `form`; [] where the wording
    asks for no computation."""
    proposals = kept(propose(q.text, article.text), n) if q.kind == "figure" else []
    drafted = [proposal_answer(p, q, article) for p in proposals]
    k = len(small)
    values: list[Value | None] = [s.value for s in small] + [d.value for d in drafted]
    groups = clusters(values, _voting(small) + list(range(k, len(values))))
    out: list[ProposedCandidate] = []
    for g in groups:
        sampled = [i for i in g if i < k]
        ranks = sorted(i - k for i in g if i >= k)
        rank = ranks[0] if ranks else None
        index = shown(values, sampled)[1] if sampled else None
        out.append(_candidate(article, small, sampled, index, proposals, drafted, rank, form))
    return sorted(out, key=lambda c: (c.rank is None, c.rank or 0, min(c.samples, default=0)))


def _candidate(
    article: Article,
    small: Sequence[Answer],
    sampled: list[int],
    index: int | None,
    proposals: Sequence[Proposal],
    drafted: Sequence[Answer],
    rank: int | None,
    form: str = RESULT,
) -> ProposedCandidate:
    """One cluster as a candidate: the sample it shows where any is sampled, else its best
    proposal's answer; its text is the best proposal's result as written, or in the
    `CALCULATION` form its expression (a sample's own working where no proposal gives it)."""
    p = proposals[rank] if rank is not None else None
    shown_as = small[index] if index is not None else drafted[rank]  # type: ignore[index]
    value = shown_as.value
    assert value is not None
    a = shown_as.attempt
    spans = tuple(o.span for o in p.operands) if p is not None else a.operand_spans or a.spans
    span = spans[0] if spans else Span(0, 0, "")
    if form == CALCULATION:
        text = p.expression if p is not None else shown_as.attempt.working or _sample_text(shown_as)
    else:
        text = result_text(p, article.text) if p is not None else _sample_text(shown_as)
    origin: Origin = "both" if sampled and p is not None else "sampled" if sampled else "text"
    k = len(small)
    return ProposedCandidate(
        value=value,
        canonical=value.canonical(),
        text=text,
        written=shown_as.written,
        origin=origin,
        spans=spans,
        samples=tuple(sampled),
        index=index,
        span=span,
        sentence=(span.start, span.end),
        features={
            "votes": float(len(sampled)),
            "share": len(sampled) / k if k else 0.0,
            "proposal_score": p.score if p is not None else None,
            "proposal_rank": float(rank) if rank is not None else None,
        },
        proposal=p,
        rank=rank,
    )


def _sample_text(s: Answer) -> str:
    """A sample's answer as written with its scale (a calculation's result over scaled cells:
    "$22.4 million")."""
    answer = s.attempt.answer
    if isinstance(s.value, Quantity) and isinstance(s.written, Quantity):
        return scaled_form(answer, s.value, s.written)
    return answer

"""Why a kept answer was wrong although the article confirmed it: the verifier's blind spot.

Each confirmed-but-wrong answer gets one cause, tried in this order:
- "unanswerable, answered": the article does not answer the question, but the figure is in it;
- "scale slip": the same digits at another power of 1,000 ("94" for "€94 million");
- "unit slip": the same number with another or no unit or currency;
- "one bound of a range": the low or high end of a range the gold gives whole;
- "another date in the text" / "another figure in the text": a different value that the article
  does state (last year's figure, the rejected offer, the figure before a correction).

Rows come for small-verified@k and for the selectors (small-rule@k, small-selected@k), a
`method` column apart. Each row also says where the right answer was: `gold_status` is
"not sampled" (no sample was right), "sampled, not confirmed" (a right sample that the article
did not confirm), "confirmed, out-ranked" (a right candidate that the learned selector ranked
below the kept one) or "unanswerable"; `gold_rank` is the right candidate's rank (1 = first)
among the learned selector's ranking, and the kept candidate's features follow.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from experiment.base.types import Article, Question
from experiment.evaluate.answer import Answer
from experiment.evaluate.features import FEATURES, ConfirmedAnswer, candidates
from experiment.evaluate.judge import gold_of, gold_values, sample_right
from experiment.evaluate.registry import MethodAnswers
from experiment.evaluate.selector import learned, pick
from experiment.values.canonical import DateValue, Quantity, Value

CAUSES = (
    "unanswerable, answered",
    "scale slip",
    "unit slip",
    "one bound of a range",
    "another date in the text",
    "another figure in the text",
)


@dataclass(frozen=True)
class BlindSpot:
    question_id: str
    question: str
    gold: str
    answer: str
    evidence: str
    cause: str
    method: str = ""
    gold_status: str = ""
    gold_rank: int | None = None
    confidence: float | None = None  # the learned selector's score of the kept answer
    features: dict[str, float | None] | None = None  # the kept candidate's


def row(b: BlindSpot) -> dict[str, object]:
    """A CSV row: the fields, then one column per feature of the kept candidate."""
    out: dict[str, object] = {f: getattr(b, f) for f in COLUMNS[: -len(FEATURES)]}
    out.update({f: (b.features or {}).get(f) for f in FEATURES})
    return out


COLUMNS = [
    "method",
    "question_id",
    "question",
    "gold",
    "answer",
    "evidence",
    "cause",
    "gold_status",
    "gold_rank",
    "confidence",
    *FEATURES,
]


def _cause(value: Value, q: Question, gold: Sequence[Value]) -> str:
    if q.unanswerable:
        return CAUSES[0]
    if isinstance(value, Quantity):
        for g in gold:
            if not isinstance(g, Quantity) or not g.low or not value.low:
                continue
            ratio = math.log10(abs(g.low / value.low))
            if abs(ratio - round(ratio)) < 1e-9 and round(ratio) % 3 == 0 and round(ratio):
                return CAUSES[1]
            if math.isclose(g.low, value.low) and g.unit != value.unit:
                return CAUSES[2]
            if g.is_range and not value.is_range and value.low in (g.low, g.high):
                return CAUSES[3]
        return CAUSES[5]
    return CAUSES[4] if isinstance(value, DateValue) else CAUSES[5]


@dataclass(frozen=True)
class _Where:
    """Where the right answer was for one question, by the learned selector's ranking."""

    status: str
    rank: int | None
    ranked: tuple[tuple[ConfirmedAnswer, float], ...]

    def kept(self, small: Sequence[Answer], chosen: Answer) -> tuple[float | None, Any]:
        """(confidence, features) of the candidate whose cluster holds `chosen`."""
        for c, score in self.ranked:
            if any(small[j] is chosen for j in c.samples):
                return score, c.features
        return None, None


def _where_gold(q: Question, article: Article, small: Sequence[Answer]) -> _Where:
    gold = gold_of(q)
    sel = pick(candidates(q, article, small), learned())
    rank = None
    for i, (c, _) in enumerate(sel.ranked, start=1):
        s = small[c.index]
        if sample_right(s, q, gold):
            rank = i
            break
    if q.unanswerable:
        status = "unanswerable"
    elif rank is not None:
        status = "confirmed, out-ranked"
    elif any(sample_right(s, q, gold) for s in small):
        status = "sampled, not confirmed"
    else:
        status = "not sampled"
    return _Where(status, rank, sel.ranked)


def blind_spots(
    questions: Sequence[Question],
    answers: MethodAnswers,
    methods: Sequence[str],
    small: dict[str, Sequence[Answer]] | None = None,
    articles: dict[str, Article] | None = None,
) -> list[BlindSpot]:
    """The answers of each of `methods` that the article confirmed and that are wrong, with a
    cause (and, given the samples and articles, where the right answer was)."""
    out = []
    places: dict[str, _Where] = {}  # ranked once per question, whichever methods kept it
    for method in methods:
        for q in questions:
            a = answers[q.id][method]
            if not a.in_text_wrong or a.chosen is None or a.chosen.value is None:
                continue
            att = a.chosen.attempt
            where: tuple[str, int | None, float | None, Any] = ("", None, None, None)
            if small is not None and articles is not None:
                if q.id not in places:
                    places[q.id] = _where_gold(q, articles[q.article_id], small[q.id])
                place = places[q.id]
                where = (place.status, place.rank, *place.kept(small[q.id], a.chosen))
            out.append(
                BlindSpot(
                    q.id,
                    q.text,
                    " | ".join(q.gold),
                    att.answer,
                    att.span.text if att.span else "",
                    _cause(a.chosen.value, q, gold_values(q)),
                    method,
                    *where,
                )
            )
    return out

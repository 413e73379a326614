"""Why a kept answer was wrong although the article confirmed it: the verifier's blind spot.

Each confirmed-but-wrong answer gets one cause, tried in this order:
- "unanswerable, answered": the article does not answer the question, but the figure is in it;
- "scale slip": the same digits at another power of 1,000 ("94" for "€94 million");
- "unit slip": the same number with another or no unit or currency;
- "one bound of a range": the low or high end of a range the gold gives whole;
- "another date in the text" / "another figure in the text": a different value that the article
  does state (last year's figure, the rejected offer, the figure before a correction).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from experiment.evaluate.judge import gold_values
from experiment.evaluate.methods import MethodAnswer
from experiment.records import Question
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


def blind_spots(
    questions: Sequence[Question], answers: dict[str, dict[str, MethodAnswer]], method: str
) -> list[BlindSpot]:
    """The answers of `method` that the article confirmed and that are wrong, with a cause."""
    out = []
    for q in questions:
        a = answers[q.id][method]
        if not a.in_text_wrong or a.chosen is None or a.chosen.value is None:
            continue
        att = a.chosen.attempt
        out.append(
            BlindSpot(
                q.id,
                q.text,
                " | ".join(q.gold),
                att.answer,
                att.span.text if att.span else "",
                _cause(a.chosen.value, q, gold_values(q)),
            )
        )
    return out

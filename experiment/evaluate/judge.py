"""The gold judge: whether an answer's value is right, the one rule every method and output uses.

An answer is right when its value equals a gold value (`experiment.values.canonical.same_value`:
equal numbers in comparable units, dates that agree at the coarsest granularity both sides have).
On an unanswerable question, only an abstention is right.
"""

from __future__ import annotations

from collections.abc import Sequence

from experiment.records import Question
from experiment.values.canonical import Value, same_value
from experiment.values.normalize import parse_value


def gold_values(q: Question) -> list[Value]:
    return [v for g in q.gold if (v := parse_value(g, q.kind, q.text)) is not None]


def judge(value: Value | None, q: Question, gold: Sequence[Value]) -> bool:
    if q.unanswerable:
        return value is None
    return value is not None and any(same_value(value, g) for g in gold)

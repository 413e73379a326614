"""Causes of confirmed-but-wrong answers."""

from __future__ import annotations

import pytest

from experiment.base.types import Question
from experiment.evaluate.blindspots import _cause
from experiment.values.normalize import parse_value


@pytest.mark.parametrize(
    ("gold", "kind", "answer", "cause"),
    [
        ("unanswerable", "figure", "€149", "unanswerable, answered"),
        ("€94 million", "figure", "94", "scale slip"),
        ("€94 million", "figure", "94 billion", "scale slip"),
        ("€94 million", "figure", "94 million", "unit slip"),  # the currency was dropped
        ("between €4.3 billion and €4.4 billion", "figure", "€4.4 billion", "one bound of a range"),
        ("€94 million", "figure", "€49 million", "another figure in the text"),  # pre-correction
        ("15 November 2024", "date", "6 February 2025", "another date in the text"),
    ],
)
def test_cause(gold: str, kind: str, answer: str, cause: str) -> None:
    q = Question("q", "a", "What?", (gold,), kind)  # type: ignore[arg-type]
    gold_values = [] if q.unanswerable else [parse_value(gold, kind)]
    assert _cause(parse_value(answer, kind), q, gold_values) == cause  # type: ignore[arg-type]

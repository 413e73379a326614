"""Pull the figure or date a question asks for out of a model's free-text answer.

Small models wrap answers in sentences ("In 2021, OrigoTech had 450 staff."). Every mention of the
asked kind is kept as a candidate; figures that only echo the question ("in 2021" when the question
says 2021) are dropped unless nothing else is left. Candidates whose unit fits the question's
wording come first: a percentage for "what percentage", an amount of money for "how much ... cost".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from experiment.values.canonical import CURRENCIES, Quantity, Value, as_date, same_value
from experiment.values.normalize import Mention, outermost, scan, with_hint

ABSTAINED = "model abstained"  # the reason of a deliberate "not stated" answer
ABSTAIN = re.compile(
    r"\b(unknown|not (?:stated|mentioned|given|specified|provided|say|said|in the article)|"
    r"does not (?:say|mention|state|specify)|cannot be determined|no information|n/?a)\b",
    re.IGNORECASE,
)
_PERCENT_Q = re.compile(r"\b(percent|percentage|per cent|share|proportion|rate)\b", re.I)
_MONEY_Q = re.compile(
    r"\b(how much|cost|price|revenue|spend|spent|budget|raise|raised|worth|"
    r"funding|paid|pay|sales|profit|loss|valuation|invest)\w*\b",
    re.I,
)


@dataclass(frozen=True)
class Candidate:
    text: str
    value: Value
    start: int
    end: int


@dataclass(frozen=True)
class Extraction:
    """What an answer says: candidates best-first (the first one is the answer), or a reason."""

    candidates: tuple[Candidate, ...]
    reason: str = ""

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None


def _of_kind(m: Mention, kind: str) -> Value | None:
    """The mention's value of `kind`; a date question also takes a number that reads as a year
    (a mention's date reading, where it has one, comes first)."""
    if kind == "figure":
        return next((v for v in m.values if isinstance(v, Quantity)), None)
    if kind == "date":
        return next((d for v in m.values if (d := as_date(v)) is not None), None)
    return None


def _unit_rank(question: str, value: Value) -> int:
    if not isinstance(value, Quantity):
        return 0
    if _PERCENT_Q.search(question):
        return 0 if value.unit == "%" else 1
    if _MONEY_Q.search(question):
        return 0 if value.unit in CURRENCIES else 1
    return 0


def _nothing_read(mentions: tuple[Mention, ...], kind: str) -> str:
    """The reason when no value of `kind` was read: the first figure refused, if any."""
    refused = next((m for m in mentions if m.refused), None)
    if kind == "figure" and refused is not None:
        return f"figure refused ({refused.text[:24]}): {refused.refused}"
    return f"no {kind} in answer"


def extract(answer: str, question: str, kind: str) -> Extraction:
    """Candidates of `kind` ("figure" or "date") in `answer`, best first."""
    text = with_hint(answer, question)
    if not text:
        return Extraction((), "empty answer")
    mentions = scan(text)
    found = outermost(
        [
            Candidate(m.text, value, m.start, m.end)
            for m in mentions
            if (value := _of_kind(m, kind)) is not None
        ]
    )
    question_values = [v for m in scan(question) for v in m.values]
    fresh = [c for c in found if not any(same_value(c.value, q) for q in question_values)]
    if not fresh:
        if ABSTAIN.search(text):
            return Extraction((), ABSTAINED)
        if not found:
            return Extraction((), _nothing_read(mentions, kind))
        fresh = found
    fresh.sort(key=lambda c: _unit_rank(question, c.value))
    return Extraction(tuple(fresh))

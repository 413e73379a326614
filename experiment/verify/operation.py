"""The operation a question asks for, and whether a calculation performs it.

A calculation whose every operand the article writes can still answer another question: a sum
where the question asks "how many more", a chain of five figures where it asks for a change. The
question's wording names the operation; the calculation's top-level shape
(`experiment.verify.derive.shape`) must be one the wording allows. Wording that names no operation
allows every shape. The cues were written from the fitting halves of DROP dev and TAT-QA dev only
(importers/split.py), and are checked in that order, the first that matches deciding:

- "percentage change/increase/decrease/growth", "percent change": a percent change;
- "percent ... not", "not ... percent", "percent ... other than": a complement (`100 - 7.1`);
- "how many (yards) more/fewer/longer...", "more/less ... than", "how many years
  after/before/between", "difference", "won/lost/trailed/beat (the game) by", "apart",
  "margin", "how many ... not": a difference of two figures (a count's complement is one);
- "average", "mean": an average;
- "in total", "total", "combined", "altogether", "sum", "together", "either A or B", "both A
  and B", "how many A or B" (not "or more", "or longer"): a sum;
- "change", "increase", "decrease", "grow", "rise", "fall", "decline", "drop": a difference;
- "ratio", "proportion", "what percent(age) of": a ratio or a percent change.
"""

from __future__ import annotations

import re

from experiment.values.question_kind import (
    A_OR_B,
    COMPARATIVE,
    COUNT_NOT,
    EITHER_BOTH,
    HOW_MANY_UNITS_MORE,
    MARGIN,
)
from experiment.verify.derive import shape

_W = re.IGNORECASE
ASKED: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (
        re.compile(
            r"\b(percentage|percent|%)\s+(change|increase|decrease|growth|rise|decline|drop)\b",
            _W,
        ),
        frozenset({"percent change"}),
    ),
    (
        re.compile(
            r"(\bnot|n't|\bother than)\b.*\bpercent|\bpercent\w*\b.*(\bnot|n't|\bother than)\b",
            _W,
        ),
        frozenset({"complement"}),
    ),
    (
        re.compile(
            rf"\bhow (many|much) {COMPARATIVE}\b"
            r"|\b(more|fewer|less|longer|shorter|higher|lower|larger|smaller|older|younger) than\b"
            r"|\bhow many (years|months|days|weeks|decades|hours|minutes) (after|before|passed|"
            r"between|later|earlier|since|elapsed|longer)\b"
            rf"|{HOW_MANY_UNITS_MORE}"
            r"|\bdifference\b"
            rf"|{MARGIN}"
            r"|\bmargin\b"
            rf"|{COUNT_NOT}",
            _W,
        ),
        frozenset({"difference"}),
    ),
    (re.compile(r"\baverage\b|\bmean\b", _W), frozenset({"average"})),
    (
        re.compile(
            r"\bin total\b|\btotal\b|\bcombined\b|\baltogether\b|\bsum\b|\btogether\b"
            rf"|{EITHER_BOTH}|{A_OR_B}",
            _W,
        ),
        frozenset({"sum"}),
    ),
    (
        re.compile(r"\b(chang|increas|decreas|grow|grew|rise|rose|fall|fell|declin|drop)\w*", _W),
        frozenset({"difference"}),
    ),
    (
        re.compile(r"\bratio\b|\bproportion\b|\bwhat (percent|percentage) of\b", _W),
        frozenset({"ratio", "percent change"}),
    ),
)


def asked_shapes(question: str) -> frozenset[str] | None:
    """The calculation shapes the question's wording allows; None when it names no operation."""
    return next((shapes for pattern, shapes in ASKED if pattern.search(question)), None)


def operation_mismatch(question: str, expression: str) -> str:
    """Why `expression` does not perform the operation `question` asks for; "" when it does
    (or when the wording names none)."""
    allowed = asked_shapes(question)
    if allowed is None:
        return ""
    found = shape(expression)
    if found in allowed:
        return ""
    asked = " or ".join(_a(s) for s in sorted(allowed))
    what = _a(found) if found and found != "other" else "another calculation"
    return f"the question asks for {asked}, the calculation is {what}"


def _a(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"

"""What a question asks for, what a candidate is, and how well the two fit (a soft score).

The asked type is read from the question's wording (first rule that matches):

| asked      | wording (examples)                                                  |
| ---------- | ------------------------------------------------------------------- |
| year       | what/which year, in what year                                       |
| full date  | what date, what day, on what day                                    |
| month      | what/which month                                                    |
| decade     | what/which decade, what/which century                               |
| percentage | what percentage/percent/share/proportion/fraction, by what percent  |
| age        | how old, what age, at what age                                      |
| money      | how much ... cost/pay/paid/spend/worth/price/sell/raise/budget/fund |
| measure    | how long/far/tall/high/deep/heavy/fast/wide/large/big, what size    |
| rank       | what rank/place/position                                            |
| count      | how many, what number of, what was the population                   |
| date       | when (any date granularity fits)                                    |
| number     | anything else (by how much, what amount)                            |

A candidate's type comes from its value: a date by granularity (full date, month, year, decade
or other date), a number by unit (money for a currency, percentage for %, measure for a unit of
length, mass, time, power..., rank for an ordinal, range for a range, count for a plain whole
number, number otherwise). A plain whole number from 1000 to 2199 also reads as a year.

`type_fit(asked, candidate)` is 1.0 for an exact fit, 0.5 for a near one (a year where a full date
or "when" is asked, a count where a measure is asked, a plain number where money is asked: the
unit is often left out) and 0.0 otherwise. It is one feature among several, never a filter: the
question's wording is too loose for that ("how long" asks for a duration or a length).
"""

from __future__ import annotations

import re

from experiment.values.canonical import CURRENCIES, DateValue, Quantity, Value

_ASKED = (
    ("year", r"\b(what|which|in what|in which) year\b"),
    ("full date", r"\b(what|which) (date|day)\b|\bon what day\b"),
    ("month", r"\b(what|which) month\b"),
    ("decade", r"\b(what|which) (decade|century)\b"),
    ("percentage", r"\b(percentage|percent|per cent|share|proportion|fraction)\b"),
    ("age", r"\bhow old\b|\bwhat age\b"),
    (
        "money",
        r"\bhow much\b.*\b(cost|costs|pay|paid|spend|spent|worth|price|sell|sold|raise|raised|"
        r"budget|fund|funding|revenue|profit|earn|earned|charge|fee|invest|invested)\b|"
        r"\bhow much money\b",
    ),
    (
        "measure",
        r"\bhow (long|far|tall|high|deep|heavy|fast|wide|large|big)\b|\bwhat (size|length|"
        r"height|weight|distance|area|speed|duration)\b",
    ),
    ("rank", r"\b(what|which) (rank|place|position)\b"),
    ("count", r"\bhow many\b|\bwhat number of\b|\bpopulation\b"),
    ("date", r"\bwhen\b"),
)
ASKED_TYPES = (*(name for name, _ in _ASKED), "number")
_ASKED_RE = [(name, re.compile(pattern, re.I)) for name, pattern in _ASKED]
_DATE_TYPES = {"day": "full date", "month": "month", "year": "year", "decade": "decade"}

# asked type -> {candidate type: fit}; pairs not listed fit 0.0, the asked type itself fits 1.0
_NEAR: dict[str, dict[str, float]] = {
    "year": {"full date": 0.5, "month": 0.5, "decade": 0.5},
    "full date": {"month": 0.5, "year": 0.5},
    "month": {"full date": 0.5, "year": 0.5},
    "decade": {"year": 0.5, "date": 0.5},
    "date": {"full date": 1.0, "month": 1.0, "year": 1.0, "decade": 1.0},
    "percentage": {"number": 0.5},
    "age": {"count": 1.0, "measure": 0.5, "number": 0.5},
    "money": {"number": 0.5, "count": 0.5, "range": 0.5},
    "measure": {"count": 0.5, "number": 0.5, "range": 0.5},
    "rank": {"count": 0.5},
    "count": {"number": 0.5, "range": 0.5, "measure": 0.5},
    "number": {
        "count": 1.0,
        "money": 1.0,
        "percentage": 1.0,
        "measure": 1.0,
        "range": 1.0,
        "rank": 0.5,
    },
}


def asked_type(question: str) -> str:
    """The type of answer `question` asks for (see the table above)."""
    for name, pattern in _ASKED_RE:
        if pattern.search(question):
            return name
    return "number"


def candidate_types(value: Value) -> tuple[str, ...]:
    """The types `value` can be read as: one, or two for a whole number that reads as a year."""
    if isinstance(value, DateValue):
        return (_DATE_TYPES.get(value.granularity, "date"),)
    if value.unit in CURRENCIES:
        kind = "money"
    elif value.unit == "%":
        kind = "percentage"
    elif value.unit == "ord":
        kind = "rank"
    elif value.unit:
        kind = "measure"
    elif value.is_range:
        kind = "range"
    elif float(value.low).is_integer():
        kind = "count"
    else:
        kind = "number"
    year = isinstance(value, Quantity) and value.as_year() is not None
    return (kind, "year") if year else (kind,)


def type_fit(asked: str, value: Value) -> float:
    """How well `value` fits the asked type: 1.0, 0.5 or 0.0 (the best of its readings)."""
    near = _NEAR.get(asked, {})
    return max(1.0 if t == asked else near.get(t, 0.0) for t in candidate_types(value))

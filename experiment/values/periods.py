"""Periods written in a text: years, quarters, halves and months, each an `Atom` with its offsets.

A year is `y2019` ("fiscal 2019", "FY2019", "FY19" and "the year ended 31 March 2019" all give
the year 2019), a quarter `q3` ("Q3", "3Q", "third quarter"), a half `h1` ("H1", "first half"), a
month `m03` ("March", "Mar.": capitalised, so the verb "may" is not May). A figure that looks
like a year inside an amount ("$2,019", "2019.5", "2019%") is not one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = re.compile(
    r"\b(?:(?P<full>" + "|".join(m.capitalize() for m in MONTHS) + r")"
    r"|(?P<abbr>Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?)(?![a-z])"
)
_YEAR = re.compile(r"(?<![\d.,$€£])(?:19|20)\d{2}(?![\d%]|[.,]\d)")
_FISCAL_SHORT = re.compile(r"\bFY\s?'?(?P<yy>\d{2})(?!\d)", re.IGNORECASE)
_ORDINAL = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
}
_QUARTER = re.compile(
    r"\bQ(?P<n>[1-4])\b|\b(?P<n2>[1-4])Q(?:\d{2})?\b|\b(?P<word>first|second|third|fourth|"
    r"1st|2nd|3rd|4th)[\s-]+quarter\b",
    re.IGNORECASE,
)
_HALF = re.compile(r"\bH(?P<n>[12])\b|\b(?P<word>first|second|1st|2nd)[\s-]+half\b", re.IGNORECASE)


@dataclass(frozen=True)
class Atom:
    kind: str  # "y", "q", "h", "m"
    value: str
    start: int
    end: int

    @property
    def key(self) -> str:
        return f"{self.kind}{self.value}"


def atoms(text: str) -> list[Atom]:
    """Every period atom of `text` with its offsets, in text order."""
    out: list[Atom] = []
    for m in _YEAR.finditer(text):
        out.append(Atom("y", m.group(), m.start(), m.end()))
    for m in _FISCAL_SHORT.finditer(text):
        out.append(Atom("y", f"20{m['yy']}", m.start(), m.end()))
    for m in _QUARTER.finditer(text):
        n = m["n"] or m["n2"] or str(_ORDINAL[m["word"].lower()])
        out.append(Atom("q", n, m.start(), m.end()))
    for m in _HALF.finditer(text):
        n = m["n"] or str(_ORDINAL[m["word"].lower()])
        out.append(Atom("h", n, m.start(), m.end()))
    for m in _MONTH.finditer(text):
        word = (m["full"] or m["abbr"]).lower()[:3]
        month = next(i for i, name in enumerate(MONTHS, 1) if name.startswith(word))
        out.append(Atom("m", f"{month:02d}", m.start(), m.end()))
    return sorted(out, key=lambda a: a.start)


def by_kind(found: Iterable[Atom]) -> dict[str, set[str]]:
    kinds: dict[str, set[str]] = {}
    for a in found:
        kinds.setdefault(a.kind, set()).add(a.value)
    return kinds

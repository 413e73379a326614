"""Text to values: every figure and date mention in a text, and the value of a short answer.

`scan` reads dates first and then figures outside them, so "July 16, 1969" is one date and not the
figures 16 and 1969. A bare year keeps both readings (the date 1969 and the number 1969) because the
question decides which one is meant.
"""

from __future__ import annotations

import datetime as dt
import gc
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol, TypeVar

from experiment.values.canonical import DateValue, Quantity, Value, as_date
from experiment.values.dates import parse_date_fallback, scan_dates
from experiment.values.numbers import NumberMention, figure_not_year, joins_range, scan_numbers


@dataclass(frozen=True)
class Mention:
    """A located value: text[start:end] reads as each of `values`; a figure the scanner refused
    has no values and says why in `refused`."""

    start: int
    end: int
    text: str
    values: tuple[Value, ...]
    refused: str = ""


class Located(Protocol):
    start: int
    end: int


L = TypeVar("L", bound=Located)


def outermost(items: Sequence[L]) -> list[L]:
    """The items that no earlier item covers, for items sorted by (start, -end) as `scan` gives
    them: a range outranks its own bounds ("2 to 3 times" is the range, not "2"), which the
    number scanner also reports."""
    kept: list[L] = []
    reach = -1
    for item in items:
        if item.end > reach:
            kept.append(item)
            reach = item.end
    return kept


PAUSE_FROM = 4096  # characters: a shorter text makes too few objects for a pass of the collector


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a text is read, then restored as it was.
    Reading makes many small objects and no cycles, and the collector's passes over a large
    text's objects grew with the heap: a 500 KB table read 1.4 times slower, ten times the text
    12 times as long instead of 8 to 10 (`factqa bench scan`)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@lru_cache(maxsize=4096)
def scan(text: str, day_first: bool = False, decimal_comma: bool = False) -> tuple[Mention, ...]:
    """All mentions in `text`, in order; cached, so an article is read once however often."""
    if len(text) < PAUSE_FROM:
        return _scan(text, day_first, decimal_comma)
    with collector_paused():
        return _scan(text, day_first, decimal_comma)


def scan_leaving(text: str, unread: Callable[[int, int], bool]) -> tuple[Mention, ...]:
    """`scan(text)` less the figures whose match is `unread(start, end)`, which it does not read
    (`numbers.scan_numbers`); not cached."""
    with collector_paused():
        return _scan(text, False, False, unread)


def _scan(
    text: str,
    day_first: bool,
    decimal_comma: bool,
    unread: Callable[[int, int], bool] | None = None,
) -> tuple[Mention, ...]:
    mentions: list[Mention] = []
    dates = scan_dates(text, day_first)
    masked: list[tuple[int, int]] = []
    for d in dates:
        values: tuple[Value, ...] = (d.value,)
        bare_year = d.value.granularity == "year" and text[d.start : d.end].isdigit()
        if bare_year and figure_not_year(text, d.start, d.end):
            continue  # "minus 1998" is a negative figure and "1500 cents" an amount, not years
        if bare_year:
            year = float(d.value.start.year)
            values = (d.value, Quantity(year, year))
        mentions.append(Mention(d.start, d.end, text[d.start : d.end], values))
        masked.append((d.start, d.end))
    for n in scan_numbers(text, masked, decimal_comma, unread):
        if isinstance(n, NumberMention):
            mentions.append(Mention(n.start, n.end, text[n.start : n.end], (n.quantity,)))
        else:
            mentions.append(Mention(n.start, n.end, text[n.start : n.end], (), n.reason))
    mentions.sort(key=lambda m: (m.start, -m.end))
    return tuple(_year_spans(text, mentions))


def _year(m: Mention) -> int | None:
    """The year that a mention of four bare digits could be ("1939"), else None."""
    if not m.text.isdigit() or not m.values:
        return None
    date = as_date(m.values[0])
    return date.start.year if date is not None and date.granularity == "year" else None


def _last_year(text: str, first: Mention, m: Mention) -> int | None:
    """The year a span from the year `first` ends in: a year, or its last two digits after a
    hyphen or dash with no space ("1939–45"; "in 2022 to 23 today" is no span)."""
    if len(m.text) == 2 and m.text.isdigit():
        year = _year(first)
        glued = text[first.end : m.start] in ("-", "–", "—")
        return year // 100 * 100 + int(m.text) if year is not None and glued else None
    return _year(m)


def years_span(first: int, last: int) -> DateValue:
    """The span of whole years from `first` to `last` ("1939 to 1945")."""
    return DateValue(dt.date(first, 1, 1), dt.date(last, 12, 31), "years")


def _year_spans(text: str, mentions: list[Mention]) -> list[Mention]:
    """`mentions` with each span of years read whole as well: "1939 - 1945", "from 1939 to
    1945", "between 1939 and 1945" and "1939–45" are the years 1939 to 1945 (a date, and the
    figures 1939..1945), never 1939 alone nor a subtraction; "1914-1918", which the figure
    scanner reads as a range, also reads as the span. Each year stays a mention of its own, as a
    range's bounds do."""
    out: list[Mention] = []
    for i, m in enumerate(mentions):
        out.append(m)
        q = next((v for v in m.values if isinstance(v, Quantity)), None)
        if q is not None and q.is_range and not q.unit and not m.values[1:]:
            low, high = q.low, q.high
            if low.is_integer() and high.is_integer() and 1000 <= low < high <= 2199:
                out[-1] = Mention(m.start, m.end, m.text, (years_span(int(low), int(high)), q))
            continue
        first = _year(m)
        after = mentions[i + 1] if i + 1 < len(mentions) else None
        last = _last_year(text, m, after) if first is not None and after is not None else None
        if first is None or last is None or last <= first:
            continue
        if after is not None and joins_range(text, m.start, m.end, after.start):
            span = (years_span(first, last), Quantity(float(first), float(last)))
            out.insert(len(out) - 1, Mention(m.start, after.end, text[m.start : after.end], span))
    return out


_BARE_ORDINAL = re.compile(r"^(?:the\s+)?\d{1,2}(?:st|nd|rd|th)$", re.IGNORECASE)


def with_hint(text: str, question: str) -> str:
    """Read a bare ordinal ("19th") as a century when the question asks for one."""
    text = text.strip()
    if question and "century" in question.lower() and _BARE_ORDINAL.match(text):
        return f"{text} century"
    return text


def parse_value(text: str, kind: str | None = None, question: str = "") -> Value | None:
    """The value of a short answer or gold string ("$3bn", "July 1969"), or None.

    With `kind` "date" a date reading is preferred, with "figure" a number reading; `question`
    supplies context that the bare answer lacks (see `with_hint`).
    """
    text = with_hint(text, question)
    mentions = scan(text)
    values = [v for m in mentions for v in m.values]
    if kind == "date":
        dates = [v for v in values if isinstance(v, DateValue)]
        if dates:
            return dates[0]
        fallback = parse_date_fallback(text)
        if fallback is not None:
            return fallback
        years = [y for v in values if (y := as_date(v))]
        return years[0] if years else None
    outer = [v for m in outermost(mentions) for v in m.values]
    if kind == "figure":
        outer = [v for v in outer if isinstance(v, Quantity)]
    elif not outer:
        return parse_date_fallback(text)
    # A short answer that states a range means the range ("8, or 9 to 12" is 9..12).
    ranges = [v for v in outer if isinstance(v, Quantity) and v.is_range]
    return (ranges or outer or [None])[0]

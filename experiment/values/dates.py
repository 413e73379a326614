"""Find dates in text, each as the interval of days it names plus its granularity.

The scanner's own patterns cover the forms articles use (full dates in several orders, month-year,
years, decades, centuries, quarters, halves, fiscal years, seasons, "early/mid/late 2021"), because
they must be located with offsets and must never borrow a missing part from today's date.
`parse_date_fallback` hands a whole answer string that none of the patterns read to one reusable
dateparser instance, keeping only the parts dateparser says it read (its `period`).

Numeric dates such as 03/04/2021 follow `day_first` (default month first) and are marked ambiguous
when both readings are valid.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass
from functools import lru_cache

from experiment.values.canonical import DateValue
from experiment.values.numbers import Taken, alternatives

MONTHS = (
    {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
    | {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
    | {"sept": 9}
)
ORDINAL_WORDS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
}
CENTURY_WORDS = {
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
    "twentieth": 20,
    "twenty-first": 21,
    "twenty first": 21,
}
DECADE_WORDS = {
    "twenties": 20,
    "thirties": 30,
    "forties": 40,
    "fifties": 50,
    "sixties": 60,
    "seventies": 70,
    "eighties": 80,
    "nineties": 90,
}
SEASONS = {
    "spring": (3, 5),
    "summer": (6, 8),
    "autumn": (9, 11),
    "fall": (9, 11),
    "winter": (12, 2),
}
PARTS = {
    "early": (1, 4),
    "mid": (5, 8),
    "middle of": (5, 8),
    "late": (9, 12),
    "end of": (10, 12),
    "beginning of": (1, 3),
    "start of": (1, 3),
}

_MONTH = r"(?:" + alternatives(MONTHS) + r")\.?"  # a trie: each letter tried once
_YEAR = r"(?:1[0-9]{3}|20[0-9]{2}|21[0-9]{2})"
_DAY = r"(?:[12][0-9]|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_B = r"(?<![\w./-])"
_E = r"(?![\w]|[.,/-]\d)"


@dataclass(frozen=True)
class DateMention:
    start: int
    end: int
    value: DateValue


def _month_end(year: int, month: int) -> dt.date:
    return dt.date(year, month, calendar.monthrange(year, month)[1])


def _months(year: int, first: int, last: int, granularity: str) -> DateValue:
    if first > last:  # winter runs into the next year
        return DateValue(dt.date(year, first, 1), _month_end(year + 1, last), granularity)
    return DateValue(dt.date(year, first, 1), _month_end(year, last), granularity)


def _day(year: int | None, month: int, day: int, ambiguous: bool = False) -> DateValue | None:
    try:
        d = dt.date(year if year is not None else 2000, month, day)  # 2000 admits Feb 29
    except ValueError:
        return None
    return DateValue(d, d, "day", year_known=year is not None, ambiguous=ambiguous)


def _month_only(year: int | None, month: int) -> DateValue:
    y = year if year is not None else 2000
    return DateValue(
        dt.date(y, month, 1), _month_end(y, month), "month", year_known=year is not None
    )


def _int(s: str) -> int:
    return int(re.sub(r"\D", "", s))


def _century(n: int) -> DateValue:
    return DateValue(dt.date((n - 1) * 100 + 1, 1, 1), dt.date(n * 100, 12, 31), "century")


def _decade(start_year: int) -> DateValue:
    return DateValue(dt.date(start_year, 1, 1), dt.date(start_year + 9, 12, 31), "decade")


def _two_digit_year(y: int) -> int:
    return 2000 + y if y < 50 else 1900 + y


def _numeric(m: re.Match[str], day_first: bool) -> DateValue | None:
    a, b, y = int(m["a"]), int(m["b"]), int(m["y"])
    year = y if len(m["y"]) == 4 else _two_digit_year(y)
    month, day = (b, a) if day_first else (a, b)
    ambiguous = a <= 12 and b <= 12 and a != b
    value = _day(year, month, day, ambiguous)
    if value is None:  # the configured order is impossible; the other one is the only reading
        value = _day(year, day, month)
    return value


def _patterns() -> list[tuple[re.Pattern[str], object]]:
    f = re.IGNORECASE
    p: list[tuple[str, object]] = [
        (
            rf"{_B}(?P<y>{_YEAR})-(?P<mo>0[1-9]|1[0-2])-(?P<d>0[1-9]|[12]\d|3[01]){_E}",
            lambda m, _: _day(int(m["y"]), int(m["mo"]), int(m["d"])),
        ),
        (rf"{_B}(?P<a>\d{{1,2}})[/.](?P<b>\d{{1,2}})[/.](?P<y>\d{{4}}|\d{{2}}){_E}", _numeric),
        (
            rf"{_B}(?:the\s+)?(?P<d>{_DAY})(?:\s+of)?\s+(?P<mo>{_MONTH}),?\s+(?P<y>{_YEAR}){_E}",
            lambda m, _: _day(int(m["y"]), MONTHS[m["mo"].lower().rstrip(".")], _int(m["d"])),
        ),
        (
            rf"{_B}(?P<mo>{_MONTH})\s+(?:the\s+)?(?P<d>{_DAY}),?\s+(?P<y>{_YEAR}){_E}",
            lambda m, _: _day(int(m["y"]), MONTHS[m["mo"].lower().rstrip(".")], _int(m["d"])),
        ),
        (
            rf"{_B}(?:the\s+)?(?P<d>{_DAY})\s+of\s+(?P<mo>{_MONTH}){_E}",
            lambda m, _: _day(None, MONTHS[m["mo"].lower().rstrip(".")], _int(m["d"])),
        ),
        (
            rf"{_B}(?P<d>{_DAY})\s+(?P<mo>{_MONTH}){_E}",
            lambda m, _: _day(None, MONTHS[m["mo"].lower().rstrip(".")], _int(m["d"])),
        ),
        (
            rf"{_B}(?P<mo>{_MONTH})\s+(?P<d>{_DAY}){_E}(?!\s*(?:million|billion|%|per))",
            lambda m, _: _day(None, MONTHS[m["mo"].lower().rstrip(".")], _int(m["d"])),
        ),
        (
            rf"{_B}(?P<mo>{_MONTH}),?\s+(?:of\s+)?(?P<y>{_YEAR}){_E}",
            lambda m, _: _month_only(int(m["y"]), MONTHS[m["mo"].lower().rstrip(".")]),
        ),
        (
            rf"{_B}(?:Q(?P<q>[1-4])|(?:the\s+)?(?P<qw>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter)"
            rf"(?:\s+of)?\s+(?:(?:FY|fiscal(?:\s+year)?)\s*)?(?P<y>{_YEAR}|'?\d{{2}}){_E}",
            lambda m, _: _quarter(m),
        ),
        (  # "3Q20", "3Q 2020": the quarter first, as financial reports write it
            rf"{_B}(?P<q>[1-4])Q\s?(?:FY\s?)?(?P<y>{_YEAR}|\d{{2}}){_E}",
            lambda m, _: _quarter(m),
        ),
        (  # "2H19", "1H 2021": the half first
            rf"{_B}(?P<h>[12])H\s?(?:FY\s?)?(?P<y>{_YEAR}|\d{{2}}){_E}",
            lambda m, _: _months(
                _year_text(m["y"]), *((1, 6) if m["h"] == "1" else (7, 12)), "half"
            ),
        ),
        (  # "Q3'20", "Q3-2020"
            rf"{_B}Q(?P<q>[1-4])['’-](?P<y>{_YEAR}|\d{{2}}){_E}",
            lambda m, _: _quarter(m),
        ),
        (
            rf"{_B}(?:H(?P<h>[12])|(?:the\s+)?(?P<hw>first|second|1st|2nd)\s+half)(?:\s+of)?\s+"
            rf"(?:(?:FY|fiscal(?:\s+year)?)\s*)?(?P<y>{_YEAR}){_E}",
            lambda m, _: _half(m),
        ),
        (
            rf"{_B}(?:FY\s?|fiscal\s+(?:year\s+)?)(?P<y>{_YEAR}|\d{{2}}){_E}",
            lambda m, _: _fiscal(m["y"]),
        ),
        (
            rf"{_B}(?:the\s+)?(?P<s>spring|summer|autumn|fall|winter)(?:\s+of)?\s+(?P<y>{_YEAR}){_E}",
            lambda m, _: _months(int(m["y"]), *SEASONS[m["s"].lower()], "season"),
        ),
        (
            rf"{_B}(?:the\s+)?(?P<p>early|mid|late|middle\s+of|end\s+of|beginning\s+of|start\s+of)"
            rf"[\s-]+(?:the\s+)?(?P<y>{_YEAR}|(?:1[0-9]|20)\d0s){_E}",
            lambda m, _: _part(m),
        ),
        (rf"{_B}(?:the\s+)?(?P<y>(?:1[0-9]|20|21)\d0)'?s{_E}", lambda m, _: _decade(int(m["y"]))),
        (rf"{_B}(?:the\s+)?'(?P<y>\d0)s{_E}", lambda m, _: _decade(1900 + int(m["y"]))),
        (
            rf"(?<!\w)the\s+(?P<w>{'|'.join(DECADE_WORDS)})(?!\w)",
            lambda m, _: _decade(1900 + DECADE_WORDS[m["w"].lower()]),
        ),
        (
            rf"{_B}(?:the\s+)?(?P<n>1[0-9]|2[01])(?:st|nd|rd|th)[\s-]+century{_E}",
            lambda m, _: _century(int(m["n"])),
        ),
        (
            rf"(?<!\w)(?:the\s+)?(?P<w>{'|'.join(CENTURY_WORDS)})[\s-]+century(?!\w)",
            lambda m, _: _century(CENTURY_WORDS[m["w"].lower()]),
        ),
        (
            r"(?<!\w)(?:AD|A\.D\.|CE)\s?(?P<y>\d{1,4})(?!\w)|(?<![\w.,])(?P<y2>\d{1,4})\s?"
            r"(?:AD|A\.D\.|CE)(?!\w)",
            lambda m, _: _year_ad(int(m["y"] or m["y2"])),
        ),
        (
            rf"(?<![\w.,$€£¥-])(?<!\d[.,])(?P<y>{_YEAR})"
            r"(?![\w]|[.,]\d|\s?(?:%|per\s?cent|percent|million|billion|thousand|bn|km|kg)"
            r"|-?W\d|\s?B\.?C)",  # not an ISO week ("2025-W12") nor a year BC
            lambda m, _: DateValue(
                dt.date(int(m["y"]), 1, 1), dt.date(int(m["y"]), 12, 31), "year"
            ),
        ),
        (
            r"(?<!\w)in\s+(?P<mo>(?:January|February|March|April|June|July|August|September|"
            rf"October|November|December)){_E}(?!\s*,?\s*\d)",
            lambda m, _: _month_only(None, MONTHS[m["mo"].lower()]),
        ),
    ]
    return [(re.compile(rx, f), fn) for rx, fn in p]


def _year_ad(year: int) -> DateValue | None:
    # Years before 1 AD (BC) are refused: the calendar type used here starts at year 1.
    return _months(year, 1, 12, "year") if year >= 1 else None


def _year_text(s: str) -> int:
    s = s.lstrip("'")
    return int(s) if len(s) == 4 else _two_digit_year(int(s))


def _quarter(m: re.Match[str]) -> DateValue:
    q = int(m["q"]) if m["q"] else ORDINAL_WORDS[m["qw"].lower()]
    return _months(_year_text(m["y"]), 3 * q - 2, 3 * q, "quarter")


def _half(m: re.Match[str]) -> DateValue:
    h = int(m["h"]) if m["h"] else ORDINAL_WORDS[m["hw"].lower()]
    return _months(int(m["y"]), 1 if h == 1 else 7, 6 if h == 1 else 12, "half")


def _fiscal(y: str) -> DateValue:
    # The months a fiscal year spans differ by company; it is read as the calendar year it names.
    return _months(_year_text(y), 1, 12, "year")


def _part(m: re.Match[str]) -> DateValue:
    word = re.sub(r"\s+", " ", m["p"].lower())
    y = m["y"]
    if y.endswith("s"):  # "the early 1990s"
        start = int(y[:-1])
        third = {"early": (0, 3), "mid": (3, 6), "middle of": (3, 6), "late": (6, 9)}.get(
            word, (0, 9)
        )
        return DateValue(dt.date(start + third[0], 1, 1), dt.date(start + third[1], 12, 31), "part")
    first, last = PARTS[word]
    return _months(int(y), first, last, "part")


PATTERNS = _patterns()


_MONTH_HINTS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# Substrings without which each pattern (in PATTERNS order) cannot match; None: always run.
# A pattern skipped for lack of its trigger could not have matched, so results are unchanged
# (tests/test_normalize.py checks that on the whole bundled corpus). Plain substrings, because
# a trigger regex costs about as much as the pattern it would guard.
TRIGGERS: tuple[tuple[str, ...] | None, ...] = (
    ("-",),
    ("/", "."),
    *[_MONTH_HINTS] * 6,
    ("q", "quarter"),
    ("q",),
    ("h",),
    ("q",),
    ("h1", "h2", "half"),
    ("fy", "fiscal"),
    ("spring", "summer", "autumn", "fall", "winter"),
    ("early", "mid", "late", "end", "beginning", "start"),
    ("0s", "0's"),
    ("0s",),
    ("ties",),
    ("century",),
    ("century",),
    ("ad", "a.d.", "ce"),
    None,
    _MONTH_HINTS,
)
assert len(TRIGGERS) == len(PATTERNS)
_TRIGGER_SETS = tuple(None if needs is None else frozenset(needs) for needs in TRIGGERS)
_ALL_TRIGGERS = frozenset(n for needs in TRIGGERS if needs is not None for n in needs)


def scan_dates(text: str, day_first: bool = False, gate: bool = True) -> list[DateMention]:
    """Every date in `text`; where two readings overlap, the earlier-listed (more specific) wins.

    `gate=False` runs every pattern regardless of its triggers (for tests).
    """
    found: list[DateMention] = []
    taken = Taken(len(text))
    for a, b in _paragraphs(text) if gate else [(0, len(text))]:
        low = text[a:b].lower()
        present = {n for n in _ALL_TRIGGERS if n in low}  # each trigger looked for once
        for (pattern, build), needs in zip(PATTERNS, _TRIGGER_SETS, strict=True):
            if gate and needs is not None and needs.isdisjoint(present):
                continue
            for m in pattern.finditer(text, a, b):
                s, e = m.span()
                if taken.overlaps(s, e):
                    continue
                value = build(m, day_first)  # type: ignore[operator]
                if value is None:
                    continue
                found.append(DateMention(s, e, value))
                taken.add(s, e)
    found.sort(key=lambda d: d.start)
    return found


PARAGRAPHS_FROM = 16_384  # characters: a longer text is searched paragraph by paragraph


def _paragraphs(text: str) -> list[tuple[int, int]]:
    """(start, end) of the stretches a long text is searched in, each ending after a blank line
    (so a pattern runs only where its triggers are, and sees the line break after a paragraph);
    a short text is one stretch. No date is read across a blank line."""
    if len(text) < PARAGRAPHS_FROM:
        return [(0, len(text))]
    cuts, start = [], 0
    while (gap := text.find("\n\n", start + 1024)) >= 0:  # at least 1024 characters each
        cuts.append((start, gap + 2))
        start = gap + 2
    return [*cuts, (start, len(text))]


@lru_cache(maxsize=1)
def _dateparser():  # type: ignore[no-untyped-def]
    from dateparser.date import DateDataParser

    return DateDataParser(
        languages=["en"],
        settings={
            "PREFER_DAY_OF_MONTH": "first",
            "REQUIRE_PARTS": ["year"],
            "PARSERS": ["absolute-time", "custom-formats"],
            "STRICT_PARSING": False,
            "RETURN_AS_TIMEZONE_AWARE": False,
        },
    )


def parse_date_fallback(text: str) -> DateValue | None:
    """A date for a whole answer string the patterns did not read, with dateparser's granularity.

    Only strings with a letter and a four-digit year are tried, and the year dateparser returns
    must be that written year: left alone it reads "45%" as a date, "19th" as 2019 and
    "82 January" as January 1982.
    """
    years = {int(y) for y in re.findall(r"(?<!\d)(\d{4})(?!\d)", text)}
    if not years or not re.search(r"[A-Za-z]", text) or "%" in text:
        return None
    data = _dateparser().get_date_data(text)
    if data is None or data.date_obj is None or data.date_obj.year not in years:
        return None
    d = data.date_obj.date()
    period = data.period or "day"
    if period == "year":
        return _months(d.year, 1, 12, "year")
    if period == "month":
        return _month_only(d.year, d.month)
    if period == "day":
        return DateValue(d, d, "day")
    return None

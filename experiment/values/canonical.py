"""Canonical values for figures and dates, and the comparisons the other stages build on.

`same_value` is lenient and symmetric (dates agree at the coarsest granularity both sides have:
"1969" and "July 16, 1969"); extraction uses it to drop a figure that only echoes the question.
Judging against gold is stricter and lives in `experiment.evaluate.judge`.

`supports` is what the verifier uses: the article's value must say at least as much as the
answer claims. "2021" in the answer is supported by "March 2021" in the text, but "March 2021" in
the answer is not supported by a bare "2021" in the text, because the text never said March.

Units keep their dimension; values convert only when both sides carry convertible units, with a
1.5 % tolerance because authors round conversions ("103 miles (166 km)").
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

# unit -> (dimension, factor to the dimension's base unit)
UNITS: dict[str, tuple[str, float]] = {
    "%": ("percent", 1.0),
    "pp": ("percentage_point", 1.0),
    "bp": ("percentage_point", 0.01),  # a basis point is a hundredth of a point
    "x": ("multiple", 1.0),
    "km": ("length", 1000.0),
    "m": ("length", 1.0),
    "cm": ("length", 0.01),
    "mm": ("length", 0.001),
    "nm": ("length", 1e-9),
    "mi": ("length", 1609.344),
    "ft": ("length", 0.3048),
    "in": ("length", 0.0254),
    "m2": ("area", 1.0),
    "km2": ("area", 1e6),
    "ha": ("area", 1e4),
    "m3": ("volume", 1.0),
    "l": ("volume", 0.001),
    "ml": ("volume", 1e-6),
    "kg": ("mass", 1.0),
    "g": ("mass", 0.001),
    "mg": ("mass", 1e-6),
    "t": ("mass", 1000.0),
    "lb": ("mass", 0.45359237),
    "ms": ("time", 0.001),
    "s": ("time", 1.0),
    "min": ("time", 60.0),
    "h": ("time", 3600.0),
    "day": ("time", 86400.0),
    "week": ("time", 604800.0),
    "month": ("time", 2629746.0),
    "year": ("time", 31556952.0),
    "B": ("data", 1.0),
    "KB": ("data", 1e3),
    "MB": ("data", 1e6),
    "GB": ("data", 1e9),
    "TB": ("data", 1e12),
    "PB": ("data", 1e15),
    "kbit": ("bits", 1e3),  # bits are kept apart from bytes: "Mb" is not "MB"
    "Mbit": ("bits", 1e6),
    "Gbit": ("bits", 1e9),
    "Tbit": ("bits", 1e12),
    "Pbit": ("bits", 1e15),
    "kbit/s": ("bitrate", 1e3),
    "Mbit/s": ("bitrate", 1e6),
    "Gbit/s": ("bitrate", 1e9),
    "KB/s": ("byterate", 1e3),  # bytes per second, kept apart from bits
    "MB/s": ("byterate", 1e6),
    "GB/s": ("byterate", 1e9),
    "mHz": ("frequency", 1e-3),
    "Hz": ("frequency", 1.0),
    "kHz": ("frequency", 1e3),
    "MHz": ("frequency", 1e6),
    "GHz": ("frequency", 1e9),
    "mW": ("power", 1e-3),
    "W": ("power", 1.0),
    "kW": ("power", 1e3),
    "MW": ("power", 1e6),
    "GW": ("power", 1e9),
    "TW": ("power", 1e12),
    "mWh": ("energy", 1e-3),
    "Wh": ("energy", 1.0),
    "kWh": ("energy", 1e3),
    "MWh": ("energy", 1e6),
    "GWh": ("energy", 1e9),
    "TWh": ("energy", 1e12),
    "mAh": ("charge", 1.0),
    "Ah": ("charge", 1000.0),
    "V": ("voltage", 1.0),
    "kV": ("voltage", 1e3),
    "mV": ("voltage", 1e-3),
    "°C": ("temperature_c", 1.0),
    "°F": ("temperature_f", 1.0),
    "tok/s": ("throughput", 1.0),
    "ord": ("ordinal", 1.0),  # "third", "3rd": a rank, kept apart from counts
}
CURRENCIES = frozenset(
    {"USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "CNY", "INR", "SEK", "NZD", "HKD", "SGD"}
)

# Figures are read to 15 significant digits (experiment.values.numbers), so two different values
# differ by at least 1e-15 of their size: EXACT only absorbs float rounding below that.
EXACT = 2.5e-16
CONVERTED = 0.015


@dataclass(frozen=True)
class Quantity:
    """A number or a range of numbers, with an optional unit or currency and qualifier."""

    low: float
    high: float
    unit: str = ""
    qualifier: str = ""

    @property
    def is_range(self) -> bool:
        return self.low != self.high

    def canonical(self) -> str:
        body = _fmt(self.low) if not self.is_range else f"{_fmt(self.low)}..{_fmt(self.high)}"
        unit = f" {self.unit}" if self.unit else ""
        qual = f"{self.qualifier} " if self.qualifier else ""
        return f"{qual}{body}{unit}"

    def as_year(self) -> DateValue | None:
        """This number read as a calendar year, where it could be one."""
        if self.unit or self.is_range or not float(self.low).is_integer():
            return None
        year = int(self.low)
        return year_value(year) if 1000 <= year <= 2199 else None


GRANULARITY_ORDER = (
    "day",
    "month",
    "part",
    "quarter",
    "season",
    "half",
    "year",
    "years",
    "decade",
    "century",
)


@dataclass(frozen=True)
class DateValue:
    """A date as the interval of days it names, with its granularity.

    `year_known` is False for "July 16" without a year; such values compare by month and day.
    `ambiguous` records a numeric date whose day/month order was decided by configuration.
    """

    start: dt.date
    end: dt.date
    granularity: str
    year_known: bool = True
    ambiguous: bool = False

    def canonical(self) -> str:
        s = self.start
        g = self.granularity
        if not self.year_known:
            return f"--{s.month:02d}-{s.day:02d}" if g == "day" else f"--{s.month:02d}"
        if g == "day":
            return s.isoformat()
        if g == "month":
            return f"{s.year:04d}-{s.month:02d}"
        if g == "year":
            return f"{s.year:04d}"
        if g == "quarter":
            return f"{s.year:04d}-Q{(s.month - 1) // 3 + 1}"
        if g == "half":
            return f"{s.year:04d}-H{1 if s.month <= 6 else 2}"
        if g == "years":
            return f"{s.year:04d}..{self.end.year:04d}"
        if g == "decade":
            return f"{s.year:04d}s"
        if g == "century":
            return f"century {s.year // 100 + 1}"
        return f"{self.start.isoformat()}/{self.end.isoformat()}"


Value = Quantity | DateValue


def year_value(year: int) -> DateValue:
    return DateValue(dt.date(year, 1, 1), dt.date(year, 12, 31), "year")


def _fmt(x: float) -> str:
    if math.isfinite(x) and float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return format(x, ".12g")


def _close(a: float, b: float, rel: float) -> bool:
    return math.isclose(a, b, rel_tol=rel)


def _unit_scale(a: Quantity, b: Quantity) -> tuple[float, float, float] | None:
    """Factors that bring both quantities to one unit, and the tolerance; None if incomparable."""
    if (a.unit == "ord") != (b.unit == "ord"):
        return None  # a rank is not a count: "second" in a text does not confirm "2"
    if not a.unit or not b.unit or a.unit == b.unit:
        return 1.0, 1.0, EXACT
    if a.unit in CURRENCIES or b.unit in CURRENCIES:
        return None
    da, db = UNITS.get(a.unit), UNITS.get(b.unit)
    if da is None or db is None or da[0] != db[0]:
        return None
    return da[1], db[1], CONVERTED


# +1: the figure is a lower bound ("more than 100"), -1: an upper bound ("less than 100");
# "about" and no qualifier give no direction.
QUALIFIER_DIRECTION = {"more than": 1, "at least": 1, "less than": -1, "up to": -1}


def opposite_bounds(a: Quantity, b: Quantity) -> bool:
    """One figure is a lower bound and the other an upper bound: never the same value."""
    da, db = QUALIFIER_DIRECTION.get(a.qualifier, 0), QUALIFIER_DIRECTION.get(b.qualifier, 0)
    return da * db < 0


def bound_of(q: Quantity) -> int:
    """+1 for a lower bound ("more than 100"), -1 for an upper bound, 0 for a figure."""
    return QUALIFIER_DIRECTION.get(q.qualifier, 0)


def same_bound(a: Quantity, b: Quantity) -> bool:
    """Both figures are the same kind of bound, or neither is one: "less than 100" is neither
    "more than 100" nor a bare "100"; "about 100" and "100" are both figures."""
    return bound_of(a) == bound_of(b)


def quantities_equal(a: Quantity, b: Quantity) -> bool:
    """Equal numbers (or ranges) in comparable units; qualifiers are not compared here."""
    scale = _unit_scale(a, b)
    if scale is None:
        return False
    fa, fb, rel = scale
    return _close(a.low * fa, b.low * fb, rel) and _close(a.high * fa, b.high * fb, rel)


def _md(d: dt.date) -> tuple[int, int]:
    return d.month, d.day


def _within(inner: DateValue, outer: DateValue) -> bool:
    if inner.year_known and outer.year_known:
        return outer.start <= inner.start and inner.end <= outer.end
    if inner.granularity == "year" or outer.granularity == "year":
        return False
    # Without a year only month/day can be compared; a range crossing New Year is not handled.
    return _md(outer.start) <= _md(inner.start) and _md(inner.end) <= _md(outer.end)


def as_date(v: Value) -> DateValue | None:
    """`v` as a date: a date as it is, a number only where it reads as a calendar year."""
    return v if isinstance(v, DateValue) else v.as_year()


def same_value(a: Value, b: Value) -> bool:
    """Equal numbers, or dates that agree at the coarsest shared granularity (lenient)."""
    if isinstance(a, Quantity) and isinstance(b, Quantity):
        return quantities_equal(a, b)
    da, db = as_date(a), as_date(b)
    if da is None or db is None:
        return False
    return _within(da, db) or _within(db, da)


# The text qualifiers that say at least what an answer's qualifier claims: "more than 100"
# says "at least 100"; an exact figure says "about" it; a bound says nothing exact.
_QUALIFIER_SUPPORT = {
    "about": ("", "about"),
    "more than": ("more than",),
    "at least": ("at least", "more than"),
    "less than": ("less than",),
    "up to": ("up to", "less than"),
}


def _quantity_supports(text: Quantity, answer: Quantity) -> bool:
    """The text's figure says at least the answer's: a unit or currency the answer claims is
    written in the text (a bare answer may drop the text's unit, never the reverse), and a
    qualifier the answer claims is the text's or implied by it (a dropped one is lenient too)."""
    if answer.unit and not text.unit:
        return False
    if answer.qualifier and text.qualifier not in _QUALIFIER_SUPPORT.get(answer.qualifier, ()):
        return False
    return quantities_equal(text, answer)


def supports(text_value: Value, answer: Value) -> bool:
    """Verification: the article's value says at least what the answer claims. A number in the
    text is a date only where the text read it as one (a bare year): "2,024 units" is no year."""
    if isinstance(text_value, Quantity) and isinstance(answer, Quantity):
        return _quantity_supports(text_value, answer)
    dt_text, dt_answer = text_value if isinstance(text_value, DateValue) else None, as_date(answer)
    if dt_text is None or dt_answer is None:
        return False
    if dt_answer.year_known and not dt_text.year_known:
        return False  # "September 27" in the text does not say "September 1933"
    if dt_answer.granularity == "years":  # a span of years: only the same span says it
        return (dt_text.start, dt_text.end) == (dt_answer.start, dt_answer.end)
    return _within(dt_text, dt_answer)

"""A canonical value (`Quantity.canonical()` or `DateValue.canonical()`) split into typed CSV
columns, so a spreadsheet or pandas reads numbers as numbers and dates as dates.

`value` stays as it was ("34.2 EUR", "2009-03-03", "about 5..7 %"); beside it:
`value_number` (a single number), `value_low` / `value_high` (a range's ends; a single number's
too), `value_unit`, `value_qualifier` ("about", "more than"...), and `value_date_start` /
`value_date_end` (the days a date names, ISO; "2009" is 2009-01-01 to 2009-12-31). A bare
integer such as "2009" is a year when the question asks for a date, a number otherwise.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import Any

VALUE_COLUMNS = [
    "value_number",
    "value_low",
    "value_high",
    "value_unit",
    "value_qualifier",
    "value_date_start",
    "value_date_end",
]
_NUMBER = r"-?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|inf)"
_QUANTITY = re.compile(
    rf"^(?:(?P<qualifier>[^\d-].*?) )?(?P<low>{_NUMBER})(?:\.\.(?P<high>{_NUMBER}))?"
    r"(?: (?P<unit>\S.*))?$"
)
_ISO = r"\d{4}-\d{2}-\d{2}"


def _month(year: int, month: int) -> tuple[dt.date, dt.date]:
    return dt.date(year, month, 1), dt.date(year, month, calendar.monthrange(year, month)[1])


def date_interval(text: str) -> tuple[dt.date, dt.date] | None:
    """The days a canonical date names; None for what is not one (or has no year)."""
    try:
        if re.fullmatch(_ISO, text):
            day = dt.date.fromisoformat(text)
            return day, day
        if m := re.fullmatch(rf"({_ISO})/({_ISO})", text):
            return dt.date.fromisoformat(m[1]), dt.date.fromisoformat(m[2])
        if m := re.fullmatch(r"(\d{4})-(\d{2})", text):
            return _month(int(m[1]), int(m[2]))
        if m := re.fullmatch(r"(\d{4})-Q([1-4])", text):
            first = 3 * int(m[2]) - 2
            return _month(int(m[1]), first)[0], _month(int(m[1]), first + 2)[1]
        if m := re.fullmatch(r"(\d{4})-H([12])", text):
            first = 1 if m[2] == "1" else 7
            return _month(int(m[1]), first)[0], _month(int(m[1]), first + 5)[1]
        if m := re.fullmatch(r"(\d{4})s", text):
            return dt.date(int(m[1]), 1, 1), dt.date(int(m[1]) + 9, 12, 31)
        if m := re.fullmatch(r"century (\d+)", text):
            n = int(m[1])
            return dt.date((n - 1) * 100 + 1, 1, 1), dt.date(n * 100, 12, 31)
        if m := re.fullmatch(r"(\d{4})", text):
            return dt.date(int(m[1]), 1, 1), dt.date(int(m[1]), 12, 31)
    except ValueError:
        return None
    return None


def _number(text: str) -> str:
    """A number as a CSV cell, every digit kept (the writer rounds floats to 6): '22000000',
    '34.2'."""
    x = float(text)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else format(x, ".15g")


def value_cells(value: str, kind: str = "") -> dict[str, Any]:
    """The typed columns of one canonical value ('' where a column does not apply)."""
    cells: dict[str, Any] = dict.fromkeys(VALUE_COLUMNS, "")
    text = str(value).strip()
    if not text:
        return cells
    bare_year = re.fullmatch(r"\d{4}", text) is not None
    if not bare_year or kind == "date":
        days = date_interval(text)
        if days is not None:
            cells["value_date_start"], cells["value_date_end"] = (d.isoformat() for d in days)
            return cells
    m = _QUANTITY.match(text)
    if m is None:
        return cells
    low = _number(m["low"])
    high = _number(m["high"]) if m["high"] else low
    cells.update(
        value_low=low,
        value_high=high,
        value_number=low if m["high"] is None or float(low) == float(high) else "",
        value_unit=m["unit"] or "",
        value_qualifier=m["qualifier"] or "",
    )
    return cells

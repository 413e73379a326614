"""Why an article does not confirm a value: the rule that turned a near miss down.

When no mention supports an answer, the article's mentions are searched for one that says the
same number but fails one rule; the verdict's reason names that rule, so a user sees "bound: the
text says up to 100" instead of only "value not found in article". The rules, in the order
they are tried (each is a class of the contract in docs/NORMALIZER.md):

- `bound`: the same number, but the text bounds it another way ("no more than 100" is at most
  100, never "more than 100");
- `range`: the answer is a range and the text states only one end, or none of its span;
- `unit`: the same number in another unit, another case of one ("5 mW" is not "5 MW"), or no
  unit where the answer claims one;
- `scale`: the same digits in another scale ("$5" against "$5 million");
- `sign`: the same number with the other sign;
- `refused figure`: the text writes the number in a form the reader refuses ("77 K").
"""

from __future__ import annotations

import math
import re

from experiment.values.canonical import (
    DateValue,
    Quantity,
    Value,
    as_date,
    quantities_equal,
)
from experiment.values.normalize import Mention

NOT_FOUND = "value not found in article"
_SCALES = (1e2, 1e3, 1e5, 1e6, 1e7, 1e9, 1e12)
_FIRST_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _bare(q: Quantity) -> Quantity:
    return Quantity(q.low, q.high)


def _scaled(a: float, b: float) -> bool:
    """`a` is `b` in another scale (a factor of a hundred, a thousand, a lakh, a million...)."""
    if not a or not b:
        return False
    ratio = max(abs(a), abs(b)) / min(abs(a), abs(b))
    return any(math.isclose(ratio, s, rel_tol=1e-9) for s in _SCALES)


def _quantity_rule(text: Quantity, answer: Quantity) -> str:
    """The rule on which `text` fails to support `answer` although it is a near miss, or ""."""
    if quantities_equal(text, answer) and text.qualifier != answer.qualifier:
        return f"bound: the text says {text.canonical()}, the answer {answer.canonical()}"
    if answer.is_range and not text.is_range and text.low in (answer.low, answer.high):
        return f"range: the text gives only {text.canonical()} of {answer.canonical()}"
    if answer.is_range != text.is_range:
        return ""
    if quantities_equal(_bare(text), _bare(answer)) and text.unit != answer.unit:
        said = text.unit or "no unit"
        return f"unit: the text says {said} ({text.canonical()}), the answer {answer.unit}"
    if (
        text.unit == answer.unit
        and _scaled(text.low, answer.low)
        and _scaled(text.high, answer.high)
    ):
        return f"scale: the text says {text.canonical()}, the answer {answer.canonical()}"
    if text.unit == answer.unit and text.low == -answer.low and text.high == -answer.high:
        return f"sign: the text says {text.canonical()}, the answer {answer.canonical()}"
    return ""


def _date_rule(text: DateValue, answer: DateValue) -> str:
    ends = (answer.start.year, answer.end.year)
    if answer.granularity == "years" and text.granularity == "year" and text.start.year in ends:
        return f"range: the text gives only {text.canonical()} of {answer.canonical()}"
    return ""


def _refused_rule(m: Mention, answer: Quantity) -> str:
    number = _FIRST_NUMBER.search(m.text)
    if number is None:
        return ""
    written = float(number.group().replace(",", ""))
    if written == abs(answer.low) or _scaled(written, answer.low):
        return f"refused figure: the text's {m.text.strip()!r} is not read ({m.refused})"
    return ""


def why_not(mentions: tuple[Mention, ...], answer: Value) -> str:
    """The reason an answer found in no mention is refused: a named rule, else NOT_FOUND."""
    for m in mentions:
        for v in m.values:
            rule = ""
            if isinstance(answer, Quantity) and isinstance(v, Quantity):
                rule = _quantity_rule(v, answer)
            elif isinstance(answer, DateValue) and (d := as_date(v)) is not None:
                rule = _date_rule(d, answer)
            if rule:
                return rule
    if isinstance(answer, Quantity):
        for m in mentions:
            if m.refused and (rule := _refused_rule(m, answer)):
                return rule
    return NOT_FOUND

"""Which questions ask for a figure or a date: the rule importers and benchmarks share.

A question counts when both tests pass:
- its wording asks for one (date: "when", "what/which year", "what date", "what month",
  "what decade", "what century"; figure: "how many/much/long/far/old/large/...",
  "what percentage/share/proportion/number/amount", "what was the population");
- every gold answer reads as a value of that kind (a date for a date question, a number for a
  figure question).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from experiment.values.canonical import DateValue, Quantity
from experiment.values.normalize import parse_value

DATE_Q = re.compile(
    r"\b(when|what year|which year|what date|what month|what decade|what century|"
    r"what day|which decade|which century|which month)\b",
    re.I,
)
FIGURE_Q = re.compile(
    r"\b(how (many|much|long|far|old|large|big|tall|high|deep|heavy|fast|wide|often)|"
    r"what (percentage|percent|share|proportion|fraction|number|amount|was the population|"
    r"is the population|population)|by how much)\b",
    re.I,
)


def wording_kind(question: str) -> str | None:
    """'date' or 'figure' from the wording alone (for questions without a gold answer)."""
    if DATE_Q.search(question):
        return "date"
    if FIGURE_Q.search(question):
        return "figure"
    return None


def question_kind(question: str, gold: Sequence[str]) -> str | None:
    """'date', 'figure' or None for a question and its gold answers."""
    if not gold:
        return None
    if DATE_Q.search(question) and all(
        isinstance(parse_value(g, "date", question), DateValue) for g in gold
    ):
        return "date"
    if FIGURE_Q.search(question) and all(
        isinstance(parse_value(g, "figure", question), Quantity) for g in gold
    ):
        return "figure"
    return None


# Wordings the router (`COMPUTE_Q`) and the operation cues (`verify/operation.ASKED`) both read,
# written once: "how many yards longer", a margin ("won the game by", "apart"), a count's
# complement ("how many ... not"), "either A or B" / "both A and B", "how many A or B" (not "or
# more", "or longer").
COMPARATIVE = (
    r"(more|fewer|less|longer|shorter|higher|lower|larger|smaller|older|younger|bigger|greater|"
    r"farther)"
)
HOW_MANY_UNITS_MORE = rf"\bhow (many|much) (\w+ ){{1,3}}{COMPARATIVE}\b"
MARGIN = r"\b(w[oi]n|lose|lost|trail\w*|defeat\w*|beat|lead|led)\b (\w+ ){0,4}by\b|\bapart\b"
COUNT_NOT = r"\bhow (many|much)\b.*(\bnot|n't)\b"
EITHER_BOTH = r"\beither\b.*\bor\b|\bboth\b.*\band\b"
A_OR_B = (
    r"\bhow (many|much)\b.*\b[a-z]+ or (?!(more|less|fewer|longer|shorter|over|under|older|"
    r"younger|greater|higher|lower)\b)[a-z]+"
)

# Wording that asks for a computation over stated figures (a difference, a sum, a change, an
# average, a ratio, a complement). Written from the fitting halves of DROP dev and TAT-QA dev only
# (importers/split.py); `factqa bench routing` measures it on both parts.
COMPUTE_Q = re.compile(
    rf"\bhow (many|much) {COMPARATIVE}\b"
    r"|\b(more|fewer|less|longer|shorter|higher|lower|larger|smaller|older|younger) than\b"
    r"|\bdifference\b|\bchange\b|\b(increase|decrease|grow|growth|rise|fall|drop|decline)[ds]?\b"
    r"|\baverage\b|\bmean\b|\bratio\b|\bin total\b|\btotal\b|\bcombined\b|\baltogether\b"
    r"|\bsum\b|\bcompared (to|with)\b|\bbetween .+ and\b"
    r"|\bhow many (years|months|days|weeks|decades|hours|minutes) (after|before|passed|did|was|"
    r"were|had|elapsed|later|earlier|between|since|from|longer)\b"
    r"|(\bnot|n't)\b.*\b(percent|percentage)\b|\b(percent|percentage)\b.*(\bnot|n't)\b"
    rf"|{MARGIN}"
    r"|\bmargin\b|\bproportion\b|\bother than\b.*\bpercent|\bpercent\w*\b.*\bother than\b"
    rf"|{HOW_MANY_UNITS_MORE}|{COUNT_NOT}|{EITHER_BOTH}|{A_OR_B}",
    re.I,
)


def asks_computation(question: str) -> bool:
    """Whether the wording asks for a figure computed from stated ones (`COMPUTE_Q`); a
    question that asks for a date ("when", "which year") never does."""
    return wording_kind(question) != "date" and bool(COMPUTE_Q.search(question))

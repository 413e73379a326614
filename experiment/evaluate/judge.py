"""The gold judge: whether an answer is right, the one rule every method and output uses.

An answer is right when its value matches some gold answer of the question:
- **Dates**: the answer's interval lies within the gold's interval, so the answer is at least as
  precise as that gold and consistent with it. "3 March 2009" is right against gold "2009";
  "2009", "March 2009", "early 2009" or "the 2000s" are wrong against gold "3 March 2009" unless
  another gold answer is that coarse (SQuAD often lists "2009" beside "3 March 2009"). An answer
  without a year ("March 3") never matches a gold with a year; an answer with a year may match a
  gold without one ("March 3, 2009" against "March 3").
- **Figures**: equal values in comparable units (`experiment.values.canonical`), and the same
  bound: "less than 100" is neither "more than 100" nor a bare "100"; "about 100" and "100" are
  one value (`canonical.same_bound`).
- **Changes**: where the question asks for a change ("by how much", "increase", "decline",
  "loss"...), figures compare by magnitude and direction. A figure's direction is its sign
  ("-54.7 million"), else a change word in its text ("decreased $54.7 million", "a decline of
  54.7 million"), else, for the gold only, the direction the question's wording states ("By how
  much did revenue *decrease*?"). Then (`directions_agree`):
  - opposite directions are never right ("Revenue increased by $54.7 million" against a
    decrease; "-5%" against "What was revenue growth?", gold "5%");
  - where the gold has a direction and the answer none, the answer is right only where the
    question's wording states that same direction ("54.7 million" answers "By how much did it
    decrease?", gold "-54.7 million", but not "What was the change?" with that gold);
  - where only the answer has a direction, the gold is the positive figure it is written as, so
    only a rise matches it ("fell 5%" is wrong against "What was the change?", gold "5%");
  - where neither has one, magnitudes compare.
- **Unanswerable questions**: only a deliberate abstention is right (the model said the article
  does not state it, or the method declined to answer). A failure (empty or repetitive output, an
  error, no value of the asked kind) is wrong everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from experiment.base.types import Question
from experiment.evaluate.answer import Answer
from experiment.values.canonical import (
    DateValue,
    Quantity,
    Value,
    as_date,
    quantities_equal,
    same_bound,
)
from experiment.values.normalize import parse_value

CHANGE_QUESTION = re.compile(
    r"\b(chang\w*|increas\w*|decreas\w*|differen\w*|grow\w*|grew|rise|rose|risen|fall|fell|"
    r"fallen|drop\w*|declin\w*|gain\w*|loss\w*|lost|shr[aiu]nk\w*|by how much)\b",
    re.IGNORECASE,
)
DOWN_WORDS = re.compile(
    r"\b(decreas\w*|declin\w*|fell|fall(?:s|ing)?|dropp?(?:ed|s|ing)?|lower|los[st]|losses|"
    r"down|reduc\w*|shr[aiu]nk\w*|negative)\b",
    re.IGNORECASE,
)
UP_WORDS = re.compile(
    r"\b(increas\w*|r[io]se|risen|rising|grew|grow(?:s|th|n|ing)?|gain\w*|higher|up|positive)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Gold:
    value: Value
    text: str


def gold_of(q: Question) -> list[Gold]:
    """The question's gold answers that read as values of its kind."""
    return [Gold(v, g) for g in q.gold if (v := parse_value(g, q.kind, q.text)) is not None]


def gold_values(q: Question) -> list[Value]:
    return [g.value for g in gold_of(q)]


def words_direction(text: str) -> int:
    """-1 where the text's change words say a fall, +1 a rise, 0 where they say neither or both."""
    down, up = DOWN_WORDS.search(text), UP_WORDS.search(text)
    if down and not up:
        return -1
    if up and not down:
        return 1
    return 0


def direction(value: Quantity, text: str) -> int:
    """-1 for a fall, +1 for a rise, 0 when the sign and the words do not say."""
    if value.low < 0 or value.high < 0:
        return -1
    return words_direction(text)


def directions_agree(answer: int, gold: int, question: int) -> bool:
    """The judge's direction rule for a change (module docstring): `gold` is the gold's own
    direction, `question` the one the question's wording states (0: none)."""
    gold = gold or question
    if answer and gold:
        return answer == gold
    if gold:
        return question == gold
    return answer >= 0


def _magnitude(q: Quantity) -> Quantity:
    low, high = sorted((abs(q.low), abs(q.high)))
    return Quantity(low, high, q.unit, q.qualifier)


def figure_right(
    answer: Quantity,
    gold: Quantity,
    answer_text: str = "",
    gold_text: str = "",
    question: str = "",
) -> bool:
    """Figures: equal values with the same bound; by magnitude and direction for a change
    (`question` asks for one)."""
    if not same_bound(answer, gold):
        return False
    if not CHANGE_QUESTION.search(question):
        return quantities_equal(answer, gold)
    asked = words_direction(question)
    if not directions_agree(direction(answer, answer_text), direction(gold, gold_text), asked):
        return False
    return quantities_equal(_magnitude(answer), _magnitude(gold))


def date_right(answer: DateValue, gold: DateValue) -> bool:
    """Dates: the answer's interval within the gold's; a missing year never matches a year."""
    if gold.year_known and not answer.year_known:
        return False
    if answer.year_known and gold.year_known:
        return gold.start <= answer.start and answer.end <= gold.end
    if gold.granularity == "year":
        return False
    # Month and day alone: the answer's month/day range within the gold's.
    md = (answer.start.month, answer.start.day), (answer.end.month, answer.end.day)
    gmd = (gold.start.month, gold.start.day), (gold.end.month, gold.end.day)
    return gmd[0] <= md[0] and md[1] <= gmd[1]


def value_right(answer: Value, gold: Gold, question: str = "", answer_text: str = "") -> bool:
    """Whether one answer value matches one gold answer of a question."""
    if isinstance(answer, Quantity) and isinstance(gold.value, Quantity):
        return figure_right(answer, gold.value, answer_text, gold.text, question)
    a, g = as_date(answer), as_date(gold.value)
    return a is not None and g is not None and date_right(a, g)


def judge(
    value: Value | None,
    q: Question,
    gold: Sequence[Gold],
    answer_text: str = "",
    abstained: bool = False,
    written: Value | None = None,
) -> bool:
    """Whether an answer is right. `value` None with `abstained` is a deliberate abstention
    (right only on an unanswerable question); `value` None without it is a failure (never right).
    `written` is the figure as written where `value` is its scaled table reading: a bare cell
    "142.9" under "$ in millions" is right against the gold "$142.9 million" and against "142.9".
    """
    if q.unanswerable:
        return value is None and abstained
    readings = [v for v in (value, written) if v is not None]
    return any(value_right(v, g, q.text, answer_text) for v in readings for g in gold)


def sample_right(s: Answer, q: Question, gold: Sequence[Gold]) -> bool:
    """Whether one sample's answer to `q` is right by the judge."""
    return judge(s.value, q, gold, s.attempt.raw_text, s.abstained, s.written)

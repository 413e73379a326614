"""The gold judge as a table: dates, ranges, qualifiers, signs, units, abstentions.

`# old: right` marks a verdict that the lenient judge (dates at the coarsest shared granularity,
qualifiers and change words ignored, every missing answer an abstention) gave the other way.
"""

from __future__ import annotations

import pytest

from experiment.base.types import Question
from experiment.evaluate.judge import gold_of, judge
from experiment.values.normalize import parse_value

WHEN = "When did it happen?"
HOW_MANY = "How many were there?"
DROP_Q = "By how much did revenue decrease in 2019?"
CHANGE_Q = "What was the change in revenue?"
LEVEL_Q = "What was the revenue?"
GROW_Q = "How much did sales grow?"
LOSS_Q = "What was the net loss?"
CENTURY_Q = "In what century was it built?"

CASES = [
    # dates: the answer's interval must lie within a gold interval
    ("2009", ("3 March 2009",), "date", WHEN, False),  # old: right
    ("2009", ("2009", "3 March 2009"), "date", WHEN, True),
    ("in March", ("3 March 2009",), "date", WHEN, False),  # old: right
    ("March 3", ("3 March 2009",), "date", WHEN, False),  # old: right
    ("early 2009", ("3 March 2009",), "date", WHEN, False),  # old: right
    ("the 2000s", ("3 March 2009",), "date", WHEN, False),  # old: right
    ("the 21st century", ("3 March 2009",), "date", WHEN, False),  # old: right
    ("March 2009", ("3 March 2009",), "date", WHEN, False),  # old: right
    ("March 2021", ("2021",), "date", WHEN, True),
    ("3 March 2009", ("2009",), "date", WHEN, True),
    ("March 3, 2009", ("3 March 2009",), "date", WHEN, True),
    ("2008", ("2009",), "date", WHEN, False),
    ("March 3, 2009", ("March 3",), "date", WHEN, True),
    ("March 4", ("March 3",), "date", WHEN, False),
    ("in March", ("March 3",), "date", WHEN, False),  # old: right
    ("July 16, 1969", ("1969",), "date", WHEN, True),
    ("1969", ("July 16, 1969",), "date", WHEN, False),  # old: right
    ("the 1960s", ("1969",), "date", WHEN, False),  # old: right
    ("1969", ("the 1960s",), "date", WHEN, True),
    ("autumn 2008", ("2008",), "date", WHEN, True),
    ("2008", ("autumn 2008",), "date", WHEN, False),  # old: right
    ("September 2008", ("autumn 2008",), "date", WHEN, True),
    ("January 2008", ("autumn 2008",), "date", WHEN, False),
    ("19th century", ("19th century",), "date", CENTURY_Q, True),
    ("1850", ("19th century",), "date", CENTURY_Q, True),
    ("1950", ("19th century",), "date", CENTURY_Q, False),
    ("19th century", ("1850",), "date", CENTURY_Q, False),  # old: right
    ("in 1990", ("1990",), "date", WHEN, True),
    ("1990", ("1991",), "date", WHEN, False),
    ("May 2020", ("May 1, 2020",), "date", WHEN, False),  # old: right
    ("May 1, 2020", ("May 2020",), "date", WHEN, True),
    ("June 2020", ("May 2020",), "date", WHEN, False),
    # figures: equal values in comparable units, qualifiers not opposite
    ("less than 100", ("more than 100",), "figure", HOW_MANY, False),  # old: right
    ("up to 50", ("at least 50",), "figure", HOW_MANY, False),  # old: right
    ("fewer than 20", ("over 20",), "figure", HOW_MANY, False),  # old: right
    ("more than 100", ("over 100",), "figure", HOW_MANY, True),
    ("about 100", ("100",), "figure", HOW_MANY, True),
    ("100", ("less than 100",), "figure", HOW_MANY, False),  # a bound is not a figure; old: right
    ("less than 100", ("100",), "figure", HOW_MANY, False),  # old: right
    ("nearly 100", ("more than 100",), "figure", HOW_MANY, False),  # old: right
    ("3,200", ("3200",), "figure", HOW_MANY, True),
    ("13,200", ("3,200",), "figure", HOW_MANY, False),
    ("1,200", ("1,300",), "figure", HOW_MANY, False),
    ("$3bn", ("3 billion dollars",), "figure", HOW_MANY, True),
    ("1.5 million", ("1,500,000",), "figure", HOW_MANY, True),
    ("103 miles", ("166 km",), "figure", HOW_MANY, True),
    ("166 km", ("166 kg",), "figure", HOW_MANY, False),
    ("2", ("2 to 3",), "figure", HOW_MANY, False),
    ("2 to 3", ("2-3",), "figure", HOW_MANY, True),
    ("45%", ("45 percent",), "figure", HOW_MANY, True),
    ("45", ("45%",), "figure", HOW_MANY, True),
    ("twenty-one", ("21",), "figure", HOW_MANY, True),
    ("third", ("3",), "figure", HOW_MANY, False),
    ("€94 million", ("94 million euros",), "figure", HOW_MANY, True),
    ("94", ("€94 million",), "figure", HOW_MANY, False),
    ("1,000", ("1000",), "figure", HOW_MANY, True),
    # changes: magnitude and direction
    ("-54.7 million", ("decreased $54.7 million",), "figure", DROP_Q, True),  # old: wrong
    ("$54.7 million", ("a decline of 54.7 million",), "figure", DROP_Q, True),
    ("decreased $54.7 million", ("-54.7 million",), "figure", DROP_Q, True),  # old: wrong
    (
        "an increase of 54.7 million",
        ("a decline of 54.7 million",),
        "figure",
        CHANGE_Q,
        False,
    ),  # old: right
    # the gold has a direction, the answer none, and the question states none
    ("54.7 million", ("-54.7 million",), "figure", CHANGE_Q, False),
    ("-54.7 million", ("54.7 million",), "figure", LEVEL_Q, False),
    ("rose 12%", ("12%",), "figure", GROW_Q, True),
    ("fell 12%", ("increased 12%",), "figure", CHANGE_Q, False),  # old: right
    ("a loss of $5 million", ("-5 million",), "figure", LOSS_Q, True),  # old: wrong
    ("-12%", ("fell by 12%",), "figure", CHANGE_Q, True),  # old: wrong
    ("-12%", ("grew 12%",), "figure", CHANGE_Q, False),
]


@pytest.mark.parametrize(("answer", "gold", "kind", "question", "right"), CASES)
def test_judge_table(answer: str, gold: tuple[str, ...], kind: str, question: str, right: bool):  # type: ignore[no-untyped-def]
    q = Question("q", "a", question, gold, kind)  # type: ignore[arg-type]
    value = parse_value(answer, kind, question)
    assert value is not None, f"{answer!r} does not read as a {kind}"
    assert judge(value, q, gold_of(q), answer) is right


def test_the_table_is_large_enough() -> None:
    assert len(CASES) >= 60


UNANSWERABLE = Question("u", "a", HOW_MANY, ("unanswerable",), "figure")
ANSWERABLE = Question("q", "a", HOW_MANY, ("5",), "figure")


@pytest.mark.parametrize(
    ("q", "value", "abstained", "right"),
    [
        (UNANSWERABLE, None, True, True),  # said "not stated"
        (UNANSWERABLE, None, False, False),  # a failure (empty, error, wrong kind); old: right
        (UNANSWERABLE, "5", False, False),
        (ANSWERABLE, None, True, False),
        (ANSWERABLE, None, False, False),
        (ANSWERABLE, "5", False, True),
    ],
)
def test_only_a_deliberate_abstention_is_right_on_an_unanswerable_question(  # type: ignore[no-untyped-def]
    q, value, abstained, right
) -> None:
    v = parse_value(value, "figure") if value else None
    assert judge(v, q, gold_of(q), value or "", abstained) is right

"""The span matcher: the value decides, spans respect token boundaries, evidence is located."""

from __future__ import annotations

import pytest

from experiment.values.normalize import parse_value
from experiment.verify.match import verify

ARTICLE = (
    "OrigoTech shipped 13,200 units in 2021 and 1,300 in January. Revenue was $3bn in March "
    "2022, up 45%. The site covers 21,000 square metres and draws 36 MW. The E2 sold about "
    "61,000 units. Speed-ups of 2 to 3 times were reported. Staff rose to 4,800."
)


@pytest.mark.parametrize(
    ("answer", "kind", "confirmed", "span"),
    [
        ("13,200", "figure", True, "13,200"),
        ("13200", "figure", True, "13,200"),
        ("3,200", "figure", False, None),  # must not match inside 13,200
        ("1,200", "figure", False, None),  # 1,300 is a different value
        ("1,300", "figure", True, "1,300"),
        ("$3 billion", "figure", True, "$3bn"),
        ("3 billion dollars", "figure", True, "$3bn"),
        ("€3bn", "figure", False, None),  # wrong currency
        ("3 million", "figure", False, None),  # scale slip
        ("45 per cent", "figure", True, "45%"),
        ("45", "figure", True, "45%"),  # a bare number is compared by value
        ("March 2022", "date", True, "March 2022"),
        ("2022", "date", True, "March 2022"),  # the text says more than the answer claims
        ("March 2021", "date", False, None),  # year shifted
        ("2021", "date", True, "2021"),
        ("36 MW", "figure", True, "36 MW"),
        ("36,000 kW", "figure", True, "36 MW"),  # converted units
        ("36 GW", "figure", False, None),
        ("61,000", "figure", True, "61,000"),
        ("about 61,000", "figure", True, "61,000"),
        ("2 to 3 times", "figure", True, "2 to 3 times"),
        ("4,800", "figure", True, "4,800"),
        ("48", "figure", False, None),
        ("twenty-one thousand square metres", "figure", True, "21,000 square metres"),
    ],
)
def test_verify(answer: str, kind: str, confirmed: bool, span: str | None) -> None:
    verdict = verify(parse_value(answer, kind), ARTICLE, answer)
    assert verdict.confirmed is confirmed
    if span is None:
        assert verdict.span is None
    else:
        assert verdict.span is not None
        assert verdict.span.text == span
        assert ARTICLE[verdict.span.start : verdict.span.end] == span


@pytest.mark.parametrize(
    ("answer", "confirmed"), [("3rd", True), ("third", True), ("3", False), ("4th", False)]
)
def test_ranks(answer: str, confirmed: bool) -> None:
    text = "The team finished third in 2019 and 12th a year later."
    assert verify(parse_value(answer, "figure"), text, answer).confirmed is confirmed


def test_month_in_answer_needs_month_in_text() -> None:
    # "2021" in the text does not say which month: the answer claims more than the evidence.
    assert not verify(parse_value("March 2021", "date"), "It happened in 2021.").confirmed
    assert verify(parse_value("2021", "date"), "It happened in March 2021.").confirmed


def test_every_supporting_span_is_returned() -> None:
    verdict = verify(parse_value("40", "figure"), "40 staff; later 40 more; 400 in all.")
    assert [s.text for s in verdict.spans] == ["40", "40"]


def test_nothing_to_verify() -> None:
    assert verify(None, ARTICLE).reason == "nothing to verify"

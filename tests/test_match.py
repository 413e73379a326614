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


DIGITS_331 = "7" * 330


@pytest.mark.parametrize(
    ("answer", "article", "span"),
    [
        # beyond the domain: refused on both sides, never inf and never the mantissa
        (DIGITS_331 + "1", f"The count was {DIGITS_331}2.", None),
        (DIGITS_331 + "1", f"The count was {DIGITS_331}1.", None),
        ("10^400", "It held 10 atoms.", None),
        ("10**400", "It held 10 atoms.", None),
        ("10 atoms", "It held 10^400 atoms.", None),
        ("10^9", "It held 10 atoms.", None),
        ("10^9", "It held 1,000,000,000 atoms.", "1,000,000,000"),
        ("1e9", "It cost 1e9 dollars.", "1e9 dollars"),
        ("one billion", "It held 1e9 atoms.", "1e9"),
        ("2.5 × 10^9", "It held 2.5 billion atoms.", "2.5 billion"),
        # twelve digits apart in the last one: two values
        ("123456789012", "It holds 123,456,789,013 bytes.", None),
        ("123456789012", "It holds 123,456,789,012 bytes.", "123,456,789,012"),
        # signs
        ("minus 5", "It rose by 5.", None),
        ("5", "The low was minus 5.", None),
        ("-5", "The low was minus 5 °C.", "minus 5 °C"),
        ("minus 5", "The low was -5 °C.", "-5 °C"),
        ("negative 5", "The low was −5.", "−5"),
        ("-5", "It lasted 4-5 days.", None),
        # vulgar fractions
        ("½", "They paid ½ of it.", "½"),
        ("0.5", "They paid ½ of it.", "½"),
        ("2½ hours", "It took 2.5 hours.", "2.5 hours"),
        ("3½", "It took 2½ hours.", None),
        # money in minor units
        ("438.1p", "Shares closed at £4.381.", "£4.381"),
        ("£4.381", "Shares closed at 438.1p.", "438.1p"),
        ("35c", "A stamp costs $0.35.", "$0.35"),
        ("35 cents", "A stamp costs 35c.", "35c"),
        ("35c", "A stamp costs 35 dollars.", None),
        ("$10.80", "It streams at 1080p.", None),
    ],
)
def test_number_edges(answer: str, article: str, span: str | None) -> None:
    verdict = verify(parse_value(answer, "figure"), article, answer)
    assert verdict.confirmed is (span is not None)
    assert (verdict.span.text if verdict.span else None) == span


@pytest.mark.parametrize(
    ("answer", "confirmed"),
    [("31 MW", True), ("31", True), ("31 GW", False), ("31 km", False), ("31%", False)],
)
def test_a_unit_named_in_brackets_above_a_table_is_its_cells_unit(answer: str, confirmed: bool):  # type: ignore[no-untyped-def]
    # the one-way rule refused "31 MW" here: the unit was in the caption, not beside the cell
    text = "Capacity (MW)\n\n| Site | 2024 | 2023 |\n|---|---:|---:|\n| South | 31 | 27 |\n"
    got = verify(parse_value(answer, "figure"), text, answer)
    assert got.confirmed is confirmed

"""Bugs found by `factqa bench verifier` on SQuAD, each pinned by the case that showed it."""

from __future__ import annotations

import pytest

from experiment.values.dates import parse_date_fallback
from experiment.values.normalize import parse_value
from experiment.values.question_kind import question_kind
from experiment.verify.match import verify


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        ("September 1933", "It began on September 27 after the talks."),  # no year in the text
        ("November 1962", "It ended on November 22."),
        ("In July 3876,", "In July 1876, the plant opened."),  # "In July" must not hide 3876
        ("In January 2914", "In January 2014 it moved."),
        ("82 January", "On 12 January the ship sailed."),
    ],
)
def test_refused_corruptions(answer: str, text: str) -> None:
    assert not verify(parse_value(answer, "date"), text, answer).confirmed


@pytest.mark.parametrize("text", ["19th", "the 16th", "20 minutes", "82 January", "November 62,"])
def test_fallback_never_invents_a_year(text: str) -> None:
    # dateparser read "19th" as 2019 and "82 January" as January 1982
    assert parse_date_fallback(text) is None


def test_fallback_keeps_a_written_year() -> None:
    value = parse_date_fallback("1921 June 5")  # an order the patterns do not read
    assert value is not None and value.canonical() == "1921-06-05"


def test_bare_ordinal_is_a_century_when_the_question_says_so() -> None:
    q = "In what century did the city grow?"
    value = parse_value("19th", "date", q)
    assert value is not None and value.canonical() == "century 19"
    assert verify(value, "It grew in the 19th century.").confirmed
    assert parse_value("19th", "date") is None  # without the question: no reading
    assert question_kind(q, ["19th", "the 19th"]) == "date"


@pytest.mark.parametrize(("text", "year"), [("AD 14", 14), ("14 AD", 14), ("AD 1066", 1066)])
def test_anno_domini(text: str, year: int) -> None:
    value = parse_value(text, "date")
    assert value is not None and value.start.year == year


def test_bc_years_are_refused() -> None:
    assert parse_value("44 BC", "date") is None


def test_duration_is_not_a_date() -> None:
    assert question_kind("When did the storm pass?", ["20 minutes"]) is None


def test_prefixed_dollar_currencies() -> None:
    # "C$96 million" was read as one million: the C blocked the figure, "million" stood alone
    assert parse_value("C$96 million", "figure").canonical() == "96000000 CAD"  # type: ignore[union-attr]
    assert parse_value("A$5", "figure").canonical() == "5 AUD"  # type: ignore[union-attr]
    assert parse_value("million", "figure") is None

"""Answer extraction: the asked kind out of a sentence, question echoes dropped, units ranked."""

from __future__ import annotations

import pytest

from experiment.values.extract import extract


@pytest.mark.parametrize(
    ("answer", "question", "kind", "best"),
    [
        ("In 2021, OrigoTech had 450 staff.", "How many staff in 2021?", "figure", "450"),
        ("The answer is: 47.5 pounds (21.5 kg)", "How heavy is it?", "figure", "47.5 lb"),
        (
            "In the autumn of 1987, the bridge was shut",
            "When was the bridge shut?",
            "date",
            "1987-09-01/1987-11-30",
        ),
        ("about 1.8 billion years ago", "How long ago?", "figure", "about 1800000000 year"),
        (
            "Revenue rose 14% to €1.12 billion",
            "By what percentage did revenue grow?",
            "figure",
            "14 %",
        ),
        (
            "Revenue rose 14% to €1.12 billion",
            "How much revenue did it make?",
            "figure",
            "1120000000 EUR",
        ),
        ("2009", "When was it founded?", "date", "2009"),
        ("It was founded on 3 March 2009.", "When was it founded?", "date", "2009-03-03"),
        ("between 40 and 50", "How many?", "figure", "40..50"),
        ("**18,400**", "How many customers?", "figure", "18400"),
    ],
)
def test_best_candidate(answer: str, question: str, kind: str, best: str) -> None:
    e = extract(answer, question, kind)
    assert e.best is not None, e.reason
    assert e.best.value.canonical() == best


def test_all_candidates_kept() -> None:
    e = extract("103 miles (166 km)", "How far?", "figure")
    assert [c.value.canonical() for c in e.candidates] == ["103 mi", "166 km"]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("", "empty answer"),
        ("   ", "empty answer"),
        ("unknown", "model abstained"),
        ("The article does not say.", "model abstained"),
        ("blue", "no figure in answer"),
        (
            "About 10^400 units.",
            "figure refused (10^400): beyond the magnitudes read (10^-100 to 10^100)",
        ),
        ("1" * 40, f"figure refused ({'1' * 24}): more than 15 significant digits"),
    ],
)
def test_no_answer_reasons(answer: str, reason: str) -> None:
    e = extract(answer, "How many units?", "figure")
    assert e.best is None
    assert e.reason == reason


def test_echo_kept_when_it_is_all_there_is() -> None:
    # "2021" echoes the question, but it is the only figure: keep it rather than abstain.
    e = extract("2021", "How many units were sold in 2021?", "figure")
    assert e.best is not None and e.best.value.canonical() == "2021"

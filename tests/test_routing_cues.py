"""`factqa bench routing --cues`: which cue of the `auto` rule a question matches, and each cue's
share of computed golds (where the rule is unsure)."""

from __future__ import annotations

from experiment.base.types import Question
from experiment.bench.analyse.routing import NO_CUE, SEVERAL, cue_of, cue_rows


def test_a_question_s_cue_is_named_in_one_form() -> None:
    assert cue_of("How many more yards did Smith run than Jones?") == "how many/much ..."
    assert cue_of("What percent of people were not Asian?") == "... percent ... not"
    assert cue_of("What was the total revenue in 2019?") == "total"
    assert cue_of("What was hardware revenue in 2019?") == NO_CUE
    assert cue_of("What was the average change in revenue?") == SEVERAL
    assert cue_of("When did revenue change?") == NO_CUE  # a date question asks no computation


def test_each_cue_counts_its_figure_questions_and_their_computed_share() -> None:
    def q(i: int, text: str, computed: bool, kind: str = "figure") -> Question:
        return Question(f"q{i}", "a", text, ("1",), kind, computed=computed)  # type: ignore[arg-type]

    rows = cue_rows(
        [
            q(1, "What was the total revenue?", False),
            q(2, "What was the total cost?", True),
            q(3, "What was the total staff?", False),
            q(4, "What was the change in revenue?", True),
            q(5, "What was revenue in 2019?", False),
            q(6, "In which year did the total change?", False, "date"),  # not a figure question
        ]
    )
    assert rows == [("total", 3, 1 / 3), ("(no cue)", 1, 0.0), ("change", 1, 1.0)]


def test_the_misrouted_questions_and_those_in_unsure_cues_are_counted() -> None:
    from experiment.bench.analyse.routing import unsure

    def q(i: int, text: str, computed: bool) -> Question:
        return Question(f"q{i}", "a", text, ("1",), "figure", computed=computed)  # type: ignore[arg-type]

    got = unsure(
        [
            q(1, "What was the total revenue?", False),  # sent to calc, stated: misrouted
            q(2, "What was the total cost?", True),
            q(3, "What was the change in revenue?", True),  # a sure cue (share 1.0)
            q(4, "What was revenue in 2019?", True),  # no cue, computed: misrouted, share 1.0
        ]
    )
    assert (got.questions, got.misrouted, got.unsure, got.misrouted_unsure) == (4, 2, 2, 1)

"""Answers with their working (`7 = 9 - 2`): read, checked by the derivation rule, voted by
small-derived@k, written to attempts.csv and read back; the derive prompt asks for them."""

from __future__ import annotations

from pathlib import Path

from experiment.base.types import Article, Generation, Question
from experiment.evaluate.confirm import confirm_sample, working_line
from experiment.evaluate.methods import answer_methods
from experiment.generate.prompts import DERIVE, FIGURE, messages_for
from experiment.generate.sampling import Sample
from experiment.record.migrate import migrate
from experiment.record.write import ATTEMPT_COLUMNS, attempt_row
from experiment.report.run import typed_attempts

ARTICLE = Article(
    "a1",
    "Warehouses",
    "2025-01-01",
    "OrigoTech had 9 warehouses in June. In the third quarter it closed 2 of them, and it "
    "opened a new office in Porto with 40 desks.",
    Path("a1.md"),
)
LEFT = Question("q1", "a1", "How many warehouses does OrigoTech have left?", ("7",), "figure")


def checked(text: str, i: int = 0, q: Question = LEFT):  # type: ignore[no-untyped-def]
    sample = Sample(q, i, i, Generation(text, 10, 5, 0.1), cached=False)
    s = confirm_sample(sample, ARTICLE, "small", "m", 0.7)
    return s.attempt, s.value


def test_a_right_working_is_derived_with_each_operand_span() -> None:
    attempt, value = checked("7 = 9 - 2")
    assert attempt.derived and attempt.working == "9 - 2" and attempt.derivation_reason == ""
    assert value is not None and value.canonical() == checked("7")[1].canonical()  # type: ignore[union-attr]
    assert [ARTICLE.text[s.start : s.end] for s in attempt.operand_spans] == ["9", "2"]
    assert not attempt.confirmed  # 7 is not written: the text check is unchanged


def test_wrong_arithmetic_or_an_operand_not_in_the_text_is_refused_with_its_reason() -> None:
    wrong, _ = checked("8 = 9 - 2")
    assert not wrong.derived and wrong.derivation_reason and not wrong.operand_spans
    invented, _ = checked("6 = 9 - 3")
    assert not invented.derived and "3" in invented.derivation_reason


def test_the_working_is_never_a_candidate_of_the_text_check() -> None:
    # "9" is written in the article, but the answer is 5 = 9 - 4 (5 and 4 not stated)
    attempt, value = checked("5 = 9 - 4")
    assert not attempt.confirmed and not attempt.derived
    assert value is not None and attempt.answer == "5"


def test_a_figure_alone_has_no_working() -> None:
    attempt, _ = checked("40")
    assert attempt.working == "" and not attempt.derived and attempt.confirmed
    assert working_line("The answer:\n7 = 9 - 2\n") == "7 = 9 - 2"
    assert working_line("7") is None


def test_small_derived_votes_the_derived_answers_beside_the_unchanged_verified() -> None:
    small = [checked("7 = 9 - 2", 0), checked("7 = 9 - 2", 1), checked("9", 2)]
    from experiment.evaluate.answer import Answer

    scored = [Answer(*x) for x in small]
    out = answer_methods(LEFT, scored, scored[2], 3)
    assert out["small-derived@3"].correct and out["small-derived@3"].agreement == 2 / 3
    assert not out["small-verified@3"].correct  # only the stated 9 is confirmed by the text


def test_attempts_csv_keeps_the_working_and_the_operand_spans() -> None:
    import pandas as pd

    attempt, _ = checked("7 = 9 - 2")
    row = attempt_row(attempt)
    assert set(row) - {"cached"} == set(ATTEMPT_COLUMNS)
    frame = pd.DataFrame([{k: str(v) for k, v in row.items()}])
    back = typed_attempts(frame).iloc[0]
    assert bool(back.derived) and back.working == "9 - 2"
    assert [(s.start, s.end) for s in back.operand_spans] == [
        (s.start, s.end) for s in attempt.operand_spans
    ]
    before = {"attempts.csv": frame.drop(columns=["derived", "operand_spans"])}
    old = typed_attempts(migrate({}, before)[1]["attempts.csv"]).iloc[0]  # a format-0 folder
    assert not bool(old.derived) and old.operand_spans == ()


def test_the_derive_prompt_asks_for_the_working_and_the_default_does_not() -> None:
    derive = messages_for(ARTICLE, LEFT, DERIVE)[0]["content"]
    figure = messages_for(ARTICLE, LEFT, FIGURE)[0]["content"]
    assert "7 = 9 - 2" in derive and "=" not in figure
    assert messages_for(ARTICLE, LEFT)[1] == messages_for(ARTICLE, LEFT, DERIVE)[1]


def test_the_checkers_record_counts_working_derived_right_and_refusals() -> None:
    import pandas as pd

    from experiment.report.analysis import derivation_record

    rows = [attempt_row(checked(t, i)[0]) for i, t in enumerate(["7 = 9 - 2", "8 = 9 - 2", "9"])]
    wrong_gold = Question("q1", "a1", LEFT.text, ("6",), "figure")
    frame = typed_attempts(pd.DataFrame([{k: str(v) for k, v in r.items()} for r in rows]))
    record = derivation_record(frame, {"q1": LEFT})
    assert record["samples"] == 3 and record["with_working"] == 2
    assert record["derived"] == 1 and record["derived_right"] == 1
    assert sum(v for key, v in record.items() if key.startswith("refused")) == 1
    assert derivation_record(frame, {"q1": wrong_gold})["derived_right"] == 0
    assert derivation_record(frame, {})["samples"] == 0  # questions without gold are left out

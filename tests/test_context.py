"""What a figure stands for: period atoms, a candidate's context and its period and measure match,
the question-level answerability features, and the other-year unanswerable questions."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiment.evaluate.context import PeriodMatch, context_of, cover, measure_terms, period_match
from experiment.evaluate.evidence import index
from experiment.importers.layout import Imported
from experiment.importers.unanswerable import SUFFIX, other_year, other_year_questions
from experiment.values.periods import atoms


def keys(text: str) -> list[str]:
    return [a.key for a in atoms(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("revenue in 2019", ["y2019"]),
        ("fiscal 2019 and FY18", ["y2019", "y2018"]),
        ("the third quarter, Q2 and 4Q", ["q3", "q2", "q4"]),
        ("H1 and the second half", ["h1", "h2"]),
        ("as of March 31, and Sept. 30", ["m03", "m09"]),
        ("prices may rise", []),  # the verb, not the month
        ("$2,019 and 2019.5 and 2019% and 12019", []),  # figures, not years
    ],
)
def test_period_atoms(text: str, expected: list[str]) -> None:
    assert keys(text) == expected


def test_period_match_same_other_and_none() -> None:
    asked = atoms("What was revenue in the third quarter of 2019?")
    assert period_match(asked, atoms("Q3 2019")) == PeriodMatch(1.0, 0.0)
    assert period_match(asked, atoms("Q3 2018")) == PeriodMatch(0.5, 1.0)  # the year disagrees
    assert period_match(asked, atoms("the segment")) == PeriodMatch(0.0, 0.0)  # nothing stated
    assert period_match(atoms("What was revenue?"), atoms("2019")) == PeriodMatch(0.0, 0.0)


TABLE = """OrigoTech's results ($ in millions):

| Segment | 2019 | 2018 |
|---|---:|---:|
| Cloud | 142.9 | 120.4 |
| Devices | 80.1 | 75.0 |

Revenue rose to $5.1m in 2019 from $4.0m in 2018."""


def _context(figure: str, nth: int = 0):  # type: ignore[no-untyped-def]
    start = -1
    for _ in range(nth + 1):
        start = TABLE.index(figure, start + 1)
    end = start + len(figure)
    idx = index(TABLE)
    s = idx.sentences[idx.sentence_at(start)]
    return context_of(TABLE, start, end, (s.start, s.end))


def test_a_cells_context_is_its_headers_and_its_period_its_column() -> None:
    ctx = _context("120.4")
    assert ctx.in_table
    assert [a.key for a in ctx.period] == ["y2018"]
    assert "Cloud" in ctx.text and "Devices" not in ctx.text
    asked = atoms("What was Cloud revenue in 2019?")
    assert period_match(asked, ctx.period).other == 1.0
    assert period_match(asked, _context("142.9").period).same == 1.0
    measure = measure_terms("What was Cloud revenue in 2019?")
    assert cover(measure, _context("142.9").text) > cover(measure, _context("80.1").text)


def test_in_prose_the_nearest_period_of_the_sentence_counts() -> None:
    assert [a.key for a in _context("5.1").period] == ["y2019"]
    assert [a.key for a in _context("4.0").period] == ["y2018"]
    assert not _context("5.1").in_table


def test_measure_terms_drop_periods_and_wh_words() -> None:
    terms = measure_terms("How much revenue did Cloud make in the third quarter of fiscal 2019?")
    assert {"reven", "cloud"} <= terms
    assert not terms & {"third", "quart", "fisca", "much"}
    assert cover(frozenset(), "anything") == 1.0


def _row(question: str, passage: str, **kw: object) -> Imported:
    base: dict[str, object] = {
        "qid": "q1",
        "passage_id": "p1",
        "title": "t",
        "passage": passage,
        "question": question,
        "answers": ("142.9",),
        "group": "p1",
        "kind": "figure",
    }
    return Imported(**(base | kw))  # type: ignore[arg-type]


def test_other_year_asks_for_a_year_the_passage_lacks() -> None:
    made = other_year(_row("What was Cloud revenue in 2019?", TABLE))
    assert made is not None
    assert made.question == "What was Cloud revenue in 2017?"
    assert made.answers == () and made.qid == "q1" + SUFFIX
    assert "2017" not in TABLE


@pytest.mark.parametrize(
    ("question", "kw"),
    [
        ("What was Cloud revenue?", {}),  # no year
        ("What was revenue in 2019 and 2018?", {}),  # two years
        ("What was revenue in 2016?", {}),  # a year the passage does not name
        ("What was the change in 2019?", {"computed": True}),
        ("When in 2019 did it open?", {"kind": "date"}),
        ("What was revenue in 2019?", {"answers": ()}),  # already unanswerable
    ],
)
def test_other_year_leaves_alone(question: str, kw: dict[str, object]) -> None:
    assert other_year(_row(question, TABLE, **kw)) is None


def test_other_year_questions_keeps_only_those_the_rule_makes() -> None:
    rows = [_row("What was Cloud revenue in 2019?", TABLE), _row("What was it?", TABLE, qid="q2")]
    assert [r.qid for r in other_year_questions(rows)] == ["q1" + SUFFIX]


def _checked(answer: str, text: str = TABLE):  # type: ignore[no-untyped-def]
    from experiment.base.types import Article, Generation, Question
    from experiment.evaluate.confirm import confirm_sample
    from experiment.generate.sampling import Sample

    article = Article("a", "t", "2025-01-01", text, Path("a.md"))
    q = Question("q", "a", "What was Cloud revenue in 2019?", ("x",), "figure")
    return confirm_sample(
        Sample(q, 0, 0, Generation(answer, 10, 2, 0.1), False), article, "small", "m", 0.7
    )


def test_a_bare_cell_and_the_figure_with_its_scale_are_one_value() -> None:
    from experiment.evaluate.vote import clusters

    bare, full = _checked("142.9"), _checked("$142.9 million")
    assert bare.attempt.confirmed and full.attempt.confirmed
    assert bare.attempt.answer == "142.9"  # recorded as written
    assert bare.value is not None and bare.value.canonical() == full.value.canonical()  # type: ignore[union-attr]
    assert bare.written is not None and bare.written.canonical() == "142.9"
    assert len(clusters([bare.value, full.value], [0, 1])) == 1


def test_a_figure_also_written_in_prose_stays_as_written() -> None:
    s = _checked("142.9", TABLE + "\nCloud made 142.9 in the year.")
    assert s.attempt.confirmed and s.written is None
    assert s.value is not None and s.value.canonical() == "142.9"


def test_the_judge_takes_a_scaled_cell_for_either_gold_form() -> None:
    from experiment.base.types import Question
    from experiment.evaluate.judge import gold_of, sample_right

    s = _checked("142.9")
    for gold in ("$142.9 million", "142.9"):
        q = Question("q", "a", "What was Cloud revenue in 2019?", (gold,), "figure")
        assert sample_right(s, q, gold_of(q))
    q = Question("q", "a", "What was Cloud revenue in 2019?", ("$142.9 billion",), "figure")
    assert not sample_right(s, q, gold_of(q))

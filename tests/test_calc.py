"""The calculator: a `calc`-prompt answer is a calculation alone (`9 - 2`), whose result the
calculator computes; the article must write every operand (docs/NORMALIZER.md, "Calculations").
The `auto` prompt gives it to questions whose wording asks for a computation."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiment.base.errors import ConfigError
from experiment.base.types import Article, Generation, Question
from experiment.config import RunConfig
from experiment.evaluate.confirm import calculation_line, confirm_sample
from experiment.generate.prompts import AUTO, CALC, FIGURE, messages_for, prompt_for
from experiment.generate.sampling import Sample
from experiment.values.question_kind import asks_computation
from experiment.verify.derive import (
    MAX_CHARS,
    MAX_DEPTH,
    confirm_derivation,
    confirm_expression,
    is_calculation,
)

TEXT = (
    "The club had 11,959 members and 7,477 guests. It was founded in 1860 and moved in 1868. "
    "Of its members 7.1 percent were over 65 and 2% were children. Sales rose from 44.1 to "
    "56.7. Costs were $3.2 million in 2019 and $1.1 million in 2018. The road is 12 km long."
)
ARTICLE = Article("a1", "Club", "2025-01-01", TEXT, Path("a1.md"))


def result(expression: str) -> str | None:
    d = confirm_expression(expression, TEXT)
    return d.result_text if d.confirmed else None


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("11,959 - 7,477", "4482"),  # minus
        ("11,959 + 7,477", "19436"),  # plus
        ("12 * 2", "24"),  # an operand is the figure as the calculation writes it
        ("1868 - 1860", "8"),  # years are figures in a calculation
        ("(56.7 - 44.1) / 44.1 * 100", "28.57%"),  # the percent form, two decimals
        ("(56.7 - 44.1) / 44.1", "0.29"),  # a ratio stays a ratio
        ("(44.1 + 56.7 + 12) / 3", "37.6"),  # an average: its divisor is the count
        ("$3.2 million - $1.1 million", "2100000"),  # scale words
        ("100 - 7.1", "92.9"),  # the complement of a written percentage: 100 is the whole
        ("100 - (7.1 + 2)", "90.9"),
    ],
)
def test_the_calculator_computes_what_the_article_confirms(
    expression: str, value: str | None
) -> None:
    assert result(expression) == value


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("11,959 - 7,000", "'7,000' (7000): value not found in article"),
        ("1 / 0", "division by zero"),
        ("12 km - 1868", None),  # a dropped unit: allowed, as the matcher allows it
        ("12 km - $3.2 million", "the units clash"),
        ("100 - 1868", "'100' (100): value not found"),  # 100 is the whole only of percentages
        ("(44.1 + 56.7) / 3", "'3' (3): value not found"),  # 3 is not the count of 2 figures
        ("(44.1 - 12) / 5", "'5' (5): value not found"),  # nor of a difference
        ("(" * (MAX_DEPTH + 1) + "12" + ")" * (MAX_DEPTH + 1), "nested deeper"),
        ("1e400 - 12", "beyond"),
        ("__import__('os') - 12", "is not a figure"),
        ("12 " + "+ 12 " * (MAX_CHARS // 5), "longer than"),
    ],
)
def test_a_calculation_is_refused_with_its_reason(expression: str, reason: str | None) -> None:
    d = confirm_expression(expression, TEXT)
    if reason is None:
        assert d.confirmed
        return
    assert not d.confirmed and reason in d.reason, d.reason


def test_a_written_result_is_still_checked_against_the_calculation() -> None:
    assert confirm_derivation("4482 = 11,959 - 7,477", TEXT).confirmed
    wrong = confirm_derivation("4500 = 11,959 - 7,477", TEXT)
    assert not wrong.confirmed and "arithmetic is wrong" in wrong.reason
    assert confirm_derivation("92.9% = 100% - 7.1%", TEXT).confirmed  # the whole, written form


@pytest.mark.parametrize(
    ("line", "is_calc"),
    [
        ("1,250 - 75", True),
        ("(56.7-44.1)/44.1*100", True),
        ("$3.2 million - $1.1 million", True),
        ("9 x 2", True),
        ("1932-1935", False),  # a range
        ("5/6/2010", False),  # a date
        ("-14.1%", False),
        ("3x", False),
        ("1/2", False),
        ("7 = 9 - 2", False),  # a derivation, read as such
        ("4482", False),
    ],
)
def test_a_calculation_is_told_from_one_figure(line: str, is_calc: bool) -> None:
    assert is_calculation(line) is is_calc


def checked(text: str, prompt: str):  # type: ignore[no-untyped-def]
    q = Question("q1", "a1", "How many more members than guests?", ("4482",), "figure")
    sample = Sample(q, 0, 0, Generation(text, 10, 5, 0.1), cached=False, prompt=prompt)
    return confirm_sample(sample, ARTICLE, "small", "m", 0.7).attempt


def test_a_calc_prompt_answer_is_the_calculators_result_with_its_operand_spans() -> None:
    attempt = checked("11,959 - 7,477\n", CALC)
    assert attempt.derived and attempt.answer == "4482" and attempt.working == "11,959 - 7,477"
    assert [TEXT[s.start : s.end] for s in attempt.operand_spans] == ["11,959", "7,477"]
    assert calculation_line("`11,959 - 7,477`.") == "11,959 - 7,477"
    stated = checked("11,959", CALC)  # the calc prompt allows the stated figure alone
    assert stated.confirmed and not stated.derived and stated.working == ""
    # the same text under the figure prompt is not read as a calculation
    figure = checked("11,959 - 7,477", FIGURE)
    assert not figure.derived and figure.working == ""


QUESTIONS = {
    "How many more registered Democrats than Republicans?": True,
    "How many years after the siege was the treaty signed?": True,
    "By what percentage did turnover change from 2018 to 2019?": True,
    "How many percent of the staff were not over 40?": True,
    "How many in percent of the staff weren't over 40?": True,  # "n't" as "not"
    "What percent of households didn't own a car?": True,
    "How many staff weren't in the office?": True,  # a count's complement: total - part
    "How many metres longer was the first jump than the second?": True,
    "How many goals did the Otters win the match by?": True,
    "How many runs did the Herons trail by after the third inning?": True,
    "How many years apart were the two censuses?": True,
    "How many people were either Asian or Native American?": True,
    "How many people were wounded or killed?": True,
    "How many field goals of 40 yards or longer were made?": False,  # "or longer": a count
    "How many percent were of an ancestry other than German?": True,
    "What is the average of the two years?": True,
    "How many points were scored in total?": True,
    "How many goals did Moreno score?": False,
    "What was the revenue in 2019?": False,
    "In what year was the club founded?": False,
    "When did the station change its call sign?": False,  # a date question: never calc
}


@pytest.mark.parametrize(("text", "computed"), QUESTIONS.items())
def test_auto_gives_the_calc_prompt_to_computation_questions_only(
    text: str, computed: bool
) -> None:
    q = Question("q1", "a1", text, ("1",), "figure")
    assert asks_computation(text) is computed
    assert prompt_for(q, AUTO) == (CALC if computed else FIGURE)
    assert prompt_for(q, FIGURE) == FIGURE and prompt_for(q, CALC) == CALC
    system, user = messages_for(ARTICLE, q, AUTO)
    assert ("calculation only" in user["content"]) is computed
    assert ("calculator" in system["content"]) is computed


def test_the_prompt_setting_names_its_choices() -> None:
    assert RunConfig(prompt="auto").prompt == "auto"
    with pytest.raises(ConfigError, match="'figure', 'derive', 'calc', 'auto'"):
        RunConfig(prompt="guess")


def test_under_calc_the_calculator_replaces_a_result_the_model_wrote() -> None:
    attempt = checked("11,959 - 7,477 = 4,492", CALC)  # the model's arithmetic slipped
    assert attempt.derived and attempt.answer == "4482"
    derive = checked("11,959 - 7,477 = 4,492", "derive")  # the derive prompt checks it instead
    assert not derive.derived and "arithmetic is wrong" in derive.derivation_reason


def test_a_difference_is_its_size_unless_the_question_asks_for_a_change() -> None:
    q = Question(
        "q2", "a1", "How many years after its founding did the club move?", ("8",), "figure"
    )
    sample = Sample(q, 0, 0, Generation("1860 - 1868", 10, 5, 0.1), cached=False, prompt=CALC)
    assert confirm_sample(sample, ARTICLE, "small", "m", 0.7).attempt.answer == "8"
    change = Question("q3", "a1", "What was the change in sales?", ("-12.6",), "figure")
    sample = Sample(change, 0, 0, Generation("44.1 - 56.7", 10, 5, 0.1), cached=False, prompt=CALC)
    assert confirm_sample(sample, ARTICLE, "small", "m", 0.7).attempt.answer == "-12.6"


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("9 - 2", "difference"),
        ("-9 - 2", "difference"),
        ("100 - 7.1", "complement"),
        ("100 - (7.1 + 2)", "complement"),
        ("1 + 2 + 3", "sum"),
        ("(1 + 2) / 2", "average"),
        ("(1 + 2) / 3", "other"),
        ("(56.7 - 44.1) / 44.1 * 100", "percent change"),
        ("(56.7 - 44.1) / 44.1", "percent change"),
        ("56.7 / 44.1 * 100", "ratio"),
        ("1553 - 1525 + 1557 - 1561", "other"),
        ("32 - 13 * 1000", "other"),
        ("9 -", ""),
    ],
)
def test_a_calculations_shape_is_its_top_level_operation(expression: str, expected: str) -> None:
    from experiment.verify.derive import shape

    assert shape(expression) == expected


@pytest.mark.parametrize(
    ("question", "expression", "fits"),
    [
        ("How many more Democrats than Republicans?", "11,959 - 7,477", True),
        ("How many more Democrats than Republicans?", "11,959 + 7,477", False),
        ("How many people live in the three towns combined?", "1 + 2 + 3", True),
        ("How many casualties in total?", "3,700 - 1,000", False),
        ("How many percent were not over 65?", "100 - 7.1", True),
        ("How many percent were not over 65?", "7.1 + 2", False),
        ("What was the percentage change in sales?", "(56.7 - 44.1) / 44.1 * 100", True),
        ("What was the percentage change in sales?", "56.7 - 44.1", False),
        ("What is the average revenue for 2018 and 2019?", "(12.5 + 13.1) / 2", True),
        ("What was the change in revenue?", "(12.5 + 13.1) / 2", False),
        ("How many goals did Moreno score?", "26 + 34", True),  # no operation named
        ("How many yards longer was the first kick than the second?", "48 - 40", True),
        ("How many yards longer was the first kick than the second?", "48 + 40", False),
        ("How many of the 418 seedlings were not transplanted?", "418 - 37", True),
        ("How many were either Asian or Native American?", "1,234 + 356", True),
        ("How many were either Asian or Native American?", "1,234 - 356", False),
        ("How many percent were of an ancestry other than German?", "100 - 39.1", True),
        ("How many goals did the Otters win the match by?", "5 - 2", True),
    ],
)
def test_a_calculation_must_perform_the_operation_the_question_asks(
    question: str, expression: str, fits: bool
) -> None:
    from experiment.verify.operation import operation_mismatch

    reason = operation_mismatch(question, expression)
    assert (reason == "") is fits
    if not fits:
        assert reason.startswith("the question asks for a ")


def test_a_calculation_of_another_operation_is_refused_with_its_reason() -> None:
    attempt = checked("11,959 + 7,477", CALC)  # "how many more": a sum is not a difference
    assert not attempt.derived and attempt.operand_spans == ()
    assert attempt.derivation_reason == (
        "the question asks for a difference, the calculation is a sum"
    )


def test_small_derived_prefers_a_checked_calculation_to_stated_figures() -> None:
    from experiment.evaluate.methods import answer_methods

    q = Question("q1", "a1", "How many more members than guests?", ("4482",), "figure")
    texts = ["11,959 - 7,477", "11,959", "11,959"]
    scored = []
    for i, text in enumerate(texts):
        sample = Sample(q, i, i, Generation(text, 10, 5, 0.1), cached=False, prompt=CALC)
        scored.append(confirm_sample(sample, ARTICLE, "small", "m", 0.7))
    out = answer_methods(q, scored, scored[1], 3)
    assert out["small-derived@3"].correct  # one checked calculation against two stated figures
    assert not out["small-verified@3"].correct  # the stated figure wins where nothing is derived


def test_cli_computes_a_calculation_with_each_operands_span(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from experiment import cli

    path = tmp_path / "a.md"
    path.write_text(f"---\nid: a\ntitle: A\npublished: 2024-01-01\n---\n{TEXT}\n", encoding="utf-8")
    res = CliRunner().invoke(cli.app, ["verify", "--article", str(path), "100 - 7.1"])
    assert res.exit_code == 0, res.output
    assert "computed: 92.9" in res.output and "operand: 100 | 100 | the whole" in res.output
    start = TEXT.index("7.1 percent")
    assert f"operand: 7.1 | 7.1 | [{start}:{start + 11}] 7.1 percent" in res.output
    missing = CliRunner().invoke(cli.app, ["verify", "--article", str(path), "11,959 - 7,000"])
    assert missing.exit_code == 3 and "operand: 7,000 | 7000 | not in the article" in missing.output


def test_a_derived_difference_of_scaled_cells_takes_their_scale() -> None:
    table = (
        "Results (in millions):\n\n| | 2019 | 2018 |\n|---|---|---|\n"
        "| Revenue | $142.9 | $120.5 |\n| Staff | 30 | 20 |\n"
    )
    article = Article("t", "T", "2025-01-01", table, Path("t.md"))
    q = Question("q", "t", "What was the change in revenue?", ("$22.4 million",), "figure")
    sample = Sample(q, 0, 0, Generation("142.9 - 120.5", 10, 5, 0.1), cached=False, prompt=CALC)
    s = confirm_sample(sample, article, "small", "m", 0.7)
    assert s.attempt.derived and s.value is not None and s.written is not None
    assert s.value.canonical() == "22400000 USD" and s.written.canonical() == "22.4"
    ratio = Question("r", "t", "What is the ratio of 2019 to 2018 revenue?", ("1.19",), "figure")
    sample = Sample(ratio, 0, 0, Generation("142.9 / 120.5", 10, 5, 0.1), cached=False, prompt=CALC)
    s = confirm_sample(sample, article, "small", "m", 0.7)
    assert s.attempt.derived and s.written is None  # a ratio's scale cancels
    assert s.value is not None and s.value.canonical() == "1.19"


def test_cascade_derived_sends_the_least_agreed_fifth_to_large() -> None:
    from experiment.evaluate.answer import Answer
    from experiment.evaluate.methods import (
        CASCADE_DERIVED_20,
        DERIVED,
        LARGE_1,
        add_routed,
        answer_methods,
    )

    questions, answers = [], {}
    for n in range(5):  # question n: n + 1 of 5 samples give the checked calculation
        q = Question(f"q{n}", "a1", "How many more members than guests?", ("4482",), "figure")
        texts = ["11,959 - 7,477"] * (n + 1) + ["11,959"] * (4 - n)
        small: list[Answer] = []
        for i, text in enumerate(texts):
            s = Sample(q, i, i, Generation(text, 10, 5, 0.1), cached=False, prompt=CALC)
            small.append(confirm_sample(s, ARTICLE, "small", "m", 0.7))
        large = Sample(q, 0, 0, Generation("4482", 10, 5, 0.1), cached=False)
        big = confirm_sample(large, ARTICLE, "large", "m", 0.0)
        questions.append(q)
        answers[q.id] = answer_methods(q, small, big, 5)
    add_routed(questions, answers, 5, frozenset({"small", "large", "all-questions"}))
    name = CASCADE_DERIVED_20.name(5)
    sent = [q.id for q in questions if answers[q.id][name].large_calls]
    assert sent == ["q0"]  # one question in five: the one whose calculation agrees least
    assert answers["q0"][name].chosen is answers["q0"][LARGE_1.name(5)].chosen
    assert answers["q4"][name].chosen is answers["q4"][DERIVED.name(5)].chosen


def test_under_calc_a_chain_of_steps_is_read_from_its_first_calculation() -> None:
    from experiment.verify.derive import expression_of

    assert expression_of("(2,458 + 2,261) / 2 = 4,719 / 2 = 2,359.5") == "(2,458 + 2,261) / 2"
    assert expression_of("4482 = 11,959 - 7,477") == "11,959 - 7,477"
    assert expression_of("11,959 - 7,477 = 4482") == "11,959 - 7,477"
    assert expression_of("4482") is None and expression_of("a = b = c") is None
    attempt = checked("11,959 - 7,477 = 4,482 = 4482", CALC)
    assert attempt.derived and attempt.answer == "4482"


def test_the_checkers_record_judges_a_derived_result_in_its_scale() -> None:
    import pandas as pd

    from experiment.record.write import attempt_row
    from experiment.report.analysis import derivation_record
    from experiment.report.run import typed_attempts

    table = (
        "Results (in millions):\n\n| | 2019 | 2018 |\n|---|---|---|\n| Revenue | 142.9 | 120.5 |\n"
    )
    article = Article("t", "T", "2025-01-01", table, Path("t.md"))
    q = Question("q", "t", "What was the change in revenue?", ("22.4 million",), "figure")
    rows = []
    for i, text in enumerate(["142.9 - 120.5", "142.9 + 120.5", "9 - 2"]):
        sample = Sample(q, i, i, Generation(text, 10, 5, 0.1), cached=False, prompt=CALC)
        rows.append(attempt_row(confirm_sample(sample, article, "small", "m", 0.7).attempt))
    frame = typed_attempts(pd.DataFrame([{k: str(v) for k, v in r.items()} for r in rows]))
    record = derivation_record(frame, {"q": q})
    assert record["with_working"] == 3 and record["derived"] == 1 and record["derived_right"] == 1
    assert record["refused: the question asks for a difference"] == 1  # the sum
    assert record["refused: the operand"] == 1  # 9 and 2 are not in the table

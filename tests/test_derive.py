"""The derivation rule: `RESULT = EXPRESSION` confirmed by operands in the text and right
arithmetic (docs/NORMALIZER.md, "Derivations")."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from experiment import cli
from experiment.verify.derive import MAX_DEPTH, MAX_TOKENS, confirm_derivation, is_derivation

ARTICLE = (
    "Sales were 9 units, then 2 were returned. The margin fell from 56.7 to 44.1 points. "
    "Costs were $2.1 million and savings $0.6 million. Scores of 3 and 6 were averaged. "
    "The share rose from 40% to 45%. The road is 12 km long and cost $5 apiece. "
    "The plant has 4 lines, each of 7 machines."
)

TABLE = """Results by year (in millions):

| | 2019 | 2018 |
|---|---|---|
| Revenue | $142.9 | $120.5 |
| Costs | 80.0 | 70.2 |
"""


def confirmed(answer: str, article: str = ARTICLE) -> bool:
    return confirm_derivation(answer, article).confirmed


@pytest.mark.parametrize(
    "answer",
    [
        "11 = 9 + 2",  # each operator
        "7 = 9 - 2",
        "7 = 9 − 2",  # the minus sign
        "18 = 9 * 2",
        "18 = 9 × 2",
        "18 = 9 x 2",
        "4.5 = 9 / 2",
        "4.5 = 9 ÷ 2",
        "-12.6 = 44.1 - 56.7",  # a negative result
        "4.5 = (3 + 6) / 2",  # parentheses
        "6 = 3 + 6 / 2",  # precedence: 3 + 3
        "15 = 9 + 2 * 3",
        "33 = (9 + 2) * 3",
        "-7 = - 9 + 2",  # unary minus
        "-7 = - (9 - 2)",
        "11 = 9 - - 2",
        "$1.5 million = $2.1 million - $0.6 million",  # scales
        "$1.5m = $2.1 million - $0.6 million",
        "1.5 million dollars = $2.1 million - $0.6 million",
        "28 = 4 × 7",
    ],
)
def test_confirmed(answer: str) -> None:
    d = confirm_derivation(answer, ARTICLE)
    assert d.confirmed, d.reason
    assert d.reason == ""
    for o in d.operands:
        assert o.span is not None and ARTICLE[o.span.start : o.span.end] == o.span.text


@pytest.mark.parametrize(
    "answer",
    ["8 = 9 - 2", "8 = 9 + 2", "17 = 9 * 2", "4 = 9 / 2 + 2", "8 = 3 + 6 / 2", "7 = -(9 - 2)"],
)
def test_wrong_arithmetic_is_refused(answer: str) -> None:
    d = confirm_derivation(answer, ARTICLE)
    assert not d.confirmed and d.reason.startswith("the arithmetic is wrong")


def test_the_reason_gives_the_right_value() -> None:
    d = confirm_derivation("8 = 9 - 2", ARTICLE)
    assert d.reason == "the arithmetic is wrong (9 - 2 = 7, not 8)"
    assert d.computed is not None and d.computed.low == 7


def test_the_record_holds_operands_with_values_and_spans() -> None:
    d = confirm_derivation("$1.5 million = $2.1 million - $0.6 million", ARTICLE)
    assert d.result is not None and (d.result.low, d.result.unit) == (1_500_000, "USD")
    assert d.expression == "$2.1 million - $0.6 million"
    assert [o.text for o in d.operands] == ["$2.1 million", "$0.6 million"]
    assert [o.value.low for o in d.operands] == [2_100_000, 600_000]
    first = d.operands[0].span
    assert first is not None and (first.start, first.end) == (
        ARTICLE.index("$2.1 million"),
        ARTICLE.index("$2.1 million") + len("$2.1 million"),
    )


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        ("$22.4 million = $142.9 million - $120.5 million", True),  # cells in the table's scale
        ("22.4 = 142.9 - 120.5", True),  # cells as written
        ("$62.9 million = $142.9 million - 80 million", True),
        ("$22.5 million = $142.9 million - $120.5 million", False),
        ("$22.4 billion = $142.9 billion - $120.5 billion", False),  # wrong scale
    ],
)
def test_operands_in_a_table_carry_its_scale(answer: str, ok: bool) -> None:
    d = confirm_derivation(answer, TABLE)
    assert d.confirmed is ok, d.reason
    if ok:
        span = d.operands[0].span
        assert span is not None and TABLE[span.start : span.end] == "$142.9"


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        ("22.2% = (56.7 - 44.1) / 56.7", True),  # a ratio, read as percent
        ("22.2% = (56.7 - 44.1) / 56.7 * 100", True),  # the percent form
        ("22.2% = 100 × (56.7 - 44.1) / 56.7", False),  # 100 not the top-level factor
        ("22.2 percent = (56.7 - 44.1) / 56.7", True),
        ("22% = (56.7 - 44.1) / 56.7", True),  # 22.22 rounds to 22
        ("22.4% = (56.7 - 44.1) / 56.7", False),  # outside ±0.05
        ("22.3% = (56.7 - 44.1) / 56.7", False),
        ("22.25% = (56.7 - 44.1) / 56.7", False),  # ±0.005: 22.222 is out
        ("22.22% = (56.7 - 44.1) / 56.7", True),
        ("0.222 = (56.7 - 44.1) / 56.7", True),  # a bare ratio
        ("0.22% = (56.7 - 44.1) / 56.7", False),  # never the ratio read as percent points
        ("5% = 45% - 40%", True),  # a difference of percentages
        ("5 percentage points = 45% - 40%", True),
        ("12.5% = (45% - 40%) / 40%", True),  # a ratio of percentages
        ("$0.27 million = 45% × $0.6 million", True),  # a percentage of an amount
    ],
)
def test_percent_forms_and_rounding(answer: str, ok: bool) -> None:
    d = confirm_derivation(answer, ARTICLE)
    assert d.confirmed is ok, d.reason


def test_the_result_precision_is_its_last_written_digit() -> None:
    assert confirmed("$1.5 million = $2.1 million - $0.6 million")
    assert not confirmed("$1.4 million = $2.1 million - $0.6 million")
    # "$2 million" allows ±0.5 million: 1.5 is on the edge, 2.1 - 0.6 = 1.5 is in
    assert confirmed("$2 million = $2.1 million - $0.6 million")
    assert not confirmed("$1.45 million = $2.1 million - $0.6 million")  # ±0.005 million


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("5 = 45% - $0.6 million", "the units clash: cannot subtract USD from %"),
        ("14 = 12 km + $2.1 million", "the units clash: cannot add km and USD"),
        ("$10 = $5 × $5", "the units clash: cannot multiply USD by USD"),
        ("3 = 12 km / $5", "the units clash: cannot divide km by USD"),
        ("5 km = $2.1 million - $0.6 million", "the result is km"),
        ("50% = 12 km / 4", "the expression gives km, the result is %"),
    ],
)
def test_unit_clashes_are_refused(answer: str, reason: str) -> None:
    d = confirm_derivation(answer, ARTICLE)
    assert not d.confirmed and reason in d.reason


def test_a_ratio_of_amounts_is_unitless() -> None:
    assert confirmed("3.5 = $2.1 million / $0.6 million")
    assert confirmed("350% = $2.1 million / $0.6 million")
    assert confirmed("$0.35 million = $2.1 million / 6")  # an amount over a count


def test_an_operand_not_in_the_text_is_named() -> None:
    d = confirm_derivation("7 = 10 - 3", ARTICLE)
    assert not d.confirmed
    assert d.reason == "the operand '10' (10): value not found in article"
    assert [o.confirmed for o in d.operands] == [False, True]
    assert d.operands[0].span is None and d.operands[1].span is not None


def test_an_operand_only_in_the_question_is_refused() -> None:
    question = "By how much did 250 exceed 243?"
    article = "Our count was 250 this year."
    d = confirm_derivation("7 = 250 - 243", article)
    assert "243" in question and not d.confirmed
    assert d.reason == "the operand '243' (243): value not found in article"


def test_an_operand_in_the_text_with_another_scale_is_refused() -> None:
    d = confirm_derivation("$1.5 billion = $2.1 billion - $0.6 billion", ARTICLE)
    assert not d.confirmed and "'$2.1 billion'" in d.reason


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("(" * 10_000 + "1" + ")" * 10_000, "not a derivation: no '='"),
        ("1 = " + "(" * 10_000 + "1" + ")" * 10_000, f"more than {MAX_TOKENS} tokens"),
        ("1 = " + "(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), "nested deeper"),
        ("1 = " + "-" * (MAX_DEPTH + 1) + " 1", "nested deeper"),
        ("1 = " + " + ".join(["1"] * 5_000), f"more than {MAX_TOKENS} tokens"),
        ("1 = 1e400 - 1", "beyond the magnitudes read"),
        ("1 = 1e99 * 1e99", "beyond the magnitudes read"),
        ("1 = 1e-99 / 1e99", "beyond the magnitudes read"),
        ("1 = 99999999999999999 - 9", "more than 15 significant digits"),
        ("1e400 = 9 - 2", "beyond the magnitudes read"),
        ("1 = 9 / (2 - 2)", "division by zero"),
        ("1 = 9 / 0", "division by zero"),
        ("1 = __import__('os')", "'__import__' is not a figure"),
        ("1 = __import__('os').system('ls')", "is not a figure"),
        ("= 5", "the result side (before '=') is empty"),
        ("5 =", "the expression side (after '=') is empty"),
        (" = ", "the result side"),
        ("5 = 2 = 3", "2 '=' signs"),
        ("7 = 9 - ", "an operator without an operand after it"),
        ("7 = * 9", "without an operand before it"),
        ("7 = (9 - 2", "never closed"),
        ("7 = 9 - 2)", "unexpected ')'"),
        ("7 = ()", "empty '()'"),
        ("7 = 9 2", "more than one figure"),
        ("7 = 9 minus 2", "more than one figure"),
        ("7 = 9 (2)", "two figures without an operator"),
        ("seven = 9 - 2", "confirmed"),  # a result in words is read: not a refusal
        ("about 7 = 9 - 2", "qualified"),
        ("7 = 2 to 9", "a range"),
        ("7 = March 2021 - 2", "a date, not a figure"),
        ("7 = third + 4", "a rank"),
        ("the answer = 9 - 2", "not a figure"),
    ],
)
def test_hostile_and_malformed_input_is_refused_with_a_reason(answer: str, reason: str) -> None:
    d = confirm_derivation(answer, ARTICLE + " 1 and 0 and 99 appear too.")
    if reason == "confirmed":
        assert d.confirmed
        return
    assert not d.confirmed and reason in d.reason, d.reason


def test_a_glued_sign_is_the_texts_signed_figure() -> None:
    assert not confirmed("-7 = -9 + 2")  # the text says 9, never -9
    assert confirmed("-7 = - 9 + 2")  # minus the text's 9
    assert confirmed("-7 = -9 + 2", "The balance was -9 and then 2 was added.")


def test_several_refusals_are_all_given() -> None:
    d = confirm_derivation("1 = 10 / 0", ARTICLE)
    assert d.reason.startswith("division by zero; the operand '10'")


def test_is_derivation() -> None:
    assert is_derivation("7 = 9 - 2") and not is_derivation("7")


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.integers(0, 9_999), st.integers(0, 9_999))
def test_sums_of_figures_in_the_text(a: int, b: int) -> None:
    article = f"The first site had {a} visitors and the second {b} visitors."
    assert confirm_derivation(f"{a + b} = {a} + {b}", article).confirmed
    wrong = confirm_derivation(f"{a + b + 1} = {a} + {b}", article)
    assert not wrong.confirmed and wrong.reason.startswith("the arithmetic is wrong")


runner = CliRunner()


def _article(tmp_path: Path) -> Path:
    path = tmp_path / "a.md"
    path.write_text(
        "---\nid: a\ntitle: A\npublished: 2024-01-01\n---\n" + ARTICLE + "\n", encoding="utf-8"
    )
    return path


def test_cli_reports_a_derivation_with_each_operands_span(tmp_path: Path) -> None:
    path = _article(tmp_path)
    ok = runner.invoke(cli.app, ["verify", "--article", str(path), "7 = 9 - 2"])
    assert ok.exit_code == 0, ok.output
    nine, two = ARTICLE.index("9"), ARTICLE.index("2 were")
    assert "confirmed: true" in ok.output and "expression: 9 - 2" in ok.output
    assert f"operand: 9 | 9 | [{nine}:{nine + 1}] 9" in ok.output
    assert f"operand: 2 | 2 | [{two}:{two + 1}] 2" in ok.output
    wrong = runner.invoke(cli.app, ["verify", "--article", str(path), "8 = 9 - 2"])
    assert wrong.exit_code == 3 and "reason: the arithmetic is wrong (9 - 2 = 7, not 8)" in (
        wrong.output
    )
    missing = runner.invoke(cli.app, ["verify", "--article", str(path), "7 = 10 - 3"])
    assert missing.exit_code == 3 and "operand: 10 | 10 | not in the article" in missing.output


def test_cli_without_an_equals_sign_is_a_stated_answer(tmp_path: Path) -> None:
    path = _article(tmp_path)
    res = runner.invoke(cli.app, ["verify", "--article", str(path), "$2.1 million"])
    assert res.exit_code == 0 and "span_text: $2.1 million" in res.output
    assert "derivation:" not in res.output


def test_cli_refuses_hostile_input_without_a_traceback(tmp_path: Path) -> None:
    path = _article(tmp_path)
    res = runner.invoke(cli.app, ["verify", "--article", str(path), "1 = " + "(" * 10_000])
    assert res.exit_code == 3 and "confirmed: false" in res.output
    assert f"more than {MAX_TOKENS} tokens" in res.output and "Traceback" not in res.output


def test_the_calculation_may_come_first_when_the_result_is_the_one_figure() -> None:
    text = "OrigoTech had nine warehouses and closed two of them."
    for answer in ("9 - 2 = 7", "9-2=7", "7 = 9 - 2"):
        d = confirm_derivation(answer, text)
        assert d.confirmed and d.result_text == "7" and d.expression.replace(" ", "") == "9-2"
    wrong = confirm_derivation("9 - 2 = 8", text)
    assert not wrong.confirmed and "arithmetic is wrong" in wrong.reason
    both = confirm_derivation("9 - 2 = 8 - 1", text)  # neither side is one figure
    assert not both.confirmed and "the result '9 - 2'" in both.reason

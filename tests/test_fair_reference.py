"""The reference is not handicapped: the calculator's result carries the scale the proposals
give the same calculation."""

from __future__ import annotations

from pathlib import Path

from experiment.base.types import Article, Generation, Question
from experiment.evaluate.confirm import confirm_sample
from experiment.evaluate.proposals import as_answer, propose
from experiment.generate.prompts import CALC
from experiment.generate.sampling import Sample
from experiment.values.canonical import Quantity

REPORT = Article(
    "r1",
    "Origo Ferries, results",
    "2025-01-01",
    "All amounts are in millions of euros.\n\n"
    "| | 2024 | 2023 |\n| --- | --- | --- |\n| Ticket revenue | 612 | 540 |\n"
    "| Freight revenue | 208 | 191 |\n\nTicket revenue grew on the new Porto route.\n",
    Path("r1.md"),
)
CHANGE = Question("r1-q1", "r1", "What was the change in ticket revenue from 2023 to 2024?",
                  ("72 million",), "figure", computed=True)  # fmt: skip


def calculated(text: str) -> Quantity:
    sample = Sample(CHANGE, 0, 0, Generation(text, 10, 5, 0.1), cached=False, prompt=CALC)
    value = confirm_sample(sample, REPORT, "large", "m", 0.0).value
    assert isinstance(value, Quantity)
    return value


def test_a_calculation_over_cells_takes_the_scale_the_article_states() -> None:
    value = calculated("612 - 540")
    assert value.low == 72_000_000 and value.unit == "EUR"


def test_the_calculator_and_the_proposal_agree_on_the_scale() -> None:
    proposal = next(p for p in propose(CHANGE.text, REPORT.text) if p.expression == "612 - 540")
    assert as_answer(proposal, CHANGE, REPORT).value == calculated("612 - 540")


def test_a_ratio_keeps_no_scale_and_prose_operands_take_none() -> None:
    ratio = calculated("612 / 540")
    assert ratio.low < 2 and ratio.unit == ""
    prose = Article("p1", "t", "2025-01-01",
                    "All amounts are in millions of euros. Sales were 612 and costs 540.",
                    Path("p1.md"))  # fmt: skip
    q = Question("p1-q1", "p1", "How much more were sales than costs?", ("72",), "figure")
    sample = Sample(q, 0, 0, Generation("612 - 540", 10, 5, 0.1), cached=False, prompt=CALC)
    assert confirm_sample(sample, prose, "large", "m", 0.0).value == Quantity(72.0, 72.0, "")


def test_a_cell_with_a_currency_beside_one_without_is_one_scale() -> None:
    ledger = Article(
        "l1", "Origo Ferries, assets", "2025-01-01",
        "The ferry line's ledger, stated in thousands:\n\n"
        "| | 2024 |\n| --- | --- |\n| Deposits | 37,210 |\n| Prepaid fees | $6,450 |\n",
        Path("l1.md"),
    )  # fmt: skip
    q = Question("l1-q", "l1", "What is the sum of deposits and prepaid fees?", ("43660 thousand",),
                 "figure", computed=True)  # fmt: skip
    sample = Sample(q, 0, 0, Generation("37,210 + 6,450", 10, 5, 0.1), cached=False, prompt=CALC)
    value = confirm_sample(sample, ledger, "large", "m", 0.0).value
    assert value == Quantity(43_660_000.0, 43_660_000.0, "USD")

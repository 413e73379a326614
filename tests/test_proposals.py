"""Computed answers the article drafts (`evaluate/proposals.py`) and the method `text-derived`."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiment.base.types import Article, Question
from experiment.evaluate.methods import TEXT_DERIVED
from experiment.evaluate.proposals import (
    AVERAGE,
    COMPLEMENT,
    DIFFERENCE,
    KEEP_N,
    MAX_OPERANDS,
    MAX_PROPOSALS,
    PERCENT_CHANGE,
    RATIO,
    SUM,
    Proposal,
    as_answer,
    propose,
    stated_scale,
)
from experiment.evaluate.question_samples import QuestionSamples
from experiment.verify.derive import confirm_derivation

TABLE = """Revenue by segment ($ in millions):

| | 2019 | 2018 | 2017 |
|---|---|---|---|
| Hardware | 142.9 | 120.5 | 101.0 |
| Software | 80.0 | 70.2 | 60.4 |
| Services | (12.0) | (8.0) | (6.0) |
| Total revenue | 210.9 | 182.7 | 155.4 |

Revenue grew in every segment.
"""

PROSE = (
    "The company was founded in 1990. Its staff rose from 1,200 in 2018 to 1,500 in 2019, "
    "while the number of offices stayed at 14. Of the staff, 35% work abroad."
)


def _article(text: str) -> Article:
    return Article("a", "t", "", text, Path("a.md"))


def _question(text: str, gold: str = "1") -> Question:
    return Question("q", "a", text, (gold,), "figure")


def first(question: str, text: str = TABLE) -> Proposal:
    found = propose(question, text)
    assert found, question
    return found[0]


def right(question: str, gold: str, text: str = TABLE) -> bool:
    """Whether `text-derived` answers `question` with `gold` by the judge."""
    q = _question(question, gold)
    got = TEXT_DERIVED.run(QuestionSamples(q, [], None, 1, _article(text)))
    return bool(got.correct)


@pytest.mark.parametrize(
    ("question", "operation", "derivation"),
    [
        (
            "What was the change in hardware revenue from 2018 to 2019?",
            DIFFERENCE,
            "22.4 = 142.9 - 120.5",
        ),
        (
            "What was the percentage change in software revenue from 2018 to 2019?",
            PERCENT_CHANGE,
            "13.96% = (80.0 - 70.2) / 70.2",
        ),
        (
            "What was the total of hardware and software revenue in 2019?",
            SUM,
            "222.9 = 142.9 + 80.0",
        ),
        (
            "What was the average hardware revenue for 2018 and 2019?",
            AVERAGE,
            "131.7 = (142.9 + 120.5) / 2",
        ),
        (
            "What was hardware revenue as a percentage of total revenue in 2019?",
            RATIO,
            "67.76% = 142.9 / 210.9",
        ),
        (
            "What is the ratio of hardware revenue to software revenue in 2019?",
            RATIO,
            "1.79 = 142.9 / 80.0",
        ),
    ],
)
def test_each_operation_over_the_cells_the_question_names(
    question: str, operation: str, derivation: str
) -> None:
    p = first(question)
    assert (p.operation, p.derivation) == (operation, derivation)
    assert confirm_derivation(p.derivation, TABLE).confirmed


def test_the_average_over_a_span_of_three_columns() -> None:
    found = propose("What was the average hardware revenue from 2017 to 2019?", TABLE)
    spans = [p for p in found if p.operation == AVERAGE and len(p.operands) == 3]
    assert spans and spans[0].derivation == "121.47 = (142.9 + 120.5 + 101.0) / 3"


def test_a_complement_of_a_percentage() -> None:
    found = propose("What percentage of the staff do not work abroad?", PROSE)
    assert any(p.operation == COMPLEMENT and p.derivation == "65% = 100 - 35%" for p in found)


def test_periods_pair_the_columns_the_question_names() -> None:
    p = first("What was the change in software revenue between 2017 and 2018?")
    assert p.derivation == "9.8 = 70.2 - 60.4"  # not 2019's column
    assert {o.period for o in p.operands} == {("y2018",), ("y2017",)}


def test_one_named_period_pairs_it_with_the_one_before() -> None:
    p = first("What was the 2019 average hardware revenue?")
    assert p.derivation == "131.7 = (142.9 + 120.5) / 2"


@pytest.mark.parametrize(
    ("question", "derivation"),
    [
        # a change is later minus earlier, whichever the question names first
        ("What was the change in hardware revenue from 2018 to 2019?", "22.4 = 142.9 - 120.5"),
        ("What was the change in hardware revenue between 2019 and 2018?", "22.4 = 142.9 - 120.5"),
        # a difference between two named things: the order named
        (
            "What was the difference between software and hardware in 2019?",
            "-62.9 = 80.0 - 142.9",
        ),
    ],
)
def test_the_sign_follows_the_question(question: str, derivation: str) -> None:
    assert first(question).derivation == derivation


def test_a_decrease_is_right_either_way_and_a_change_only_with_its_sign() -> None:
    assert right("What was the change in hardware revenue from 2018 to 2019?", "22.4 million")
    assert not right("What was the change in hardware revenue from 2018 to 2019?", "-22.4 million")


def test_a_table_scale_reads_the_result_in_it() -> None:
    q = _question("What was the change in hardware revenue from 2018 to 2019?")
    p = first(q.text)
    s = as_answer(p, q, _article(TABLE))
    assert s.value is not None and s.value.low == pytest.approx(22.4e6)
    assert s.written is not None and s.written.low == pytest.approx(22.4)
    assert right(q.text, "22.4 million") and right(q.text, "$22.4 million")
    assert s.attempt.raw_text == p.derivation and s.attempt.derived
    assert s.attempt.flops == 0 and s.attempt.sample_index == -1


def test_a_scale_the_article_states_outside_the_table() -> None:
    text = (
        "(All figures shown in thousands of U.S. Dollars)\n\n"
        "| | 2019 | 2018 |\n|---|---|---|\n| Amounts due | 200 | 169 |\n"
    )
    assert stated_scale(text) is not None
    assert right("What was the change in amounts due from 2018 to 2019?", "31 thousand", text)


def test_an_accounting_negative_is_proposed_both_ways() -> None:
    found = propose("What was the change in services revenue from 2018 to 2019?", TABLE)
    derivations = {p.derivation for p in found}
    assert {"4 = 12.0 - 8.0", "-4 = -12.0 - -8.0"} <= derivations


def test_prose_operands_from_one_sentence() -> None:
    p = first("How many more staff were there in 2019 than in 2018?", PROSE)
    assert p.derivation == "300 = 1,500 - 1,200"
    assert all(o.line == p.operands[0].line for o in p.operands)
    assert [o.span.text for o in p.operands] == ["1,500", "1,200"]
    assert right("How many more staff were there in 2019 than in 2018?", "300", PROSE)


@pytest.mark.parametrize(
    "question",
    [
        "What was the change in hardware revenue from 2018 to 2019?",
        "By what percentage did total revenue change between 2017 and 2019?",
        "What was the average of software and services revenue in 2018?",
        "What is the difference between hardware and software revenue in 2017?",
        "How many more staff were there in 2019 than in 2018?",
    ],
)
def test_every_proposal_passes_check_derivation(question: str) -> None:
    for text in (TABLE, PROSE):
        for p in propose(question, text):
            d = confirm_derivation(p.derivation, text)
            assert d.confirmed, (p.derivation, d.reason)
            assert len(p.operands) <= MAX_OPERANDS
            for o in p.operands:
                assert text[o.span.start : o.span.end] == o.span.text


def test_the_proposals_are_bounded() -> None:
    rows = "\n".join(f"| Item {i} | {i + 10} | {i + 20} | {i + 30} | {i + 40} |" for i in range(60))
    text = f"| | 2019 | 2018 | 2017 | 2016 |\n|---|---|---|---|---|\n{rows}\n"
    found = propose("What was the total change in items between 2016 and 2019?", text)
    assert 0 < len(found) <= MAX_PROPOSALS
    assert all(len(p.operands) <= MAX_OPERANDS for p in found)
    assert [p.score for p in found] == sorted((p.score for p in found), reverse=True)


def test_a_stated_question_gets_no_proposal_and_text_derived_abstains() -> None:
    q = _question("What was hardware revenue in 2019?", "142.9")
    assert propose(q.text, TABLE) == []
    got = TEXT_DERIVED.run(QuestionSamples(q, [], None, 1, _article(TABLE)))
    assert not got.answered and not got.correct and not got.failed


def test_text_derived_needs_no_model() -> None:
    assert TEXT_DERIVED.needs == frozenset({"article"})
    q = _question("What was the change in hardware revenue from 2018 to 2019?", "22.4 million")
    got = TEXT_DERIVED.run(QuestionSamples(q, [], None, 1, _article(TABLE)))
    assert got.correct and got.samples == 0
    assert got.chosen is not None and got.chosen.attempt.raw_text == "22.4 = 142.9 - 120.5"


CENSUS = (
    "Of the town's residents, 23.5% were under 18, 30.1% were Pacific Islander, and 12% were "
    "65 or older. The town had 4,210 households."
)
HISTORY = (
    "The guild pressed its claim to the harbour charter in 1337. Trade grew over the next years. "
    "In 1340 the guild sent 200 ships to the fair. The founder's son was born in 1330. Much "
    "later, the harbour charter was granted to the guild in 1377, after a long dispute."
)


@pytest.mark.parametrize("negated", ["weren't", "were not"])
def test_a_prose_figure_is_named_by_its_clause(negated: str) -> None:
    """The complement of the figure the question names, not of its sentence's first, and no
    share of a count: "n't" names a complement as "not" does."""
    p = first(f"How many in percent {negated} Pacific Islander?", CENSUS)
    assert p.derivation == "69.9% = 100 - 30.1%" and p.operation == COMPLEMENT
    assert p.operands[0].position.strip() == "30.1% were Pacific Islander"


def test_a_percentage_and_a_count_are_never_one_sum() -> None:
    found = propose("What is the total of residents under 18 and households?", CENSUS)
    assert not [p for p in found if {o.unit for o in p.operands} == {"%", ""}]


def test_years_pair_across_distant_sentences_and_never_with_a_count() -> None:
    question = "How many years after the guild pressed its claim was the harbour charter granted?"
    found = propose(question, HISTORY)
    assert found[0].derivation == "40 = 1377 - 1337"  # the first and the last sentence
    assert len(found[0].lines) == 1 and found[0].operands[0].line == "sx"
    assert all(len({o.year for o in p.operands}) == 1 for p in found)  # no "1340 - 200"
    assert right(question, "40", HISTORY)


def test_how_many_more_is_a_size_and_a_change_keeps_its_sign() -> None:
    prose = "In the raid 12 soldiers were captured and 23 were killed."
    assert first("How many more soldiers were killed than captured?", prose).result == "11"
    assert first("How many fewer soldiers were captured than killed?", prose).result == "11"
    # a change keeps its sign: revenue fell from 142.9 to 120.5 is -22.4
    fell = "Revenue was 142.9 in 2018 and 120.5 in 2019."
    assert first("What was the change in revenue from 2018 to 2019?", fell).result == "-22.4"


def test_a_count_s_complement_a_margin_and_an_either_or_are_proposed() -> None:
    garrison = (
        "The harbour opened in 1820. The garrison totaled 4,000 soldiers, including 1,500 archers."
    )
    assert first("How many of the garrison's soldiers were not archers?", garrison).result == "2500"
    game = "The Otters beat the Herons 27-21 on Sunday. Kim kicked a 48-yard field goal."
    assert first("How many points did the Otters win the game by?", game).result == "6"
    town = (
        "The town had 9,000 residents: 2,834 were African American, 1,234 Native American and "
        "356 Asian."
    )
    either = [p.derivation for p in propose("How many were either Asian or Native American?", town)]
    assert "1590 = 1,234 + 356" in either[:KEEP_N]
    assert all("-" not in d for d in either[:3])  # the wording names a sum


def test_a_qualified_figure_and_the_noun_it_counts() -> None:
    fair = (
        "The trade fair drew roughly 41,500 visitors to 120 stands, 12,800 buyers to 9 halls "
        "and 3,200 volunteers at 15 gates."
    )
    found = propose("How many more visitors than volunteers came?", fair)
    assert found[0].derivation == "38300 = 41,500 - 3,200"  # not the stands or the gates
    assert found[0].terms["noun"] > 0 and found[1].terms["noun"] < found[0].terms["noun"]
    assert (
        first(
            "How many more kilometres did Tala cycle than Ren?",
            "Tala cycled at most 64.5 and Ren 58.2.",
        ).result
        == "6.3"
    )


def test_a_dated_year_is_a_year_and_years_are_only_subtracted() -> None:
    kiln = "The kiln was fired from about 1962 until it closed in March 1991. It had 6 potters."
    found = propose("How many years was the kiln fired?", kiln)
    assert found[0].derivation == "29 = 1991 - 1962"
    assert {p.operation for p in found} == {DIFFERENCE}  # no "1962 / 1991", no "1962 + 1991"
    assert right("How many years was the kiln fired?", "29", kiln)
    # a date is no operand where the question asks no years
    assert all("1991" not in p.expression for p in propose("How many more potters than 2?", kiln))


def test_a_rule_left_out_for_its_measurement_comes_back() -> None:
    from experiment.bench.analyse.proposals import left_out

    kiln = "The kiln was fired from about 1962 until it closed in March 1991. It had 6 potters."
    asked = "How many years was the kiln fired?"
    with left_out("dated"):
        assert all(p.derivation != "29 = 1991 - 1962" for p in propose(asked, kiln))
    assert propose(asked, kiln)[0].derivation == "29 = 1991 - 1962"

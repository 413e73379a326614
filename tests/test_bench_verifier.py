"""`factqa bench verifier`'s section names its misses and accepted corruptions by question id and
cause, never by the data set's text (its gold strings, paragraphs, questions, or the corruptions
made from them). The fixture is written here, in SQuAD's shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiment.bench.analyse import verifier
from experiment.bench.analyse.verifier import (
    CONVERSION,
    CUT,
    CUT_WORD,
    NOT_IN_TEXT,
    RANK_FOR_COUNT,
    SPELLED,
    Item,
    accepted_cause,
    miss_cause,
    value_kind,
)
from experiment.values.normalize import parse_value

LAMPS = "two hundred"  # a gold string cut short of "two hundred forty": a recall miss
PARAGRAPH = "Brindle has a million oaks, two hundred forty lamps and a council of 40 seats."
OTHER = "The valley beyond Brindle kept 1,000,000 sheep."  # read as "a million": accepted
QUESTIONS = {
    "q-lamps": ("How many lamps does Brindle have?", LAMPS),
    "q-seats": ("How many seats does the council of Brindle have?", "40"),
}


def _squad(path: Path) -> Path:
    qas = [
        {
            "id": qid,
            "question": question,
            "answers": [{"text": gold, "answer_start": PARAGRAPH.index(gold)}],
        }
        for qid, (question, gold) in QUESTIONS.items()
    ]
    data = {
        "version": "1.1",
        "data": [
            {
                "title": "Brindle",
                "paragraphs": [
                    {"context": PARAGRAPH, "qas": qas},
                    {"context": OTHER, "qas": []},
                ],
            }
        ],
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_section_shows_ids_and_causes_never_the_data_sets_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "RESULTS.md"
    monkeypatch.setattr(verifier, "RESULTS_MD", results)
    assert verifier._run(_squad(tmp_path / "dev.json"), limit=0, seed=0, write=True) == 0
    printed = capsys.readouterr().out
    section = results.read_text(encoding="utf-8")
    assert "<!-- verifier:start -->" in section
    for text in (section, printed):
        # the cases are there, by id and cause
        assert "### Recall misses (1)" in text and f"- {CUT} (1): q-lamps (figure, " in text
        assert (
            f"- {SPELLED} (2): " in text
            and "q-seats (other paragraph, number against number)" in text
        )
        # their text is not: gold, corrupted string, evidence span, question, paragraph
        for leaked in (LAMPS, "1,000,000", "a million", PARAGRAPH[:30], OTHER[:30]):
            assert leaked not in text
        for question, _ in QUESTIONS.values():
            assert question not in text
        listed = text.split("### Recall misses", 1)[1].split("<!-- verifier:end", 1)[0]
        listed = listed.split("\n`recall=", 1)[0]  # the machine-readable line follows
        assert "`" not in listed  # no quoted fragment at all


def _item(gold: str, context: str, question: str = "How many are there?") -> Item:
    return Item("q", question, "figure", gold, context, 0, "eval", context.find(gold))


@pytest.mark.parametrize(
    ("gold", "context", "cause"),
    [
        ("3", "She finished third of the riders.", RANK_FOR_COUNT),
        ("5", "The hall seats 45 people.", CUT),  # "5" of "45"
        (".7 million", "About 1.7 million people live there.", CUT),
        ("4,", "The fire burned 4,000 homes.", CUT),
        ("two hundred", "The shop sold two hundred forty lamps.", CUT),
        ("ten", "The tenants of six flats met.", CUT_WORD),
        ("12", "The club has 11 members.", NOT_IN_TEXT),
    ],
)
def test_a_recall_miss_is_named_by_its_cause(gold: str, context: str, cause: str) -> None:
    it = _item(gold, context)
    assert miss_cause(it, parse_value(gold, "figure", it.question)) == cause


def test_an_accepted_corruption_is_named_by_its_cause() -> None:
    km = parse_value("100 km", "figure")
    miles = parse_value("62.1 mi", "figure")
    assert accepted_cause("100 km", km, miles, "62.1 mi") == CONVERSION
    spelled = parse_value("31", "figure")
    words = parse_value("thirty-one", "figure")
    assert accepted_cause("31", spelled, words, "thirty-one") == SPELLED
    assert value_kind(km) == "length" and value_kind(None) == "nothing"
    assert value_kind(parse_value("1990s", "date")) == "date (decade)"

"""The leakage guard finds a data set's text in repository files, whatever its quoting."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from experiment.cli import app
from experiment.importers.leakage import WINDOW, Index, canonical
from experiment.importers.readers import read_dataset
from experiment.importers.split import half_of

MILL = "The Velden mill ground 3,400 tonnes of rye in 1911, twice the harvest of the year before."
BRIDGE = "The Velden bridge opened on 4 May 1931 after 26 months of work. It is 412 metres long."


def data_file(tmp_path: Path) -> Path:
    """A SQuAD-format file: one title of each half (importers/split.py)."""
    assert half_of("Velden_Mill") == "eval" and half_of("Velden_Bridge") == "fit"

    def article(title: str, context: str, qid: str, question: str, answer: str) -> dict:
        qa = {"id": qid, "question": question,
              "answers": [{"text": answer, "answer_start": context.find(answer)}]}  # fmt: skip
        return {"title": title, "paragraphs": [{"context": context, "qas": [qa]}]}

    data = {
        "version": "1.1",
        "data": [
            article(
                "Velden_Mill", MILL, "m1", "How many tonnes of rye did the mill grind?", "3,400"
            ),
            article(
                "Velden_Bridge", BRIDGE, "b1", "When did the Velden bridge open?", "4 May 1931"
            ),
        ],
    }
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_canonical_folds_case_quotes_and_breaks() -> None:
    folded, where = canonical('The "Velden"\n  mill\'s rye')
    assert folded == "the velden mill s rye"
    assert len(where) == len(folded) and where[4] == 5  # "v" of Velden, after the quote


def test_a_letter_whose_lower_case_is_longer_keeps_the_offsets() -> None:
    """'İ' lower-cases to two characters: the offsets are the text's own, not its lower case's
    (the first fold read 'Port of İzmir' as 'port of i̇ mir')."""
    folded, where = canonical("Port of İzmir")
    assert folded == "port of zmir" and [("Port of İzmir")[i] for i in where][-4:] == list("zmir")


def test_a_fragment_split_across_string_literals_is_found(tmp_path: Path) -> None:
    index = Index()
    index.add_rows(read_dataset("squad", data_file(tmp_path)))
    code = 'TEXT = (\n    "The Velden mill ground 3,400 tonnes "\n    "of rye in 1911"\n)\n'
    (found,) = index.scan(code, "tests/test_x.py")
    assert found.half == "eval" and found.line == 2 and "3,400 tonnes" in found.text
    fit = index.scan("# the Velden bridge opened on 4 May 1931 after 26 months", "a.py")
    assert [f.half for f in fit] == ["fit"]


def test_a_shorter_common_stretch_is_no_fragment(tmp_path: Path) -> None:
    index = Index()
    index.add_rows(read_dataset("squad", data_file(tmp_path)))
    short = MILL[: WINDOW - 1]
    assert index.scan(short, "a.py") == [] and index.scan(MILL[: WINDOW + 5], "a.py") != []


def test_the_command_fails_on_an_evaluation_fragment_and_passes_without(tmp_path: Path) -> None:
    data = data_file(tmp_path)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "clean.py").write_text("x = 'the Velden mill is ours'\n", encoding="utf-8")
    runner = CliRunner()
    args = ["bench", "leakage", "--squad", str(data), "--root", str(repo)]
    ok = runner.invoke(app, args)
    assert ok.exit_code == 0 and "0 evaluation-half" in ok.output
    (repo / "leaky.md").write_text(f"An example: {MILL}\n", encoding="utf-8")
    bad = runner.invoke(app, args)
    assert bad.exit_code == 1 and "leaky.md:1 (eval half)" in bad.output

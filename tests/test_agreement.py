"""Questions without gold: the small model's methods are judged against large@1's answer and the
outputs say that this is agreement, not accuracy; a mix reports both."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.report.markdown import run_section

from .conftest import ARTICLE_A, run_args

runner = CliRunner()
BODY_A = ARTICLE_A.split("---", 2)[2].strip()


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    """The alpha article as a plain .txt file (no front matter)."""
    arts = tmp_path / "plain"
    arts.mkdir()
    (arts / "alpha.txt").write_text(BODY_A + "\n", encoding="utf-8")
    return arts


def test_questions_without_gold_are_scored_as_agreement(
    monkeypatch: pytest.MonkeyPatch, fake_factory, plain: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    qs = tmp_path / "nogold.csv"
    qs.write_text(
        "id,article_id,question\n"
        "u1,alpha,How many units were sold in the first month?\n"  # small 13,200, large 10,000
        "u2,alpha,How much does the Widget cost?\n"  # both $250
        "u3,alpha,When was the Widget launched?\n",  # kind from the wording: date
        encoding="utf-8",
    )
    res = runner.invoke(
        cli.app, run_args(plain, qs, "fake-small", "fake-large", 4, tmp_path / "o", "ng")
    )
    assert res.exit_code == 0, res.output
    assert "AGREEMENT with large@1, not accuracy" in " ".join(res.output.split())
    run = tmp_path / "o" / "ng"
    summary = pd.read_csv(run / "summary.csv").set_index("method")
    assert summary.loc["large@1", "accuracy"] == 1.0  # agrees with itself
    assert summary.loc["small-verified@4", "accuracy"] == pytest.approx(2 / 3)
    assert (run / "agreement.csv").is_file()
    dis = pd.read_csv(run / "disagreements.csv", keep_default_na=False)
    assert dis.question_id.tolist()[0] == "u1" and bool(dis.disagrees.iloc[0])  # first
    assert dis.set_index("question_id").loc["u1", "large_answer"] == "10,000"
    assert dis.set_index("question_id").loc["u1", "large_evidence"] == "10,000"
    questions = pd.read_csv(run / "questions.csv", keep_default_na=False)
    assert set(questions.scored_against) == {"large@1"}
    assert questions.set_index("question_id").loc["u3", "kind"] == "date"
    text = run_section(run)
    assert "agreement with large@1, not accuracy" in text
    assert "**small-verified@4 loses to" not in text  # no accuracy claim from agreement
    assert "small-verified@4 agrees with large@1 on 66.7% of the questions" in text


def test_a_mix_reports_accuracy_and_agreement_apart(
    monkeypatch: pytest.MonkeyPatch, fake_factory, corpus, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    arts, qs = corpus
    qs.write_text(
        qs.read_text(encoding="utf-8") + "x-1,alpha,How many units were sold at launch?,,,\n",
        encoding="utf-8",
    )
    res = runner.invoke(cli.app, run_args(arts, qs, "fake-small", "fake-large", 4, tmp_path, "m"))
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "accuracy on the 5 with gold answers" in out
    assert "1 questions without gold answers: AGREEMENT" in out
    summary = pd.read_csv(tmp_path / "m" / "summary.csv")
    agreement = pd.read_csv(tmp_path / "m" / "agreement.csv")
    assert set(summary.questions) == {5} and set(agreement.questions) == {1}
    assert "Agreement with large@1 on the 1 questions without gold" in run_section(tmp_path / "m")

"""`factqa verify`: answers from any system checked against the articles."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from experiment import cli

runner = CliRunner()


def write_answers(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_verify_csv_with_an_unknown_article(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    arts, _ = corpus
    rows = [
        {"article_id": "alpha", "question_id": "q1", "answer": "13,200 units"},
        {"article_id": "alpha", "question_id": "q2", "answer": "3,200"},
        {"article_id": "nowhere", "question_id": "q3", "answer": "5"},
        {"article_id": "beta", "question_id": "q4", "answer": "September 2023"},
    ]
    src = write_answers(tmp_path / "answers.csv", rows)
    res = runner.invoke(cli.app, ["verify", str(src), "--articles", str(arts)])
    assert res.exit_code == 0, res.output
    assert "4 rows, 2 confirmed, 1 rows with errors" in res.output
    out = pd.read_csv(tmp_path / "answers.verified.csv", keep_default_na=False)
    assert out.question_id.tolist() == ["q1", "q2", "q3", "q4"]
    assert out.confirmed.tolist() == [True, False, False, True]
    assert out.span_text[0] == "13,200" and out.value[3] == "2023-09"
    assert "unknown article 'nowhere'" in out.reason[2] and "line 4" in out.reason[2]


def test_verify_ten_thousand_rows(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    arts, _ = corpus
    answers = ["13,200", "$250", "1.2 kg", "1999", "45 per cent", "12 March 2024", "10,000"]
    rows = [{"article_id": "alpha", "answer": answers[i % len(answers)]} for i in range(10_000)]
    rows[5000] = {"article_id": "ghost", "answer": "1"}
    src = write_answers(tmp_path / "big.csv", rows)
    res = runner.invoke(
        cli.app, ["verify", str(src), "--articles", str(arts), "--out", str(tmp_path / "o.csv")]
    )
    assert res.exit_code == 0, res.output
    out = pd.read_csv(tmp_path / "o.csv", keep_default_na=False)
    assert len(out) == 10_000
    assert out.confirmed.sum() == 10_000 - 1 - sum(
        1 for i in range(10_000) if i % 7 == 3 and i != 5000
    )
    assert "unknown article 'ghost'" in out.reason[5000]


def test_verify_one_answer(corpus) -> None:  # type: ignore[no-untyped-def]
    arts, _ = corpus
    ok = runner.invoke(cli.app, ["verify", "$250", "--article", str(arts / "alpha.md")])
    assert ok.exit_code == 0 and "span_text: $250" in ok.output
    no = runner.invoke(cli.app, ["verify", "$260", "--article", str(arts / "alpha.md")])
    assert no.exit_code == 3 and "confirmed: false" in no.output


def test_verify_one_answer_against_a_plain_text_article(tmp_path: Path) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("The plant cost $250 million and opened in May 2021.\n", encoding="utf-8")
    ok = runner.invoke(cli.app, ["verify", "$250 million", "--article", str(plain)])
    assert ok.exit_code == 0 and "span_text: $250 million" in ok.output
    missing = runner.invoke(cli.app, ["verify", "$250", "--article", str(tmp_path / "no.txt")])
    assert missing.exit_code == 2 and "no.txt" in missing.output


def test_verify_bad_header(tmp_path: Path) -> None:
    src = tmp_path / "x.csv"
    src.write_text("foo,bar\n1,2\n")
    res = runner.invoke(cli.app, ["verify", str(src)])
    assert res.exit_code == 2 and "needs an 'answer' column" in res.output


TABLE_ARTICLE = """---
id: gamma
title: Gamma's results
published: 2024-02-01
---
Results by year ($ in millions):

| | 2019 | 2018 |
|---|---|---|
| Revenue | 142.9 | 120.5 |
| Net loss | (3.1) | (2.4) |
"""


def test_verify_reads_a_table_cell_in_its_tables_scale(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    arts, _ = corpus
    (arts / "gamma.md").write_text(TABLE_ARTICLE, encoding="utf-8")
    answers = ["$142.9 million", "142.9", "$142.9 billion", "-$3.1 million", "120.5 thousand"]
    src = write_answers(tmp_path / "t.csv", [{"article_id": "gamma", "answer": a} for a in answers])
    res = runner.invoke(cli.app, ["verify", str(src), "--articles", str(arts)])
    assert res.exit_code == 0, res.output
    out = pd.read_csv(tmp_path / "t.verified.csv", keep_default_na=False)
    assert out.confirmed.tolist() == [True, True, False, True, False]
    assert out.span_text.tolist()[:2] == ["142.9", "142.9"] and out.span_text[3] == "(3.1)"
    assert out.answer[0] == "$142.9 million"  # recorded as written

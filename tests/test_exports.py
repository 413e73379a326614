"""The run's tidy exports: `value` split into typed columns, lists as JSON arrays, the long
answers.csv beside the wide questions.csv, optional Parquet, and old run folders still read."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment.record.migrate import migrate
from experiment.record.value_cells import value_cells
from experiment.report.analysis import gap_phrase
from experiment.report.run import load_run, parse_spans

runner = CliRunner()


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        ("34.2 EUR", "figure", {"value_number": "34.2", "value_unit": "EUR"}),
        ("22000000 USD", "figure", {"value_number": "22000000", "value_low": "22000000"}),
        ("80..100", "figure", {"value_number": "", "value_low": "80", "value_high": "100"}),
        ("about 5 %", "figure", {"value_number": "5", "value_qualifier": "about"}),
        ("-3.5 %", "figure", {"value_number": "-3.5", "value_unit": "%"}),
        ("2009-03-03", "date", {"value_date_start": "2009-03-03", "value_number": ""}),
        ("2024-02", "date", {"value_date_start": "2024-02-01", "value_date_end": "2024-02-29"}),
        ("2009", "date", {"value_date_start": "2009-01-01", "value_date_end": "2009-12-31"}),
        ("2009", "figure", {"value_number": "2009", "value_date_start": ""}),
        ("2021-Q3", "date", {"value_date_start": "2021-07-01", "value_date_end": "2021-09-30"}),
        ("1990s", "date", {"value_date_start": "1990-01-01", "value_date_end": "1999-12-31"}),
        ("", "figure", {"value_number": "", "value_date_start": ""}),
    ],
)
def test_a_value_splits_into_typed_columns(value: str, kind: str, expected: dict) -> None:  # type: ignore[type-arg]
    cells = value_cells(value, kind)
    assert {k: cells[k] for k in expected} == expected


def test_attempts_have_typed_values_and_json_lists(fake_run: Path) -> None:
    a = pd.read_csv(fake_run / "attempts.csv", keep_default_na=False, dtype=str)
    cost = a[(a.role == "small") & (a.value == "250 USD")].iloc[0]
    assert (cost.value_number, cost.value_unit) == ("250", "USD")
    launched = a[a.question_id == "alpha-2"].iloc[0]
    assert launched.value_date_start == launched.value_date_end == "2024-03-12"
    for cell in a.candidates:
        assert isinstance(json.loads(cell), list)
    confirmed = a[a.confirmed == "true"].iloc[0]
    spans = json.loads(confirmed.spans)
    assert spans and all(len(pair) == 2 for pair in spans)
    assert spans[0] == [int(confirmed.span_start), int(confirmed.span_end)]
    # read back as spans by every reader of the run
    typed = load_run(fake_run).attempts
    assert typed.spans.iloc[a.index[a.confirmed == "true"][0]][0].start == spans[0][0]


def test_answers_csv_is_the_long_form_of_questions_csv(fake_run: Path) -> None:
    answers = pd.read_csv(fake_run / "answers.csv", keep_default_na=False, dtype=str)
    questions = pd.read_csv(fake_run / "questions.csv", keep_default_na=False, dtype=str)
    methods = list(pd.read_csv(fake_run / "summary.csv").method)
    assert len(answers) == len(questions) * len(methods)
    for q in questions.to_dict("records"):
        mine = answers[answers.question_id == q["question_id"]].set_index("method")
        for m in methods:
            assert mine.loc[m, "value"] == q[f"{m}.value"]
            assert mine.loc[m, "correct"] == q[f"{m}.correct"]
    large = answers[(answers.method == "large@1") & (answers.question_id == "alpha-1")].iloc[0]
    assert (large.value, large.value_number) == ("10000", "10000")
    manifest = json.loads((fake_run / "manifest.json").read_text())
    assert "answers.csv" in manifest["outputs"]  # checked like every output


def test_parquet_copies_where_pyarrow_is_installed(fake_run: Path) -> None:
    pytest.importorskip("pyarrow")
    table = pd.read_parquet(fake_run / "answers.parquet")
    assert len(table) == len(pd.read_csv(fake_run / "answers.csv"))
    assert table.value_number.dtype.kind == "f"  # a number column, not text


def test_an_old_run_folders_spans_still_read() -> None:
    old = pd.DataFrame({"spans": ["3:7 10:12", ""], "span_start": ["3", ""], "span_end": ["7", ""]})
    cells = migrate({}, {"attempts.csv": old})[1]["attempts.csv"]["spans"]
    assert [[(s.start, s.end) for s in parse_spans(c)] for c in cells] == [[(3, 7), (10, 12)], []]
    assert [(s.start, s.end) for s in parse_spans("[[3, 7], [10, 12]]")] == [(3, 7), (10, 12)]
    assert parse_spans("") == () and parse_spans("[]") == ()


def test_the_notebook_says_when_there_is_no_gap_to_close() -> None:
    summary = pd.DataFrame(
        {"method": ["small-verified@5", "small-pass@5", "small-selected@5"]}
        | {"accuracy": [0.8, 0.8, 0.8]}
    )
    said = gap_phrase(summary, "small-selected@5", 5)
    assert "nan" not in said and "no gap to close" in said
    summary.loc[1, "accuracy"] = 0.9
    assert "closes 0% of the gap" in gap_phrase(summary, "small-selected@5", 5)

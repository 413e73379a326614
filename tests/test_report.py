"""Exports: atomic writes, and cells a spreadsheet would run as formulas are neutralized."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from experiment.base.files import atomic_write, read_cell, safe_cell, write_csv


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("=1+1", "'=1+1"),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),  # a DDE call
        ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
        ("-SUM(A1)", "'-SUM(A1)"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("-5", "-5"),  # a number stays a number
        ("+3.5", "+3.5"),
        ("-1e3", "-1e3"),
        ("-12 stores", "-12 stores"),  # signed text is a value: shown as written
        ("- see note", "- see note"),
        ("-x", "-x"),
        ("-inf", "-inf"),
        ("'-12", "''-12"),  # reads as a quoted cell: quoted again, so it reads back
        ("'plain", "'plain"),
        ("plain", "plain"),
        (7, 7),
    ],
)
def test_safe_cell(cell: object, expected: object) -> None:
    assert safe_cell(cell) == expected
    if isinstance(cell, str):
        assert read_cell(safe_cell(cell)) == cell  # the original text can be read back


def test_csv_opens_in_pandas_with_numbers_intact(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    write_csv(path, [{"a": "=HYPERLINK(1)", "b": -5, "c": "-2.5"}], ["a", "b", "c"])
    df = pd.read_csv(path)
    assert df.a[0] == "'=HYPERLINK(1)"
    assert df.b[0] == -5 and df.c[0] == -2.5


def test_atomic_write_leaves_no_temp_files(tmp_path: Path) -> None:
    atomic_write(tmp_path / "f.txt", "one")
    atomic_write(tmp_path / "f.txt", "two")
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]
    assert (tmp_path / "f.txt").read_text() == "two"


def test_run_exports_neutralize_hostile_text_and_keep_numbers(
    corpus, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from experiment import cli

    from .conftest import FakeBackend, run_args

    arts, qs = corpus
    qs.write_text(
        "id,article_id,question,answers,kind,notes\n"
        'alpha-1,alpha,"=HYPERLINK(""http://x"") How many units were sold?","13,200",figure,\n'
    )
    hostile = FakeBackend(
        "m", lambda m, s, i: "=cmd|' /C calc'!A0 13,200" if i % 2 else "@SUM(1) 10,000"
    )
    monkeypatch.setattr(cli, "_factory", lambda: lambda spec, cfg: hostile)
    assert (
        CliRunner().invoke(cli.app, run_args(arts, qs, "m", "m", 4, tmp_path, "t")).exit_code == 0
    )
    a = pd.read_csv(tmp_path / "t" / "attempts.csv")
    q = pd.read_csv(tmp_path / "t" / "questions.csv")
    for frame in (a, q):
        for col in frame.columns[frame.dtypes.map(lambda d: d.kind not in "biuf")]:
            assert not frame[col].dropna().astype(str).str.match(r"[=+\-@\t\r]").any(), col
    assert a.raw_text.str.startswith("'=cmd").any() and a.raw_text.str.startswith("'@SUM").any()
    assert q.question[0].startswith("'=HYPERLINK")
    assert a.seed.dtype.kind == "i" and a.seconds.dtype.kind == "f"  # numbers stay numbers
    assert a.prompt_tokens.dtype.kind == "i"

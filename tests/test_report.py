"""Exports: atomic writes, and cells a spreadsheet would run as formulas are neutralized."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from experiment.report import atomic_write, safe_cell, write_csv


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("=1+1", "'=1+1"),
        ("+cmd", "'+cmd"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("-x", "'-x"),
        ("-5", "-5"),  # a number stays a number
        ("+3.5", "+3.5"),
        ("plain", "plain"),
        (7, 7),
    ],
)
def test_safe_cell(cell: object, expected: object) -> None:
    assert safe_cell(cell) == expected


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

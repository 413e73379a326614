"""`factqa bench same-outputs`: byte identity, and the columns and cells that differ."""

from __future__ import annotations

from pathlib import Path

from experiment.bench.analyse.same_outputs import compare


def _write(folder: Path, text: str) -> Path:
    folder.mkdir()
    (folder / "summary.csv").write_text(text, encoding="utf-8")
    return folder


def test_identical_files_and_changed_cells_and_added_columns(tmp_path: Path) -> None:
    old = _write(tmp_path / "old", "method,accuracy\na,0.5\nb,0.25\n")
    same = _write(tmp_path / "same", "method,accuracy\na,0.5\nb,0.25\n")
    assert compare(old, same, "summary.csv") == (True, ["summary.csv: byte-identical"])
    new = _write(tmp_path / "new", "method,accuracy,confidence\na,0.5,1\nb,0.3,1\n")
    identical, lines = compare(old, new, "summary.csv")
    assert not identical
    assert "columns added 1 ['confidence']" in lines[0]
    assert lines[1].startswith("  accuracy: 1 cells differ (row 1: '0.25' -> '0.3')")
    assert compare(old, tmp_path / "missing", "summary.csv")[1] == [
        "summary.csv: only in the old run"
    ]

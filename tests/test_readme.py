"""The README's first screen tells the answer: at most 200 lines, the answer table in its first 40,
its figures the measured ones of docs/RESULTS.md, and the table kept generated (a run's report
rewrites its own row, the other data sets' rows stay)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.types import BUNDLED
from experiment.config import PROJECT_ROOT
from experiment.report.first_screen import BLOCK, answer_section, kept_rows

README = PROJECT_ROOT / "README.md"
RESULTS = PROJECT_ROOT / "docs" / "RESULTS.md"
runner = CliRunner()


def _block(text: str) -> str:
    return text.split(f"<!-- {BLOCK}:start -->", 1)[1].split(f"<!-- {BLOCK}:end -->", 1)[0]


def test_the_readme_is_short_and_its_first_screen_holds_the_answer() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200
    first = "\n".join(lines[:40])
    assert f"<!-- {BLOCK}:start -->" in first and f"<!-- {BLOCK}:end -->" in first
    rows = kept_rows(_block(first))
    assert len(rows) >= 4 and BUNDLED in rows[0][0]
    assert "| data set (questions) | large@1 | small-verified@10 |" in first
    assert "bash .ci/run" in first and "factqa run" in first
    assert "docs/cost_vs_accuracy.png" in first
    assert "## Using it" in README.read_text(encoding="utf-8").split("## What the methods are")[0]


def test_the_answer_tables_figures_are_measured_ones() -> None:
    """Every accuracy in the table is a method's accuracy in docs/RESULTS.md's tables, or in a
    sealed sample's page (docs/results/sealed-PRESET.md: its method table is there)."""
    pages = sorted((RESULTS.parent / "results").glob("sealed-*.md"))
    results = "\n".join(p.read_text(encoding="utf-8") for p in [RESULTS, *pages])
    for row in kept_rows(_block(README.read_text(encoding="utf-8"))):
        cells = [("large@1", row[1]), ("small-verified@10", row[2]), *(
            [("small-pipeline@10", row[3])] if row[3] != "—" else []
        ), *(tuple(c.split(" ", 2)[:2]) for c in row[4:])]  # fmt: skip
        for method, cell in cells:
            accuracy = cell.split()[0]
            assert re.search(rf"^\| {re.escape(method)} \| {accuracy} \[", results, re.M), (
                f"{row[0]}: {method} {accuracy} is not in docs/RESULTS.md or a sealed page"
            )


def test_a_runs_row_replaces_its_own_and_the_others_stay(fake_run: Path) -> None:
    before = _block(README.read_text(encoding="utf-8"))
    text = answer_section({BUNDLED: fake_run}, None, before)
    rows = kept_rows(text)
    old = kept_rows(before)
    assert [r[0].rsplit(" (", 1)[0] for r in rows] == [r[0].rsplit(" (", 1)[0] for r in old]
    assert rows[1:] == old[1:]  # the public data sets' rows, as they were
    bundled = rows[0]
    assert bundled[0] == f"{BUNDLED} (5)" and bundled[1] == "0.800"
    assert bundled[2].startswith("1.000 (")  # small-verified@4 of the scripted run
    # the best small-model method is never the oracle small-pass@k; the best cascade a cascade
    assert not bundled[4].startswith("small-pass") and bundled[5].startswith("cascade")


def test_factqa_report_writes_the_bundled_row_of_the_answer(
    fake_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    manifest = fake_run / "manifest.json"  # let this run stand for the bundled corpus's
    data = json.loads(manifest.read_text())
    data["bundled"] = True
    manifest.write_text(json.dumps(data))
    monkeypatch.setattr("experiment.report.run.validate_outputs", lambda path, m: None)
    readme = tmp_path / "README.md"
    readme.write_text(README.read_text(encoding="utf-8"), encoding="utf-8")
    res = runner.invoke(cli.app, ["report", str(fake_run), "--readme", str(readme)])
    assert res.exit_code == 0, res.output
    rows = kept_rows(_block(readme.read_text(encoding="utf-8")))
    assert rows[0][0] == f"{BUNDLED} (5)"
    assert rows[1:] == kept_rows(_block(README.read_text(encoding="utf-8")))[1:]


def test_what_the_table_means_is_read_from_its_rows() -> None:
    from experiment.report.first_screen import meaning

    def row(label: str, verified: str, pipeline: str) -> list[str]:
        return [f"{label} (100)", "0.500", verified, pipeline, "x", "y"]

    rows = [
        row("Set A, part one", "0.300 (loses†, 0.3× FLOPs)", "0.620 (beats, 0.4× FLOPs)"),
        row("Set B", "0.400 (loses, 0.3× FLOPs)", "0.480 (n.s., 0.4× FLOPs)"),
        row("Set C", "0.200 (loses†, 0.3× FLOPs)", "—"),  # a run made before the pipeline
    ]
    said = meaning(rows, 10)
    assert "small-verified@10, the method under test, loses to large@1 on every data set." in said
    assert "beats large@1 on Set A (0.620 against 0.500) and ties on Set B." in said
    rows[1][2] = "0.600 (beats, 0.3× FLOPs)"
    assert (
        "beats large@1 on Set B (0.600 against 0.500) and loses to large@1 on Set A and Set C"
        in meaning(rows, 10)
    )
    assert meaning([], 10) == ""
    block = _block(README.read_text(encoding="utf-8"))
    assert meaning(kept_rows(block), 10) in block  # the README's words are the generated ones

"""`factqa bench`: every module of experiment/bench/ registers its subcommands, `--help` lists
them all, each one's help works, their errors are the CLI's, and bench/ keeps only wrappers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.bench.app import subcommands
from experiment.config import PROJECT_ROOT

runner = CliRunner()
SUBCOMMANDS = subcommands()


def _invoke(*args: str) -> str:
    res = runner.invoke(cli.app, list(args), terminal_width=200, env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    return res.output


def test_bench_help_lists_every_registered_subcommand() -> None:
    listed = _invoke("bench", "--help")
    for words in SUBCOMMANDS:
        assert f" {words[0]} " in listed, words
    fit = _invoke("bench", "fit", "--help") if any(w[0] == "fit" for w in SUBCOMMANDS) else ""
    for words in (w for w in SUBCOMMANDS if w[0] == "fit"):
        assert f" {words[1]} " in fit, words


def test_the_registry_holds_the_harness_and_the_moved_scripts() -> None:
    names = {" ".join(w) for w in SUBCOMMANDS}
    assert {"run", "rescore", "report", "abstention", "drafts", "pool-coverage"} <= names
    assert len(names) == len(SUBCOMMANDS), "a name registered twice"


@pytest.mark.parametrize("words", SUBCOMMANDS, ids=" ".join)
def test_each_subcommand_has_help(words: tuple[str, ...]) -> None:
    out = _invoke("bench", *words, "--help")
    assert f"bench {' '.join(words)} [OPTIONS]" in out


def test_a_subcommands_error_is_a_message_and_exit_code_2(tmp_path: Path) -> None:
    res = runner.invoke(cli.app, ["bench", "calculator", "--drop", str(tmp_path)])
    assert res.exit_code == 2, res.output
    assert "--drop needs --tatqa, --squad and --bundled too" in res.output
    assert "Traceback" not in res.output


def test_a_subcommand_prints_what_its_script_printed(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for folder, text in ((old, "method,accuracy\na,0.5\n"), (new, "method,accuracy\na,0.6\n")):
        folder.mkdir()
        (folder / "summary.csv").write_text(text, encoding="utf-8")
    out = _invoke("bench", "same-outputs", str(old), str(new))
    assert out.splitlines() == [
        "summary.csv: differs; rows 1 -> 1; columns added 0 []; removed []",
        "  accuracy: 1 cells differ (row 0: '0.5' -> '0.6')",
        "identical=0 differ=1",
    ]


def test_tatqa_units_reads_the_data_file(tmp_path: Path) -> None:
    shared = "A paragraph long enough to be shared between two contexts of the data set."
    data = [
        {"table": {"uid": f"u{i}"}, "paragraphs": [{"text": shared}, {"text": f"own {i}"}]}
        for i in range(3)
    ]
    path = tmp_path / "tatqa.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    lines = _invoke("bench", "tatqa-units", str(path)).splitlines()
    assert lines[0].startswith("3 contexts, 1 units (1 of several)")
    assert lines[-1].endswith("tatqa_shared_paragraphs_across_halves=0")


def test_no_wrapper_scripts_are_left_at_the_root() -> None:
    """Documents cite `factqa bench NAME`: every study is a subcommand, none a script."""
    assert sorted((PROJECT_ROOT / "bench").glob("*.py")) == []


def test_other_commands_do_not_import_the_benchmarks() -> None:
    code = (
        "import sys, experiment.cli; "
        "print(sorted(m for m in sys.modules if m.startswith('experiment.bench.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PROJECT_ROOT
    )
    assert done.stdout.strip() == "['experiment.bench.app']"


def test_bench_help_lists_the_user_s_commands_first_and_groups_the_studies() -> None:
    from typer.testing import CliRunner

    from experiment.cli import app

    out = CliRunner().invoke(app, ["bench", "--help"], env={"COLUMNS": "100"}).output
    core, analyses = out.index("Run, score and report"), out.index("Analyses (")
    measurements = out.index("Measurements (")
    names = ("run", "rescore", "report", "portable", "routing")
    row = {name: out.index(f"│ {name} ") for name in names}
    assert core < row["run"] < row["rescore"] < row["report"] < analyses
    assert analyses < row["routing"] < measurements < row["portable"]  # each study in its wing

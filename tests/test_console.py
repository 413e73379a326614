"""The method table `factqa run` prints: compact by default (fits 100 columns, one line a method),
`--methods` and `--all` choose, and the methods left out are named with where they are."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.report.console import default_methods

from .conftest import run_args

runner = CliRunner()


@pytest.fixture
def patched(monkeypatch: pytest.MonkeyPatch, fake_factory):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)


def _run(corpus: tuple[Path, Path], out: Path, *extra: str):  # type: ignore[no-untyped-def]
    args = run_args(*corpus, "fake-small", "fake-large", 4, out, "t", *extra)
    return runner.invoke(cli.app, args, terminal_width=100, env={"COLUMNS": "100"})


def _table_rows(output: str) -> dict[str, str]:
    """The method table's rows by method name (the first word of a row)."""
    rows = {}
    for line in output.split("not shown (")[0].splitlines():
        words = line.split()
        if words and ("@" in words[0] or words[0].startswith("cascade")):
            rows[words[0]] = line
    return rows


def test_the_default_table_is_compact_and_fits_100_columns(patched, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = _run(corpus, tmp_path)
    assert res.exit_code == 0, res.output
    rows = _table_rows(res.output)
    assert {"large@1", "small-verified@4", "small-selected@4", "cascade@20%"} <= set(rows)
    assert "small-pass@4" not in rows and "small@1" not in rows
    table = res.output.split("not shown")[0]
    assert max(len(line.rstrip()) for line in table.splitlines()) <= 100
    assert "…" not in table  # no header or cell cut
    # each method on one line, its figures beside it
    assert "0.800 [" in rows["large@1"] and "1.000 [" in rows["small-verified@4"]
    rest = " ".join(res.output.split("not shown", 1)[1].split("command:")[0].split())
    assert "small-pass@4" in rest and "summary.csv" in rest and "--all" in rest


def test_methods_and_all_choose_the_rows(patched, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = _run(corpus, tmp_path, "--methods", "large@1,small-maj@k")
    assert res.exit_code == 0, res.output
    assert set(_table_rows(res.output)) == {"large@1", "small-maj@4"}
    res = _run(corpus, tmp_path, "--all")
    assert res.exit_code == 0, res.output
    assert {"small-pass@4", "small@1", "large-verified@1"} <= set(_table_rows(res.output))
    assert "not shown" not in res.output
    table = res.output.split("command:")[0]
    assert max(len(line.rstrip()) for line in table.splitlines()) <= 100


def test_an_unknown_method_is_refused_before_any_model_runs(
    patched,  # type: ignore[no-untyped-def]
    corpus,
    tmp_path: Path,
    fakes,
) -> None:
    res = _run(corpus, tmp_path, "--methods", "small-verified@k,best-method")
    assert res.exit_code == 2
    assert "best-method" in res.output and "small-verified@4" in res.output  # the known names
    assert fakes["fake-small"].calls == []


def test_the_best_of_the_rest_is_the_most_accurate_single_method() -> None:
    names = ["large@1", "small@1", "small-maj@5", "small-verified@5", "small-pass@5"]
    names += ["small-rule@5", "small-selected@5", "cascade", "cascade@20%"]
    acc = dict.fromkeys(names, 0.5) | {"small-maj@5": 0.6, "small-pass@5": 0.9}
    shown = default_methods(names, acc, 5)
    # small-pass@5 is an oracle, not a method one could run: small-maj@5 is the best of the rest
    assert shown == [
        "large@1",
        "small-maj@5",
        "small-verified@5",
        "small-selected@5",
        "cascade",
        "cascade@20%",
    ]


def test_a_run_s_console_fits_the_terminal_s_width(
    monkeypatch: pytest.MonkeyPatch,
    fake_factory,
    corpus,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    """At COLUMNS=100 no line of a run's output runs past 100 columns (the "not shown" line
    ran to 171)."""
    from typer.testing import CliRunner

    from experiment import cli

    from .conftest import run_args

    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    args = run_args(*corpus, "fake-small", "fake-large", 4, tmp_path, "w")
    res = CliRunner().invoke(cli.app, args, env={"COLUMNS": "100"})
    assert res.exit_code == 0, res.output
    assert "not shown (" in res.output
    lines = [line for line in res.output.splitlines() if not line.startswith("command: ")]
    assert [line for line in lines if len(line) > 100] == []  # a command is shown whole


def test_report_shows_the_table_for_the_terminal_and_writes_the_markdown(
    patched,  # type: ignore[no-untyped-def]
    corpus,
    tmp_path: Path,
) -> None:
    """`factqa report RUN` renders for a terminal (the raw Markdown's 13-column tables broke
    mid-row) and keeps the whole report in RUN/report.md; its heading counts right."""
    assert _run(corpus, tmp_path).exit_code == 0
    res = runner.invoke(cli.app, ["report", str(tmp_path / "t")], env={"COLUMNS": "100"})
    assert res.exit_code == 0, res.output
    assert "| --- |" not in res.output and "## " not in res.output
    lines = [line for line in res.output.splitlines() if not line.startswith("Command: ")]
    assert [line for line in lines if len(line) > 100] == []
    assert "large@1" in _table_rows(res.output)
    whole = (tmp_path / "t" / "report.md").read_text(encoding="utf-8")
    assert "| method |" in whole and ": 5 questions, 2 articles, k=4" in whole
    assert "report.md" in res.output

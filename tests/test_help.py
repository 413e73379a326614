"""The command line's help as a new user reads it: a version, every default, flags without a type
tag, and paragraphs that flow."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.errors import InputError

runner = CliRunner()


def _help(*args: str, width: int = 100) -> str:
    res = runner.invoke(
        cli.app, [*args, "--help"], terminal_width=width, env={"COLUMNS": str(width)}
    )
    assert res.exit_code == 0, res.output
    return res.output


def test_version() -> None:
    res = runner.invoke(cli.app, ["--version"])
    assert res.exit_code == 0, res.output
    assert res.output.strip() == f"factqa {version('factqa')}"


def _options(text: str) -> dict[str, str]:
    """Each option of a help page with the text of its row and the rows that continue it."""
    found: dict[str, str] = {}
    current = ""
    for line in text.splitlines():
        cell = line.strip("│ ")
        m = re.match(r"(--[\w-]+)", cell)
        if m:
            current = m.group(1)
            found[current] = cell
        elif current and cell and not cell.startswith(("╰", "╭")):
            found[current] += " " + cell
    return found


def test_every_run_option_shows_its_default() -> None:
    options = _options(_help("run", width=200))
    assert len(options) > 25
    without = ("--config", "--methods", "--all", "--help")  # no default to show
    missing = [o for o, row in options.items() if o not in without and "[default:" not in row]
    assert missing == []
    assert "[default: 10]" in options["--k"]
    assert "[default: 0.7]" in options["--temperature"]
    assert "[default: whole,evidence]" in options["--checks"]


@pytest.mark.parametrize("command", [["run"], ["report"], ["import", "squad"], ["verify"]])
def test_a_flag_has_no_type_tag(command: list[str]) -> None:
    assert "<bool>" not in _help(*command)


def test_help_paragraphs_flow_and_show_brackets_as_written() -> None:
    text = " ".join(_help("verify", width=300).split())
    # written over three source lines: one paragraph here, the [start:end] not read as markup
    assert "(one line each: text | value | [start:end] span) and the arithmetic right" in text
    wide = _help("report", width=300)
    line = next(x for x in wide.splitlines() if "Show a finished run" in x)
    assert "and optionally record it in the results file" in line


def test_a_flag_given_wins_over_the_config_file_and_a_default_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text("k = 3\ntemperature = 0.2\n")
    seen: dict[str, object] = {}

    def stop(path: Path, overrides: dict[str, object]) -> None:
        seen.update(overrides)
        raise InputError("stopped before any model", fix="none")

    monkeypatch.setattr(cli, "build_config", stop)
    res = runner.invoke(cli.app, ["run", "--config", str(cfg), "-k", "5", "--limit", "1"])
    assert res.exit_code == 2 and "stopped before any model" in res.output
    assert seen["k"] == 5 and seen["limit"] == 1
    assert seen["temperature"] is None  # left out: the file's 0.2 applies, not the default
    assert seen["small"] is None

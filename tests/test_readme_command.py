"""The README's main job gives the README's bundled row: the set-up line's `factqa run`, run with
a scripted backend, records the command that the README's bundled row names, less the output
folder (`--out`, `--run-id`)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.config import PROJECT_ROOT

from .conftest import FakeBackend

README = PROJECT_ROOT / "README.md"
OUTPUT_FLAGS = ("--out", "--run-id")


def _without_output(command: str) -> list[str]:
    """The command's words less the output folder's flags and their values."""
    words, kept = shlex.split(command), []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in OUTPUT_FLAGS:
            skip = True
        else:
            kept.append(word)
    return kept


def _setup_run() -> list[str]:
    """The `factqa run ...` that ends the README's set-up line (the first command block)."""
    text = README.read_text(encoding="utf-8")
    line = next(s.strip() for s in text.splitlines()[:20] if "factqa run" in s)
    return shlex.split(line.rsplit("&&", 1)[-1])


def _bundled_row_command() -> str:
    """The command the README's bundled section says it was measured by."""
    text = README.read_text(encoding="utf-8")
    found = re.search(r"measured by `(factqa run[^`]*)`", text)
    assert found, "the README names no command its bundled row was measured by"
    return found.group(1)


def test_the_readme_names_a_plain_factqa_run_for_its_main_job() -> None:
    assert _setup_run() == ["factqa", "run"]


def test_the_readmes_main_job_records_the_command_of_the_readmes_bundled_row(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    backends: dict[str, FakeBackend] = {}

    def factory(spec: str, _cfg: object) -> FakeBackend:  # any model: a scripted one
        return backends.setdefault(spec, FakeBackend(spec, lambda m, s, i: "unknown"))

    monkeypatch.setattr(cli, "_factory", lambda: factory)
    args = [*_setup_run()[1:], "--out", str(tmp_path), "--run-id", "main-job"]
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "main-job" / "manifest.json").read_text())
    recorded = _without_output(manifest["command"])
    assert recorded == _without_output(_bundled_row_command())
    assert manifest["config"]["prompt"] == "auto"  # a computed question gets the calc prompt

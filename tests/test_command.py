"""The recorded command reproduces the run: built from the effective settings (flags and
--config file), it is the same in the manifest, the console, the Markdown and the HTML page,
and pasted back it makes the same run id."""

from __future__ import annotations

import html
import json
import shlex
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from experiment import cli
from experiment.report.markdown import run_section

runner = CliRunner()


def _runs(out: Path) -> list[Path]:
    return [p for p in out.iterdir() if not p.name.startswith(".")]  # not the cache


def test_the_recorded_command_pasted_back_makes_the_same_run(
    monkeypatch: pytest.MonkeyPatch,
    fake_factory,  # type: ignore[no-untyped-def]
    fakes,
    corpus,
    tmp_path: Path,
) -> None:
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    monkeypatch.chdir(tmp_path)
    articles, questions = corpus
    settings = tmp_path / "run.toml"
    settings.write_text("temperature = 0.3\n")  # from the file, not a flag: still recorded
    args = ["run", "--articles", str(articles), "--questions", str(questions)]
    args += ["--small", "fake-small", "--large", "fake-large", "-k", "3", "--out", "runs"]
    res = runner.invoke(cli.app, [*args, "--config", str(settings)])
    assert res.exit_code == 0, res.output
    (run_dir,) = _runs(tmp_path / "runs")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    command = manifest["command"]
    assert command == (
        "factqa run --articles articles --questions questions.csv --small fake-small "
        "--large fake-large --k 3 --temperature 0.3 --out runs"
    )
    assert f"command: {command}" in res.output  # the console says it
    assert f"`{command}`" in run_section(run_dir)  # the Markdown section
    res = runner.invoke(cli.app, ["report", str(run_dir), "--html"])
    assert res.exit_code == 0, res.output
    # the report step it names is the one the user ran, not the one that records docs/RESULTS.md
    assert f"then `factqa report runs/{run_dir.name} --html`" in res.output
    assert "--results-md docs/RESULTS.md" not in res.output
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert html.escape(command, quote=False) in page  # the HTML page
    assert "--results-md docs/RESULTS.md" not in page  # no step the user never ran

    calls = len(fakes["fake-small"].calls)
    res = runner.invoke(cli.app, shlex.split(command)[1:])  # pasted back, without the file
    assert res.exit_code == 0, res.output
    assert _runs(tmp_path / "runs") == [run_dir]
    again = json.loads((run_dir / "manifest.json").read_text())
    assert again["run_id"] == manifest["run_id"] and again["command"] == command
    assert len(fakes["fake-small"].calls) == calls  # the same samples, from the cache


def test_a_value_with_spaces_is_quoted() -> None:
    from experiment.config import RunConfig

    cfg = RunConfig(label="SQuAD v1.1 dev", run_id="my-run")
    assert shlex.split(cfg.command())[2:] == ["--label", "SQuAD v1.1 dev", "--run-id", "my-run"]


def test_every_setting_is_declared_once_with_what_the_command_line_needs() -> None:
    """A RunConfig field without its Setting (help, run id or not) is refused: `run`'s options,
    the recorded command and the run id are all generated from it."""
    from dataclasses import fields

    from experiment.config import COMMAND_OPTIONS, SETTINGS, RunConfig

    unclassified = [f.name for f in fields(RunConfig) if "setting" not in f.metadata]
    assert unclassified == []
    assert [name for name, said in SETTINGS.items() if not said.help.strip()] == []
    assert list(COMMAND_OPTIONS) == [f.name for f in fields(RunConfig)]
    options = {p.name: p for p in typer.main.get_command(cli.app).commands["run"].params}
    for name, said in SETTINGS.items():  # each setting is an option of `factqa run`, its help
        assert options[name].help == said.help, name


# Two configurations that differ from the defaults in every setting they can together
# (`--speculative` needs the batched backend, so each case leaves one of the two at its default).
EVERY_SETTING = {
    "small": "fake-small", "large": "fake-large", "k": 3, "temperature": 0.3, "top_p": 0.9,
    "top_k": 20, "max_tokens": 16, "calc_max_tokens": 48, "seed": 7, "limit": 2, "n_ctx": 2048,
    "adaptive": "window", "rounds": "2,2", "small_context": "excerpt:3", "prompt": "calc",
    "checks": "whole", "drafts": "small", "derived_text": "result", "label": "My set",
    "max_failed": 0.25, "server_timeout": 5.0, "server_retries": 1, "server_concurrency": 2,
}  # fmt: skip


@pytest.mark.parametrize(
    "case", [{"backend": "llama", "run_id": "my-run"}, {"speculative": "lookup"}]
)
def test_a_run_with_every_setting_changed_is_made_again_by_its_recorded_command(
    monkeypatch: pytest.MonkeyPatch, corpus, tmp_path: Path, case: dict[str, str]
) -> None:
    from dataclasses import fields

    from experiment import runner as run_module
    from experiment.config import RunConfig

    articles, questions = corpus
    default = RunConfig()  # the bundled corpus's, before the working folder holds another
    monkeypatch.chdir(tmp_path)
    cfg = RunConfig(
        articles=articles, questions=questions, out=tmp_path / "runs", **EVERY_SETTING, **case
    )
    same = [f.name for f in fields(cfg) if getattr(cfg, f.name) == getattr(default, f.name)]
    assert set(same) <= {"backend", "speculative", "run_id"}
    made: list[RunConfig] = []

    def stop(given: RunConfig, **_: object) -> None:
        made.append(given)
        raise KeyboardInterrupt  # the configuration is all this test needs

    monkeypatch.setattr(run_module, "run_experiment", stop)
    runner.invoke(cli.app, shlex.split(cfg.command())[1:])
    (again,) = made

    def said(c: RunConfig) -> dict[str, object]:  # a path as given, or relative to the folder
        return {k: Path(v).resolve() if k in ("articles", "questions", "out") else v
                for k, v in c.as_dict().items()}  # fmt: skip

    assert said(again) == said(cfg)
    assert again.fingerprint() == cfg.fingerprint()
    assert again.command() == cfg.command()


def test_a_run_with_non_default_scoring_settings_is_made_again_by_its_command(
    monkeypatch: pytest.MonkeyPatch,
    fake_factory,  # type: ignore[no-untyped-def]
    corpus,
    tmp_path: Path,
) -> None:
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    monkeypatch.chdir(tmp_path)
    articles, questions = corpus
    args = ["run", "--articles", str(articles), "--questions", str(questions), "--small",
            "fake-small", "--large", "fake-large", "-k", "2", "--out", "runs", "--drafts", "small",
            "--derived-text", "result", "--checks", "whole", "--prompt", "figure"]  # fmt: skip
    res = runner.invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    (run_dir,) = _runs(tmp_path / "runs")
    command = json.loads((run_dir / "manifest.json").read_text())["command"]
    for said in ("--drafts small", "--derived-text result", "--checks whole", "--prompt figure"):
        assert said in command
    res = runner.invoke(cli.app, shlex.split(command)[1:])
    assert res.exit_code == 0, res.output
    assert _runs(tmp_path / "runs") == [run_dir]  # the same run id, not another folder

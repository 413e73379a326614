"""`factqa compare`: two runs' differing settings, machine facts and samples."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from experiment import cli
from experiment.config import RunConfig
from experiment.report.compare import compare
from experiment.runner import run_experiment

from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script


def _run(corpus, out: Path, small_answers) -> Path:  # type: ignore[no-untyped-def]
    articles, questions = corpus
    fakes = {
        "s": FakeBackend("s", keyword_script(small_answers)),
        "l": FakeBackend("l", keyword_script(LARGE_ANSWERS)),
    }

    def factory(spec: str, _cfg: object) -> FakeBackend:
        return fakes[spec]

    cfg = RunConfig(articles=articles, questions=questions, small="s", large="l", k=3, out=out)
    return run_experiment(cfg, factory).run_dir


def test_compare_names_the_samples_and_settings_that_differ(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    a = _run(corpus, tmp_path / "a", SMALL_ANSWERS)
    b = _run(corpus, tmp_path / "b", {**SMALL_ANSWERS, "units": ["3,200"]})
    c = compare(a, b)
    assert c.settings == {"out": (str(tmp_path / "a"), str(tmp_path / "b"))}
    assert c.compared == {"large": 5, "small": 15}
    assert c.differ["large"] == 0
    assert c.differ["small"] == 3  # the units question's three samples
    assert {e["question_id"] for e in c.examples} == {"alpha-1"}
    same = compare(a, a)
    assert same.settings == {} and same.differ == {"large": 0, "small": 0}
    result = CliRunner().invoke(cli.app, ["compare", str(a), str(b)])
    assert result.exit_code == 0, result.output
    assert "small samples: 3 of 15 differ" in result.output


def test_compare_refuses_a_folder_that_is_not_a_run(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli.app, ["compare", str(tmp_path), str(tmp_path)])
    assert result.exit_code != 0
    assert "manifest" in result.output.lower() or "run" in result.output.lower()

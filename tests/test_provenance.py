"""Provenance: the run id follows content, not paths; a run names its data set and command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.config import BUNDLED, RunConfig

from .conftest import run_args

runner = CliRunner()


def test_the_run_id_is_the_same_in_another_checkout_and_new_for_edited_questions(  # type: ignore[no-untyped-def]
    corpus, tmp_path: Path
) -> None:
    arts, qs = corpus
    other = tmp_path / "elsewhere" / "checkout"
    shutil.copytree(arts, other / "articles")
    shutil.copy(qs, other / "questions.csv")
    here = RunConfig(articles=arts, questions=qs, out=tmp_path / "a")
    there = RunConfig(articles=other / "articles", questions=other / "questions.csv")
    assert here.resolved_run_id == there.resolved_run_id
    (other / "questions.csv").write_text(qs.read_text() + "beta-3,beta,How many?,40,figure,\n")
    assert there.resolved_run_id != here.resolved_run_id  # the id is computed from content
    # a setting that decides results changes it; where results are written does not
    assert RunConfig(articles=arts, questions=qs, k=5).resolved_run_id != here.resolved_run_id
    assert RunConfig(articles=arts, questions=qs, server_retries=9).resolved_run_id == (
        here.resolved_run_id
    )


def test_the_bundled_corpus_is_named_and_others_by_their_folder(tmp_path: Path) -> None:
    assert RunConfig().dataset == BUNDLED and RunConfig().command() == "factqa run"
    imported = RunConfig(articles=tmp_path / "squad1" / "articles", limit=20, k=5)
    assert imported.dataset == "squad1"
    where = (tmp_path / "squad1" / "articles").as_posix()  # outside the working folder: whole
    assert imported.command() == f"factqa run --articles {where} --k 5 --limit 20"
    assert RunConfig(label="SQuAD v1.1 dev").dataset == "SQuAD v1.1 dev"


@pytest.fixture
def patched(monkeypatch: pytest.MonkeyPatch, fake_factory):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)


def test_a_report_describes_the_run_from_its_manifest(patched, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(cli.app, run_args(*corpus, "fake-small", "fake-large", 4, tmp_path, "t"))
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text())
    assert manifest["dataset"] == corpus[0].parent.name  # the folder above `articles`
    assert manifest["bundled"] is False and manifest["command"].startswith("factqa run --articles")
    results, readme = tmp_path / "RESULTS.md", tmp_path / "README.md"
    readme.write_text("<!-- result:start -->\nkept\n<!-- result:end -->\n")
    res = runner.invoke(cli.app, ["report", str(tmp_path / "t"), "--results-md", str(results)])
    assert res.exit_code == 0, res.output
    text = results.read_text()
    assert f"<!-- run-{manifest['run_id']}:start -->" in text and "Bundled" not in text
    assert f"## {manifest['dataset'][:1].upper()}" in text and manifest["command"] in text
    # the README's result block is for the bundled corpus only, and stays as it was
    res = runner.invoke(cli.app, ["report", str(tmp_path / "t"), "--readme", str(readme)])
    assert res.exit_code == 2 and "bundled corpus" in res.output
    assert "kept" in readme.read_text()

"""Issue 43: ways to lose or corrupt data. An import writes beside the earlier one and removes
only what that one wrote; a run id never takes a user's folder; compare says when the questions
changed; importers keep a gold's sign, scale and calendar."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.errors import ConfigError
from experiment.config import RunConfig
from experiment.corpus import load_articles, load_questions
from experiment.importers import layout
from experiment.importers.readers import drop_answer, tatqa_scaled
from experiment.importers.schema import Malformed
from experiment.importers.service import import_dataset
from experiment.report.compare import compare, lines
from experiment.runner import run_experiment
from experiment.values.normalize import parse_value

from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script, run_args
from .test_importers import squad_file

runner = CliRunner()


def test_overwrite_keeps_a_users_files_and_removes_the_earlier_imports(tmp_path: Path) -> None:
    # --overwrite deleted every file in --out/articles, the user's own too
    src, out = squad_file(tmp_path), tmp_path / "out"
    first = import_dataset("squad", src, out)
    before = sorted(p.name for p in first.articles.glob("*.md"))
    mine = out / "articles" / "my-notes.md"
    mine.write_text("my own article", encoding="utf-8")
    again = import_dataset("squad", src, out, sample=1, overwrite=True)
    assert mine.read_text(encoding="utf-8") == "my own article"
    kept = sorted(p.name for p in again.articles.glob("*.md") if p != mine)
    assert len(kept) == 1 and set(kept) < set(before)  # the earlier import's others are gone
    assert len(load_questions(again.questions)) == 1
    assert not list(out.glob(".factqa-import-*"))  # no staging folder left


def test_an_import_that_fails_halfway_leaves_the_earlier_one_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a 300-character title ("File name too long") left the folder empty
    src, out = squad_file(tmp_path), tmp_path / "out"
    first = import_dataset("squad", src, out)
    files = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    calls = []

    def fails_second(path: Path, data: str) -> None:
        calls.append(path)
        if len(calls) == 2:
            raise OSError(36, "File name too long", str(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data, encoding="utf-8")

    monkeypatch.setattr(layout, "atomic_write", fails_second)
    with pytest.raises(OSError, match="too long"):
        import_dataset("squad", src, out, sample=1, overwrite=True)
    assert {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()} == files
    assert len(load_questions(first.questions)) == 3


def test_an_import_with_a_300_character_title_is_written(tmp_path: Path) -> None:
    # the article's file name was the title: "File name too long", and nothing written
    src = squad_file(tmp_path)
    src.write_text(src.read_text(encoding="utf-8").replace("Velden_Bridge", "B" * 300))
    res = import_dataset("squad", src, tmp_path / "out")
    names = [p.name for p in res.articles.glob("*.md")]
    assert len(names) == 2 and max(len(n) for n in names) <= 103
    assert len(load_questions(res.questions, load_articles(res.articles))) == 3


def test_a_run_id_naming_a_users_folder_is_refused(corpus, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the run replaced the user's agreement.csv in a folder that held no run
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "agreement.csv").write_text("my,data\n1,2\n", encoding="utf-8")
    small = FakeBackend("fake-small", keyword_script(SMALL_ANSWERS))
    large = FakeBackend("fake-large", keyword_script(LARGE_ANSWERS))
    monkeypatch.setattr(
        cli, "_factory", lambda: lambda spec, cfg: small if spec == "fake-small" else large
    )
    res = runner.invoke(cli.app, run_args(*corpus, "fake-small", "fake-large", 2, tmp_path, "t"))
    assert res.exit_code == 2, res.output
    assert "holds no run" in " ".join(res.output.split())
    assert (folder / "agreement.csv").read_text(encoding="utf-8") == "my,data\n1,2\n"
    assert not small.calls  # refused before any generation


def test_a_run_id_longer_than_a_folder_name_is_refused_up_front(corpus) -> None:  # type: ignore[no-untyped-def]
    # failed with "File name too long" only after every generation
    articles, questions = corpus
    with pytest.raises(ConfigError, match="run_id is 300 bytes"):
        RunConfig(articles=articles, questions=questions, small="s", large="l", run_id="r" * 300)


def test_compare_says_which_questions_only_one_run_asked(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # a question deleted between two runs of one command: "settings: the same ... 0 of 2 differ"
    articles, questions = corpus
    rows = questions.read_text(encoding="utf-8").splitlines(keepends=True)
    fewer = tmp_path / "fewer.csv"
    fewer.write_text("".join(rows[:-1]), encoding="utf-8")
    runs = []
    for qs, out in ((questions, tmp_path / "a"), (fewer, tmp_path / "b")):
        fakes = {
            "s": FakeBackend("s", keyword_script(SMALL_ANSWERS)),
            "l": FakeBackend("l", keyword_script(LARGE_ANSWERS)),
        }
        cfg = RunConfig(articles=articles, questions=qs, small="s", large="l", k=1, out=out)
        runs.append(run_experiment(cfg, lambda spec, _cfg, f=fakes: f[spec]).run_dir)
    c = compare(*runs)
    assert len(c.only["a"]) == 1 and c.only["b"] == []
    assert any(line.startswith("questions: 1 only in run A") for line in lines(c))


def test_a_drop_date_with_month_13_is_refused() -> None:
    # became the gold "5 13 2019", read as the year 2019
    answer = {"number": "", "date": {"day": "5", "month": "13", "year": "2019"}, "spans": []}
    with pytest.raises(Malformed, match="month"):
        drop_answer(answer)


@pytest.mark.parametrize(
    ("text", "scale", "value"),
    [
        ("(3,709)", "thousand", -3_709_000.0),  # was "(3,709) thousand", read as 3709
        ("(3,709)", "", -3709.0),
        ("(12.5)", "million", -12_500_000.0),
    ],
)
def test_tatqa_accounting_negative_keeps_sign_and_scale(
    text: str, scale: str, value: float
) -> None:
    parsed = parse_value(tatqa_scaled(text, scale), "figure")
    assert parsed is not None and parsed.low == value  # type: ignore[union-attr]


def test_an_import_record_never_names_a_file_outside_its_folders(tmp_path: Path) -> None:
    # the record of the earlier import says what --overwrite removes: a path out of articles/
    # or questions/ in it must never be removed
    src, out = squad_file(tmp_path), tmp_path / "out"
    import_dataset("squad", src, out)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    (out / ".factqa-import.json").write_text(f'["{victim}", "../victim.txt"]', encoding="utf-8")
    import_dataset("squad", src, out, sample=1, overwrite=True)
    assert victim.read_text(encoding="utf-8") == "keep me"

"""Issue 56, part C: the files the tool owns. Every write of import, run, report, verify and bench
goes through `experiment.base.files`; a file is replaced or removed only where the folder's ledger
(`.factqa-owned.json`) says factqa wrote it, with the content it still has."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base import files
from experiment.base.errors import InputError
from experiment.base.files import LEDGER, Ledger, NotOwned, read_cell
from experiment.config import RunConfig
from experiment.corpus import QUESTION_COLUMNS
from experiment.importers.service import IMPORTED, import_dataset
from experiment.runner import run_experiment

from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script, run_args
from .test_importers import squad_file

runner = CliRunner()
HEADER = ",".join([*QUESTION_COLUMNS, "notes", "cluster", "computed"])  # the documented one
MY_ARTICLE = (
    "---\nid: harbour\ntitle: My harbour notes\nsource: my notebook\n---\nThe quay is 80 m.\n"
)
MY_QUESTIONS = f"{HEADER}\nh1,harbour,How long is the quay?,80 m,figure,,,false\n"


def said(res: object) -> str:
    return " ".join(res.output.split())  # type: ignore[attr-defined]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def make_run(corpus: tuple[Path, Path], out: Path, run_id: str = "r") -> Path:
    articles, questions = corpus
    fakes = {
        "s": FakeBackend("s", keyword_script(SMALL_ANSWERS)),
        "l": FakeBackend("l", keyword_script(LARGE_ANSWERS)),
    }
    cfg = RunConfig(
        articles=articles, questions=questions, small="s", large="l", k=2, out=out, run_id=run_id
    )
    return run_experiment(cfg, lambda spec, _cfg: fakes[spec]).run_dir


# --- import -------------------------------------------------------------------------------------


def test_overwrite_into_a_folder_with_no_earlier_import_keeps_the_users_files(
    tmp_path: Path,
) -> None:
    # an article with a `source:` line and a questions file with the documented header were
    # taken for an earlier import's, by their look, and deleted
    src, out = squad_file(tmp_path), tmp_path / "out"
    (out / "articles").mkdir(parents=True)
    (out / "questions").mkdir()
    (out / "articles" / "harbour.md").write_text(MY_ARTICLE, encoding="utf-8")
    (out / "questions" / "harbour.csv").write_text(MY_QUESTIONS, encoding="utf-8")
    import_dataset("squad", src, out, overwrite=True)
    import_dataset("squad", src, out, sample=1, overwrite=True)
    assert (out / "articles" / "harbour.md").read_text(encoding="utf-8") == MY_ARTICLE
    assert (out / "questions" / "harbour.csv").read_text(encoding="utf-8") == MY_QUESTIONS
    owned = json.loads((out / LEDGER).read_text(encoding="utf-8"))["files"]
    assert "articles/harbour.md" not in owned and len(owned) == 2  # one article, one CSV


def test_an_import_never_replaces_a_users_file_of_a_name_it_writes(tmp_path: Path) -> None:
    src = squad_file(tmp_path)
    names = sorted(snapshot(import_dataset("squad", src, tmp_path / "probe").articles))
    out = tmp_path / "out"
    (out / "articles").mkdir(parents=True)
    mine = out / "articles" / names[0]
    mine.write_text("my own text\n", encoding="utf-8")
    with pytest.raises(NotOwned) as refused:
        import_dataset("squad", src, out, overwrite=True)
    assert str(mine) in str(refused.value) and "Fix:" in str(refused.value)
    assert mine.read_text(encoding="utf-8") == "my own text\n"
    assert snapshot(out) == {f"articles/{names[0]}": b"my own text\n"}  # nothing else written


def test_an_import_that_stops_while_it_moves_files_is_finished_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # killed while it moved files: a mix of two imports and its temporary folder
    src, out = squad_file(tmp_path), tmp_path / "out"
    import_dataset("squad", src, out)
    real, moves = os.replace, []

    def breaks(a: object, b: object) -> None:
        if ".factqa-import-" in str(a) and ".factqa-import-" not in str(b):  # moved in
            moves.append(b)
            if len(moves) == 2:
                raise OSError(5, "Input/output error", str(b))
        real(a, b)  # type: ignore[arg-type]

    monkeypatch.setattr(files.os, "replace", breaks)
    with pytest.raises(OSError):
        import_dataset("squad", src, out, sample=1, overwrite=True)
    monkeypatch.setattr(files.os, "replace", real)
    reference = tmp_path / "reference"
    import_dataset("squad", src, reference)
    import_dataset("squad", src, reference, sample=1, overwrite=True)
    Ledger.open(out)  # what the next command into the folder does first
    assert snapshot(out) == snapshot(reference)  # the new import, whole
    assert not [p for p in out.iterdir() if p.name.startswith(".factqa-import-")]


def test_an_import_from_before_the_ledger_is_replaced_by_its_record(tmp_path: Path) -> None:
    # migration: the old record names the files the earlier import wrote; nothing else goes
    src, out = squad_file(tmp_path), tmp_path / "out"
    first = import_dataset("squad", src, out)
    written = sorted(f"articles/{p.name}" for p in first.articles.glob("*.md"))
    written.append(f"questions/{first.questions.name}")
    (out / LEDGER).unlink()
    (out / IMPORTED).write_text(json.dumps(written), encoding="utf-8")
    (out / "articles" / "harbour.md").write_text(MY_ARTICLE, encoding="utf-8")
    again = import_dataset("squad", src, out, sample=1, overwrite=True)
    assert (out / "articles" / "harbour.md").read_text(encoding="utf-8") == MY_ARTICLE
    assert len(list(again.articles.glob("*.md"))) == 2  # the new import's one, and the user's
    assert not (out / IMPORTED).exists() and (out / LEDGER).is_file()


def test_an_import_folder_without_a_record_or_ledger_adopts_nothing(tmp_path: Path) -> None:
    src, out = squad_file(tmp_path), tmp_path / "out"
    import_dataset("squad", src, out)
    (out / LEDGER).unlink()  # a folder of unknown origin: its files are not the tool's
    with pytest.raises(NotOwned):
        import_dataset("squad", src, out, sample=1, overwrite=True)


# --- verify --out --------------------------------------------------------------------------------


def _answers(folder: Path, *answers: str) -> Path:
    src = folder / "answers.csv"
    with src.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["article_id", "answer"])
        writer.writerows(["alpha", a] for a in answers)
    return src


@pytest.mark.parametrize("target", ["csv", "article", "link"])
def test_verify_out_refuses_a_file_it_reads(corpus, tmp_path: Path, target: str) -> None:  # type: ignore[no-untyped-def]
    # --out naming the answers CSV or an article wrote the results over it
    arts, _ = corpus
    src = _answers(tmp_path, "13,200", "$250")
    out = {"csv": src, "article": arts / "alpha.md", "link": tmp_path / "link.csv"}[target]
    if target == "link":
        out.symlink_to(src)
    before = snapshot(tmp_path)
    res = runner.invoke(cli.app, ["verify", str(src), "--articles", str(arts), "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert "reads" in said(res) and "--out" in said(res)
    assert snapshot(tmp_path) == before


def test_verify_out_replaces_only_a_file_it_wrote(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    arts, _ = corpus
    src, out = _answers(tmp_path, "13,200"), tmp_path / "checked.csv"
    out.write_text("my,table\n1,2\n", encoding="utf-8")
    args = ["verify", str(src), "--articles", str(arts), "--out", str(out)]
    res = runner.invoke(cli.app, args)
    assert res.exit_code == 2 and str(out) in said(res) and "--overwrite" in said(res)
    assert out.read_text(encoding="utf-8") == "my,table\n1,2\n"
    assert runner.invoke(cli.app, [*args, "--overwrite"]).exit_code == 0
    assert runner.invoke(cli.app, args).exit_code == 0  # now factqa's: replaced
    out.write_text(out.read_text(encoding="utf-8") + "my note\n", encoding="utf-8")
    assert runner.invoke(cli.app, args).exit_code == 2  # edited since: the user's again
    assert out.read_text(encoding="utf-8").endswith("my note\n")


def test_the_verified_csv_keeps_an_answer_that_starts_with_a_minus(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # "-12 stores" came out as "'-12 stores"
    arts, _ = corpus
    src = _answers(tmp_path, "-12 stores", "- about 40", "-5", "=HYPERLINK(1)", "-2+3+cmd|x!A0")
    out = tmp_path / "v.csv"
    res = runner.invoke(cli.app, ["verify", str(src), "--articles", str(arts), "--out", str(out)])
    assert res.exit_code == 0, res.output
    with out.open(newline="", encoding="utf-8") as f:
        cells = [row["answer"] for row in csv.DictReader(f)]
    assert cells[:3] == ["-12 stores", "- about 40", "-5"]  # values, as the user wrote them
    assert cells[3:] == ["'=HYPERLINK(1)", "'-2+3+cmd|x!A0"]  # formulas: quoted
    assert [read_cell(c) for c in cells] == ["-12 stores", "- about 40", "-5", "=HYPERLINK(1)",
                                             "-2+3+cmd|x!A0"]  # fmt: skip


# --- run --run-id and report --html --------------------------------------------------------------


def test_a_run_id_naming_a_folder_of_the_users_files_is_refused(
    corpus, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    # `--run-id docs` adopted the user's folder (no file of a run's name in it)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("my notes\n", encoding="utf-8")
    (docs / "report.html").write_text("<p>my page</p>\n", encoding="utf-8")
    small = FakeBackend("s", keyword_script(SMALL_ANSWERS))
    large = FakeBackend("l", keyword_script(LARGE_ANSWERS))
    monkeypatch.setattr(cli, "_factory", lambda: lambda spec, _cfg: small if spec == "s" else large)
    res = runner.invoke(cli.app, run_args(*corpus, "s", "l", 2, tmp_path, "docs"))
    assert res.exit_code == 2, res.output
    assert "holds no run" in said(res) and "notes.md" in said(res)
    assert sorted(p.name for p in docs.iterdir()) == ["notes.md", "report.html"]
    assert not small.calls


def test_report_html_never_replaces_a_report_html_factqa_did_not_write(
    corpus, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    # a run folder holding the user's report.html: `report --html` wrote over it
    run_dir = make_run(corpus, tmp_path / "out")
    page = run_dir / "report.html"
    page.write_text("<p>my page</p>\n", encoding="utf-8")
    before = snapshot(run_dir)
    res = runner.invoke(cli.app, ["report", str(run_dir), "--html"])
    assert res.exit_code == 2, res.output
    assert str(page) in said(res) and "factqa did not write" in said(res)
    assert snapshot(run_dir) == before  # refused before report.md or a plot was written
    page.unlink()
    assert runner.invoke(cli.app, ["report", str(run_dir), "--html"]).exit_code == 0
    assert runner.invoke(cli.app, ["report", str(run_dir), "--html"]).exit_code == 0  # its own
    (run_dir / "report.md").write_text("my edit\n", encoding="utf-8")
    res = runner.invoke(cli.app, ["report", str(run_dir)])
    assert res.exit_code == 2 and (run_dir / "report.md").read_text() == "my edit\n"


def test_a_run_folder_from_before_the_ledger_adopts_the_files_its_manifest_records(
    corpus, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    run_dir = make_run(corpus, tmp_path / "out")
    (run_dir / LEDGER).unlink()
    make_run(corpus, tmp_path / "out")  # the outputs match the manifest: adopted, rewritten
    assert (run_dir / LEDGER).is_file()
    (run_dir / LEDGER).unlink()
    (run_dir / "summary.csv").write_text("my,edit\n", encoding="utf-8")  # differs from it
    with pytest.raises(NotOwned, match=r"summary\.csv"):
        make_run(corpus, tmp_path / "out")
    assert (run_dir / "summary.csv").read_text(encoding="utf-8") == "my,edit\n"


# --- bench report --------------------------------------------------------------------------------


@pytest.mark.parametrize("results", ["nowhere", "empty"])
def test_bench_report_without_results_writes_nothing(tmp_path: Path, results: str) -> None:
    # exited 0 after cutting RESULTS.md to 24 lines, rewriting the README's blocks and
    # deleting every page of docs/results/
    docs = tmp_path / "docs"
    (docs / "results").mkdir(parents=True)
    (docs / "RESULTS.md").write_text("# Results\n\nmany lines\n", encoding="utf-8")
    (docs / "results" / "squad.md").write_text("# SQuAD\n", encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n<!-- public:start -->\nkept\n<!-- public:end -->\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    before = snapshot(tmp_path)
    res = runner.invoke(
        cli.app,
        ["bench", "report", "--results-dir", str(tmp_path / results),
         "--results-md", str(docs / "RESULTS.md"), "--readme", str(readme)],
    )  # fmt: skip
    assert res.exit_code != 0, res.output
    assert str(tmp_path / results) in said(res) and "--results-dir" in said(res)
    assert snapshot(tmp_path) == before


# --- the ledger ----------------------------------------------------------------------------------


def test_a_damaged_ledger_owns_nothing(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    ledger.write({"a.csv": "x\n"}, "fix")
    (tmp_path / LEDGER).write_text("{not json", encoding="utf-8")
    with pytest.raises(NotOwned, match=r"a\.csv"):
        Ledger.open(tmp_path).write({"a.csv": "y\n"}, "fix")
    assert (tmp_path / "a.csv").read_text(encoding="utf-8") == "x\n"


def test_a_write_killed_before_its_ledger_is_updated_still_owns_its_file(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    ledger.write({"a.csv": "old\n"}, "fix")
    ledger.pending["a.csv"] = files.sha256_bytes(b"new\n")  # what `write` records first
    ledger.save()
    (tmp_path / "a.csv").write_text("new\n", encoding="utf-8")  # renamed, then killed
    Ledger.open(tmp_path).write({"a.csv": "newer\n"}, "fix")
    assert (tmp_path / "a.csv").read_text(encoding="utf-8") == "newer\n"


def test_the_next_writer_removes_a_killed_writers_temporaries_only(tmp_path: Path) -> None:
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    dead = int(ended.stdout)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        stale = tmp_path / f".a.csv.factqa-{dead}-x1.tmp"
        busy = tmp_path / f".b.csv.factqa-{alive.pid}-x2.tmp"
        staged = tmp_path / f".factqa-import-{dead}-x3"
        mine = tmp_path / ".notes.tmp"  # a user's file: no factqa mark
        for p in (stale, busy, mine):
            p.write_text("x", encoding="utf-8")
        (staged / "articles").mkdir(parents=True)
        Ledger.open(tmp_path)
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([busy.name, mine.name])
    finally:
        alive.kill()
        alive.wait()


def test_a_ledger_never_names_a_path_outside_its_folder(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep", encoding="utf-8")
    inner = tmp_path / "in"
    inner.mkdir()
    (inner / LEDGER).write_text(
        json.dumps({"files": {"../victim.txt": files.sha256_bytes(b"keep")}}), encoding="utf-8"
    )
    ledger = Ledger.open(inner)
    assert not ledger.files
    with pytest.raises(InputError):
        ledger.remove(["../victim.txt"], "fix")
    assert victim.read_text(encoding="utf-8") == "keep"
    shutil.rmtree(inner)


def test_saving_results_never_removes_a_file_its_index_does_not_record(tmp_path: Path) -> None:
    # `bench run` replaced a results folder by removing every file in it, a user's too
    from experiment.record.results import write_results

    dest = tmp_path / "results" / "bundled"
    dest.mkdir(parents=True)
    (dest / "summary.csv").write_text("a\n1\n", encoding="utf-8")
    index = {"files": {"summary.csv": {"bytes": 4, "sha256": files.sha256_bytes(b"a\n1\n")}}}
    (dest / "results.json").write_text(json.dumps(index), encoding="utf-8")
    (dest / "my-notes.md").write_text("my notes\n", encoding="utf-8")
    before = snapshot(dest)
    with pytest.raises(NotOwned, match=r"my-notes\.md"):
        write_results(dest, tmp_path, None, None, tmp_path)  # type: ignore[arg-type]
    assert snapshot(dest) == before


def test_a_rescore_clears_only_factqas_files_of_its_run_folder(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # `bench rescore --out X` removed the whole folder X/RUN_ID, whatever it held
    from experiment.bench.rescore import clear_run

    run_dir = make_run(corpus, tmp_path / "out")
    (run_dir / "notes.txt").write_text("my notes\n", encoding="utf-8")
    clear_run(run_dir)
    assert sorted(visible_names(run_dir)) == ["notes.txt"]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "draft.md").write_text("my draft\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a run folder"):
        clear_run(mine)
    assert snapshot(mine) == {"draft.md": b"my draft\n"}


def visible_names(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if not p.name.startswith(".")]

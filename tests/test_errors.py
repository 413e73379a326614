"""Every command's bad arguments and unwritable outputs: one line, exit 2 (bad input) or 1 (the
operating system refused), found before any model loads, and nothing already written lost."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from experiment import cli
from experiment.base import outputs

from .conftest import ARTICLE_A, run_args

runner = CliRunner()


@pytest.fixture
def patched(monkeypatch: pytest.MonkeyPatch, fake_factory):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)


def one_error(res: Result, code: int) -> str:
    """The single 'error:' line of a command that failed with `code`, whitespace folded."""
    assert res.exit_code == code, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    errors = [line for line in res.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, res.output
    return " ".join(errors[0].split())


def run_cli(corpus: tuple[Path, Path], out: Path, *extra: str) -> Result:
    return runner.invoke(
        cli.app, run_args(*corpus, "fake-small", "fake-large", 2, out, "t", *extra)
    )


def ask(article: Path, *extra: str, question: str = "How many units were sold?") -> Result:
    return runner.invoke(
        cli.app,
        ["ask", str(article), question, "--model", "fake-small", "--large", "fake-large", *extra],
    )


@pytest.mark.parametrize("date", ["2025-13-45", "2025-02-30"])
def test_an_impossible_date_stops_run_and_ask_at_its_line(
    patched, corpus, fakes, tmp_path: Path, date: str
) -> None:  # type: ignore[no-untyped-def]
    arts, _ = corpus
    (arts / "alpha.md").write_text(ARTICLE_A.replace("2024-03-01", date), encoding="utf-8")
    for res in (run_cli(corpus, tmp_path / "out"), ask(arts / "alpha.md")):
        said = one_error(res, 2)
        assert f"alpha.md:4: field 'published': '{date}' is not a real date" in said
        assert "Fix: write the date as YYYY-MM-DD" in said
    assert not fakes["fake-small"].calls and not (tmp_path / "out").exists()


def test_an_out_that_is_a_file_or_under_one_is_refused_before_generation(
    patched, corpus, fakes, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    blocker = tmp_path / "a-file"
    blocker.write_text("keep me")
    said = one_error(run_cli(corpus, blocker), 2)
    assert f"{blocker}: field '--out': is a file, not a folder" in said
    said = one_error(run_cli(corpus, blocker / "sub" / "dir"), 2)
    assert "field '--out'" in said and f"{blocker} is a file" in said
    assert blocker.read_text() == "keep me" and not fakes["fake-small"].calls


def test_an_out_that_cannot_be_written_is_an_os_error_before_generation(
    patched, corpus, fakes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    locked = tmp_path / "locked"
    locked.mkdir()
    monkeypatch.setattr(outputs, "writable", lambda path: path != locked)  # root writes anywhere
    said = one_error(run_cli(corpus, locked / "out"), 1)
    assert f"{locked}: Permission denied" in said and "--out" in said
    assert not fakes["fake-small"].calls and not (locked / "out").exists()


def test_ask_refuses_a_binary_file_and_bad_options_before_the_model_loads(
    corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    def no_model(*_: object) -> None:
        raise AssertionError("the model must not load")

    monkeypatch.setattr(cli, "_factory", lambda: no_model)
    blob = tmp_path / "blob.md"
    blob.write_bytes(b"12 units\x00\x01\x02\x03")
    assert "NUL byte" in one_error(ask(blob), 2)
    arts, _ = corpus
    article = arts / "alpha.md"
    assert "k must be at most 1000" in one_error(ask(article, "-k", "100000000000000000000"), 2)
    assert "k must be at least 1" in one_error(ask(article, "-k", "0"), 2)
    assert "temperature must be in [0, 5]" in one_error(ask(article, "--temperature", "nan"), 2)
    assert "question is empty" in one_error(ask(article, question="  "), 2)


def test_markup_in_an_input_is_shown_as_text_not_read_as_markup(
    patched, corpus, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    arts, qs = corpus
    qs.write_text(qs.read_text() + "x-1,alpha,How many?,5,[/x] [red]kind,\n")
    said = one_error(run_cli(corpus, tmp_path / "out"), 2)
    assert "kind '[/x] [red]kind' is unknown" in said
    (arts / "alpha.md").write_text(ARTICLE_A.replace("It costs", "[/b] It costs"))
    assert ask(arts / "alpha.md", "-k", "2").exit_code == 0


@pytest.fixture
def finished(patched, corpus, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    assert run_cli(corpus, tmp_path / "out").exit_code == 0
    folder = tmp_path / "out" / "t"
    # a run folder from before the manifest recorded its outputs' hashes: the checks of each
    # file's content are what stands between a damaged file and a report (the hash check is
    # tests/test_run_folder.py's)
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    del manifest["outputs"]
    path.write_text(json.dumps(manifest))
    return folder


def report(run: Path, *extra: str) -> Result:
    return runner.invoke(cli.app, ["report", str(run), *extra])


@pytest.mark.parametrize(
    ("name", "text", "needle"),
    [
        ("manifest.json", "garbage{", "manifest.json: not a readable manifest"),
        ("manifest.json", None, "manifest.json: not a readable manifest"),  # truncated
        ("manifest.json", "[" * 100000, "manifest.json: nested too deeply"),
        ("summary.csv", "", "summary.csv: is empty"),
        ("curves.csv", "k,method\n", "curves.csv:1: field 'accuracy': missing column"),
        ("questions.csv", "question_id,article_id\n", "questions.csv:1: field 'question': missing"),
    ],
)
def test_report_refuses_a_garbage_run_file_naming_it(
    finished: Path, name: str, text: str | None, needle: str
) -> None:
    path = finished / name
    path.write_text(path.read_text()[:200] if text is None else text)
    said = one_error(report(finished), 2)
    assert needle in said and "Fix:" in said
    assert not (finished / "plots").exists()  # refused before anything is written


def test_report_names_the_line_and_column_of_a_cell_that_is_not_a_number(finished: Path) -> None:
    path = finished / "summary.csv"
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    cells = lines[2].split(",")
    cells[header.index("accuracy")] = "lots"
    path.write_text("\n".join([*lines[:2], ",".join(cells), *lines[3:]]) + "\n")
    said = one_error(report(finished), 2)
    assert "summary.csv:3: field 'accuracy': 'lots' is not a number" in said


def test_report_html_without_attempts_is_refused_before_anything_is_written(
    finished: Path,
) -> None:
    (finished / "attempts.csv").unlink()
    said = one_error(report(finished, "--html"), 2)
    assert "no attempts.csv" in said
    assert not (finished / "plots").exists() and not (finished / "report.html").exists()


def test_report_results_that_is_a_folder_is_refused_before_anything_is_written(
    finished: Path, tmp_path: Path
) -> None:
    for option in ("--results-md", "--readme"):
        said = one_error(report(finished, option, str(tmp_path)), 2)
        assert f"field '{option}': is a folder, not a file" in said
    assert not (finished / "plots").exists()


def test_verify_out_that_is_a_folder_is_refused(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    arts, _ = corpus
    answers = tmp_path / "answers.csv"
    answers.write_text('article_id,answer\nalpha,"13,200"\n')
    res = runner.invoke(
        cli.app, ["verify", str(answers), "--articles", str(arts), "--out", str(arts)]
    )
    assert f"{arts}: field '--out': is a folder, not a file" in one_error(res, 2)


def test_a_failed_write_is_an_os_error_and_keeps_the_file_it_would_replace(
    corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    arts, _ = corpus
    answers = tmp_path / "answers.csv"
    answers.write_text('article_id,answer\nalpha,"13,200"\n')
    target = tmp_path / "verified.csv"
    args = ["verify", str(answers), "--articles", str(arts), "--out", str(target)]
    assert runner.invoke(cli.app, args).exit_code == 0  # an earlier result, factqa's own
    earlier = target.read_bytes()

    def full(src: str, dst: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), dst)

    monkeypatch.setattr("experiment.base.files.os.replace", full)
    said = one_error(runner.invoke(cli.app, args), 1)
    # the first write that fails names its file: the ledger's pending entry, written first
    assert f"{tmp_path / '.factqa-owned.json'}: No space left on device" in said
    assert target.read_bytes() == earlier
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".factqa-owned.json",
        "answers.csv",
        "articles",
        "questions.csv",
        "verified.csv",
    ]


def test_import_into_a_file_is_refused(tmp_path: Path) -> None:
    source, blocker = tmp_path / "squad.json", tmp_path / "a-file"
    source.write_text(json.dumps({"data": []}))
    blocker.write_text("x")
    res = runner.invoke(cli.app, ["import", "squad", str(source), "--out", str(blocker)])
    assert "field '--out': is a file, not a folder" in one_error(res, 2)


def test_a_corrupt_generation_cache_is_named_with_its_fix(patched, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cache = tmp_path / "out" / ".cache" / "generations.sqlite"
    cache.parent.mkdir(parents=True)
    cache.write_bytes(b"not a database, " * 100)
    said = one_error(run_cli(corpus, tmp_path / "out"), 1)
    assert f"{cache}: the generation cache cannot be used" in said and "Fix:" in said
    assert cache.read_bytes() == b"not a database, " * 100  # left for the user to look at


def test_models_pull_into_a_folder_under_a_file_is_an_os_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("FACTQA_MODELS_DIR", str(blocker / "models"))
    said = one_error(runner.invoke(cli.app, ["models", "pull", "smollm2-135m"]), 1)
    assert str(blocker) in said
    assert runner.invoke(cli.app, ["models", "list"]).exit_code == 0  # nothing downloaded there


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--max-tokens", "0"], "field '--max-tokens': max_tokens must be at least 1, got 0"),
        (["-k", "100000000000000000000"], "field '--k': k must be at most 1000"),
        (["--server-timeout", "nan"], "field '--server-timeout': server_timeout must be at least"),
        (["--temperature", "9"], "field '--temperature': temperature must be in [0, 5]"),
        (["--max-failed", "2"], "field '--max-failed': max_failed must be a share in [0, 1]"),
    ],
)
def test_an_option_out_of_its_bounds_names_the_option_and_its_bounds(
    patched, corpus, fakes, tmp_path: Path, args: list[str], needle: str
) -> None:  # type: ignore[no-untyped-def]
    said = one_error(run_cli(corpus, tmp_path / "out", *args), 2)
    option = args[0] if args[0] != "-k" else "--k"
    assert needle in said and f"Fix: give {option} a value " in said, said
    assert not fakes["fake-small"].calls and not (tmp_path / "out").exists()
    said = one_error(ask(corpus[0] / "alpha.md", "-k", "0"), 2)
    assert "field '--k': k must be at least 1, got 0" in said and "Fix: give --k a value" in said


def test_a_folder_for_a_file_or_a_file_for_a_folder_is_named_as_such(
    patched, corpus, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    arts, qs = corpus
    said = one_error(ask(arts), 2)
    assert f"{arts}: is a folder, not an article file" in said
    said = one_error(runner.invoke(cli.app, ["verify", "--article", str(arts), "--", "40"]), 2)
    assert f"{arts}: is a folder, not an article file" in said
    said = one_error(
        runner.invoke(
            cli.app,
            [*run_args(arts / "alpha.md", qs, "fake-small", "fake-large", 2, tmp_path / "o", "t")],
        ),
        2,
    )
    assert f"{arts / 'alpha.md'}: is a file, not a folder of articles" in said

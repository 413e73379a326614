"""Issue 43: failures that exited 0, and inputs read silently wrong. Each names its file."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.errors import InputError
from experiment.config import load_toml
from experiment.corpus import load_questions

from .conftest import FakeBackend, run_args

runner = CliRunner()


def said(res) -> str:  # type: ignore[no-untyped-def]
    return " ".join(res.output.split())


@pytest.mark.parametrize("empty", ["", "   \n"])  # also what `content: null` gives
def test_a_run_of_empty_answers_fails(corpus, tmp_path: Path, monkeypatch, empty: str) -> None:  # type: ignore[no-untyped-def]
    # every answer of both models empty: 100 % failed samples, yet exit 0 and no `failed`
    small = FakeBackend("fake-small", lambda m, s, i: empty)
    large = FakeBackend("fake-large", lambda m, s, i: empty)
    monkeypatch.setattr(
        cli, "_factory", lambda: lambda spec, cfg: small if spec == "fake-small" else large
    )
    res = runner.invoke(cli.app, run_args(*corpus, "fake-small", "fake-large", 2, tmp_path, "t"))
    assert res.exit_code == 1, res.output
    assert "every generation of the small model failed" in said(res)
    assert "empty output" in said(res)


def _answers(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "answers.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_verify_where_every_row_fails_exits_non_zero(tmp_path: Path) -> None:
    # no --articles: every row reported its error in 'reason', and the command exited 0
    src = _answers(tmp_path, "article_id,answer\nalpha,5\nbeta,6\n")
    res = runner.invoke(cli.app, ["verify", str(src)])
    assert res.exit_code == 2, res.output
    assert "every row failed" in said(res) and "answers.csv" in said(res)
    assert (tmp_path / "answers.verified.csv").is_file()  # the reasons are still written


def test_verify_refuses_an_unknown_kind(tmp_path: Path) -> None:
    article = tmp_path / "a.md"
    article.write_text("It cost $5.", encoding="utf-8")
    res = runner.invoke(cli.app, ["verify", "--article", str(article), "--kind", "weird", "$5"])
    assert res.exit_code == 2, res.output  # was accepted, and read as either kind
    assert "--kind" in said(res)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # the second 'answer' column silently replaced the first
        ("article,answer,answer\na.md,5,6\n", ["'answer' twice", ":1"]),
        # extra cells were written as ['extra', 'more'] under an empty header
        ("article,answer\na.md,5,extra,more\n", ["4 cells", ":2"]),
    ],
)
def test_verify_refuses_a_malformed_answers_file(tmp_path: Path, text: str, words: list) -> None:  # type: ignore[type-arg]
    (tmp_path / "a.md").write_text("It cost $5.", encoding="utf-8")
    src = _answers(tmp_path, text.replace("a.md", str(tmp_path / "a.md")))
    res = runner.invoke(cli.app, ["verify", str(src)])
    assert res.exit_code == 2, res.output
    assert all(w in said(res) for w in words), said(res)


@pytest.mark.parametrize(
    ("header", "words"),
    [
        ("id,article_id,question,answers,answers", "'answers' twice"),  # took the second
        ("id;article_id;question;answers", "separated by ';'"),  # no hint about the separator
    ],
)
def test_questions_header_refused_with_its_reason(tmp_path: Path, header: str, words: str) -> None:
    path = tmp_path / "q.csv"
    path.write_text(f"{header}\nq1,a,How many?,5,6\n", encoding="utf-8")
    with pytest.raises(InputError, match=words) as e:
        load_questions(path)
    assert e.value.path == path and e.value.line == 1


def test_toml_keys_above_the_run_table_are_refused(tmp_path: Path) -> None:
    # `k = 3` above [run] was ignored silently
    path = tmp_path / "run.toml"
    path.write_text('k = 3\n\n[run]\nsmall = "x"\n', encoding="utf-8")
    with pytest.raises(InputError, match="above the \\[run\\] table") as e:
        load_toml(path)
    assert e.value.field == "k"

"""The CLI end to end with scripted models: files written, numbers computed, errors reported."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.config import BUNDLED

from .conftest import run_args

runner = CliRunner()


@pytest.fixture
def patched(monkeypatch: pytest.MonkeyPatch, fake_factory):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)


def run_cli(corpus: tuple[Path, Path], out: Path, *extra: str):  # type: ignore[no-untyped-def]
    return runner.invoke(
        cli.app, run_args(*corpus, "fake-small", "fake-large", 4, out, "t", *extra)
    )


def test_run_writes_every_output(patched, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = run_cli(corpus, tmp_path / "out")
    assert res.exit_code == 0, res.output
    run = tmp_path / "out" / "t"
    attempts = pd.read_csv(run / "attempts.csv")
    assert len(attempts) == 5 * (4 + 1)
    assert (attempts.role == "small").sum() == 20
    assert set(attempts.seed[attempts.role == "small"]) == set(
        attempts.seed[attempts.role == "small"].unique()
    )
    summary = pd.read_csv(run / "summary.csv").set_index("method")
    acc = summary.accuracy.to_dict()
    # Worked by hand from the scripts in conftest.py:
    assert acc["large@1"] == pytest.approx(0.8)  # says 10,000 units: the old target
    assert acc["large-verified@1"] == pytest.approx(0.8)  # 10,000 is in the text: kept, wrong
    assert summary.loc["large-verified@1", "in_text_wrong"] == 1
    assert acc["small@1"] == pytest.approx(0.8)  # invents a $90,000 salary
    assert acc["small-maj@4"] == pytest.approx(0.8)  # 2 x $90,000 vs 2 x unknown: $90,000
    assert acc["small-verified@4"] == pytest.approx(1.0)  # $90,000 is not in the text
    assert acc["small-pass@4"] == pytest.approx(1.0)
    assert acc["cascade"] == pytest.approx(1.0)
    assert summary.loc["cascade", "large_calls"] == 1  # only the salary question fell back
    assert summary.loc["small-verified@4", "coverage"] == pytest.approx(0.8)
    questions = pd.read_csv(run / "questions.csv").set_index("question_id")
    assert questions.loc["alpha-1", "span_text"] == "13,200"
    assert questions.loc["alpha-1", "agreement"] == pytest.approx(0.5)
    curves = pd.read_csv(run / "curves.csv")
    assert sorted(curves.k.unique()) == [1, 2, 3, 4]
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["models"]["small"]["fingerprint"] == "fake:fake-small"
    assert manifest["config"]["k"] == 4 and manifest["questions"] == 5
    assert "small-verified@4" in res.output


def test_rerun_uses_cache_and_gives_same_files(
    patched,
    corpus,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    fakes,
) -> None:
    out = tmp_path / "out"
    assert run_cli(corpus, out).exit_code == 0
    first = (out / "t" / "attempts.csv").read_text()
    calls = len(fakes["fake-small"].calls)
    res = run_cli(corpus, out)
    assert res.exit_code == 0
    assert len(fakes["fake-small"].calls) == calls  # nothing generated again
    assert (out / "t" / "attempts.csv").read_text() == first  # byte for byte
    assert json.loads((out / "t" / "manifest.json").read_text())["cached_attempts"] == 25


def test_limit(patched, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert run_cli(corpus, tmp_path, "--limit", "2").exit_code == 0
    assert len(pd.read_csv(tmp_path / "t" / "questions.csv")) == 2


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--small", "nope"], "unknown model 'nope'"),
        (["-k", "0"], "k must be at least 1"),
        (["--temperature", "-1"], "temperature must be in"),
    ],
)
def test_bad_options(patched, corpus, tmp_path: Path, args: list[str], needle: str) -> None:  # type: ignore[no-untyped-def]
    res = run_cli(corpus, tmp_path / "out", *args)
    assert res.exit_code in (1, 2)
    assert needle in res.output


def test_bad_corpus_writes_nothing(patched, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, qs = corpus
    qs.write_text(qs.read_text() + "x-1,missing,How many?,5,figure,\n")
    res = run_cli(corpus, tmp_path / "out")
    assert res.exit_code == 2
    assert "article 'missing' not found" in res.output and "questions.csv:7" in res.output
    assert not (tmp_path / "out").exists()


def test_config_file(patched, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    arts, qs = corpus
    cfg = tmp_path / "run.toml"
    cfg.write_text(
        f'[run]\nk = 2\nsmall = "fake-small"\nlarge = "fake-large"\n'
        f'articles = "{arts}"\nquestions = "{qs}"\nrun_id = "c"\n'
    )
    res = runner.invoke(cli.app, ["run", "--config", str(cfg), "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "small-verified@2" in pd.read_csv(tmp_path / "c" / "summary.csv").method.tolist()
    cfg.write_text("colour = 3\n")
    res = runner.invoke(cli.app, ["run", "--config", str(cfg)])
    assert res.exit_code == 2 and "unknown key 'colour'" in res.output


def test_a_bad_value_in_the_config_file_names_its_file_line_and_field(tmp_path: Path) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text('[run]\nsmall = "fake-small"\n  top_p = 0\n')
    res = runner.invoke(cli.app, ["run", "--config", str(cfg), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    said = " ".join(res.output.split())
    assert "run.toml:3: field 'top_p': top_p must be in (0, 1], got 0" in said
    assert "Fix: change top_p in run.toml" in said
    # a flag that overrides the bad value wins; the file is then fine
    from experiment.base.errors import InputError
    from experiment.config import build_config

    assert build_config(cfg, {"top_p": 0.9}).top_p == 0.9
    assert not (tmp_path / "o").exists()
    # a parser that does not know the setting's name (the stopping rule's) still gets it
    cfg.write_text('k = 5\nadaptive = "bogus"\n')
    with pytest.raises(InputError) as bad:
        build_config(cfg, {})
    assert bad.value.field == "adaptive" and bad.value.line == 2


def _ask(arts: Path, k: int, *extra: str):  # type: ignore[no-untyped-def]
    question = "How many units were sold?"
    args = ["ask", str(arts / "alpha.md"), question, "--model", "fake-small", "-k", str(k)]
    return runner.invoke(cli.app, [*args, "--large", "fake-large", *extra])


def test_ask_leads_with_one_answer_then_the_large_models(patched, corpus) -> None:  # type: ignore[no-untyped-def]
    arts, _ = corpus
    res = _ask(arts, 4)
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    # the small pipeline's answer leads: the article's candidate the small model scores highest
    assert lines[0] == (
        "answer: 13,200 (small-pipeline@4: the article's candidate fake-small scores highest, "
        "2 of its 4 answers say it)"
    )
    assert "13,200" in lines[1]  # its evidence sentence
    assert lines[2] == "large model (fake-large): 10,000 (the article states it)"
    # the details only with --all
    assert "ranked by the selector" not in res.output and "the pool (" not in res.output
    assert "--all" in res.output
    alone = _ask(arts, 4, "--large", "none")
    assert alone.exit_code == 0 and "large model" not in alone.output
    unscored = _ask(arts, 4, "--no-pool").output.splitlines()  # nothing scored: the vote leads
    assert unscored[0] == (
        "answer: 13,200 (small-verified@4: the article confirms it; 2 of fake-small's 4 "
        "answers say it)"
    )


def test_ask_gives_each_method_the_answer_run_gives(patched, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`ask` goes through the runner: each method's answer to a question of the corpus is the
    one `factqa run` gives it with the same settings."""
    arts, _ = corpus
    assert run_cli(corpus, tmp_path / "out").exit_code == 0
    answers = pd.read_csv(tmp_path / "out" / "t" / "answers.csv", dtype=str).fillna("")
    ran = answers[answers.question_id == "alpha-1"].set_index("method")["answer"].to_dict()
    args = ["ask", str(arts / "alpha.md"), "How many units were sold in the first month?",
            "--model", "fake-small", "--large", "fake-large", "-k", "4", "--all"]  # fmt: skip
    res = CliRunner().invoke(cli.app, args, terminal_width=250)
    assert res.exit_code == 0, res.output
    table = res.output.split("each method's answer", 1)[1].split("the 4 answers of", 1)[0]
    shown = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("│┃ ").split("│")]
        if len(cells) == 4 and cells[0] in ran:
            shown[cells[0]] = "" if cells[1] == "—" else cells[1]
    compared = {m: ran[m] for m in shown}
    assert len(shown) >= 10 and shown == compared


def test_ask_all(patched, corpus) -> None:  # type: ignore[no-untyped-def]
    arts, _ = corpus
    res = _ask(arts, 4, "--all")
    assert res.exit_code == 0, res.output
    assert "the 4 answers of fake-small" in res.output and "read as" in res.output
    # the confirmed candidates, ranked, each with its confidence and evidence sentence
    assert "confirmed candidates, ranked by the selector" in res.output
    ranked = res.output.split("ranked by the selector", 1)[1]
    assert "13200" in ranked and "selected answer:" in ranked
    assert "the model read" not in res.output  # the whole article by default
    # the pool: every figure the article states, its origin and score, then the two answers
    pool = res.output.split("the pool (", 1)[1]
    assert "both" in pool and "text" in pool and '"unknown" scores' in pool
    assert "small-text@0: " in pool and "small-text@4: " in pool
    # a question that asks for no computation gets no calculations
    assert "calculations the article drafts" not in res.output
    assert "the pool (" not in _ask(arts, 2, "--all", "--no-pool").output
    short = _ask(arts, 2, "--small-context", "excerpt:1")
    assert short.exit_code == 0, short.output
    assert "the small model read: excerpt 1/" in short.output


def test_ask_shows_a_value_in_words_a_reader_knows() -> None:
    from experiment.report.ask import shown_value

    assert [shown_value(v) for v in ("3 ord", "11 ord", "22 ord", "45 %")] == [
        "3rd",
        "11th",
        "22nd",
        "45 %",
    ]


def test_models_list() -> None:
    res = runner.invoke(cli.app, ["models", "list"])
    assert res.exit_code == 0
    assert "qwen2.5-coder-0.5b" in res.output and "smollm2-135m" in res.output


def test_help_on_every_command() -> None:
    for args in (["--help"], ["run", "--help"], ["ask", "--help"], ["models", "pull", "--help"]):
        res = runner.invoke(cli.app, args)
        assert res.exit_code == 0 and "Usage" in res.output


def test_report_writes_results_and_readme(patched, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert run_cli(corpus, tmp_path / "out").exit_code == 0
    # the README's result block takes the bundled corpus's run: let this one stand for it
    path = tmp_path / "out" / "t" / "manifest.json"
    manifest = json.loads(path.read_text()) | {"dataset": BUNDLED, "bundled": True}
    path.write_text(json.dumps(manifest))
    results, readme = tmp_path / "RESULTS.md", tmp_path / "README.md"
    readme.write_text("# x\n\n<!-- result:start -->\nold\n<!-- result:end -->\n\nrest\n")
    args = [
        "report",
        str(tmp_path / "out" / "t"),
        "--results-md",
        str(results),
        "--readme",
        str(readme),
    ]
    res = runner.invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    text = results.read_text()
    # two articles: too few clusters for any verdict (evaluate/summary.verdict)
    assert "| small-verified@4 | 1.000" in text and "too few clusters" in text
    assert "loses to" not in text and "beats" not in text
    assert "old" not in readme.read_text() and readme.read_text().endswith("rest\n")
    plots = sorted(p.name for p in (tmp_path / "out" / "t" / "plots").glob("*.png"))
    assert plots == [
        "accuracy_vs_k.png",
        "accuracy_vs_share_sent.png",
        "cost_vs_accuracy.png",
        "risk_coverage.png",
    ]
    assert all((tmp_path / "out" / "t" / "plots" / p).read_bytes()[:4] == b"\x89PNG" for p in plots)
    assert runner.invoke(cli.app, args).exit_code == 0  # rewriting replaces, never duplicates
    assert results.read_text().count("<!-- bundled:start -->") == 1
    bad = runner.invoke(cli.app, ["report", str(tmp_path)])
    assert bad.exit_code == 2 and "not a finished run folder" in bad.output
    # the project's results document is generated whole: a section written there is refused
    from experiment.report.markdown import GENERATED

    generated = tmp_path / "docs" / "RESULTS.md"
    generated.parent.mkdir()
    generated.write_text(f"# Results\n\n{GENERATED} from results/.\n")
    refused = runner.invoke(cli.app, ["report", str(tmp_path / "out" / "t"), "--results-md",
                                      str(generated)])  # fmt: skip
    assert refused.exit_code == 2 and "factqa bench run PRESET" in refused.output
    assert "<!--" not in generated.read_text()  # nothing written


def test_interrupted_run_resumes_to_the_same_files(corpus, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script

    def factory_for(limit_calls: int | None):  # type: ignore[no-untyped-def]
        made: dict[str, FakeBackend] = {}

        class Dying(FakeBackend):
            def generate(self, messages, params, seeds):  # type: ignore[no-untyped-def]
                if limit_calls is not None and len(self.calls) >= limit_calls:
                    raise KeyboardInterrupt
                return super().generate(messages, params, seeds)

        def factory(spec: str, _cfg: object) -> FakeBackend:
            answers = SMALL_ANSWERS if spec == "fake-small" else LARGE_ANSWERS
            if spec not in made:  # one per model: a later stage (the pools' scores) loads it again
                made[spec] = Dying(spec, keyword_script(answers))
            return made[spec]

        return factory, made

    whole, _ = factory_for(None)
    monkeypatch.setattr(cli, "_factory", lambda: whole)
    assert run_cli(corpus, tmp_path / "a").exit_code == 0
    expected = (tmp_path / "a" / "t" / "attempts.csv").read_bytes()

    dying, _ = factory_for(8)  # two of five questions sampled, then Ctrl-C
    monkeypatch.setattr(cli, "_factory", lambda: dying)
    stopped = run_cli(corpus, tmp_path / "b")
    assert stopped.exit_code == 130 and "run the same command again" in stopped.output
    assert not (tmp_path / "b" / "t" / "attempts.csv").exists()

    again, made = factory_for(None)
    monkeypatch.setattr(cli, "_factory", lambda: again)
    assert run_cli(corpus, tmp_path / "b").exit_code == 0
    assert (tmp_path / "b" / "t" / "attempts.csv").read_bytes() == expected
    assert len(made["fake-small"].calls) == 5 * 4 - 8  # nothing stored was generated again
    manifest = json.loads((tmp_path / "b" / "t" / "manifest.json").read_text())
    assert manifest["resumed"] and manifest["cached_attempts"] == 8


def test_benchmark_section_has_every_statistic(patched, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from experiment.report.markdown import benchmark_section

    assert run_cli(corpus, tmp_path / "out").exit_code == 0
    text = benchmark_section(tmp_path / "out" / "t", "Fixture", "python bench/accuracy.py x y")
    for needle in (
        "exact McNemar p",
        "SQuAD EM",
        "AUROC of confidence",
        "**The selector**",
        "share sent (B)",
        "Calibration of small-selected@4",
        "tokens per correct",
        "What the verifier cost",
        "Risk-coverage of small-verified@4",
        "Accuracy against k",
    ):
        assert needle in text, needle
    assert "[0." in text or "[1." in text  # intervals are shown


def test_a_run_that_cannot_start_writes_nothing(patched, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    arts, qs = corpus
    qs.write_text(qs.read_text() + "beta-3,beta,How many desks?,lots,figure,\n")
    out = tmp_path / "never"
    res = runner.invoke(cli.app, run_args(arts, qs, "fake-small", "fake-large", 2, out, "t"))
    assert res.exit_code == 2 and "field 'answers': gold answer 'lots'" in res.output
    assert not out.exists()


def test_ask_reads_the_kind_from_the_wording_as_run_does(patched, corpus) -> None:  # type: ignore[no-untyped-def]
    """ "When ...?" is a date question with no --kind (it was read as a figure)."""
    arts, _ = corpus
    args = ["ask", str(arts / "alpha.md"), "When was the Widget launched?", "--model",
            "fake-small", "-k", "2", "--large", "fake-large", "--all", "--no-pool"]  # fmt: skip
    res = runner.invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    assert "selected answer: 2024-03-12" in res.output  # read as a date
    figure = runner.invoke(cli.app, [*args, "--kind", "figure"])
    assert figure.exit_code == 0 and "selected answer: 2024-03-12" not in figure.output

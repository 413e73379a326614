"""The real pipeline with the real tiny model (SmolLM2-135M GGUF through llama-cpp-python).

Two bundled articles, all their questions, k = 3. Asserts on the CSV files written, and that a
second run from an empty cache gives byte-identical answers (seeded, reproducible sampling).
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.config import PROJECT_ROOT
from experiment.generate.models.catalog import CATALOG, TEST_MODEL
from experiment.report.run import load_run

from .conftest import run_args

ARTICLES = ("a01-origins", "a07-brightline")
pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def two_articles(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, int]:
    root = tmp_path_factory.mktemp("corpus")
    (root / "articles").mkdir()
    for a in ARTICLES:
        shutil.copy(PROJECT_ROOT / "articles" / f"{a}.md", root / "articles")
    source = (PROJECT_ROOT / "questions" / "origotech.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(source.splitlines()))
    keep = [r for r in rows if r["article_id"] in ARTICLES]
    with (root / "questions.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(keep)
    return root / "articles", root / "questions.csv", len(keep)


def run(corpus: tuple[Path, Path, int], out: Path) -> None:
    arts, qs, _ = corpus
    res = CliRunner().invoke(cli.app, run_args(arts, qs, TEST_MODEL, TEST_MODEL, 3, out, "e2e"))
    assert res.exit_code == 0, res.output


def test_real_model_end_to_end(tiny_model: Path, two_articles, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    n = two_articles[2]
    run(two_articles, tmp_path / "a")
    folder = tmp_path / "a" / "e2e"
    attempts = pd.read_csv(folder / "attempts.csv", keep_default_na=False)
    assert len(attempts) == n * (3 + 1)
    assert set(attempts.role) == {"small", "large"}
    assert (attempts.completion_tokens > 0).all() and (attempts.prompt_tokens > 300).all()
    assert json.loads((folder / "manifest.json").read_text())["cached_attempts"] == 0
    # every confirmed answer shows its evidence, and the evidence is really in the article
    texts = {a: (two_articles[0] / f"{a}.md").read_text(encoding="utf-8") for a in ARTICLES}
    confirmed = attempts[attempts.confirmed.astype(str) == "true"]
    for _, row in confirmed.iterrows():
        body = texts[row.article_id].split("---", 2)[2].strip()
        assert body[int(row.span_start) : int(row.span_end)] == row.span_text
    summary = pd.read_csv(folder / "summary.csv")
    assert summary.method.tolist() == [
        "large@1",
        "large-verified@1",
        "small@1",
        "small-maj@3",
        "small-verified@3",
        "small-derived@3",
        "small-pass@3",
        "small-rule@3",
        "small-selected@3",
        "cascade",
        "cascade@10%",
        "cascade@20%",
        "cascade@30%",
        "cascade-derived@20%",
        "large-checks@3",
        "large-checks-evidence@3",
        "small-selected-checked@3",
        "cascade-check@20%",
        "text-only",
        "text-derived",
        "small-text@0",
        "small-text@3",
        "large-text@1",
        "cascade-text@30%",
        "small-pipeline@3",
        "large-pipeline@1",
        "text-pipeline",
        "cascade-pipeline@30%",
    ]
    assert summary.accuracy.between(0, 1).all()
    # both models scored every question's pool through llama.cpp, "unknown" last: real
    # log-probabilities, and a question after the first of its article reads its prefix cached
    drafts = load_run(folder).drafts
    assert set(drafts.role) == {"small", "large"}
    assert set(drafts.question_id) == set(attempts.question_id)
    assert (drafts.groupby(["question_id", "role"]).text.last() == "unknown").all()
    assert (drafts.logprob < 0).all() and (drafts.tokens > 0).all()
    text0 = summary.set_index("method").loc["small-text@0"]
    assert 0 < text0.evaluated_tokens < text0.prompt_tokens / 2  # a cached prefix is not read
    assert text0.mean_samples == 0 and text0.flops > 0
    # the large model checked the confirmed candidates through llama.cpp: no check failed
    checks = load_run(folder).checks
    assert set(checks["mode"]) <= {"whole", "evidence"} and (checks.error == "").all()
    # the batched backend sums each answer's token log-probabilities (the selector reads them)
    small = attempts[attempts.role == "small"]
    logprob = pd.to_numeric(small.logprob)
    assert logprob.notna().all() and (logprob <= 0).all() and (logprob < 0).any()
    pass_row = summary.set_index("method").loc["small-pass@3"]
    assert pass_row.accuracy >= summary.set_index("method").loc["small@1"].accuracy
    assert len(pd.read_csv(folder / "questions.csv")) == n
    manifest = json.loads((folder / "manifest.json").read_text())
    # the default batched backend caches apart from the sequential one
    assert manifest["models"]["small"]["fingerprint"] == (
        f"sha256:{CATALOG[TEST_MODEL].sha256}+batched"
    )

    run(two_articles, tmp_path / "b")  # another output folder: another, empty cache
    again = pd.read_csv(tmp_path / "b" / "e2e" / "attempts.csv", keep_default_na=False)
    cols = ["question_id", "sample_index", "seed", "raw_text", "value", "confirmed"]
    assert attempts[cols].equals(again[cols])


COMPUTED_QUESTION = (
    "id,article_id,question,answers,kind,notes,computed\n"
    "c1,a01-origins,How many more employees did OrigoTech have at the end of 2024 than a year "
    "before?,450,figure,,true\n"
)


def test_real_model_scores_a_computed_questions_proposals_under_auto(
    tiny_model: Path, tmp_path: Path
) -> None:
    """One computed question under `--prompt auto`: both models score its kept proposals
    (issue 40) through llama.cpp, and the computed methods answer it with their cost."""
    arts = tmp_path / "articles"
    arts.mkdir()
    shutil.copy(PROJECT_ROOT / "articles" / f"{ARTICLES[0]}.md", arts)
    qs = tmp_path / "questions.csv"
    qs.write_text(COMPUTED_QUESTION, encoding="utf-8")
    extra = ("--prompt", "auto", "--checks", "none")
    args = run_args(arts, qs, TEST_MODEL, TEST_MODEL, 2, tmp_path / "o", "calc", *extra)
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    folder = tmp_path / "o" / "calc"
    summary = pd.read_csv(folder / "summary.csv").set_index("method")
    for method in ("small-text-derived@2", "large-text-derived@1"):
        assert summary.loc[method, "flops"] > 0 and summary.loc[method, "evaluated_tokens"] > 0
    assert summary.loc["large-text-derived@1", "large_calls"] == 1
    assert summary.loc["small-text-derived@2", "mean_samples"] == 2
    drafts = load_run(folder).drafts
    assert set(drafts.role) == {"small", "large"}
    assert (drafts.groupby("role").text.last() == "unknown").all()
    # the kept proposal 450 = 4,800 - 4,350, scored as its calculation (the default form)
    assert "4,800 - 4,350" in set(drafts[drafts.role == "large"].text)
    assert (drafts.logprob < 0).all() and (drafts.tokens > 0).all()
    questions = pd.read_csv(folder / "questions.csv", keep_default_na=False)
    assert {"small-text-derived@2.confidence", "large-text-derived@1.confidence"} <= set(
        questions.columns
    )


def test_real_model_on_plain_text_articles_and_questions_without_gold(tmp_path: Path) -> None:
    """A folder of .txt articles and a questions file with no answers or kinds: the run
    finishes with the real model and writes agreement with large@1, not accuracy."""
    arts = tmp_path / "txt"
    arts.mkdir()
    body = (PROJECT_ROOT / "articles" / f"{ARTICLES[0]}.md").read_text(encoding="utf-8")
    (arts / "origins.txt").write_text(body.split("---", 2)[2].strip() + "\n", encoding="utf-8")
    qs = tmp_path / "questions.csv"
    qs.write_text(
        "id,article_id,question\n"
        "n1,origins,When was OrigoTech founded?\n"
        "n2,origins,How many employees did OrigoTech have in its first year?\n",
        encoding="utf-8",
    )
    res = CliRunner().invoke(
        cli.app, run_args(arts, qs, TEST_MODEL, TEST_MODEL, 2, tmp_path / "o", "txt")
    )
    assert res.exit_code == 0, res.output
    run_dir = tmp_path / "o" / "txt"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["scored_against"] == "large@1" and manifest["questions_without_gold"] == 2
    agreement = pd.read_csv(run_dir / "agreement.csv").set_index("method")
    assert agreement.accuracy.between(0, 1).all() and set(agreement.questions) == {2}
    # large@1 agrees with itself unless it failed
    assert agreement.loc["large@1", "accuracy"] == 1 - manifest["failures"]["large"] / 2
    dis = pd.read_csv(run_dir / "disagreements.csv", keep_default_na=False)
    assert sorted(dis.question_id) == ["n1", "n2"]
    assert list(dis.disagrees) == sorted(dis.disagrees, reverse=True)  # disagreements first
    questions = pd.read_csv(run_dir / "questions.csv", keep_default_na=False)
    assert questions.set_index("question_id").loc["n1", "kind"] == "date"


def test_real_model_adaptive_sampling_takes_the_first_samples_and_resumes(
    tiny_model: Path,
    two_articles,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    """With the real batched backend: an adaptive run's samples are the first n of the run that
    draws every round, and a run interrupted after two questions and started again writes the
    same attempts as one that was not interrupted."""
    from experiment.config import RunConfig
    from experiment.runner import run_experiment

    arts, qs, _ = two_articles

    def cfg(out: str, rule: str) -> RunConfig:
        return RunConfig(
            articles=arts, questions=qs, small=TEST_MODEL, large=TEST_MODEL, k=6,
            out=tmp_path / out, run_id="r", limit=6, adaptive=rule,
        )  # fmt: skip

    every = run_experiment(cfg("never", "never")).run_dir / "attempts.csv"
    early = run_experiment(cfg("window", "window:2")).run_dir / "attempts.csv"
    full = pd.read_csv(every, keep_default_na=False)
    got = pd.read_csv(early, keep_default_na=False)
    full, got = full[full.role == "small"], got[got.role == "small"]
    assert (full.groupby("question_id").size() == 6).all()
    assert (got.groupby("question_id").size() <= 6).all()
    cols = ["question_id", "sample_index", "seed", "round", "raw_text", "logprob"]
    first = full.merge(got[["question_id", "sample_index"]], on=["question_id", "sample_index"])
    assert first[cols].reset_index(drop=True).equals(got[cols].reset_index(drop=True))

    seen: list[str] = []

    def interrupt(role: str, done: int, total: int) -> None:
        if role == "small" and done == 2 and done not in seen:
            seen.append(done)  # type: ignore[arg-type]
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_experiment(cfg("resumed", "window:2"), progress=interrupt)
    resumed = run_experiment(cfg("resumed", "window:2"), progress=interrupt)
    assert resumed.manifest.cached_attempts > 0
    # every column but the measured ones: seconds, and the cost (after the resume the model
    # reads the article again, so the first question's evaluated tokens differ; it did that work)
    again = pd.read_csv(resumed.run_dir / "attempts.csv", keep_default_na=False)
    whole = pd.read_csv(early, keep_default_na=False)
    measured = ["seconds", "evaluated_tokens", "flops"]
    assert again.drop(columns=measured).equals(whole.drop(columns=measured))
    assert (pd.to_numeric(again.flops) > 0).any()


def test_real_model_ask_goes_through_the_runner(tiny_model: Path) -> None:
    """`factqa ask` with the real tiny model: it samples, scores the article's candidates and
    leads with the small pipeline's answer (or says why there is none), then the large model's,
    and --all lists each method's answer."""
    article = PROJECT_ROOT / "articles" / f"{ARTICLES[0]}.md"
    args = ["ask", str(article), "How many people did the company employ?", "--model",
            TEST_MODEL, "--large", TEST_MODEL, "-k", "2", "--all"]  # fmt: skip
    res = CliRunner().invoke(cli.app, args, terminal_width=200)
    assert res.exit_code == 0, res.output
    first = res.output.splitlines()[0]
    assert first.startswith("answer: ") and "small-pipeline@2" in first
    assert "large model (" in res.output and "each method's answer" in res.output
    assert "the pool (" in res.output and '"unknown" scores' in res.output

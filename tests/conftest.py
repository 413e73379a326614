"""Shared fixtures: a scripted fake backend, a small corpus per test, the real tiny model."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from experiment.base.types import Generation
from experiment.generate.models.base import Backend, CandidateScores, Messages, SamplingParams
from experiment.generate.models.cost import ModelShape

ARTICLE_A = """---
id: alpha
title: Alpha launches the Widget
published: 2024-03-01
---
Alpha launched the Widget on 12 March 2024. It costs $250 and weighs 1.2 kg.
The company sold 13,200 units in the first month, against a target of 10,000.
About 45% of buyers were businesses. Alpha was founded in 1998 in Delft.
"""

ARTICLE_B = """---
id: beta
title: Beta opens an office
published: 2023-09-10
---
Beta opened its Porto office in September 2023 with 40 staff. It plans to grow to
between 80 and 100 people by 2026. Rent is €12,000 a month.
"""

QUESTIONS = """id,article_id,question,answers,kind,notes
alpha-1,alpha,How many units were sold in the first month?,"13,200",figure,
alpha-2,alpha,When was the Widget launched?,12 March 2024,date,
alpha-3,alpha,How much does the Widget cost?,$250,figure,
beta-1,beta,How many staff did the office open with?,40,figure,
beta-2,beta,What is the CEO's salary?,unanswerable,figure,
"""


@pytest.fixture(autouse=True)
def _own_looks_log(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A test's bench commands log their looks to a file of their own, never results/."""
    path = tmp_path_factory.mktemp("looks") / "looks.csv"
    monkeypatch.setenv("FACTQA_LOOKS", str(path))
    return path


def write_corpus(
    root: Path, alpha: str = ARTICLE_A, beta: str = ARTICLE_B, questions: str = QUESTIONS
) -> tuple[Path, Path]:
    """root/articles/{alpha,beta}.md and root/questions.csv; returns both paths."""
    arts = root / "articles"
    arts.mkdir()
    (arts / "alpha.md").write_text(alpha, encoding="utf-8")
    (arts / "beta.md").write_text(beta, encoding="utf-8")
    qs = root / "questions.csv"
    qs.write_text(questions, encoding="utf-8")
    return arts, qs


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[Path, Path]:
    """A two-article corpus with five questions; returns (articles folder, questions file)."""
    return write_corpus(tmp_path)


def run_args(
    articles: Path,
    questions: Path,
    small: str,
    large: str,
    k: int,
    out: Path,
    run_id: str,
    *extra: str,
) -> list[str]:
    """The argument list of a `factqa run` over a test corpus."""
    return [
        "run",
        "--articles",
        str(articles),
        "--questions",
        str(questions),
        "--small",
        small,
        "--large",
        large,
        "-k",
        str(k),
        "--out",
        str(out),
        "--run-id",
        run_id,
        *extra,
    ]


Script = Callable[[Messages, int, int], str]  # (messages, seed, call index for this prompt)


class FakeBackend(Backend):
    """Replays scripted answers: `script(messages, seed, n)` gives the text of the n-th call for
    that question; every call is logged."""

    def __init__(self, name: str, script: Script, flops: float | None = None) -> None:
        self.name = name
        self.fingerprint = f"fake:{name}"
        self.script = script
        self.flops = flops  # per sample, when the fake reports a cost
        if flops is not None:  # a shape, so a scored candidate's own FLOPs are known too
            self.shape = ModelShape(2, 8, 8, 16, 1_000, 500)
        self.calls: list[tuple[str, int]] = []
        self.scored: list[tuple[Messages, tuple[str, ...]]] = []

    def generate(
        self, messages: Messages, params: SamplingParams, seeds: Sequence[int]
    ) -> list[Generation]:
        question = messages[-1]["content"].rsplit("Question: ", 1)[-1]
        out = []
        for seed in seeds:
            index = sum(1 for q, _ in self.calls if q == question)
            self.calls.append((question, seed))
            text = self.script(messages, seed, index)
            cost = {} if self.flops is None else {"evaluated_tokens": 103, "flops": self.flops}
            out.append(
                Generation(text, prompt_tokens=100, completion_tokens=3, seconds=0.01, **cost)
            )
        return out

    def score(self, messages: Messages, candidates: Sequence[str]) -> CandidateScores:
        """The scripted first answer to this prompt scores -0.5, "unknown" -2, any other text
        -4; every call is logged in `scored`."""
        self.scored.append((messages, tuple(candidates)))
        said = self.script(messages, 0, 0).strip()
        lps = tuple(-0.5 if c == said else -2.0 if c == "unknown" else -4.0 for c in candidates)
        cost = {} if self.flops is None else {"evaluated_tokens": 20, "flops": self.flops / 5}
        return CandidateScores(lps, tuple(3 for _ in candidates), 50, 0.005, **cost)


def keyword_script(answers: dict[str, str | Sequence[str]]) -> Script:
    """Answer by the first keyword found in the question; a sequence cycles in call order."""

    def script(messages: Messages, seed: int, index: int) -> str:
        question = messages[-1]["content"].rsplit("Question: ", 1)[-1]
        for key, value in answers.items():
            if key in question:
                return value if isinstance(value, str) else value[index % len(value)]
        return "unknown"

    return script


SMALL_ANSWERS: dict[str, str | Sequence[str]] = {
    "units": ["13,200", "10,000", "13,200", "3,200"],
    "launched": ["12 March 2024", "March 2024", "1998"],
    "cost": ["$250", "250 dollars", "$25"],
    "staff": ["40", "80", "forty"],
    "salary": ["$90,000", "unknown"],  # not in the article: the verifier must refuse it
}
LARGE_ANSWERS: dict[str, str | Sequence[str]] = {
    "units": "10,000",
    "launched": "12 March 2024",
    "cost": "$250",
    "staff": "40",
    "salary": "unknown",
}


@pytest.fixture
def fakes() -> dict[str, FakeBackend]:
    return {
        "fake-small": FakeBackend("fake-small", keyword_script(SMALL_ANSWERS)),
        "fake-large": FakeBackend("fake-large", keyword_script(LARGE_ANSWERS)),
    }


@pytest.fixture
def fake_factory(fakes: dict[str, FakeBackend]):  # type: ignore[no-untyped-def]
    def factory(spec: str, _cfg: object) -> FakeBackend:
        if spec not in fakes:
            from experiment.base.errors import ModelError

            raise ModelError(f"unknown model '{spec}'; known: {', '.join(fakes)}")
        return fakes[spec]

    return factory


@pytest.fixture(scope="session")
def tiny_model() -> Path:
    """The real SmolLM2-135M GGUF, pulled once into the models folder (FACTQA_MODELS_DIR)."""
    from experiment.generate.models.catalog import TEST_MODEL
    from experiment.generate.models.store import models_dir, pull

    os.environ.setdefault("FACTQA_MODELS_DIR", str(models_dir()))
    return pull(TEST_MODEL)


@pytest.fixture(scope="module")
def prompts(tiny_model: Path) -> list:  # type: ignore[type-arg]
    """The prompts of three questions about one bundled article (they share its prefix)."""
    from experiment.config import PROJECT_ROOT
    from experiment.corpus import load_articles, load_questions
    from experiment.generate.prompts import messages_for

    articles = load_articles(PROJECT_ROOT / "articles")
    qs = [
        q
        for q in load_questions(PROJECT_ROOT / "questions", articles)
        if q.article_id == "a02-q3-results"
    ][:3]
    return [messages_for(articles[q.article_id], q) for q in qs]


@pytest.fixture
def fake_run(monkeypatch: pytest.MonkeyPatch, fake_factory, corpus, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """A `factqa run` of the fake models over the test corpus (k=4): its run folder."""
    from typer.testing import CliRunner

    from experiment import cli

    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    args = run_args(*corpus, "fake-small", "fake-large", 4, tmp_path, "t")
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    return tmp_path / "t"

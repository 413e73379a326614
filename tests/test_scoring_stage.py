"""One scoring stage (issue 54): a new way for a model to score candidates is one `Scoring`,
run by the runner's one step (`runner.score_all`), through the cache, in order, with its
failures and its left-out reason; the large model's checks and the pools' scores are two
registrations of it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment.base.errors import ModelError
from experiment.base.types import Question
from experiment.evaluate.large_check import Probe
from experiment.evaluate.scoring import Scoring, ScoringResults
from experiment.generate.cache import GenerationCache
from experiment.generate.models.base import Backend, CandidateScores
from experiment.record.columns import SCORES
from experiment.report.run import load_run
from experiment.runner import score_all

from .conftest import FakeBackend, run_args

QUESTIONS = [Question(f"q{i}", "a1", f"How many units in plant {i}?", ("1",), "figure")
             for i in range(3)]  # fmt: skip


def _named(answer: str) -> FakeBackend:
    return FakeBackend("fake", lambda messages, seed, n: answer)


def _toy(skip: str = "") -> Scoring[str]:
    """A toy signal, registered in a few lines: each question's id and "12" scored against
    "unknown" after a one-line prompt; its result, the most probable text."""

    def calls(_: Backend, q: Question) -> list[Probe]:
        if q.id == skip:
            return []  # nothing to score for this question
        return [Probe([{"role": "user", "content": q.text}], ("12", q.id, "unknown"), (0, 1))]

    def decide(
        _: Backend, q: Question, made: Sequence[Probe], got: Sequence[CandidateScores]
    ) -> str:
        scores = got[0].logprobs
        return made[0].texts[max(range(len(scores)), key=scores.__getitem__)]

    def rows(qid: str, picked: str) -> list[dict[str, object]]:  # its rows of scores.csv
        return [{"question_id": qid, "scoring": "toy signal", "text": picked, "picked": True}]

    return Scoring("toy signal", "large", calls, decide, lambda q, e: f"failed: {e}", rows)


def test_a_new_signal_is_one_registration(tmp_path: Path) -> None:
    cache = GenerationCache(tmp_path / "cache.sqlite")
    seen: list[tuple[str, float, int]] = []
    made, why = score_all(
        _toy(skip="q1"), _named("12"), cache, QUESTIONS, lambda *a: seen.append(a)
    )
    assert why == "" and made == {"q0": "12", "q2": "12"}  # q1 had nothing to score
    assert seen[0] == ("toy signal", 0, 2) and seen[-1] == ("toy signal", 2, 2)
    again = _named("other")  # the same model fingerprint: every call comes from the cache
    assert score_all(_toy(skip="q1"), again, cache, QUESTIONS)[0] == made
    assert again.scored == []


def test_a_failed_call_is_that_question_s_failed_result(tmp_path: Path) -> None:
    class Flaky(FakeBackend):
        def score(self, messages, candidates):  # type: ignore[no-untyped-def]
            if "plant 2" in messages[0]["content"]:
                raise ModelError("the server hung up")
            return super().score(messages, candidates)

    cache = GenerationCache(tmp_path / "cache.sqlite")
    made, why = score_all(_toy(), Flaky("fake", lambda m, s, n: "12"), cache, QUESTIONS)
    assert why == "" and made["q2"] == "failed: the server hung up" and made["q0"] == "12"


def test_a_backend_that_cannot_score_makes_nothing_and_says_why(tmp_path: Path) -> None:
    class Writer(Backend):  # generates, but has no scoring
        name = fingerprint = "writer"

        def generate(self, messages, params, seeds):  # type: ignore[no-untyped-def]
            return []

    cache = GenerationCache(tmp_path / "cache.sqlite")
    made, why = score_all(_toy(), Writer(), cache, QUESTIONS)
    assert made == {} and "cannot score" in why


def test_a_new_signal_s_rows_land_in_the_run_s_one_scores_table(  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch, corpus, fake_factory, tmp_path: Path
) -> None:
    """The toy signal made inside a run (one line added to a scoring step) is written with the
    checks and the pools' scores, under its label, with no new column, table or writer."""
    from experiment import cli, runner

    step = runner.pool_scores

    def with_toy(cfg, articles, questions, got, factory, progress=None):  # type: ignore[no-untyped-def]
        got = step(cfg, articles, questions, got, factory, progress)
        cache = GenerationCache(tmp_path / "toy.sqlite")
        made, _ = score_all(_toy(), factory("fake-large", cfg), cache, questions)
        return replace(got, scored=(*got.scored, ScoringResults(_toy(), made)))

    monkeypatch.setattr(runner, "pool_scores", with_toy)
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    args = run_args(*corpus, "fake-small", "fake-large", 2, tmp_path, "toy")
    assert CliRunner().invoke(cli.app, args).exit_code == 0
    run = load_run(tmp_path / "toy")
    toy = run.scores[run.scores.scoring == "toy signal"]
    assert len(toy) == len(run.questions) and toy.picked.all()
    assert set(toy.question_id) == set(run.questions.question_id)
    assert not run.checks.empty and not run.drafts.empty  # the registrations beside it
    assert list(pd.read_csv(tmp_path / "toy" / "scores.csv", nrows=0).columns) == SCORES.names

"""Adaptive sampling: the stopping rules, rounds on the sampler, resume, and the run's records."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.errors import ConfigError
from experiment.base.types import Article, Generation, Question
from experiment.corpus import load_articles, load_questions
from experiment.evaluate.answer import Answer
from experiment.evaluate.confirm import confirm_sample
from experiment.evaluate.stopping import (
    leader_posterior,
    parse_rounds,
    parse_rule,
    sample_stopper,
    window_agrees,
)
from experiment.generate.cache import GenerationCache
from experiment.generate.models.base import SamplingParams
from experiment.generate.sampling import Sample, article_order, sample_all
from experiment.values.canonical import Value
from experiment.values.normalize import parse_value

from .conftest import FakeBackend, run_args

ARTICLE = Article(
    "a", "Plant", "2024-01-01", "The plant made 13,200 units in 2023 and 10,000 in 2022.", Path()
)
QUESTION = Question("q", "a", "How many units did the plant make in 2023?", ("13,200",), "figure")


def v(text: str) -> Value:
    value = parse_value(text, "figure")
    assert value is not None
    return value


def scored(*answers: str) -> list[Answer]:
    """Samples of QUESTION, confirmed against ARTICLE as a run confirms them."""
    return [
        confirm_sample(
            Sample(QUESTION, i, i, Generation(a, 10, 2, 0.1), False), ARTICLE, "small", "m", 0.7
        )
        for i, a in enumerate(answers)
    ]


def test_window_rule_needs_the_last_w_confirmed_answers_to_agree() -> None:
    assert window_agrees([v("13,200"), v("13200")], 2)  # one value written two ways
    assert not window_agrees([v("13,200"), v("10,000")], 2)
    assert not window_agrees([v("13,200")], 2)  # too few votes yet
    assert window_agrees([v("10,000"), v("13,200"), v("13,200")], 2)  # only the last two count
    rule = parse_rule("window:2")
    # "3,200" is not in the article: it never votes, so two confirmed answers are still needed
    assert not rule.should_stop(QUESTION, ARTICLE, scored("13,200", "3,200", "unknown"))
    assert rule.should_stop(QUESTION, ARTICLE, scored("13,200", "3,200", "13,200"))
    # with +none, "nothing confirmed" is an answer too: three unconfirmed samples agree
    assert parse_rule("window:3+none").should_stop(
        QUESTION, ARTICLE, scored("3,200", "unknown", "")
    )
    assert not rule.should_stop(QUESTION, ARTICLE, scored("3,200", "unknown", ""))


def test_posterior_rule_is_the_exact_beta_criterion() -> None:
    # P(Beta(v1+1, v2+1) > 1/2) = P(Binomial(v1+v2+1, 1/2) <= v1)
    assert leader_posterior([v("1")] * 3) == pytest.approx(15 / 16)
    assert leader_posterior([v("1")] * 4) == pytest.approx(31 / 32)
    assert leader_posterior([v("1"), v("1"), v("2")]) == pytest.approx(11 / 16)
    assert leader_posterior([]) == 0.0
    # the leader against the runner-up only: a third answer does not change the probability
    assert leader_posterior([v("1")] * 3 + [v("2"), v("3")]) == leader_posterior(
        [v("1")] * 3 + [v("2")]
    )
    assert parse_rule("posterior:0.9").should_stop(QUESTION, ARTICLE, scored(*["13,200"] * 3))
    assert not parse_rule("posterior:0.95").should_stop(QUESTION, ARTICLE, scored(*["13,200"] * 3))


def test_selector_rule_stops_on_a_confident_selection_only() -> None:
    sure = parse_rule("selector:0.5")
    assert sure.should_stop(QUESTION, ARTICLE, scored(*["13,200"] * 3))
    assert not parse_rule("selector:0.999").should_stop(QUESTION, ARTICLE, scored("13,200"))
    assert not sure.should_stop(QUESTION, ARTICLE, scored("unknown", "unknown", "unknown"))
    assert parse_rule("selector:0.5+none").should_stop(
        QUESTION, ARTICLE, scored("unknown", "unknown", "unknown")
    )


def test_rule_and_rounds_specs() -> None:
    assert parse_rule("window").spec == "window:2"
    assert parse_rule("Posterior:0.8+none").spec == "posterior:0.8+none"
    assert parse_rule("never").spec == "never"
    assert parse_rounds("3,3", 10) == (3, 3, 3, 1)
    assert parse_rounds("4,2", 10) == (4, 2, 2, 2)
    assert parse_rounds("10", 4) == (4,)
    for bad in ("majority", "window:2.5", "posterior:1.5", "selector:x", "never:3"):
        with pytest.raises(ConfigError):
            parse_rule(bad)
    for bad in ("", "3,0", "three"):
        with pytest.raises(ConfigError):
            parse_rounds(bad, 10)


@pytest.fixture
def sampled(corpus: tuple[Path, Path]) -> tuple[dict[str, Article], list[Question]]:
    articles = load_articles(corpus[0])
    return articles, article_order(load_questions(corpus[1], articles))


# Per seed, not per call: a sample's text depends only on its own seed, as with a real model.
SCRIPT = {"units": ["13,200", "10,000", "13,200", "3,200"], "launched": ["12 March 2024"]}


def by_seed(messages, seed: int, index: int) -> str:  # type: ignore[no-untyped-def]
    question = messages[-1]["content"].rsplit("Question: ", 1)[-1]
    for key, answers in SCRIPT.items():
        if key in question:
            return answers[seed % len(answers)]
    return "unknown"


def draw(backend, sampled, rule: str, cache=None, on_question=None):  # type: ignore[no-untyped-def]
    articles, questions = sampled
    return sample_all(
        backend,
        articles,
        questions,
        10,
        SamplingParams(),
        0,
        cache,
        on_question,
        parse_rounds("3,3", 10),
        sample_stopper(parse_rule(rule), articles, 0.7),
    )


def texts(samples: dict[str, list[Sample]]) -> dict[str, list[str]]:
    return {q: [s.generation.text for s in ss] for q, ss in samples.items()}


def test_an_adaptive_question_gets_the_first_n_of_its_samples(sampled) -> None:  # type: ignore[no-untyped-def]
    every = draw(FakeBackend("m", by_seed), sampled, "never")
    assert all(len(ss) == 10 for ss in every.values())
    assert [s.round for s in next(iter(every.values()))] == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4]
    fake = FakeBackend("m", by_seed)
    early = draw(fake, sampled, "window:2")
    for qid, ss in early.items():
        assert [s.generation.text for s in ss] == texts(every)[qid][: len(ss)]
        assert len(ss) in (3, 6, 9, 10) and all(s.drawn == len(ss) for s in ss)
    # the article confirms "12 March 2024" every time: that question stops after one round
    launched = next(q for q in sampled[1] if "launched" in q.text)
    assert len(early[launched.id]) == 3
    assert len(fake.calls) == sum(len(ss) for ss in early.values())  # nothing drawn and dropped


def test_the_stop_decision_depends_only_on_the_questions_own_samples(sampled) -> None:  # type: ignore[no-untyped-def]
    articles, questions = sampled
    together = draw(FakeBackend("m", by_seed), sampled, "window:2")
    for q in questions:  # each question sampled alone gives the same samples and the same stop
        alone = draw(FakeBackend("m", by_seed), (articles, [q]), "window:2")
        assert texts(alone)[q.id] == texts(together)[q.id]


def test_interrupted_adaptive_run_resumes_to_the_same_samples(sampled, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    whole = draw(FakeBackend("m", by_seed), sampled, "window:2", GenerationCache(tmp_path / "a"))
    cache = GenerationCache(tmp_path / "b")
    done: list[str] = []

    def stop_after_two(q: Question) -> None:
        done.append(q.id)
        if len(done) == 2:
            raise KeyboardInterrupt

    with contextlib.suppress(KeyboardInterrupt):
        draw(FakeBackend("m", by_seed), sampled, "window:2", cache, stop_after_two)
    first = FakeBackend("m", by_seed)
    resumed = draw(first, sampled, "window:2", cache)
    assert texts(resumed) == texts(whole)
    assert {q for q, _ in first.calls}.isdisjoint(  # the finished questions were not redrawn
        {q.text for q in sampled[1] if q.id in done}
    )
    again = FakeBackend("m", by_seed)  # and a third run replays every decision from the cache
    assert texts(draw(again, sampled, "window:2", cache)) == texts(whole) and not again.calls


def test_a_server_backend_samples_adaptive_questions_in_parallel_alike(sampled) -> None:  # type: ignore[no-untyped-def]
    serial = draw(FakeBackend("m", by_seed), sampled, "window:2")
    wide = FakeBackend("m", by_seed)
    wide.parallel = 3  # type: ignore[attr-defined]
    assert texts(draw(wide, sampled, "window:2")) == texts(serial)


def test_rounds_without_a_rule_is_an_error() -> None:
    from experiment.config import RunConfig

    with pytest.raises(ConfigError, match="needs adaptive sampling"):
        RunConfig(rounds="4,2")
    assert RunConfig(rounds="4,2", adaptive="window").rounds == "4,2"


def test_rounds_are_in_the_cache_key_only_where_the_batch_matters(sampled, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    articles, questions = sampled
    cache = GenerationCache(tmp_path / "c")
    sample_all(FakeBackend("m", by_seed), articles, questions, 10, SamplingParams(), 0, cache)
    plain = FakeBackend("m", by_seed)  # seeds decoded alone: the fixed-k samples serve
    draw(plain, sampled, "never", cache)
    assert plain.calls == []
    batched = FakeBackend("m", by_seed)
    batched.batch_dependent = True  # type: ignore[attr-defined]
    draw(batched, sampled, "never", cache)
    assert len(batched.calls) == 10 * len(questions)  # its rounds are drawn apart from fixed k


def test_cli_adaptive_run_records_samples_drawn(
    corpus, fakes, fake_factory, monkeypatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    args = run_args(*corpus, "fake-small", "fake-large", 10, tmp_path, "ad", "--adaptive", "window")
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    assert "adaptive sampling (window" in res.output
    run = tmp_path / "ad"
    attempts = pd.read_csv(run / "attempts.csv", keep_default_na=False)
    small = attempts[attempts.role == "small"]
    drawn = small.groupby("question_id").size()
    assert (small.groupby("question_id").drawn.first() == drawn).all()
    assert drawn.min() < 10  # "launched" and "cost" are confirmed at once
    questions = pd.read_csv(run / "questions.csv").set_index("question_id")
    assert (questions.samples_drawn == drawn.reindex(questions.index)).all()
    assert (questions.stopped_early == (questions.samples_drawn < 10)).all()
    manifest = json.loads((run / "manifest.json").read_text())
    sampling = manifest["sampling"]
    assert sampling["adaptive"] == "window" and sampling["rounds"] == [3, 3, 3, 1]
    assert sampling["mean_samples"] == pytest.approx(drawn.mean(), abs=1e-3)
    assert "--adaptive window" in manifest["command"]
    summary = pd.read_csv(run / "summary.csv").set_index("method")
    assert summary.loc["small-verified@10", "mean_samples"] == pytest.approx(drawn.mean(), 1e-3)
    assert summary.loc["large@1", "mean_samples"] == 0
    assert "small-pass@10" in summary.index
    from experiment.report.html import render_html
    from experiment.report.markdown import run_section

    assert "Adaptive sampling `window` in rounds of [3, 3, 3, 1]" in run_section(run)

    assert "Adaptive sampling <code>window</code>, rounds [3, 3, 3, 1]" in render_html(
        run, corpus[0]
    )
    # a fixed-k run of the same corpus lands elsewhere and draws every sample
    fixed = CliRunner().invoke(
        cli.app, run_args(*corpus, "fake-small", "fake-large", 10, tmp_path, "fx")
    )
    assert fixed.exit_code == 0, fixed.output
    summary = pd.read_csv(tmp_path / "fx" / "summary.csv").set_index("method")
    assert summary.loc["small-verified@10", "mean_samples"] == 10


def test_cli_rejects_a_bad_rule_before_any_model_loads(
    corpus, fake_factory, monkeypatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    args = run_args(*corpus, "fake-small", "fake-large", 10, tmp_path, "bad", "--adaptive", "vote")
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code != 0
    assert "unknown stopping rule 'vote'" in res.output and "window" in res.output
    assert not (tmp_path / "bad").exists()

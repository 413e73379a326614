"""Seeds, article order, and the generation cache that makes runs resumable."""

from __future__ import annotations

import contextlib
from pathlib import Path

from experiment.base.types import Generation
from experiment.corpus import load_articles, load_questions
from experiment.generate.cache import GenerationCache
from experiment.generate.models.base import SamplingParams
from experiment.generate.sampling import article_order, derive_seed, sample_all

from .conftest import FakeBackend, keyword_script


def test_seeds_are_explicit_distinct_and_stable() -> None:
    seeds = [derive_seed(0, "q1", i) for i in range(10)]
    assert len(set(seeds)) == 10
    assert seeds == [derive_seed(0, "q1", i) for i in range(10)]
    assert derive_seed(1, "q1", 0) != seeds[0]
    assert derive_seed(0, "q2", 0) != seeds[0]
    assert all(0 <= s < 2**31 for s in seeds)


def test_article_order_groups_questions(corpus: tuple[Path, Path]) -> None:
    qs = load_questions(corpus[1])
    mixed = [qs[3], qs[0], qs[4], qs[1]]
    assert [q.article_id for q in article_order(mixed)] == ["beta", "beta", "alpha", "alpha"]


def test_cache_round_trip(tmp_path: Path) -> None:
    cache = GenerationCache(tmp_path / "c.sqlite")
    g = Generation("42", 10, 2, 0.5, "stop")
    cache.put_many("m", [("k1", g)])
    assert cache.get("k1") == g and cache.get("k2") is None and len(cache) == 1
    cache.close()
    assert GenerationCache(tmp_path / "c.sqlite").get("k1") == g  # persisted


def test_cache_keeps_log_probabilities_and_upgrades_an_older_cache(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)  # the layout before log-probabilities were kept
    db.execute(
        "CREATE TABLE generations (key TEXT PRIMARY KEY, model TEXT NOT NULL, text TEXT NOT NULL,"
        " prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,"
        " seconds REAL NOT NULL, finish_reason TEXT NOT NULL)"
    )
    db.execute("INSERT INTO generations VALUES ('old', 'm', '7', 5, 1, 0.1, 'stop')")
    db.commit()
    db.close()
    cache = GenerationCache(path)
    assert cache.get("old") == Generation("7", 5, 1, 0.1, "stop", None)  # still readable
    g = Generation("42", 10, 2, 0.5, "stop", -1.25)
    cache.put_many("m", [("new", g)])
    assert cache.get("new") == g and cache.get("new").logprob == -1.25  # type: ignore[union-attr]


def test_rerun_makes_no_model_calls(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    articles = load_articles(corpus[0])
    questions = load_questions(corpus[1], articles)
    cache = GenerationCache(tmp_path / "c.sqlite")
    params = SamplingParams()
    first = FakeBackend("m", keyword_script({"units": ["1", "2"]}))
    a = sample_all(first, articles, questions, 4, params, 0, cache)
    assert len(first.calls) == 4 * len(questions)
    again = FakeBackend("m", keyword_script({"units": ["9"]}))
    b = sample_all(again, articles, questions, 4, params, 0, cache)
    assert again.calls == []
    assert all(s.cached for ss in b.values() for s in ss)
    assert {q: [s.generation.text for s in ss] for q, ss in a.items()} == {
        q: [s.generation.text for s in ss] for q, ss in b.items()
    }


def test_cache_keys_on_params_and_model(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    articles = load_articles(corpus[0])
    questions = load_questions(corpus[1], articles)[:1]
    cache = GenerationCache(tmp_path / "c.sqlite")
    fake = FakeBackend("m", keyword_script({}))
    sample_all(fake, articles, questions, 2, SamplingParams(temperature=0.7), 0, cache)
    sample_all(fake, articles, questions, 2, SamplingParams(temperature=0.9), 0, cache)
    other = FakeBackend("other", keyword_script({}))
    sample_all(other, articles, questions, 2, SamplingParams(temperature=0.7), 0, cache)
    assert len(fake.calls) == 4 and len(other.calls) == 2


def test_interrupted_sampling_resumes(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    articles = load_articles(corpus[0])
    questions = load_questions(corpus[1], articles)
    cache = GenerationCache(tmp_path / "c.sqlite")

    class Dies(FakeBackend):
        def generate(self, messages, params, seeds):  # type: ignore[no-untyped-def]
            if len(self.calls) >= 6:
                raise KeyboardInterrupt
            return super().generate(messages, params, seeds)

    dying = Dies("m", keyword_script({}))
    with contextlib.suppress(KeyboardInterrupt):
        sample_all(dying, articles, questions, 3, SamplingParams(), 0, cache)
    assert len(cache) == 6  # two whole questions, nothing half-written
    resumed = FakeBackend("m", keyword_script({}))
    sample_all(resumed, articles, questions, 3, SamplingParams(), 0, cache)
    assert len(resumed.calls) == 3 * (len(questions) - 2)


def test_everything_that_can_change_a_generation_is_in_the_cache_key(  # type: ignore[no-untyped-def]
    corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    articles = load_articles(corpus[0])
    questions = article_order(load_questions(corpus[1], articles))[:2]
    cache = GenerationCache(tmp_path / "c.sqlite")
    setup = {"backend": "batched", "n_ctx": 4096, "speculative": "off", "llama_cpp": "0.3.36"}
    params = SamplingParams()

    def calls(backend_setup: dict | None, p: SamplingParams = params) -> int:  # type: ignore[type-arg]
        backend = FakeBackend("m", keyword_script({"": ["5"]}))
        if backend_setup is not None:
            backend.setup = backend_setup  # type: ignore[attr-defined]
        sample_all(backend, articles, questions, 2, p, 0, cache)
        return len(backend.calls)

    # 2 questions x 2 samples
    assert calls(setup) == 4 and calls(setup) == 0  # the same setup: every sample from cache
    for change in (
        {"backend": "llama"},
        {"n_ctx": 2048},
        {"speculative": "lookup"},
        {"llama_cpp": "0.3.37"},
    ):
        assert calls(setup | change) == 4, change
    assert calls(setup, SamplingParams(stop=("\n", "."))) == 4  # stop strings
    assert calls(setup, SamplingParams(max_tokens=16)) == 4  # token limit
    assert calls(None) == 4  # no setup (a test fake): its own, shorter key

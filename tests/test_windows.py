"""What a model reads: long articles split into overlapping windows that fit, one picked by
retrieval, never cut; and the small model's excerpt of the sentences closest to the question."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from experiment.base.errors import ConfigError
from experiment.base.types import Article, Generation, Question
from experiment.config import RunConfig
from experiment.evaluate.confirm import confirm_sample
from experiment.generate.models.base import Backend, SamplingParams
from experiment.generate.sampling import sample_question
from experiment.generate.windows import (
    GAP,
    Reading,
    best_window,
    excerpt,
    fit_article,
    parse_reading,
    split_windows,
)

from .conftest import run_args


def words(text: str) -> int:
    return len(text.split())


FILLER = " ".join(
    f"The harbour board met again in session {i} and discussed the weather at length."
    for i in range(60)
)
LONG = (
    FILLER
    + "\n\nThe new lighthouse at Karvik cost 4.2 million euros and opened in 1987.\n\n"
    + FILLER
)


def test_short_article_is_read_whole() -> None:
    art = Article("a", "t", "2024-01-01", "Short text with 12 words in it.", Path("a.md"))
    assert fit_article(art, "How many?", 100, words) == (art, "whole")
    assert fit_article(art, "How many?", None, None)[1] == "whole"  # backend cannot count


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    st.lists(st.integers(1, 40), min_size=1, max_size=30),
    st.integers(20, 120),
)
def test_windows_fit_overlap_and_cover(sentence_lengths: list[int], budget: int) -> None:
    sentences = [
        " ".join(f"w{i}x{j}" for j in range(n)) + "." for i, n in enumerate(sentence_lengths)
    ]
    text = " ".join(sentences)
    windows = split_windows(text, budget, words)
    assert all(words(w.text) <= budget for w in windows)
    assert all(text[w.start : w.end] == w.text for w in windows)
    covered = set()
    for w in windows:
        covered |= set(range(w.start, w.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())  # nothing dropped
    assert [w.start for w in windows] == sorted(w.start for w in windows)


def test_retrieval_picks_the_window_that_answers() -> None:
    windows = split_windows(LONG, 200, words)
    assert len(windows) > 3
    pick = best_window(windows, "How much did the lighthouse at Karvik cost?")
    assert "4.2 million euros" in windows[pick].text


class CountingBackend(Backend):
    """A fake that says how much context it has, and records what it was shown."""

    name = "counting"
    fingerprint = "fake:counting"
    n_ctx = 300

    def __init__(self) -> None:
        self.shown: list[str] = []

    def count_tokens(self, text: str) -> int:
        return words(text)

    def prompt_limit(self, k: int, max_tokens: int) -> int:
        return self.n_ctx - max_tokens

    def generate(self, messages, params, seeds):  # type: ignore[no-untyped-def]
        self.shown.append(messages[-1]["content"])
        return [Generation("4.2 million euros", 250, 4, 0.01) for _ in seeds]


def test_long_article_run_reads_one_window_and_verifies_against_the_whole() -> None:
    art = Article("karvik", "Harbour news", "2024-01-01", LONG, Path("k.md"))
    q = Question(
        "k1", "karvik", "How much did the lighthouse at Karvik cost?", ("€4.2 million",), "figure"
    )
    backend = CountingBackend()
    samples = sample_question(backend, art, q, 2, SamplingParams(), 0, None)
    assert samples[0].context.startswith("window ") and "tf-idf" in samples[0].context
    assert all(words(s) <= backend.n_ctx for s in backend.shown)  # the prompt fits
    assert "Karvik cost 4.2 million euros" in backend.shown[0]
    attempt = confirm_sample(samples[0], art, "small", "counting", 0.7).attempt
    assert attempt.confirmed and attempt.context == samples[0].context
    start = int(samples[0].context.split("[")[1].split(":")[0])
    assert attempt.span is not None and attempt.span.start >= start  # offsets in the whole article


PLANT = (
    "The Solvik plant opened in 1998 after four years of building. "
    "Its turbines were made in Bergen. "
    "The plant cost 40 million euros, twice the first estimate. "
    "Revenue rose 12% in 2020 as prices climbed. "
    "The plant employs 300 people today."
)


def test_excerpt_keeps_the_closest_sentences_in_article_order() -> None:
    got = excerpt(PLANT, "How much did the Solvik plant cost?", 2, None, words)
    assert got is not None and (got.kept, got.total) == (2, 5)
    shown = got.text
    assert "cost 40 million euros" in shown
    kept = [s for part in shown.split(GAP) for s in part.split(". ")]
    assert len(kept) == 2
    assert shown.index("1998") < shown.index("40 million")  # article order, not rank order
    one = excerpt(PLANT, "How many people does the plant employ today?", 1, None, words)
    assert one is not None and one.text == "The plant employs 300 people today."
    assert excerpt(PLANT, "When did the plant open?", 5, None, words) is None  # all of it


def test_excerpt_drops_the_least_similar_sentence_to_fit_the_budget() -> None:
    question = "How much did the plant cost, and when did the plant open?"
    both = excerpt(PLANT, question, 2, None, words)
    assert both is not None and GAP in both.text
    tight = excerpt(PLANT, question, 2, words(both.text) - 1, words)
    assert tight is not None and tight.kept == 1 and GAP not in tight.text
    assert words(tight.text) < words(both.text)
    art = Article("solvik", "Plant news", "", PLANT, Path("s.md"))
    assert fit_article(art, question, words(both.text) - 1, words, Reading(2))[1] == (
        "excerpt 1/5 sentences tf-idf"  # says what was shown, not what was asked for
    )


def test_reading_specs() -> None:
    assert parse_reading("article") == Reading() and parse_reading("excerpt:3") == Reading(3)
    assert parse_reading("excerpt:3").spec == "excerpt:3" and Reading().spec == "article"
    for bad in ("excerpt", "excerpt:0", "excerpt:x", "window:2", ""):
        with pytest.raises(ConfigError, match="excerpt:N"):
            parse_reading(bad)
    with pytest.raises(ConfigError, match="small_context"):
        RunConfig(small_context="excerpt:")
    # the default leaves run ids made before excerpts as they were; an excerpt gets its own
    assert RunConfig().fingerprint() != RunConfig(small_context="excerpt:3").fingerprint()
    assert "--small-context excerpt:3" in RunConfig(small_context="excerpt:3").command()
    assert "small-context" not in RunConfig().command()


def test_excerpt_sample_is_verified_against_the_whole_article() -> None:
    art = Article("solvik", "Plant news", "2024-01-01", PLANT, Path("s.md"))
    q = Question("s1", "solvik", "How much did the plant cost?", ("40 million euros",), "figure")
    backend = CountingBackend()
    backend.generate = lambda messages, params, seeds: [  # type: ignore[method-assign]
        backend.shown.append(messages[-1]["content"]) or Generation("40 million euros", 9, 4, 0.0)
        for _ in seeds
    ]
    samples = sample_question(backend, art, q, 2, SamplingParams(), 0, None, reading=Reading(1))
    assert samples[0].context == "excerpt 1/5 sentences tf-idf"
    assert "1998" not in backend.shown[0] and "40 million euros" in backend.shown[0]
    attempt = confirm_sample(samples[0], art, "small", "counting", 0.7).attempt
    assert attempt.confirmed and attempt.span is not None
    # offsets in the whole article, not in the excerpt
    assert PLANT[attempt.span.start : attempt.span.end] == attempt.span.text


def test_run_small_context_excerpt_only_for_the_small_model(  # type: ignore[no-untyped-def]
    corpus, fake_factory, monkeypatch, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from experiment import cli

    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    args = run_args(*corpus, "fake-small", "fake-large", 3, tmp_path, "ex")
    res = CliRunner().invoke(cli.app, [*args, "--small-context", "excerpt:1"])
    assert res.exit_code == 0, res.output
    attempts = pd.read_csv(tmp_path / "ex" / "attempts.csv", keep_default_na=False)
    small, large = attempts[attempts.role == "small"], attempts[attempts.role == "large"]
    assert small.context.str.startswith("excerpt 1/").all()
    assert (large.context == "whole").all()
    assert small.confirmed.astype(str).isin(["True", "1", "true"]).any()
    manifest = json.loads((tmp_path / "ex" / "manifest.json").read_text())
    assert "--small-context excerpt:1" in manifest["command"]
    from experiment.report.html import render_html
    from experiment.report.markdown import run_section

    assert "The small model read `excerpt:1`" in run_section(tmp_path / "ex")
    assert "The small model read <code>excerpt:1</code>" in render_html(tmp_path / "ex", corpus[0])
    bad = CliRunner().invoke(cli.app, [*args, "--small-context", "excerpt:none"])
    assert bad.exit_code != 0 and "excerpt:N" in bad.output

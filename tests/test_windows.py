"""Long articles: split into overlapping windows that fit, one picked by retrieval, never cut."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from experiment.evaluate.check import check_sample
from experiment.generate.models.base import SamplingParams
from experiment.generate.sampling import sample_question
from experiment.generate.windows import best_window, fit_article, split_windows
from experiment.records import Article, Generation, Question


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


class CountingBackend:
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
    attempt, _ = check_sample(samples[0], art, "small", "counting", 0.7)
    assert attempt.confirmed and attempt.context == samples[0].context
    start = int(samples[0].context.split("[")[1].split(":")[0])
    assert attempt.span is not None and attempt.span.start >= start  # offsets in the whole article

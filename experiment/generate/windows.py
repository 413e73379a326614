"""What the model reads of an article: the whole text, one retrieved window, or an excerpt.

Articles longer than the model's context: one retrieved window, never a silent cut.

An article that does not fit is split into overlapping windows of whole sentences (a sentence too
long on its own is cut at words). The window most similar to the
question (TF-IDF cosine, scikit-learn) is the one the model reads; the answer is still verified
against the whole article. Why one retrieved window rather than answering every window: each
window that lacks the answer invites the model to name some other figure, and the whole-article
verifier would confirm it, because it is in the text; reading every window would also multiply
the cost by the number of windows. The choice is recorded in each attempt's `context` cell.

An excerpt (`--small-context excerpt:N`, the small model only) is the N sentences most similar to
the question (TF-IDF cosine, as for windows), in article order, with " ... " where sentences
were left out. Reading fewer tokens is most of what the small model's time goes to on short
passages (docs/RESULTS.md, "Adaptive sampling"); the answer is still verified against the whole
article, and N was chosen on the fitting half of SQuAD (`factqa bench fit excerpt`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import pairwise

from experiment.base.types import Article

Counter = Callable[[str], int]
OVERLAP = 0.15  # share of a window repeated from the end of the previous one
ARTICLE = "article"  # the reading setting of the whole article: what the models read by default
WHOLE_NOTE = "whole"  # the context note of a sample that read the whole article
GAP = " ... "  # between sentences of an excerpt that are not next to each other


@dataclass(frozen=True)
class Window:
    start: int
    end: int
    text: str


def _units(text: str, budget: int, count: Counter) -> list[tuple[int, int]]:
    """(start, end) sentences of `text`, in order; one longer than `budget` is cut at words."""
    pieces: list[tuple[int, int]] = []
    for sent in re.finditer(r"\S.*?(?:[.!?](?=\s)|(?=\n\s*\n)|\Z)", text, re.S):
        if count(sent.group()) <= budget:
            pieces.append((sent.start(), sent.end()))
            continue
        chunk = sent.start()
        for word in re.finditer(r"\S+", sent.group()):
            w = sent.start() + word.start()
            if w > chunk and count(text[chunk : sent.start() + word.end()]) > budget:
                pieces.append((chunk, w))
                chunk = w
        pieces.append((chunk, sent.end()))
    return pieces


def split_windows(text: str, budget: int, count: Counter) -> list[Window]:
    """Overlapping windows of at most `budget` tokens that together cover `text`.

    Windows end at sentence ends; the next window repeats the previous one's last sentences (up to
    15 % of the budget), so no figure is cut in two or loses the sentence that names it.
    """
    units = _units(text, budget, count)
    windows: list[Window] = []
    i = 0
    while i < len(units):
        j = i
        while j + 1 < len(units) and count(text[units[i][0] : units[j + 1][1]]) <= budget:
            j += 1
        windows.append(Window(units[i][0], units[j][1], text[units[i][0] : units[j][1]]))
        if j + 1 >= len(units):
            break
        # Start the next window a little before this one ended, so no figure sits on a cut.
        back = j
        while back > i and count(text[units[back][0] : units[j][1]]) <= OVERLAP * budget:
            back -= 1
        i = max(back + 1, i + 1) if back < j else j + 1
    return windows


def similarity(texts: list[str], question: str) -> list[float]:
    """TF-IDF cosine of each text to the question (all 0 when there is nothing but stop words)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    try:
        matrix = TfidfVectorizer(stop_words="english").fit_transform([*texts, question])
    except ValueError:  # nothing but stop words
        return [0.0] * len(texts)
    return [float(x) for x in cosine_similarity(matrix[-1], matrix[:-1])[0]]


def best_window(windows: list[Window], question: str) -> int:
    """Index of the window most similar to the question (TF-IDF cosine; the first on ties)."""
    scores = similarity([w.text for w in windows], question)
    return max(range(len(scores)), key=scores.__getitem__)


@dataclass(frozen=True)
class Reading:
    """What a model reads: the whole article, or (`excerpt` = N) the N sentences closest to
    the question. Parsed once from its setting (`parse_reading`)."""

    excerpt: int | None = None

    @property
    def spec(self) -> str:
        return ARTICLE if self.excerpt is None else f"excerpt:{self.excerpt}"


WHOLE_ARTICLE = Reading()


def parse_reading(spec: str) -> Reading:
    """A reading from its setting: "article" (the whole article) or "excerpt:N"."""
    if spec == ARTICLE:
        return WHOLE_ARTICLE
    name, _, n = spec.partition(":")
    if name == "excerpt" and n.isascii() and n.isdigit() and int(n) >= 1:  # '²' is a digit too
        return Reading(int(n))
    from experiment.base.errors import ConfigError

    raise ConfigError(
        f"small_context must be '{ARTICLE}' or 'excerpt:N' (N sentences, N >= 1), got '{spec}'"
    )


@dataclass(frozen=True)
class Excerpt:
    text: str
    kept: int  # sentences shown
    total: int  # sentences in the article


def excerpt(text: str, question: str, n: int, budget: int | None, count: Counter) -> Excerpt | None:
    """The `n` sentences most similar to the question, in article order, within `budget` tokens
    (the least similar dropped until they fit); None when that is every sentence."""
    units = _units(text, budget or len(text) + 1, count)
    if len(units) <= n:
        return None
    scores = similarity([text[a:b] for a, b in units], question)
    ranked = sorted(range(len(units)), key=lambda i: (-scores[i], i))[:n]
    while True:
        keep = sorted(ranked)
        parts = [text[units[keep[0]][0] : units[keep[0]][1]]]
        for prev, i in pairwise(keep):
            joint = text[units[prev][1] : units[i][0]] if i == prev + 1 else GAP
            parts.append(joint + text[units[i][0] : units[i][1]])
        shown = "".join(parts)
        if budget is None or len(ranked) == 1 or count(shown) <= budget:
            return Excerpt(shown, len(ranked), len(units))
        ranked.pop()


def fit_article(
    article: Article,
    question: str,
    budget: int | None,
    count: Counter | None,
    reading: Reading = WHOLE_ARTICLE,
) -> tuple[Article, str]:
    """The article as the model will read it and how: 'whole', 'excerpt n/m tf-idf' or
    'window i/n [start:end] tf-idf'."""
    if reading.excerpt is not None:
        shown = excerpt(article.text, question, reading.excerpt, budget, count or len)
        if shown is not None:
            note = f"excerpt {shown.kept}/{shown.total} sentences tf-idf"
            return replace(article, text=shown.text), note
    if budget is None or count is None or count(article.text) <= budget:
        return article, WHOLE_NOTE
    if budget < 32:
        from experiment.base.errors import ModelError

        raise ModelError(
            f"the context leaves {budget} tokens for the article; raise n_ctx or lower k"
        )
    windows = split_windows(article.text, budget, count)
    pick = best_window(windows, question)
    w = windows[pick]
    note = f"window {pick + 1}/{len(windows)} [{w.start}:{w.end}] tf-idf"
    return replace(article, text=w.text), note

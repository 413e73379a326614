"""How well the text around an evidence span answers the question: alignment features.

The article is split into sentences (at ". ", "! ", "? " before a capital, digit or quote, and
at line breaks). Words are lower-cased, stop words and question words dropped, and cut to their
first five letters (a crude stemmer: "founded", "founding" and "founder" are one term). Each
sentence is a document for BM25 (k1 = 1.2, b = 0.75) with inverse document frequencies from the
article's own sentences, so a word that is in every sentence of the article counts for little.

For one span (`align`):
- `overlap`: share of the question's distinct terms in the span's sentence;
- `overlap_window`: the same over the sentence and its two neighbours;
- `bm25`: the sentence's BM25 score for the question over the article's best sentence's (0..1);
- `best_sentence`: 1 when the span sits in the sentence most similar to the question;
- `proximity`: 1 / (1 + d), d the distance in words from the span to the nearest question term
  in its sentence (0 when there is none).

An article is indexed once (`index`, cached on its text); a span then costs a few dictionary
lookups, so features for 10,000 candidates take well under a second (`factqa bench selector-cost`).
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n+")
_WORD = re.compile(r"[A-Za-z0-9]+")
STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves also many much per
    whose""".split()  # noqa: SIM905 (a word list reads better as text)
)
K1, B = 1.2, 0.75


def stem(word: str) -> str:
    return word[:5]


def terms(text: str) -> list[tuple[str, int, int]]:
    """Content terms of `text` with their character offsets: (stem, start, end)."""
    out = []
    for m in _WORD.finditer(text):
        w = m.group().lower()
        if w not in STOP_WORDS and not w.isdigit():
            out.append((stem(w), m.start(), m.end()))
    return out


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    words: tuple[tuple[str, int], ...]  # (stem or "", start offset) of every word, in order
    tf: dict[str, int]


@dataclass(frozen=True)
class ArticleIndex:
    sentences: tuple[Sentence, ...]
    starts: tuple[int, ...]
    idf: dict[str, float]
    avg_len: float

    def sentence_at(self, offset: int) -> int:
        return max(0, bisect.bisect_right(self.starts, offset) - 1)

    def bm25(self, i: int, query: frozenset[str]) -> float:
        s = self.sentences[i]
        length = sum(s.tf.values())
        norm = K1 * (1 - B + B * length / self.avg_len) if self.avg_len else K1
        # fsum: exactly rounded, so the set's iteration order (the hash seed's) cannot move a bit
        return math.fsum(
            self.idf[t] * s.tf[t] * (K1 + 1) / (s.tf[t] + norm) for t in query if t in s.tf
        )


@lru_cache(maxsize=256)
def index(article: str) -> ArticleIndex:
    """Sentences, their terms and the article's BM25 statistics (cached on the text)."""
    bounds, pos = [], 0
    for m in _SENTENCE_END.finditer(article):
        bounds.append((pos, m.start()))
        pos = m.end()
    bounds.append((pos, len(article)))
    sentences = []
    for start, end in bounds:
        if end <= start:
            continue
        words = []
        for m in _WORD.finditer(article, start, end):
            w = m.group().lower()
            content = w not in STOP_WORDS and not w.isdigit()
            words.append((stem(w) if content else "", m.start()))
        tf = Counter(w for w, _ in words if w)
        sentences.append(Sentence(start, end, tuple(words), dict(tf)))
    n = len(sentences)
    df: Counter[str] = Counter()
    for s in sentences:
        df.update(s.tf.keys())
    idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
    avg = sum(sum(s.tf.values()) for s in sentences) / n if n else 0.0
    return ArticleIndex(tuple(sentences), tuple(s.start for s in sentences), idf, avg)


@dataclass(frozen=True)
class Alignment:
    overlap: float
    overlap_window: float
    bm25: float
    best_sentence: float
    proximity: float
    sentence: tuple[int, int]  # the span's sentence, as character offsets

    @property
    def score(self) -> float:
        """One number to pick a candidate's best span by."""
        return self.bm25 + self.overlap_window + self.proximity


@dataclass(frozen=True)
class QuestionView:
    """One question against one article: its terms and every sentence's BM25 score."""

    article: ArticleIndex
    query: frozenset[str]
    scores: tuple[float, ...]
    best: int

    @classmethod
    def of(cls, article: str, question: str) -> QuestionView:
        idx = index(article)
        query = frozenset(t for t, _, _ in terms(question))
        scores = tuple(idx.bm25(i, query) for i in range(len(idx.sentences)))
        best = max(range(len(scores)), key=scores.__getitem__) if scores else 0
        return cls(idx, query, scores, best)

    def _share(self, sentences: range) -> float:
        if not self.query:
            return 0.0
        seen = set()
        for i in sentences:
            seen.update(self.query.intersection(self.article.sentences[i].tf))
        return len(seen) / len(self.query)

    def align(self, start: int, end: int) -> Alignment:
        """The alignment features of the span `start:end` (character offsets in the article)."""
        idx = self.article
        if not idx.sentences:
            return Alignment(0.0, 0.0, 0.0, 0.0, 0.0, (start, end))
        i = idx.sentence_at(start)
        s = idx.sentences[i]
        top = self.scores[self.best]
        window = range(max(0, i - 1), min(len(idx.sentences), i + 2))
        span_word = bisect.bisect_left([p for _, p in s.words], start)
        distances = [abs(j - span_word) for j, (w, _) in enumerate(s.words) if w in self.query]
        return Alignment(
            overlap=self._share(range(i, i + 1)),
            overlap_window=self._share(window),
            bm25=self.scores[i] / top if top > 0 else 0.0,
            best_sentence=1.0 if top > 0 and i == self.best else 0.0,
            proximity=1.0 / (1 + min(distances)) if distances else 0.0,
            sentence=(s.start, s.end),
        )

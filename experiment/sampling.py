"""k samples per question: explicit seeds, article-ordered work, and the generation cache.

Each sample's seed is derived from the base seed, the question id and the sample index, so a
sample's seed never depends on which other questions are in the run (a `--limit` run shares its
samples with the full run through the cache).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from experiment.cache import GenerationCache, cache_key
from experiment.models.base import Backend, SamplingParams
from experiment.prompts import messages_for
from experiment.records import Article, Generation, Question


def derive_seed(base_seed: int, question_id: str, sample_index: int) -> int:
    digest = hashlib.sha256(f"{base_seed}:{question_id}:{sample_index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class Sample:
    question: Question
    sample_index: int
    seed: int
    generation: Generation
    cached: bool


def article_order(questions: Iterable[Question]) -> list[Question]:
    """Questions grouped by article (first appearance order) so the article prefix is reused."""
    groups: dict[str, list[Question]] = {}
    for q in questions:
        groups.setdefault(q.article_id, []).append(q)
    return [q for group in groups.values() for q in group]


def sample_question(
    backend: Backend,
    article: Article,
    question: Question,
    k: int,
    params: SamplingParams,
    base_seed: int,
    cache: GenerationCache | None,
) -> list[Sample]:
    """k samples of one question; the ones already in the cache are not generated again."""
    messages = messages_for(article, question)
    seeds = [derive_seed(base_seed, question.id, i) for i in range(k)]
    keys = [cache_key(backend.fingerprint, messages, params, s) for s in seeds]
    found = [cache.get(key) if cache is not None else None for key in keys]
    missing = [i for i, g in enumerate(found) if g is None]
    fresh: dict[int, Generation] = {}
    if missing:
        generations = backend.generate(messages, params, [seeds[i] for i in missing])
        fresh = dict(zip(missing, generations, strict=True))
        if cache is not None:
            cache.put_many(backend.name, [(keys[i], fresh[i]) for i in missing])
    return [
        Sample(question, i, seeds[i], found[i] or fresh[i], found[i] is not None) for i in range(k)
    ]


def sample_all(
    backend: Backend,
    articles: dict[str, Article],
    questions: list[Question],
    k: int,
    params: SamplingParams,
    base_seed: int,
    cache: GenerationCache | None,
    on_question: Callable[[Question], None] | None = None,
) -> dict[str, list[Sample]]:
    """Samples for every question, keyed by question id, generated article by article."""
    out: dict[str, list[Sample]] = {}
    for q in article_order(questions):
        out[q.id] = sample_question(backend, articles[q.article_id], q, k, params, base_seed, cache)
        if on_question:
            on_question(q)
    return out

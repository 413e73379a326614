"""k samples per question: explicit seeds, article-ordered work, and the generation cache.

Each sample's seed is derived from the base seed, the question id and the sample index, so a
sample's seed never depends on which other questions are in the run (a `--limit` run shares its
samples with the full run through the cache).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from experiment.errors import ModelError
from experiment.generate.cache import GenerationCache, cache_key
from experiment.generate.models.base import Backend, SamplingParams
from experiment.generate.prompts import messages_for
from experiment.generate.windows import fit_article
from experiment.records import ERROR_PREFIX, Article, Generation, Question

log = logging.getLogger("factqa")
TEMPLATE_MARGIN = 32  # tokens the chat template adds around the messages, with room to spare
FAILURES_IN_A_ROW = 5  # questions whose generation raised, in a row, before the run stops


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
    context: str = "whole"  # what the model read: the whole article or one window of it


def article_order(questions: Iterable[Question]) -> list[Question]:
    """Questions grouped by article (first appearance order) so the article prefix is reused."""
    groups: dict[str, list[Question]] = {}
    for q in questions:
        groups.setdefault(q.article_id, []).append(q)
    return [q for group in groups.values() for q in group]


def _budget(backend: Backend, article: Article, question: Question, k: int, params: SamplingParams):  # type: ignore[no-untyped-def]
    """Tokens left for the article text, and the counter; (None, None) if the backend can't say."""
    limit = getattr(backend, "prompt_limit", None)
    count = getattr(backend, "count_tokens", None)
    if limit is None or count is None:
        return None, None
    bare = messages_for(replace(article, text=""), question)
    overhead = sum(count(m["content"]) for m in bare) + TEMPLATE_MARGIN
    return limit(k, params.max_tokens) - overhead, count


def failed(error: Exception, n: int) -> list[Generation]:
    """What a sample records when the model raised: no text, and the error as finish reason."""
    reason = f"{ERROR_PREFIX}: {type(error).__name__}: {error}".replace("\n", " ")[:300]
    return [Generation("", 0, 0, 0.0, reason) for _ in range(n)]


@dataclass(frozen=True)
class _Plan:
    """What one question needs: its prompt, seeds, cache keys and what the cache already has."""

    question: Question
    messages: list[dict[str, str]]
    context: str
    seeds: list[int]
    keys: list[str]
    found: list[Generation | None]

    @property
    def missing(self) -> list[int]:
        return [i for i, g in enumerate(self.found) if g is None]


def _plan(
    backend: Backend,
    article: Article,
    question: Question,
    k: int,
    params: SamplingParams,
    base_seed: int,
    cache: GenerationCache | None,
) -> _Plan:
    budget, count = _budget(backend, article, question, k, params)
    shown, context = fit_article(article, question.text, budget, count)
    messages = messages_for(shown, question)
    seeds = [derive_seed(base_seed, question.id, i) for i in range(k)]
    setup = getattr(backend, "setup", None)
    keys = [cache_key(backend.fingerprint, messages, params, s, setup) for s in seeds]
    found = [cache.get(key) if cache is not None else None for key in keys]
    return _Plan(question, messages, context, seeds, keys, found)


def _generate(backend: Backend, plan: _Plan, params: SamplingParams) -> list[Generation]:
    """The missing samples; a model failure becomes recorded errors, never an exception."""
    missing = plan.missing
    try:
        out = backend.generate(plan.messages, params, [plan.seeds[i] for i in missing])
        if len(out) != len(missing):
            raise ModelError(f"{len(out)} answers for {len(missing)} seeds")
        return out
    except Exception as e:  # any model failure becomes a recorded reason, not a crash
        log.warning("%s on question %s: %s", backend.name, plan.question.id, e)
        return failed(e, len(missing))


def _finish(
    backend: Backend, plan: _Plan, generations: list[Generation], cache: GenerationCache | None
) -> list[Sample]:
    fresh = dict(zip(plan.missing, generations, strict=True))
    good = [i for i in plan.missing if not fresh[i].failed]
    if cache is not None and good:
        cache.put_many(backend.name, [(plan.keys[i], fresh[i]) for i in good])
    return [
        Sample(
            plan.question, i, s, plan.found[i] or fresh[i], plan.found[i] is not None, plan.context
        )
        for i, s in enumerate(plan.seeds)
    ]


def sample_question(
    backend: Backend,
    article: Article,
    question: Question,
    k: int,
    params: SamplingParams,
    base_seed: int,
    cache: GenerationCache | None,
) -> list[Sample]:
    """k samples of one question; the ones already in the cache are not generated again.

    If the model raises, the missing samples record the error (and are not cached, so a later
    run tries them again); `sample_all` stops the run when that keeps happening.
    """
    plan = _plan(backend, article, question, k, params, base_seed, cache)
    generations = _generate(backend, plan, params) if plan.missing else []
    return _finish(backend, plan, generations, cache)


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
    """Samples for every question, keyed by question id, generated article by article.

    A backend with `parallel = N > 1` (a server) gets N questions at a time from a thread pool;
    the cache is read and written on this thread only, in question order, so the records are
    the same as with one question at a time.
    """
    ordered = article_order(questions)
    width = max(1, int(getattr(backend, "parallel", 1)))
    out: dict[str, list[Sample]] = {}
    in_a_row = 0
    pool = ThreadPoolExecutor(max_workers=width) if width > 1 else None
    try:
        for start in range(0, len(ordered), width):
            chunk = ordered[start : start + width]
            plans = [
                _plan(backend, articles[q.article_id], q, k, params, base_seed, cache)
                for q in chunk
            ]
            todo = [p for p in plans if p.missing]
            if pool is not None and len(todo) > 1:
                done = dict(
                    zip(
                        [p.question.id for p in todo],
                        pool.map(lambda p: _generate(backend, p, params), todo),
                        strict=True,
                    )
                )
            else:
                done = {p.question.id: _generate(backend, p, params) for p in todo}
            for plan in plans:
                q = plan.question
                out[q.id] = _finish(backend, plan, done.get(q.id, []), cache)
                errors = [s for s in out[q.id] if s.generation.failed]
                in_a_row = in_a_row + 1 if errors else 0
                if in_a_row >= FAILURES_IN_A_ROW:
                    raise ModelError(
                        f"{backend.name} failed on {in_a_row} questions in a row; last: "
                        f"{errors[0].generation.finish_reason}. Finished questions are cached: "
                        "fix the model or server and run the same command again"
                    )
                if on_question:
                    on_question(q)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return out

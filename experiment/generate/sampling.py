"""k samples per question: explicit seeds, article-ordered work, and the generation cache.

Each sample's seed is derived from the base seed, the question id and the sample index, so a
sample's seed never depends on which other questions are in the run (a `--limit` run shares its
samples with the full run through the cache).

Adaptive sampling: with `rounds` (for example 3, 3, 3, 1) the samples are drawn in that many
calls on the prompt's cached prefix, and `stop` (a rule of `experiment.evaluate.stopping`, given
as a callable so this stage does not import the later ones) sees the question's samples after
each round and may end it there. Sample i keeps seed i whether the question stops or not, so an
adaptive question's samples are the first n of those it gets with every round drawn. A backend
whose samples depend on which seeds share a batch (`batch_dependent`: the batched llama backend)
gets the round in the cache key, so a cached sample is always the one its round draws; the
stopping rule is not in the key, because it decides only how many rounds are drawn, never what
a round holds, and every rule then shares the same cached rounds. A question's samples are
committed together when its last round is drawn, so an interrupted run resumes at a question
boundary and replays the same decisions from the cache.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from experiment.base.errors import ModelError
from experiment.base.types import ERROR_PREFIX, Article, Generation, Question
from experiment.generate.cache import GenerationCache, cache_key
from experiment.generate.models.base import Backend, Messages, SamplingParams
from experiment.generate.prompts import CALC, FIGURE, messages_for, prompt_for
from experiment.generate.windows import WHOLE_ARTICLE, WHOLE_NOTE, Reading, fit_article

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
    context: str = WHOLE_NOTE  # what the model read: the whole article, a window or an excerpt
    round: int = 1  # the round it was drawn in (1 when all k are drawn at once)
    drawn: int = 0  # samples drawn for its question (0: not recorded)
    prompt: str = FIGURE  # the prompt it was drawn with (a key of prompts.PROMPTS)


SampleStop = Callable[[list[Sample]], bool]  # a question's samples so far -> stop sampling it


def round_bounds(rounds: Sequence[int]) -> list[range]:
    """The sample indices of each round: (3, 3, 4) -> 0..2, 3..5, 6..9."""
    out, start = [], 0
    for size in rounds:
        out.append(range(start, start + size))
        start += size
    return out


def article_order(questions: Iterable[Question]) -> list[Question]:
    """Questions grouped by article (first appearance order) so the article prefix is reused."""
    groups: dict[str, list[Question]] = {}
    for q in questions:
        groups.setdefault(q.article_id, []).append(q)
    return [q for group in groups.values() for q in group]


def _budget(
    backend: Backend,
    article: Article,
    question: Question,
    k: int,
    params: SamplingParams,
    prompt: str,
):  # type: ignore[no-untyped-def]
    """Tokens left for the article text, and the counter; (None, None) if the backend can't say."""
    limit = backend.prompt_limit(k, params.max_tokens)
    if limit is None:
        return None, None
    count = backend.count_tokens
    bare = messages_for(replace(article, text=""), question, prompt)
    overhead = sum(count(m["content"]) for m in bare) + TEMPLATE_MARGIN
    return limit - overhead, count


def errored(error: Exception, n: int) -> list[Generation]:
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
    rounds: list[range]
    prompt: str = FIGURE  # the prompt the messages are (a key of prompts.PROMPTS)
    params: SamplingParams = field(default_factory=SamplingParams)  # drawn so (`params_for`)

    @property
    def missing(self) -> list[int]:
        return [i for i, g in enumerate(self.found) if g is None]


def prompt_of(
    backend: Backend,
    article: Article,
    question: Question,
    k: int,
    params: SamplingParams,
    reading: Reading = WHOLE_ARTICLE,
    prompt: str = FIGURE,
) -> tuple[Messages, str]:
    """The chat messages a question's k samples are drawn from, and what of the article they
    show (the whole article, a window or an excerpt: `windows.fit_article`)."""
    budget, count = _budget(backend, article, question, k, params, prompt)
    shown, context = fit_article(article, question.text, budget, count, reading)
    return messages_for(shown, question, prompt), context


def _plan(
    backend: Backend,
    article: Article,
    question: Question,
    k: int,
    params: SamplingParams,
    base_seed: int,
    cache: GenerationCache | None,
    rounds: Sequence[int] | None = None,
    reading: Reading = WHOLE_ARTICLE,
    prompt: str = FIGURE,
    calc_max_tokens: int = 0,
) -> _Plan:
    params = params_for(params, prompt_for(question, prompt), calc_max_tokens)
    messages, context = prompt_of(backend, article, question, k, params, reading, prompt)
    seeds = [derive_seed(base_seed, question.id, i) for i in range(k)]
    setup = backend.setup
    bounds = round_bounds(rounds or (k,))
    keyed = len(bounds) > 1 and backend.batch_dependent
    keys = [
        cache_key(
            backend.fingerprint,
            messages,
            params,
            seeds[i],
            setup,
            (r.start, len(r)) if keyed else None,
        )
        for r in bounds
        for i in r
    ]
    found = [cache.get(key) if cache is not None else None for key in keys]
    resolved = prompt_for(question, prompt)
    return _Plan(question, messages, context, seeds, keys, found, bounds, resolved, params)


def params_for(params: SamplingParams, prompt: str, calc_max_tokens: int) -> SamplingParams:
    """The sampling settings of a question answered with `prompt`: the calculation prompt's
    answers get `calc_max_tokens` (0: the same as the others), since a calculation is longer
    than a figure and one cut mid-expression is no answer."""
    if prompt == CALC and calc_max_tokens:
        return replace(params, max_tokens=calc_max_tokens)
    return params


def _generate(backend: Backend, plan: _Plan, indices: Sequence[int]) -> list[Generation]:
    """The samples at `indices`; a model failure becomes recorded errors, never an exception."""
    try:
        out = backend.generate(plan.messages, plan.params, [plan.seeds[i] for i in indices])
        if len(out) != len(indices):
            raise ModelError(f"{len(out)} answers for {len(indices)} seeds")
        return out
    except Exception as e:  # any model failure becomes a recorded reason, not a crash
        log.warning("%s on question %s: %s", backend.name, plan.question.id, e)
        return errored(e, len(indices))


def _samples(plan: _Plan, fresh: dict[int, Generation], upto: int) -> list[Sample]:
    """The question's first `upto` samples (its samples drawn), from the cache or fresh."""
    return [
        Sample(
            plan.question,
            i,
            plan.seeds[i],
            plan.found[i] or fresh[i],
            plan.found[i] is not None,
            plan.context,
            n,
            upto,
            plan.prompt,
        )
        for n, r in enumerate(plan.rounds, 1)
        for i in r
        if i < upto
    ]


def _draw(
    backend: Backend, plan: _Plan, stop: SampleStop | None
) -> tuple[dict[int, Generation], int]:
    """Round by round, what the cache lacks, until `stop` says enough or a round fails; the
    fresh generations and how many samples the question has."""
    fresh: dict[int, Generation] = {}
    upto = 0
    for r in plan.rounds:
        missing = [i for i in r if plan.found[i] is None]
        if missing:
            fresh.update(zip(missing, _generate(backend, plan, missing), strict=True))
        upto = r.stop
        if any(g.errored for g in fresh.values()):
            break  # not cached: the next run tries the question again
        last = r.stop == len(plan.seeds)
        if stop is not None and not last and stop(_samples(plan, fresh, upto)):
            break
    return fresh, upto


def _finish(
    backend: Backend,
    plan: _Plan,
    drawn: tuple[dict[int, Generation], int],
    cache: GenerationCache | None,
) -> list[Sample]:
    fresh, upto = drawn
    good = [i for i, g in fresh.items() if not g.errored]
    if cache is not None and good:
        cache.put_many(backend.name, [(plan.keys[i], fresh[i]) for i in sorted(good)])
    return _samples(plan, fresh, upto)


def sample_question(
    backend: Backend,
    article: Article,
    question: Question,
    k: int,
    params: SamplingParams,
    base_seed: int,
    cache: GenerationCache | None,
    rounds: Sequence[int] | None = None,
    stop: SampleStop | None = None,
    reading: Reading = WHOLE_ARTICLE,
    prompt: str = FIGURE,
    calc_max_tokens: int = 0,
) -> list[Sample]:
    """k samples of one question (fewer when `stop` ends it after a round), reading the article
    as `reading` says (`windows.fit_article`); the ones already in the cache are not generated
    again.

    If the model raises, the missing samples record the error (and are not cached, so a later
    run tries them again); `sample_all` stops the run when that keeps happening.
    """
    plan = _plan(
        backend, article, question, k, params, base_seed, cache, rounds, reading, prompt,
        calc_max_tokens,
    )  # fmt: skip
    return _finish(backend, plan, _draw(backend, plan, stop), cache)


def sample_all(
    backend: Backend,
    articles: dict[str, Article],
    questions: list[Question],
    k: int,
    params: SamplingParams,
    base_seed: int,
    cache: GenerationCache | None,
    on_question: Callable[[Question], None] | None = None,
    rounds: Sequence[int] | None = None,
    stop: SampleStop | None = None,
    reading: Reading = WHOLE_ARTICLE,
    prompt: str = FIGURE,
    calc_max_tokens: int = 0,
) -> dict[str, list[Sample]]:
    """Samples for every question, keyed by question id, generated article by article (in
    `rounds` until `stop` says enough, when given; reading the article as `reading` says).

    A backend with `parallel = N > 1` (a server) gets N questions at a time from a thread pool;
    the cache is read and written on this thread only, in question order, so the records are
    the same as with one question at a time.
    """
    ordered = article_order(questions)
    width = max(1, int(backend.parallel))
    out: dict[str, list[Sample]] = {}
    in_a_row = 0
    pool = ThreadPoolExecutor(max_workers=width) if width > 1 else None
    try:
        for start in range(0, len(ordered), width):
            chunk = ordered[start : start + width]
            plans = [
                _plan(
                    backend,
                    articles[q.article_id],
                    q,
                    k,
                    params,
                    base_seed,
                    cache,
                    rounds,
                    reading,
                    prompt,
                    calc_max_tokens,
                )
                for q in chunk
            ]
            todo = [p for p in plans if p.missing]
            if pool is not None and len(todo) > 1:
                drawn = list(pool.map(lambda p: _draw(backend, p, stop), plans))
            else:
                drawn = [_draw(backend, p, stop) for p in plans]
            for plan, got in zip(plans, drawn, strict=True):
                q = plan.question
                out[q.id] = _finish(backend, plan, got, cache)
                errors = [s for s in out[q.id] if s.generation.errored]
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

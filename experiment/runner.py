"""One experiment run: load and check the corpus, sample both models, score, compare, write.

The corpus is validated before any model is loaded and before anything is written. The small model
runs over every question first, then is released and the large model is loaded, so only one model
is in memory at a time. Generations go through the cache, so a run that was stopped, started again
with the same command, picks up where it stopped.
"""

from __future__ import annotations

import datetime as dt
import gc
import json
import platform
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from experiment.config import BUNDLED, PROJECT_ROOT, RunConfig
from experiment.corpus import load_articles, load_questions
from experiment.evaluate.agreement import (
    SCORED_AGAINST,
    disagreement_columns,
    disagreements,
    with_reference,
)
from experiment.evaluate.blindspots import COLUMNS as SPOT_COLUMNS
from experiment.evaluate.blindspots import blind_spots
from experiment.evaluate.blindspots import row as spot_row
from experiment.evaluate.check import checked
from experiment.evaluate.methods import (
    MethodAnswer,
    Scored,
    add_routed,
    answer_methods,
    k_curve,
    method_names,
    question_facts,
    routing_curve,
)
from experiment.evaluate.stopping import (
    adaptive_facts,
    parse_rounds,
    parse_rule,
    sample_stopper,
)
from experiment.evaluate.summary import MethodSummary, summarize
from experiment.files import write_csv
from experiment.generate.cache import GenerationCache
from experiment.generate.models.base import GREEDY, Backend, SamplingParams
from experiment.generate.sampling import Sample, article_order, derive_seed, sample_all
from experiment.generate.windows import WHOLE
from experiment.records import Article, Question
from experiment.report.exports import (
    ATTEMPT_COLUMNS,
    attempt_row,
    question_rows,
    write_manifest,
    write_summary,
)

BackendFactory = Callable[[str, RunConfig], Backend]
Progress = Callable[[str, int, int], None]
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
class RunResult:
    run_dir: Path
    questions: list[Question]
    summary: list[MethodSummary]
    answers: dict[str, dict[str, MethodAnswer]]
    manifest: dict[str, Any]


def load_corpus(cfg: RunConfig) -> tuple[dict[str, Article], list[Question]]:
    articles = load_articles(cfg.articles)
    questions = article_order(load_questions(cfg.questions, articles))
    if cfg.limit:
        questions = questions[: cfg.limit]
    return articles, questions


def _git_commit() -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(PROJECT_ROOT), "describe", "--always", "--dirty", "--abbrev=40"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _history(previous: Path) -> list[dict[str, Any]]:
    """Earlier runs into the same folder, so a re-score keeps the time of the first full run."""
    try:
        old = json.loads(previous.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    history = old.get("history")
    return history if isinstance(history, list) else []


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = ""
    return out


def _sample_role(
    factory: BackendFactory,
    spec: str,
    cfg: RunConfig,
    articles: dict[str, Article],
    questions: list[Question],
    k: int,
    params: SamplingParams,
    cache: GenerationCache,
    progress: Progress | None,
    role: str,
) -> tuple[dict[str, list[Sample]], dict[str, str]]:
    backend = factory(spec, cfg)
    rounds, stop = None, None
    if role == "small" and cfg.adaptive != "off":
        rounds = parse_rounds(cfg.rounds, k)
        stop = sample_stopper(parse_rule(cfg.adaptive), articles, cfg.temperature)
    done = 0

    def tick(_: Question) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(role, done, len(questions))

    if progress:
        progress(role, 0, len(questions))
    reading = cfg.small_context if role == "small" else WHOLE
    samples = sample_all(
        backend, articles, questions, k, params, cfg.seed, cache, tick, rounds, stop, reading
    )
    info: dict[str, Any] = {"spec": spec, "name": backend.name, "fingerprint": backend.fingerprint}
    for counter in ("requests", "retried", "drafted", "accepted"):  # server / drafting counts
        if hasattr(backend, counter):
            info[counter] = getattr(backend, counter)
    del backend
    gc.collect()  # release the weights before the next model loads
    return samples, info


def small_samples(
    cfg: RunConfig, factory: BackendFactory = llama_factory, progress: Progress | None = None
) -> tuple[dict[str, Article], list[Question], dict[str, list[Scored]]]:
    """Only the small model's k checked samples per question (what the selector is fitted on),
    through the same cache as a run: a run with the same settings reuses them."""
    articles, questions = load_corpus(cfg)
    cache = GenerationCache(cfg.out / ".cache" / "generations.sqlite")
    params = SamplingParams(cfg.temperature, cfg.top_p, cfg.top_k, cfg.max_tokens)
    try:
        samples, info = _sample_role(
            factory, cfg.small, cfg, articles, questions, cfg.k, params, cache, progress, "small"
        )
    finally:
        cache.close()
    return (
        articles,
        questions,
        _checked(samples, articles, questions, "small", info, cfg.temperature),
    )


def _checked(
    samples: dict[str, list[Sample]],
    articles: dict[str, Article],
    questions: list[Question],
    role: str,
    info: dict[str, str],
    temperature: float,
) -> dict[str, list[Scored]]:
    """Each question's samples read and confirmed against its article."""
    return {
        q.id: checked(samples[q.id], articles[q.article_id], role, info["name"], temperature)
        for q in questions
    }


def run_experiment(
    cfg: RunConfig, factory: BackendFactory = llama_factory, progress: Progress | None = None
) -> RunResult:
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    articles, questions = load_corpus(cfg)
    for stale in cfg.run_dir.glob(".*.tmp"):  # left by a run killed while writing an export
        stale.unlink(missing_ok=True)
    cache = GenerationCache(cfg.out / ".cache" / "generations.sqlite")
    small_params = SamplingParams(cfg.temperature, cfg.top_p, cfg.top_k, cfg.max_tokens)
    large_params = SamplingParams(GREEDY.temperature, GREEDY.top_p, GREEDY.top_k, cfg.max_tokens)
    try:
        drawn, small_info = _sample_role(
            factory,
            cfg.small,
            cfg,
            articles,
            questions,
            cfg.k,
            small_params,
            cache,
            progress,
            "small",
        )
        answered, large_info = _sample_role(
            factory, cfg.large, cfg, articles, questions, 1, large_params, cache, progress, "large"
        )
    finally:
        cache.close()

    small = _checked(drawn, articles, questions, "small", small_info, cfg.temperature)
    large_checked = _checked(answered, articles, questions, "large", large_info, 0.0)
    large = {qid: one[0] for qid, one in large_checked.items()}
    # attempts.csv: each question's small samples, then its large answer
    attempts = [s.attempt for q in questions for s in (*small[q.id], large[q.id])]

    methods = method_names(cfg.k)
    # questions without gold are scored against large@1's answer: agreement, not accuracy
    scored_qs = [with_reference(q, large[q.id]) for q in questions]
    gold_qs = [sq for sq, q in zip(scored_qs, questions, strict=True) if q.gold]
    free_qs = [sq for sq, q in zip(scored_qs, questions, strict=True) if not q.gold]
    main = gold_qs or free_qs  # what the summary, curves, routing and blind spots cover
    t_select = time.perf_counter()
    answers = {
        q.id: answer_methods(q, small[q.id], large[q.id], cfg.k, articles[q.article_id])
        for q in scored_qs
    }
    for part in (gold_qs, free_qs):
        if part:
            add_routed(part, answers, cfg.k)
    select_seconds = time.perf_counter() - t_select  # every method, the selectors' features too
    summary = summarize(main, answers, methods)
    curves = k_curve(main, small, large, cfg.k, articles)

    run_dir = cfg.run_dir
    write_csv(run_dir / "attempts.csv", (attempt_row(a) for a in attempts), ATTEMPT_COLUMNS)
    facts = {
        q.id: question_facts(q, articles[q.article_id], small[q.id])
        | {
            "stopped_early": len(small[q.id]) < cfg.k,
            "scored_against": "gold" if orig.gold else SCORED_AGAINST,
        }
        for q, orig in zip(scored_qs, questions, strict=True)
    }
    rows, columns = question_rows(scored_qs, answers, methods, f"small-verified@{cfg.k}", facts)
    write_csv(run_dir / "questions.csv", rows, columns)
    write_summary(run_dir / "summary.csv", summary)
    if free_qs:
        write_summary(run_dir / "agreement.csv", summarize(free_qs, answers, methods))
        shown = [m for m in methods if m.startswith(("small-verified", "small-selected"))]
        write_csv(
            run_dir / "disagreements.csv",
            disagreements(free_qs, answers, shown),
            disagreement_columns(shown),
        )
    write_csv(run_dir / "curves.csv", curves, ["k", "method", "accuracy", "coverage"])
    write_csv(
        run_dir / "routing.csv",
        routing_curve(main, answers, cfg.k),
        ["selector", "share_sent", "sent", "accuracy"],
    )
    kept = [f"small-verified@{cfg.k}", f"small-rule@{cfg.k}", f"small-selected@{cfg.k}"]
    spots = blind_spots(main, answers, kept, small, articles)
    write_csv(run_dir / "blindspots.csv", (spot_row(b) for b in spots), SPOT_COLUMNS)
    cached = sum(a.cached for a in attempts)
    failures = {
        "small": sum(s.failed for q in questions for s in small[q.id]),
        "large": sum(large[q.id].failed for q in questions),
    }
    manifest = {
        "run_id": cfg.resolved_run_id,
        "dataset": cfg.dataset,
        "bundled": cfg.dataset == BUNDLED,
        "command": cfg.command(),
        "config": cfg.as_dict(),
        "git_commit": _git_commit(),
        "versions": _versions(),
        "models": {"small": small_info, "large": large_info},
        "seeds": {
            "base_seed": cfg.seed,
            "rule": "sha256(f'{base_seed}:{question_id}:{sample_index}')[:4] & 0x7fffffff",
            "example": {questions[0].id: derive_seed(cfg.seed, questions[0].id, 0)},
        },
        "questions": len(questions),
        # "gold": accuracy; "large@1": agreement with large@1 (no question has gold); both
        # when some have gold (summary.csv: accuracy, agreement.csv: agreement)
        "scored_against": "gold" if not free_qs else SCORED_AGAINST if not gold_qs else "both",
        "questions_with_gold": len(gold_qs),
        "questions_without_gold": len(free_qs),
        "articles": len({q.article_id for q in questions}),
        "attempts": len(attempts),
        "cached_attempts": cached,
        # samples with no value and no deliberate abstention (empty, repetitive, an error, the
        # wrong kind): wrong on every question, unanswerable ones included
        "failures": failures,
        "resumed": cached > 0,
        "started": started.isoformat(timespec="seconds"),
        "finished": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "wall_seconds": round(time.perf_counter() - t0, 1),
        "selection_seconds": round(select_seconds, 3),
        "sampling": adaptive_facts(
            cfg.adaptive, cfg.rounds, cfg.k, [small[q.id] for q in questions]
        ),
    }
    this_run = {
        k: manifest[k] for k in ("started", "wall_seconds", "cached_attempts", "git_commit")
    }
    manifest["history"] = [*_history(run_dir / "manifest.json"), this_run]
    write_manifest(run_dir / "manifest.json", manifest)
    return RunResult(run_dir, questions, summary, answers, manifest)

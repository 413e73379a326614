"""What the question-aware selector costs, measured in one run.

    factqa bench selector-cost [--candidates 10000] [--questions 12] [--no-model] [RUN_DIR ...]

- features: the selector's features and ranking (`candidates` + `pick`) for at least N
  candidates built from the bundled corpus (every figure or date its articles state, offered as a
  sample to every question of the article), on one core (the process is pinned to CPU 0);
- logprob: the small model's k samples of Q bundled questions, decoded with and without the
  log-probability of each answer token (the selector's `logprob` feature), interleaved;
- for every RUN_DIR: the run's scoring time (every method, the selectors' features included;
  `selection_seconds` in its manifest) over its small model's sampling seconds.

The last line is machine-readable.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated

import typer

from experiment.base.types import Attempt, Question
from experiment.bench.app import command
from experiment.bench.harness import corpus
from experiment.bench.looks import evaluation_run
from experiment.config import RunConfig
from experiment.evaluate.answer import Answer
from experiment.evaluate.evidence import index
from experiment.evaluate.features import candidates
from experiment.evaluate.selector import learned, pick
from experiment.values.canonical import DateValue
from experiment.values.normalize import scan


def offered(q: Question, text: str) -> list[Answer]:
    """One confirmed sample per value of the question's kind that the article states."""
    out = []
    for i, m in enumerate(scan(text)):
        for v in m.values:
            if isinstance(v, DateValue) == (q.kind == "date"):
                attempt = Attempt(
                    q.id, q.article_id, "small", "m", i, i, 0.7, m.text, 0, 0, 0.0, False,
                    m.text, v.canonical(), confirmed=True, logprob=-1.0 - i % 7,
                )  # fmt: skip
                out.append(Answer(attempt, v))
                break
    return out


def features_seconds(target: int) -> tuple[int, int, float]:
    """(candidates, questions, seconds) for the selector on at least `target` candidates."""
    articles, questions = corpus()
    work = [(q, articles[q.article_id], offered(q, articles[q.article_id].text)) for q in questions]
    index.cache_clear()
    scan.cache_clear()
    model = learned()
    n_cands = n_questions = 0
    t0 = time.perf_counter()
    while n_cands < target:
        for q, art, small in work:
            cands = candidates(q, art, small)
            pick(cands, model)
            n_cands += len(cands)
            n_questions += 1
            if n_cands >= target:
                break
    return n_cands, n_questions, time.perf_counter() - t0


def logprob_ratio(n: int, k: int) -> tuple[float, float]:
    """Seconds of k samples for n questions without and with log-probabilities, interleaved."""
    from experiment.generate.models.base import SamplingParams
    from experiment.generate.prompts import messages_for
    from experiment.runner import llama_factory

    cfg = RunConfig()
    articles, questions = corpus()
    questions = questions[:n]
    backend = llama_factory(cfg.small, cfg)
    params = SamplingParams(cfg.temperature, cfg.top_p, cfg.top_k, cfg.max_tokens)
    spent = {False: 0.0, True: 0.0}
    for i, q in enumerate(questions):
        msgs = messages_for(articles[q.article_id], q)
        for on in (i % 2 == 0, i % 2 == 1):  # alternate which goes first
            backend.logprobs = on  # type: ignore[attr-defined]
            backend.generate(msgs, params, [1])  # the prompt is cached for both
            t0 = time.perf_counter()
            backend.generate(msgs, params, list(range(100, 100 + k)))
            spent[on] += time.perf_counter() - t0
    return spent[False], spent[True]


def run_ratio(path: Path) -> tuple[float, float]:
    """The run's scoring seconds (nan when its manifest did not record them) and its small
    model's sampling seconds."""
    run = evaluation_run(path)
    a = run.attempts
    sampling = sum(map(float, a.seconds[a.role == "small"]))
    return run.manifest.selection_seconds or float("nan"), sampling


def _run(runs: list[Path], target: int, questions: int, k: int, no_model: bool) -> None:
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cores)})  # one core for the features
    cands, qs, secs = features_seconds(target)
    os.sched_setaffinity(0, cores)
    print(f"features + ranking: {cands:,} candidates of {qs:,} questions, {secs:.2f} s, one core")
    line = [f"features_10k_s={secs * 10_000 / cands:.2f}"]
    if not no_model:
        off, on = logprob_ratio(questions, k)
        print(f"k={k} samples of {questions} questions: {off:.1f} s, {on:.1f} s with "
              f"log-probabilities ({on / off:.3f}x)")  # fmt: skip
        line.append(f"logprob_ratio={on / off:.3f}")
    for run in runs:
        sel, sampling = run_ratio(run)
        print(f"{run.name}: scoring {sel:.1f} s against sampling {sampling:.1f} s "
              f"({sel / sampling:.4f})")  # fmt: skip
        line.append(f"scoring_over_sampling_{run.name}={sel / sampling:.4f}")
    print(" ".join(line))


@command("selector-cost")
def selector_cost_command(
    runs: Annotated[list[Path] | None, typer.Argument(help="Run folders to time.")] = None,
    candidates: Annotated[int, typer.Option(help="Candidates scored.", min=1)] = 10_000,
    questions: Annotated[int, typer.Option(help="Questions timed with the model.", min=1)] = 12,
    k: Annotated[int, typer.Option("--k", help="Samples per question.", min=1)] = 10,
    no_model: Annotated[
        bool, typer.Option("--no-model", help="Skip the log-probability timing.")
    ] = False,
) -> None:
    """What the question-aware selector costs, measured in one run."""
    _run(runs or [], candidates, questions, k, no_model)

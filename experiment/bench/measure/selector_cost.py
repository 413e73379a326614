"""What the question-aware selector costs, measured in one run.

    factqa bench selector-cost [--candidates 10000] [--questions 12] [--no-model] [RUN_DIR ...]

- features: the selector's features and ranking (`candidates` + `pick`) for at least N
  candidates built from the bundled corpus (every figure or date its articles state, offered as a
  sample to every question of the article), on one core (the process is pinned to CPU 0);
- logprob: the small model's k samples of Q bundled questions, decoded with and without the
  log-probability of each answer token (the selector's `logprob` feature), interleaved;
- for every RUN_DIR: the run's scoring time (every method, the selectors' features included;
  `selection_seconds` in its manifest) over its small model's sampling seconds.

With `--write`, writes its section of docs/RESULTS.md; its last line is machine-readable.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from experiment.base.types import Attempt, Question
from experiment.bench.app import command
from experiment.bench.harness import RESULTS_MD, WriteOpt, corpus, finish
from experiment.bench.looks import evaluation_run
from experiment.bench.sections import Record, measured, renders
from experiment.config import RunConfig
from experiment.evaluate.answer import Answer
from experiment.evaluate.evidence import index
from experiment.evaluate.features import candidates
from experiment.evaluate.selector import learned, pick
from experiment.report.tables import markdown_table
from experiment.values.canonical import DateValue
from experiment.values.normalize import scan

SECTION = "selector-cost"


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


def _run(
    runs: list[Path], target: int, questions: int, k: int, no_model: bool, write: bool
) -> None:
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cores)})  # one core for the features
    cands, qs, secs = features_seconds(target)
    os.sched_setaffinity(0, cores)
    figures: dict[str, Any] = {
        "features": {"candidates": cands, "questions": qs, "seconds": secs},
        "logprob": None,
        "runs": {},
    }
    if not no_model:
        off, on = logprob_ratio(questions, k)
        figures["logprob"] = {"questions": questions, "k": k, "without": off, "with": on}
    for run in runs:
        sel, sampling = run_ratio(run)
        figures["runs"][run.name] = {"scoring": sel, "sampling": sampling}
    command_line = (
        f"factqa bench selector-cost --questions {questions}"
        + (" --no-model" if no_model else "")
        + "".join(f" outputs/bench/{run.name}" for run in runs)
        + " --write"
    )
    finish(RESULTS_MD, measured(SECTION, command_line, figures), write)


def line(f: dict[str, Any]) -> str:
    """The machine-readable line."""
    feat = f["features"]
    pairs = [f"features_10k_s={feat['seconds'] * 10_000 / feat['candidates']:.2f}"]
    if f["logprob"]:
        pairs.append(f"logprob_ratio={f['logprob']['with'] / f['logprob']['without']:.3f}")
    pairs += [
        f"scoring_over_sampling_{name}={r['scoring'] / r['sampling']:.4f}"
        for name, r in f["runs"].items()
    ]
    return " ".join(pairs)


@renders(SECTION, "cost")
def section(record: Record) -> str:
    """docs/RESULTS.md's `selector-cost` section from its record."""
    f = record.figures
    feat, lp = f["features"], f["logprob"]
    rows = [
        [
            "features + ranking (`candidates` + `pick`), one core",
            f"{feat['candidates']:,} candidates of {feat['questions']:,} bundled questions in "
            f"{feat['seconds']:.2f} s (every figure or date of the article offered to every "
            "question)",
        ]
    ]
    if lp:
        rows.append(
            [
                "the small model's log-probability of each answer (summed while sampling)",
                f"k = {lp['k']} samples of {lp['questions']} bundled questions: "
                f"{lp['without']:.1f} s without, {lp['with']:.1f} s with "
                f"({lp['with'] / lp['without']:.3f}x)",
            ]
        )
    rows += [
        [
            f"scoring every method, selectors included, over sampling (`{name}`)",
            f"{r['scoring']:.1f} s against {r['sampling']:.1f} s of small-model sampling "
            f"({r['scoring'] / r['sampling']:.4f})",
        ]
        for name, r in f["runs"].items()
    ]
    return "\n".join(
        [
            "## What the question-aware selector costs",
            "",
            f"Command: `{record.command}` (commit `{record.commit}`, {record.date}).",
            "",
            *markdown_table(["what", "measured"], rows),
            "",
            f"`{line(f)}`",
        ]
    )


@command("selector-cost")
def selector_cost_command(
    runs: Annotated[list[Path] | None, typer.Argument(help="Run folders to time.")] = None,
    candidates: Annotated[int, typer.Option(help="Candidates scored.", min=1)] = 10_000,
    questions: Annotated[int, typer.Option(help="Questions timed with the model.", min=1)] = 12,
    k: Annotated[int, typer.Option("--k", help="Samples per question.", min=1)] = 10,
    no_model: Annotated[
        bool, typer.Option("--no-model", help="Skip the log-probability timing.")
    ] = False,
    write: WriteOpt = False,
) -> None:
    """What the question-aware selector costs, measured in one run."""
    _run(runs or [], candidates, questions, k, no_model, write)

"""What the large model's checks cost against its own answer, measured in one process.

    factqa bench large-check RUN_DIR --name NAME [--limit N] [--results-md docs/RESULTS.md]
                                [--write]

RUN_DIR is a finished run (`factqa run` or factqa bench run) whose generation cache holds the
small model's samples. Its settings are read from its manifest; the small model's samples come
from the cache (nothing is sampled again). The large model is loaded once, and three passes go
over the run's questions (the first N with `--limit`) in article order, each after forgetting
the model's cache, so each pass reuses an article's prefix as it would alone:

1. large@1: the greedy answer, generated again (not from the cache), timed here;
2. the whole-prompt check of the confirmed candidates (the large@1 prompt; `large_check`);
3. the evidence-only check (each candidate's sentence or table row).

Per pass: model seconds, evaluated tokens and FLOPs per question (a question with nothing
confirmed costs a check nothing), and each check's ratio to large@1. Accuracy comes from the
run's own summary.csv (all its questions). The last line is machine-readable:

    check_acc_NAME check_whole_acc_NAME large_acc_NAME cascade_check20_NAME cascade20_NAME
    check_cost_ratio_NAME check_whole_cost_ratio_NAME (FLOPs per question against large@1)
    check_seconds_ratio_NAME check_whole_seconds_ratio_NAME load_max
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from experiment.bench.app import command
from experiment.bench.harness import RESULTS_MD, ResultsMdOpt, WriteOpt, finish
from experiment.bench.looks import evaluation_run
from experiment.bench.sections import Record, measured, renders
from experiment.evaluate.features import candidates
from experiment.evaluate.large_check import EVIDENCE, MODES, WHOLE
from experiment.evaluate.methods import (
    CASCADE_20,
    CASCADE_CHECK_20,
    CHECK_EVIDENCE,
    CHECK_WHOLE,
    LARGE_1,
)
from experiment.generate.models.base import GREEDY, SamplingParams
from experiment.generate.sampling import article_order, prompt_of
from experiment.generate.windows import WHOLE_ARTICLE
from experiment.report.machine import load_average
from experiment.report.tables import markdown_table
from experiment.runner import check_scoring, llama_factory, small_samples

SECTION = "large-check"  # a record a data set: large-check-NAME
PASSES = ("large@1", *MODES)


def _run(run_dir: Path, name: str, limit: int, results: Path, write: bool) -> None:
    run = evaluation_run(run_dir)
    cfg = run.manifest.config
    articles, questions, small = small_samples(cfg)
    ordered = article_order(questions)[: limit or None]
    backend = llama_factory(cfg.large, cfg)
    params = SamplingParams(GREEDY.temperature, GREEDY.top_p, GREEDY.top_k, cfg.max_tokens)
    loads = load_average()[:1]
    spent = {p: {"seconds": 0.0, "tokens": 0, "flops": 0.0, "calls": 0} for p in PASSES}
    found = {q.id: candidates(q, articles[q.article_id], small[q.id][: cfg.k]) for q in ordered}
    for stage in PASSES:
        backend.reset()
        cost = spent[stage]
        checking = None if stage == "large@1" else check_scoring(cfg, articles, small, found, stage)
        for q in ordered:
            article = articles[q.article_id]
            if stage == "large@1":
                whole = prompt_of(backend, article, q, 1, params, WHOLE_ARTICLE, cfg.prompt)[0]
                t0 = time.perf_counter()
                made = backend.generate(whole, params, [0])
                got = [(g.evaluated_tokens, g.flops) for g in made]
            else:  # the run's own calls (`runner.check_scoring`), timed without the cache
                assert checking is not None
                calls = checking.probes(backend, q)
                t0 = time.perf_counter()
                scored = [backend.score(c.messages, c.texts) for c in calls]
                got = [(s.evaluated_tokens, s.flops) for s in scored]
            cost["seconds"] += time.perf_counter() - t0
            cost["tokens"] += sum(t or 0 for t, _ in got)
            cost["flops"] += sum(f or 0.0 for _, f in got)
            cost["calls"] += len(got)
        loads += load_average()[:1]

    k = run.manifest.config.k
    acc = dict(zip(run.summary["method"], run.summary["accuracy"], strict=True))
    methods = (CHECK_EVIDENCE, CHECK_WHOLE, LARGE_1, CASCADE_CHECK_20, CASCADE_20)
    figures = {
        "name": name, "run": run_dir.name, "questions": len(ordered), "large": cfg.large,
        "threads": os.cpu_count(), "load": [min(loads, default=0), max(loads, default=0)],
        "spent": spent, "accuracy": {m.name(k): float(acc[m.name(k)]) for m in methods
                                     if m.name(k) in acc},
        "k": k,
    }  # fmt: skip
    command = f"factqa bench large-check RUN_DIR --name {name}" + (
        f" --limit {limit}" if limit else ""
    )
    finish(results, measured(f"{SECTION}-{name}", command + " --write", figures), write)


def line(f: dict[str, Any]) -> str:
    """The machine-readable line (an accuracy the run's summary lacks is left out)."""
    name, k, spent = f["name"], f["k"], f["spent"]
    base = spent["large@1"]

    said = (
        ("check_acc", CHECK_EVIDENCE),
        ("check_whole_acc", CHECK_WHOLE),
        ("large_acc", LARGE_1),
        ("cascade_check20", CASCADE_CHECK_20),
        ("cascade20", CASCADE_20),
    )
    pairs = [
        f"{key}_{name}={f['accuracy'][m.name(k)]:.3f}"
        for key, m in said
        if m.name(k) in f["accuracy"]
    ]
    return " ".join(
        [
            *pairs,
            f"check_cost_ratio_{name}={spent[EVIDENCE]['flops'] / base['flops']:.2f}",
            f"check_whole_cost_ratio_{name}={spent[WHOLE]['flops'] / base['flops']:.2f}",
            f"check_seconds_ratio_{name}={spent[EVIDENCE]['seconds'] / base['seconds']:.2f}",
            f"check_whole_seconds_ratio_{name}={spent[WHOLE]['seconds'] / base['seconds']:.2f}",
            f"load_max={f['load'][1]:.2f}",
        ]
    )


@renders(f"{SECTION}-*", "better")
def section(record: Record) -> str:
    """docs/RESULTS.md's `large-check-NAME` section (one a data set) from its record."""
    f = record.figures
    n, base = f["questions"], f["spent"]["large@1"]
    rows = [
        [
            stage,
            f"{c['calls'] / n:.2f}",
            f"{c['seconds'] / n:.3f}",
            f"{c['tokens'] / n:.0f}",
            f"{c['flops'] / n / 1e9:.1f}",
            f"{c['seconds'] / base['seconds']:.2f}",
            f"{c['flops'] / base['flops']:.2f}",
        ]
        for stage, c in f["spent"].items()
    ]
    header = [
        "pass",
        "calls / question",
        "seconds / question",
        "evaluated tokens / question",
        "GFLOPs / question",
        "seconds / large@1",
        "FLOPs / large@1",
    ]
    low, high = f["load"]
    return "\n".join(
        [
            f"Run `{f['run']}`, {n} questions, large model {f['large']}, {f['threads']} threads, "
            f"load average {low:.2f} to {high:.2f}. `{record.command}` (commit "
            f"`{record.commit}`, {record.date})",
            "",
            *markdown_table(header, rows),
            "",
            f"`{line(f)}`",
        ]
    )


@command("large-check")
def large_check_command(
    run: Annotated[Path, typer.Argument(help="A finished run folder.")],
    name: Annotated[str, typer.Option(help="The data set's name in the figures' keys.")],
    limit: Annotated[int, typer.Option(help="Only the first N questions.", min=0)] = 0,
    results: ResultsMdOpt = RESULTS_MD,
    write: WriteOpt = False,
) -> None:
    """What the large model's checks cost against its own answer, measured in one process."""
    _run(run, name, limit, results, write)

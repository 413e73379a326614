"""Adaptive sampling against fixed k = 10 and large@1: samples, accuracy and time, in one run.

    factqa bench adaptive SQUAD_V1_DEV_JSON [--live 40] [--small-context excerpt:N]
                             [--write]

Part 1, accuracy and samples, on the SQuAD v1.1 benchmark sample (300 questions of the
evaluation titles, as `factqa bench run squad-v1`) and the bundled corpus. Every round is drawn
once (`--adaptive never`: 10 samples in rounds of 3, 3, 3, 1); each rule is then run through the
same code path as `factqa run --adaptive RULE`, which replays its stop decisions on those cached
rounds, so its samples are exactly the first n of "every round" and the accuracy difference is
paired sample for sample. Fixed k = 10 drawn at once (the default run, a different draw of the
same seeds) and large@1 come from the same caches. Model seconds per question are the drawn
rounds' recorded times.

Part 2, time (ratio D), measured live in this process on the first `--live` questions of each
set, no cache, prefix reuse as in a run: the whole small pipeline per question (sampling,
checking every sample against the article, the vote and the selector) with fixed k = 10 and
with the default rule, over large@1 per question (its answer, checked). The small model's
llama.cpp calls are profiled on the way: prompt reading (prefill) against decode steps.

The rules and rounds were chosen on the fitting half of SQuAD (docs/RESULTS.md, "Adaptive
sampling"), never on these samples. With `--write`, writes the `adaptive` section of
docs/RESULTS.md; the last line printed is machine-readable.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import typer

from experiment.base.types import Article, Question
from experiment.bench.app import command
from experiment.bench.harness import RESULTS_MD, ROOT, WriteOpt, finish
from experiment.bench.sections import Record, measured, renders
from experiment.config import RunConfig
from experiment.corpus import load_articles, load_questions
from experiment.evaluate.confirm import confirm_samples
from experiment.evaluate.features import candidates
from experiment.evaluate.methods import REFERENCE, SELECTED, VERIFIED
from experiment.evaluate.selector import learned, pick
from experiment.evaluate.stats import paired_difference_ci
from experiment.evaluate.stopping import parse_rounds, parse_rule, sample_stopper
from experiment.evaluate.vote import majority
from experiment.generate.models.base import GREEDY, SamplingParams
from experiment.generate.sampling import article_order, sample_all
from experiment.generate.windows import ARTICLE, WHOLE_ARTICLE, Reading, parse_reading
from experiment.importers.service import import_dataset
from experiment.report.run import Run, load_run
from experiment.report.tables import markdown_table
from experiment.runner import llama_factory, run_experiment

SECTION = "adaptive"
RULES = ("window:2", "posterior:0.9", "selector:0.6")  # factqa bench fit stopping chose them
DEFAULT_RULE = "window:2"
K = 10


@dataclass(frozen=True)
class DataSet:
    name: str
    articles: Path
    questions: Path
    out: Path  # the folder whose generation cache the runs share
    runs: str  # the prefix of the run folders' names inside `out` (a run id is a plain name)


def runs(ds: DataSet, reading: str) -> dict[str, Path]:
    """Every run of one data set: fixed k, every round, each rule (cached after the first);
    with an excerpt, every round and the default rule again, the small model reading it."""
    plan = [(rule, rule, ARTICLE) for rule in ("off", "never", *RULES)]
    if reading != ARTICLE:
        plan += [(f"{rule} @{reading}", rule, reading) for rule in ("never", DEFAULT_RULE)]
    out = {}
    for key, rule, context in plan:
        label = "fixed" if rule == "off" else rule.replace(":", "")
        if context != ARTICLE:
            label += "-" + context.replace(":", "")
        cfg = RunConfig(
            articles=ds.articles,
            questions=ds.questions,
            out=ds.out,
            run_id=f"{ds.runs}-{ds.name}-{label}",
            adaptive=rule,
            small_context=context,
            label=ds.name,
        )
        t0 = time.perf_counter()
        result = run_experiment(cfg)
        print(f"[{time.perf_counter() - t0:6.1f}s] {ds.name} {key}", flush=True)
        out[key] = result.run_dir
    return out


def _correct(run: Run, method: str) -> pd.Series:
    return run.questions.set_index("question_id")[f"{method}.correct"]


def accuracy_rows(ds: DataSet, folders: dict[str, Path]) -> dict[str, Any]:
    """Part 1's figures of one data set: per rule the samples drawn, the share stopped early,
    each method's accuracy and its paired difference against every round, the recorded
    seconds; and large@1's accuracy."""
    loaded = {rule: load_run(folder) for rule, folder in folders.items()}
    every = loaded["never"]
    clusters = every.questions.cluster.tolist()
    ver, sel = VERIFIED.name(K), SELECTED.name(K)
    reference = {m: _correct(every, m) for m in (ver, sel)}
    rows = []
    for key, run in loaded.items():
        a = run.attempts
        small = a[a.role == "small"]
        drawn = small.groupby("question_id").size()
        rule, _, context = key.partition(" @")
        row: dict[str, Any] = {
            "rule": rule, "context": context, "samples": float(drawn.mean()),
            "early": float((drawn < K).mean()), "methods": {},
            # recorded when the rounds were drawn: comparable among the rounds' rows only
            "seconds": None if rule == "off"
            else float(small.seconds.astype(float).sum()) / a.question_id.nunique(),
        }  # fmt: skip
        for m in (ver, sel):
            got = _correct(run, m).reindex(reference[m].index)
            diff, low, high = paired_difference_ci(got.tolist(), reference[m].tolist(), clusters)
            row["methods"][m] = {"accuracy": float(got.mean()), "ci": [diff, low, high]}
        rows.append(row)
    n = int(every.attempts.question_id.nunique())
    return {"questions": n, "rows": rows, "reference": float(_correct(every, REFERENCE).mean())}


def default_rule(f: dict[str, Any], excerpt: bool) -> dict[str, float]:
    """The default rule's samples and small-verified@k's difference against every round (the
    small model reading the whole passage, or the excerpt)."""
    row = next(r for r in f["rows"] if r["rule"] == DEFAULT_RULE and bool(r["context"]) == excerpt)
    return {"samples": row["samples"], "delta": row["methods"][VERIFIED.name(K)]["ci"][0]}


def _table(f: dict[str, Any]) -> list[str]:
    ver, sel = VERIFIED.name(K), SELECTED.name(K)
    rows = []
    for r in f["rows"]:
        label = {"off": f"fixed k={K}, all at once", "never": "every round (fixed k in rounds)"}
        cells = [
            label.get(r["rule"], f"`{r['rule']}`")
            + (f", small model reads `{r['context']}`" if r["context"] else ""),
            f"{r['samples']:.2f}",
            f"{r['early']:.0%}",
        ]
        for m in (ver, sel):
            diff, low, high = r["methods"][m]["ci"]
            cells += [
                f"{r['methods'][m]['accuracy']:.3f}",
                f"{diff:+.3f} [{low:+.3f}, {high:+.3f}]",
            ]
        cells.append("-" if r["seconds"] is None else f"{r['seconds']:.2f}")
        rows.append(cells)
    rows.append(
        [f"{REFERENCE} (one greedy answer)", "-", "-", f"{f['reference']:.3f}", "", "", "", "-"]
    )
    header = ["sampling", "samples per question", "stopped early", ver,
              "difference vs every round [95% CI]", sel, "difference vs every round [95% CI]",
              "small model s per question, recorded as the rounds were drawn"]  # fmt: skip
    return markdown_table(header, rows)


class Profile:
    """The small model's llama.cpp calls: prompt reading against decode steps, by batch size."""

    def __init__(self, backend) -> None:  # type: ignore[no-untyped-def]
        self.prefill = self.decode = 0.0
        self.steps: list[int] = []
        original = backend._decode

        def timed(tokens, seqs, positions, logits) -> None:  # type: ignore[no-untyped-def]
            t0 = time.perf_counter()
            original(tokens, seqs, positions, logits)
            dt = time.perf_counter() - t0
            if all(logits) and len(set(seqs)) == len(seqs):
                self.decode += dt
                self.steps.append(len(tokens))
            else:
                self.prefill += dt

        backend._decode = timed

    def take(self, n: int) -> dict[str, float]:
        """Prefill and decode seconds and steps per question (of `n`) since the last call, and
        the sequences a step decoded on average; then start again."""
        steps = self.steps
        out = {"prefill": self.prefill / n, "decode": self.decode / n, "steps": len(steps) / n,
               "sequences": sum(steps) / max(len(steps), 1)}  # fmt: skip
        self.prefill = self.decode = 0.0
        self.steps = []
        return out


def pipeline(
    backend,  # type: ignore[no-untyped-def]
    articles: dict[str, Article],
    questions: list[Question],
    k: int,
    params: SamplingParams,
    rule: str | None,
    reading: Reading = WHOLE_ARTICLE,
) -> tuple[float, float]:
    """Seconds for the whole pipeline over `questions` from an empty prompt cache, and the mean
    samples drawn: sampling (the small model reading `reading`), checking, and for the small
    model the vote and the selector."""
    backend.reset()
    stop = sample_stopper(parse_rule(rule), articles, params.temperature) if rule else None
    rounds = parse_rounds("3,3", k) if rule else None
    t0 = time.perf_counter()
    drawn = sample_all(
        backend, articles, questions, k, params, 0, None, None, rounds, stop, reading
    )
    for q in questions:
        art = articles[q.article_id]
        scored = confirm_samples(drawn[q.id], art, "small", "", params.temperature)
        if k > 1:
            majority([s.value for s in scored], keep=[s.attempt.confirmed for s in scored])
            pick(candidates(q, art, scored), learned())
    seconds = time.perf_counter() - t0
    return seconds, sum(len(v) for v in drawn.values()) / len(questions)


def live(ds: DataSet, n: int, reading: str) -> dict[str, Any]:
    """Part 2's figures of one data set: seconds per question of each pipeline, samples drawn,
    and the small model's llama.cpp profile."""
    articles = load_articles(ds.articles)
    questions = article_order(load_questions(ds.questions, articles))[:n]
    n = len(questions)
    cfg = RunConfig(k=K)
    params = SamplingParams(cfg.temperature, cfg.top_p, cfg.top_k, cfg.max_tokens)
    small = llama_factory(cfg.small, cfg)
    profile = Profile(small)
    got: dict[str, Any] = {"questions": n, "profiles": {}, "samples": {}}
    got["fixed"], _ = pipeline(small, articles, questions, K, params, None)
    got["profiles"]["fixed"] = profile.take(n)
    got["adaptive"], got["samples"]["adaptive"] = pipeline(
        small, articles, questions, K, params, DEFAULT_RULE
    )
    got["profiles"]["adaptive"] = profile.take(n)
    got["excerpt"] = 0.0
    if reading != ARTICLE:
        got["excerpt"], got["samples"]["excerpt"] = pipeline(
            small, articles, questions, K, params, DEFAULT_RULE, parse_reading(reading)
        )
        got["profiles"]["excerpt"] = profile.take(n)
    del small
    gc.collect()
    large = llama_factory(cfg.large, cfg)
    got["large"], _ = pipeline(large, articles, questions, 1, replace(GREEDY, max_tokens=32), None)
    del large
    gc.collect()
    for key in ("fixed", "adaptive", "excerpt", "large"):
        got[key] /= n
    return got


def _live_lines(name: str, t: dict[str, Any], reading: str) -> list[str]:
    def per_question(p: dict[str, float]) -> str:
        return (
            f"prefill {p['prefill']:.2f} s, decode {p['decode']:.2f} s in {p['steps']:.1f} steps "
            f"of {p['sequences']:.1f} sequences on average"
        )

    n, prof = t["questions"], t["profiles"]
    out = [
        f"{name}, first {n} questions: small fixed k={K} {t['fixed']:.2f} s, "
        f"adaptive {t['adaptive']:.2f} s ({t['samples']['adaptive']:.2f} samples), {REFERENCE} "
        f"{t['large']:.2f} s per question; the small model's llama.cpp time per question, fixed "
        f"k: {per_question(prof['fixed'])}; adaptive: {per_question(prof['adaptive'])}"
    ]
    if "excerpt" in prof:
        out.append(
            f"{name}, the same questions, adaptive with the small model reading `{reading}`: "
            f"{t['excerpt']:.2f} s ({t['samples']['excerpt']:.2f} samples) per question; "
            f"llama.cpp: {per_question(prof['excerpt'])}"
        )
    return out


def _run(squad_v1: Path, live_questions: int, reading: str, write: bool) -> None:
    parse_reading(reading)  # refuse a bad setting before any run

    bench = ROOT / "outputs" / "bench"
    imported = import_dataset(
        "squad", squad_v1, bench / "data" / "squad-v1", 300, 0, None, True, "eval"
    )
    sets = [
        DataSet("squad-v1", imported.articles, imported.questions, bench, "adaptive"),
        DataSet(
            "bundled", ROOT / "articles", ROOT / "questions", ROOT / "outputs", "bench/adaptive"
        ),
    ]
    figures: dict[str, Any] = {"reading": reading, "sets": {}}
    for ds in sets:
        figures["sets"][ds.name] = accuracy_rows(ds, runs(ds, reading))
    for ds in sets:
        figures["sets"][ds.name]["live"] = live(ds, live_questions, reading)
    command_line = (
        f"factqa bench adaptive PATH/TO/dev-v1.1.json --live {live_questions}"
        + (f" --small-context {reading}" if reading != ARTICLE else "")
        + " --write"
    )
    finish(RESULTS_MD, measured(SECTION, command_line, figures), write)


def line(f: dict[str, Any]) -> str:
    """The machine-readable line."""
    squad, bundled = f["sets"]["squad-v1"], f["sets"]["bundled"]
    s, b = squad["live"], bundled["live"]
    fs, fb = default_rule(squad, False), default_rule(bundled, False)
    last = (
        f"adaptive_rule={DEFAULT_RULE} adaptive_samples_squad={fs['samples']:.2f} "
        f"adaptive_samples_bundled={fb['samples']:.2f} "
        f"adaptive_acc_delta_squad={fs['delta']:+.3f} "
        f"adaptive_acc_delta_bundled={fb['delta']:+.3f} "
        f"ratio_D_squad={s['adaptive'] / s['large']:.2f} "
        f"ratio_D_bundled={b['adaptive'] / b['large']:.2f} "
        f"ratio_D_fixed_squad={s['fixed'] / s['large']:.2f} "
        f"ratio_D_fixed_bundled={b['fixed'] / b['large']:.2f}"
    )
    if f["reading"] != ARTICLE:
        es, eb = default_rule(squad, True), default_rule(bundled, True)
        last += (
            f" excerpt={f['reading']} excerpt_samples_squad={es['samples']:.2f} "
            f"excerpt_samples_bundled={eb['samples']:.2f} "
            f"excerpt_acc_delta_squad={es['delta']:+.3f} "
            f"excerpt_acc_delta_bundled={eb['delta']:+.3f} "
            f"ratio_D_excerpt_squad={s['excerpt'] / s['large']:.2f} "
            f"ratio_D_excerpt_bundled={b['excerpt'] / b['large']:.2f}"
        )
    return last


@renders(SECTION, "cost")
def section(record: Record) -> str:
    """docs/RESULTS.md's `adaptive` section from its record."""
    f = record.figures
    reading = f["reading"]
    lines: list[str] = []
    for name, got in f["sets"].items():
        lines += [f"**{name}** ({got['questions']} questions)", "", *_table(got), ""]
    s, b = f["sets"]["squad-v1"]["live"], f["sets"]["bundled"]["live"]
    live_lines = [
        x for name, got in f["sets"].items() for x in _live_lines(name, got["live"], reading)
    ]
    excerpt = (
        [
            f"- ratio D with `{DEFAULT_RULE}` and the small model reading `{reading}`: "
            f"**{s['excerpt'] / s['large']:.2f}** on SQuAD v1.1, "
            f"**{b['excerpt'] / b['large']:.2f}** on the bundled corpus"
        ]
        if reading != ARTICLE
        else []
    )
    return "\n".join(
        [
            "## Adaptive sampling",
            "",
            f"Command: `{record.command}` (commit `{record.commit}`, {record.date}; rules "
            f"{', '.join(RULES)}; rounds 3, 3, 3, 1; default rule `{DEFAULT_RULE}`; 2 CPU "
            "cores). Rules and rounds were chosen on the fitting half of SQuAD v1.1 and v2.0, "
            "not on these samples.",
            "",
            *lines,
            "The recorded seconds come from the run that drew every round, so they compare the "
            "rules with each other; fixed k and large@1 were drawn in other runs, under other "
            "load: their time is the live measurement below.",
            "",
            "Time, measured live in one process (no cache; sampling, checking, vote and "
            "selector included):",
            "",
            *(f"- {x}" for x in live_lines),
            f"- ratio D (whole small pipeline / {REFERENCE} per question), `{DEFAULT_RULE}`: "
            f"**{s['adaptive'] / s['large']:.2f}** on SQuAD v1.1, "
            f"**{b['adaptive'] / b['large']:.2f}** on the bundled corpus; fixed k=10: "
            f"{s['fixed'] / s['large']:.2f} and {b['fixed'] / b['large']:.2f}",
            *excerpt,
            "",
            f"Last line (adaptive_acc_delta and excerpt_acc_delta: {VERIFIED.name(K)} of the "
            "default rule against every round drawn, the small model reading the whole "
            f"passage): `{line(f)}`",
        ]
    )


@command("adaptive")
def adaptive_command(
    squad_v1: Annotated[Path, typer.Argument(help="SQuAD v1.1 dev (dev-v1.1.json).")],
    live: Annotated[int, typer.Option(help="Questions per set timed live.", min=1)] = 40,
    small_context: Annotated[
        str,
        typer.Option(
            help="Also run the default rule with the small model reading this ('excerpt:N', "
            "chosen by `factqa bench fit excerpt`)."
        ),
    ] = ARTICLE,
    write: WriteOpt = False,
) -> None:
    """Adaptive sampling against fixed k = 10 and large@1: samples, accuracy and time, in
    one run."""
    _run(squad_v1, live, small_context, write)

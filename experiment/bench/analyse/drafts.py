"""The article drafts, the small model checks (issue 39): coverage, each method's accuracy and
cost, and the ranking loss, from the benchmark runs' own folders. No model runs.

    factqa bench drafts [--runs outputs/bench] [--write]

Reads each run folder of `factqa bench run`'s presets that is present (outputs/bench/bundled,
squad-v1, squad-v2, drop, tatqa-dev; each imported sample from outputs/bench/data/PRESET),
made with the models' pool scores (`--drafts`, on by default). Per data set:
- **coverage** over the stated questions (gold not computed; answerable): the share whose gold
  a sample holds (small-pass@k), the bounded pool holds (top `POOL_N` by the model-free rank),
  the whole pool holds (`bench pool-coverage`'s measure);
- **accuracy** of text-only, small-text@0, small-text@k, large-text@1, small-selected@k and
  large@1, over all questions and over the stated ones (not computed, as `bench run`'s
  line splits them), with each method's FLOPs against large@1's on the same questions;
- **ranking loss** of small-text@0, recomputed from the run's pool scores (the small model's
  scores) by the shipped selector: where the bounded pool held the gold and the method gave
  another candidate, what it gave (`pool_coverage.loss_kind`: the same figure at another
  scale, another period, another row, another entity), or that it abstained.

Prints the table and issue 39's machine-readable line; `--write` rewrites the `drafts` section
of docs/RESULTS.md.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

from experiment.base.errors import InputError
from experiment.base.types import Article, Question
from experiment.bench.analyse.pool_coverage import loss_kind
from experiment.bench.app import command
from experiment.bench.harness import (
    OUT,
    RESULTS_MD,
    ResultsMdOpt,
    RunsOpt,
    WriteOpt,
    corpus,
    finish,
    results_dir,
)
from experiment.bench.looks import evaluation_run
from experiment.bench.sections import Record, load, measured, records_dir, renders
from experiment.evaluate.drafts import SMALL, Drafts, rank_scored, text_selector
from experiment.evaluate.judge import gold_of, judge
from experiment.evaluate.pool import POOL_N, bounded, pool
from experiment.report.analysis import stated_computed
from experiment.report.run import Run

SECTION = "drafts"
PRESETS = {  # run folder -> the line's name
    "bundled": "bundled",
    "squad-v1": "squad",
    "squad-v2": "squad_v2",
    "tatqa-dev": "tatqa",
    "drop": "drop",
}
STATED_TOO = ("bundled", "tatqa", "drop")
LOSSES = ("scale", "period", "row", "entity", "abstained")


def corpus_of(runs: Path, preset: str) -> tuple[dict[str, Article], list[Question]]:
    if preset == "bundled":
        return corpus()
    data = runs / "data" / preset
    return corpus(data / "articles", data / "questions")


def drafts_by_question(run: Run, role: str = SMALL) -> dict[str, Drafts]:
    rows = run.drafts[run.drafts.role == role]
    out = {}
    for qid, g in rows.groupby("question_id", sort=False):
        out[str(qid)] = Drafts(
            role,
            tuple(g.text.astype(str)),
            tuple(float(x) for x in g.logprob),
            tuple(int(x) for x in g.tokens),
        )
    return out


def coverage_and_loss(
    run: Run, articles: dict[str, Article], questions: list[Question]
) -> dict[str, object]:
    """Coverage of the stated answerable questions, and small-text@0's ranking loss."""
    drafts = drafts_by_question(run)
    model = text_selector()
    whole = kept = 0
    losses: Counter[str] = Counter()
    stated = [q for q in questions if q.id in drafts and not q.unanswerable and not q.computed]
    for q in stated:
        article, gold = articles[q.article_id], gold_of(q)
        cands = pool(q, article)
        right = [c for c in cands if judge(c.value, q, gold, c.text, False, c.written)]
        whole += bool(right)
        own = bounded(cands)
        in_bound = [c for c in own if c in right]
        kept += bool(in_bound)
        if not in_bound:
            continue
        got = rank_scored(own, drafts[q.id], model)
        if got.chosen is None:
            losses["abstained"] += 1
        elif got.chosen not in right:
            losses[loss_kind(got.chosen, in_bound[0], article)] += 1
    n = len(stated)
    return {
        "stated": n,
        "whole": whole / n if n else math.nan,
        "bounded": kept / n if n else math.nan,
        "losses": losses,
    }


def figures(run: Run, k: int) -> dict[str, dict[str, float]]:
    """Each method's accuracy (all, stated) and FLOPs against large@1's."""
    names = {
        "text_only": "text-only",
        "small_text0": "small-text@0",
        "small_text": f"small-text@{k}",
        "large_text": "large-text@1",
        "selected": f"small-selected@{k}",
        "pass": f"small-pass@{k}",
        "large": "large@1",
    }
    present = {key: m for key, m in names.items() if run.has(m)}
    split = stated_computed(run.questions, list(present.values())).set_index("method")
    summary = run.summary.set_index("method")
    return {
        key: {
            "all": float(summary.loc[m, "accuracy"]),
            "stated": float(split.loc[m, "stated"]),
            "flops": float(summary.loc[m, "flops_vs_large"]),
        }
        for key, m in present.items()
    }


@command("drafts")
def drafts(
    runs: RunsOpt = OUT, results: ResultsMdOpt = RESULTS_MD, write: WriteOpt = False
) -> None:
    """The article drafts, the small model checks: coverage, each method's accuracy and cost,
    and the ranking loss, from the benchmark runs' own folders (no model)."""
    sets = {}
    for preset in PRESETS:
        folder = runs / preset
        run = evaluation_run(folder) if (folder / "manifest.json").is_file() else None
        if run is None or run.drafts.empty:
            print(f"{preset}: no run with the pools' scores in {folder}; left out")
            continue
        articles, questions = corpus_of(runs, preset)
        cov = coverage_and_loss(run, articles, questions)
        cov["stated_all"] = stated_computed(run.questions, []).attrs["n_stated"]
        sets[preset] = {
            "k": run.manifest.config.k,
            **cov,
            "methods": figures(run, run.manifest.config.k),
        }
    if not sets:
        raise InputError(
            f"no benchmark run folder ({', '.join(PRESETS)}) with the pools' scores (scores.csv)",
            path=runs,
            fix="run factqa bench run PRESET PATH/TO/DATA first, or give --runs their folder",
        )
    fitted = text_selector().fitted
    selector = {key: fitted.get(key) for key in ("questions", "command", "chosen", "ways")}
    selector["unknown_abstains"] = fitted.get("unknown_abstains", True)
    figures_now = {
        "pool_n": POOL_N,
        "sets": {**kept(results, set(sets)), **sets},
        "selector": selector,
    }
    finish(results, measured(SECTION, "factqa bench drafts --write", figures_now), write)


def kept(results_md: Path, present: set[str]) -> dict[str, dict]:  # type: ignore[type-arg]
    """The recorded section's figures for the data sets whose run folder is absent here
    (outputs/ is not committed: a machine without a run keeps the figures measured before,
    until that run is made again), by preset."""
    path = records_dir(results_dir(results_md)) / f"{SECTION}.json"
    before = load(path).figures.get("sets", {}) if path.is_file() else {}
    return {p: before[p] for p in PRESETS if p in before and p not in present}


def line(sets: dict[str, dict]) -> str:  # type: ignore[type-arg]
    """Issue 39's machine-readable line from the figures."""
    pairs = []
    for preset, got in ((p, sets[p]) for p in PRESETS if p in sets):
        key, fig = PRESETS[preset], got["methods"]
        pairs.append(f"text_cov_{key}={got['whole']:.3f}")
        for name in ("text_only", "small_text0", "small_text", "large_text", "large"):
            if name in fig:
                pairs.append(f"{name}_{key}={fig[name]['all']:.3f}")
                if key in STATED_TOO:
                    pairs.append(f"{name}_{key}_stated={fig[name]['stated']:.3f}")
        if "small_text" in fig:
            pairs.append(f"small_text_flops_{key}={fig['small_text']['flops']:.3f}")
    return " ".join(pairs)


@renders(SECTION, "better")
def section(record: Record) -> str:
    """docs/RESULTS.md's `drafts` section from its record; issue 39's line last."""
    f = record.figures
    head = (
        "| data set | stated: answerable / all | sampled (pass@k) | bounded pool | whole pool "
        "| text-only "
        "| small-text@0 | small-text@k | large-text@1 | small-selected@k | large@1 "
        "| small-text@0 loss (scale/period/row/entity/abstained) |"
    )
    lines = [head, "| --- |" + " ---: |" * 10 + " --- |"]
    for preset in (p for p in PRESETS if p in f["sets"]):
        cov = f["sets"][preset]
        fig = cov["methods"]

        def cell(key: str, fig: dict = fig) -> str:  # type: ignore[type-arg]
            if key not in fig:
                return "—"
            m = fig[key]
            return f"{m['all']:.3f} / {m['stated']:.3f} ({m['flops']:.2f})"

        losses = "/".join(str(cov["losses"].get(k_, 0)) for k_ in LOSSES)
        sampled = fig["pass"]["stated"] if "pass" in fig else math.nan
        lines.append(
            f"| {preset} (k={cov['k']}) | {cov['stated']} / {cov.get('stated_all', '—')} "
            f"| {sampled:.3f} | {cov['bounded']:.3f} "
            f"| {cov['whole']:.3f} | {cell('text_only')} | {cell('small_text0')} "
            f"| {cell('small_text')} | {cell('large_text')} | {cell('selected')} "
            f"| {cell('large')} | {losses} |"
        )
    table = "\n".join(lines)
    sel, n = f["selector"], f["pool_n"]
    ways = "\n".join(f"| {w} | {m:.3f} |" for w, m in (sel.get("ways") or {}).items())
    sets = ", ".join(f"{n} {c}" for n, c in (sel.get("questions") or {}).items())
    return f"""## The article drafts, the small model checks (issue 39)

Command: `{record.command}` (commit `{record.commit}`, {record.date}; no model: it reads the
benchmark runs' folders, made by `factqa bench run PRESET PATH/TO/DATA` with the pools' scores
on).

Each method's cell: accuracy over all questions / over the stated ones (gold not computed,
unanswerable ones included: the second count of the stated column) (its FLOPs against
large@1's on the same questions, from the run's own counters). Coverage columns are over the
stated answerable questions (the first count): the bounded pool (N={n}) holds the gold, the
whole pool holds it; the sampled column is small-pass@k over all the stated ones. The loss column
counts, where the bounded pool held the gold, what small-text@0 gave instead.

{table}

**The text selector** (small-text@0's ranking; small-text@k adds the shipped selector's
sample terms) was chosen on the fitting sets only ({sets} questions; `{sel.get("command") or ""}`):
the mean over the sets of the question accuracy, 5-fold cross-validated grouped by article, of
each way of ranking the bounded pool. Chosen: `{sel.get("chosen") or ""}` (abstaining where
"unknown" is more probable than every candidate: {sel["unknown_abstains"]}).

| way | mean accuracy (cross-validated) |
| --- | ---: |
{ways}

`{line(f["sets"])}`"""

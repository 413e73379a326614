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
import re
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
    write_section,
)
from experiment.bench.looks import evaluation_run
from experiment.evaluate.drafts import SMALL, Drafts, rank_scored, text_selector
from experiment.evaluate.judge import gold_of, judge
from experiment.evaluate.pool import POOL_N, bounded, pool
from experiment.report.analysis import stated_computed
from experiment.report.markdown import section_text
from experiment.report.run import Run

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
    rows, pairs = [], []
    for preset, key in PRESETS.items():
        folder = runs / preset
        run = evaluation_run(folder) if (folder / "manifest.json").is_file() else None
        if run is None or run.drafts.empty:
            print(f"{preset}: no run with the pools' scores in {folder}; left out")
            continue
        k = run.manifest.config.k
        articles, questions = corpus_of(runs, preset)
        cov = coverage_and_loss(run, articles, questions)
        cov["stated_all"] = stated_computed(run.questions, []).attrs["n_stated"]
        fig = figures(run, k)
        rows.append((preset, k, cov, fig))
        pairs.append(f"text_cov_{key}={cov['whole']:.3f}")
        for name, line_key in (
            ("text_only", "text_only"),
            ("small_text0", "small_text0"),
            ("small_text", "small_text"),
            ("large_text", "large_text"),
            ("large", "large"),
        ):
            if name in fig:
                pairs.append(f"{line_key}_{key}={fig[name]['all']:.3f}")
                if key in STATED_TOO:
                    pairs.append(f"{line_key}_{key}_stated={fig[name]['stated']:.3f}")
        if "small_text" in fig:
            pairs.append(f"small_text_flops_{key}={fig['small_text']['flops']:.3f}")
    if not rows:
        raise InputError(
            f"no benchmark run folder ({', '.join(PRESETS)}) with the pools' scores (scores.csv)",
            path=runs,
            fix="run factqa bench run PRESET PATH/TO/DATA first, or give --runs their folder",
        )
    present = {preset for preset, *_ in rows}
    kept_rows, kept_pairs = kept(section_text(results, "drafts"), present)
    text = section(rows, " ".join(pairs + kept_pairs), kept_rows)
    print(text)
    write_section(results, "drafts", text, write)


def _data_set_of(pair: str) -> str:
    """The data set a line pair (`large_squad_v2=0.690`) is about: its longest key suffix."""
    name = pair.split("=", 1)[0].removesuffix("_stated")
    return max((k for k in PRESETS.values() if name.endswith(f"_{k}")), key=len, default="")


def kept(previous: str, present: set[str]) -> tuple[dict[str, str], list[str]]:
    """The table rows and line pairs that the recorded section holds for the data sets whose
    run folder is absent here (outputs/ is not committed: a machine without a run keeps the
    figures measured before, until that run is made again), by preset."""
    absent = {preset: key for preset, key in PRESETS.items() if preset not in present}
    rows = {
        preset: line
        for line in previous.splitlines()
        for preset in absent
        if line.startswith(f"| {preset} (k=")
    }
    recorded = re.findall(r"^`(text_cov_.*)`$", previous, flags=re.MULTILINE)
    pairs = [
        p for p in (recorded[-1].split() if recorded else []) if _data_set_of(p) in absent.values()
    ]
    return rows, pairs


def section(rows: list, line: str, kept_rows: dict[str, str]) -> str:  # type: ignore[type-arg]
    head = (
        "| data set | stated: answerable / all | sampled (pass@k) | bounded pool | whole pool "
        "| text-only "
        "| small-text@0 | small-text@k | large-text@1 | small-selected@k | large@1 "
        "| small-text@0 loss (scale/period/row/entity/abstained) |"
    )
    lines = [head, "| --- |" + " ---: |" * 10 + " --- |"]
    made: dict[str, str] = dict(kept_rows)
    for preset, k, cov, fig in rows:

        def cell(key: str, fig: dict = fig) -> str:  # type: ignore[type-arg]
            if key not in fig:
                return "—"
            f = fig[key]
            return f"{f['all']:.3f} / {f['stated']:.3f} ({f['flops']:.2f})"

        losses = "/".join(str(cov["losses"][k_]) for k_ in LOSSES)
        sampled = fig["pass"]["stated"] if "pass" in fig else math.nan
        made[preset] = (
            f"| {preset} (k={k}) | {cov['stated']} / {cov.get('stated_all', '—')} "
            f"| {sampled:.3f} | {cov['bounded']:.3f} "
            f"| {cov['whole']:.3f} | {cell('text_only')} | {cell('small_text0')} "
            f"| {cell('small_text')} | {cell('large_text')} | {cell('selected')} "
            f"| {cell('large')} | {losses} |"
        )
    lines += [made[preset] for preset in PRESETS if preset in made]
    table = "\n".join(lines)
    fitted = text_selector().fitted
    ways = "\n".join(f"| {w} | {m:.3f} |" for w, m in fitted.get("ways", {}).items())
    sets = ", ".join(f"{n} {c}" for n, c in fitted.get("questions", {}).items())
    return f"""## The article drafts, the small model checks (issue 39)

Command: `factqa bench drafts --write` (no model: it reads the benchmark runs' folders,
made by `factqa bench run PRESET PATH/TO/DATA` with the pools' scores on).

Each method's cell: accuracy over all questions / over the stated ones (gold not computed,
unanswerable ones included: the second count of the stated column) (its FLOPs against
large@1's on the same questions, from the run's own counters). Coverage columns are over the
stated answerable questions (the first count): the bounded pool (N={POOL_N}) holds the gold, the
whole pool holds it; the sampled column is small-pass@k over all the stated ones. The loss column
counts, where the bounded pool held the gold, what small-text@0 gave instead.

{table}

**The text selector** (small-text@0's ranking; small-text@k adds the shipped selector's
sample terms) was chosen on the fitting sets only ({sets} questions; `{fitted.get("command", "")}`):
the mean over the sets of the question accuracy, 5-fold cross-validated grouped by article, of
each way of ranking the bounded pool. Chosen: `{fitted.get("chosen", "")}` (abstaining where
"unknown" is more probable than every candidate: {fitted.get("unknown_abstains", True)}).

| way | mean accuracy (cross-validated) |
| --- | ---: |
{ways}

`{line}`"""

"""Coverage of the computed proposals (issue 40): how often the calculations the article drafts
hold the gold of a computed question, and what `text-derived` (the first of them) answers; with
run folders, what the models that score the proposals answer. No model runs.

    factqa bench proposals PATH/TO/tatqa_dataset_dev.json PATH/TO/drop_dev.jsonl.gz
                           [--drop-sample N] [--fit-only] [--write]
                           [--run tatqa-eval=RUN] [--run drop-eval=RUN] [--run bundled=RUN]

Data sets are read where they are (imported into a temporary folder, never into the project),
every question of each part:
- **fitting halves** (every choice is made here): TAT-QA dev's fitting half and DROP dev's
  fitting half (`importers/split.py`);
- **evaluation parts** (reported, nothing refitted): TAT-QA dev's evaluation part, all of its
  arithmetic questions, and DROP dev's evaluation half.

Per part, over its computed questions (TAT-QA: `answer_type` arithmetic; DROP: `computed`, no
gold stated in the passage) whose wording asks for a computation or not: the share whose gold is
among all proposals (`evaluate/proposals.propose`), among the kept top N, ranked first (=
`text-derived`'s accuracy on them, run through the registry); the share whose wording asks for
no computation (`asks_computation`: no proposal is built); a candidate is the gold by
`judge.judge`, as `text-derived` gives it (`proposals.as_answer`).

Where the gold was proposed and not first, the loss, comparing the first proposal with the best
ranked gold one: `operation` (another operation), `row` (operands of another line: a table row
or column, a sentence), `period` (the same line, other operands), `sign` (the same operands in
the other order). Where nothing proposed holds the gold: `scale` (a proposal holds it at a
factor of 1000 or a million: the data set's own scale beside a table that states none),
`unasked` (the wording asks for no computation), `missed` (the rest).

N is fitted on the fitting halves: the smallest N at which every fitting half keeps the gold for
`COVERAGE_SHARE` of the computed questions all its proposals do (the curves are printed).

**The models** (`--run PART=RUN`, a run folder made with `factqa bench run PRESET DATA
--prompt auto`: `tatqa-dev` for `tatqa-eval`, `drop` for `drop-eval`, `bundled`): over the
run's computed questions (its `computed` column, as `bench run`'s `*_computed_*` and
`tatqa_arith_*` figures), the accuracy of large@1, text-derived, small-text-derived@k and
large-text-derived@1, and small-text-derived@k's FLOPs over large@1's on the questions it
answers for (those `auto` routes to the calculation prompt: it pays nothing elsewhere, so its
FLOPs are the summary's, and large@1's are its answers' on the same questions, attempts.csv),
and its verdict against large@1 on the computed questions by the rule every method table uses
(`summary.verdict`: the paired interval over clusters and the exact McNemar test; +wins/-losses),
and against text-derived (no model) on the same questions: what the small model adds.
A run's questions are its preset's sample, not the whole part the coverage is measured on.

`--write` rewrites the `proposals` section of docs/RESULTS.md (the table and the line).
"""

from __future__ import annotations

import contextlib
import math
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import typer

from experiment.base.errors import ConfigError
from experiment.base.types import Article, Question
from experiment.bench.analyse.pool_coverage import fit_n
from experiment.bench.app import command
from experiment.bench.harness import RESULTS_MD, ResultsMdOpt, WriteOpt, every_nth, finish
from experiment.bench.looks import evaluation_run
from experiment.bench.sections import Record, renders
from experiment.bench.sections import measured as measured_record
from experiment.corpus import load_articles, load_questions
from experiment.evaluate import proposals as P
from experiment.evaluate.judge import Gold, gold_of, judge
from experiment.evaluate.methods import (
    LARGE_1,
    LARGE_TEXT_DERIVED,
    SMALL_TEXT_DERIVED,
    TEXT_DERIVED,
)
from experiment.evaluate.proposal_pool import is_computed
from experiment.evaluate.proposals import KEEP_N, MAX_PROPOSALS, Proposal, as_answer, propose
from experiment.evaluate.question_samples import QuestionSamples
from experiment.evaluate.summary import paired
from experiment.importers.service import import_dataset
from experiment.report.analysis import stated_computed
from experiment.report.run import Run
from experiment.values.canonical import Quantity
from experiment.values.question_kind import asks_computation

SECTION = "proposals"
COVERAGE_SHARE = 0.95
PARTS = [  # name, format, half, line key
    ("tatqa-fit", "tatqa", "fit", ""),
    ("drop-fit", "drop", "fit", ""),
    ("tatqa-eval", "tatqa", "eval", "tatqa_arith"),
    ("drop-eval", "drop", "eval", "drop_computed"),
]
LOSSES = ("operation", "row", "period", "sign")
MISSES = ("scale", "unasked", "missed")
RUN_KEYS = {
    "drop-eval": "drop_computed",
    "tatqa-eval": "tatqa_arith",
    "bundled": "bundled_computed",
}


@dataclass
class Row:
    """One computed question: the rank of its first gold proposal (None: none), the number of
    proposals, text-derived's verdict, why the gold was not first or not proposed."""

    asked: bool
    gold_rank: int | None
    size: int
    text_derived: bool
    loss: str = ""


@dataclass
class PartResult:
    name: str
    rows: list[Row] = field(default_factory=list)
    seconds: float = 0.0

    def covered(self, n: int | None = None) -> float:
        hit = [r for r in self.rows if r.gold_rank is not None and (n is None or r.gold_rank < n)]
        return len(hit) / len(self.rows) if self.rows else math.nan

    def accuracy(self) -> float:
        return sum(r.text_derived for r in self.rows) / len(self.rows) if self.rows else math.nan


@dataclass
class ModelResult:
    """A run's computed questions: how many, each method's accuracy on them (by its
    registered family: `large`, `text-derived`, `small-text-derived`, `large-text-derived`),
    and small-text-derived@k's FLOPs over large@1's where it answers (None: unknown)."""

    run: str
    k: int
    n: int
    accuracy: dict[str, float]
    flops_ratio: float | None
    verdict: str = ""  # small-text-derived@k against large@1 on the computed questions
    over_text: str = ""  # small-text-derived@k against text-derived (no model) on the same


def model_result(run_dir: Path) -> ModelResult:
    """The models' figures of a run folder (module docstring)."""
    run = evaluation_run(run_dir)
    k = run.k
    names = {
        "large": LARGE_1.name(k),
        "text-derived": TEXT_DERIVED.name(k),
        "small-text-derived": SMALL_TEXT_DERIVED.name(k),
        "large-text-derived": LARGE_TEXT_DERIVED.name(k),
    }
    present = {key: m for key, m in names.items() if run.has(m)}
    split = stated_computed(run.questions, list(present.values())).set_index("method")
    accuracy = {key: float(split.loc[m, "computed"]) for key, m in present.items()}
    return ModelResult(
        run_dir.name,
        k,
        split.attrs["n_computed"],
        accuracy,
        _flops_ratio(run, names),
        _verdict(run.questions, present.get("small-text-derived"), present.get("large")),
        _verdict(run.questions, present.get("small-text-derived"), present.get("text-derived")),
    )


def _verdict(q: pd.DataFrame, mine: str | None, other: str | None) -> str:
    """`summary.paired`'s verdict of `mine` against `other` on the computed questions: the
    paired interval over clusters and the exact McNemar test, as every method table's; "" without
    both methods or a `computed` column."""
    if mine is None or other is None or "computed" not in q:
        return ""
    on = q[q["computed"].astype(bool)]
    if on.empty:
        return ""
    a, b = list(on[f"{mine}.correct"].astype(bool)), list(on[f"{other}.correct"].astype(bool))
    vs = paired(a, b, list(on["cluster"].astype(str)))
    return f"{vs.verdict} (+{vs.wins}/-{vs.losses})"


def _flops_ratio(run: Run, names: dict[str, str]) -> float | None:
    """small-text-derived@k's FLOPs over large@1's on the questions it answers for."""
    if not run.has(names["small-text-derived"]):
        return None
    prompt = run.manifest.config.prompt
    q = run.questions
    routed = {
        row.question_id
        for row in q.itertuples()
        if is_computed(
            Question(row.question_id, row.article_id, row.question, (), row.kind), prompt
        )
    }
    summary = run.summary.set_index("method")
    mine = summary.loc[names["small-text-derived"], "flops"]
    large = run.attempts[(run.attempts.role == "large") & run.attempts.question_id.isin(routed)]
    flops = pd.to_numeric(large.flops, errors="coerce")
    if not routed or flops.isna().any() or not flops.sum() or mine != mine:
        return None
    return float(mine) / float(flops.sum())


def is_gold(p: Proposal, q: Question, gold: Sequence[Gold], article: Article) -> bool:
    s = as_answer(p, q, article)
    return judge(s.value, q, gold, s.attempt.raw_text, False, s.written)


def _scale_kin(p: Proposal, gold: Sequence[Gold]) -> bool:
    for g in gold:
        if not isinstance(g.value, Quantity) or not p.value.low or not g.value.low:
            continue
        ratio = abs(g.value.low / p.value.low)
        if any(math.isclose(ratio, f, rel_tol=1e-6) for f in (1e3, 1e6, 1e9, 1e-3, 1e-6)):
            return True
    return False


def loss_kind(first: Proposal, gold: Proposal) -> str:
    """What the rank put first instead of the gold proposal (module docstring)."""
    if first.operation != gold.operation:
        return "operation"
    if first.lines != gold.lines:
        return "row"
    if {o.span for o in first.operands} != {o.span for o in gold.operands}:
        return "period"
    return "sign"


def measure(name: str, articles: dict[str, Article], questions: Sequence[Question]) -> PartResult:
    out = PartResult(name)
    start = time.process_time()
    for q in questions:
        article = articles[q.article_id]
        gold = gold_of(q)
        proposals = propose(q.text, article.text)
        right = [i for i, p in enumerate(proposals) if is_gold(p, q, gold, article)]
        row = Row(
            asks_computation(q.text),
            right[0] if right else None,
            len(proposals),
            TEXT_DERIVED.run(QuestionSamples(q, [], None, 1, article)).correct,
        )
        if right and right[0] > 0:
            row.loss = loss_kind(proposals[0], proposals[right[0]])
        elif not right:
            if not row.asked:
                row.loss = "unasked"
            elif any(_scale_kin(p, gold) for p in proposals):
                row.loss = "scale"
            else:
                row.loss = "missed"
        out.rows.append(row)
    out.seconds = time.process_time() - start
    return out


def computed_questions(fmt: str, questions: Sequence[Question]) -> list[Question]:
    if fmt == "tatqa":
        return [q for q in questions if q.computed and "arithmetic" in q.notes]
    return [q for q in questions if q.computed and q.kind == "figure"]


def load_part(
    fmt: str, half: str, source: Path, tmp: Path, sample: int | None
) -> tuple[dict[str, Article], list[Question]]:
    imp = import_dataset(fmt, source, tmp / f"{fmt}-{half}", None, 0, None, True, half)  # type: ignore[arg-type]
    articles = load_articles(imp.articles)
    return articles, every_nth(
        computed_questions(fmt, load_questions(imp.questions, articles)), sample
    )


MODEL_COLUMNS = ("large", "text-derived", "small-text-derived", "large-text-derived")


def part_figures(r: PartResult, n: int = KEEP_N) -> dict[str, Any]:
    """One part's figures for the record: its computed questions, the share that asks a
    computation, the coverage of every proposal and of the top `n`, text-derived's accuracy,
    the mean proposals, and why the gold was not first or not proposed."""
    losses = Counter(row.loss for row in r.rows if row.loss)
    rows = len(r.rows)
    return {
        "name": r.name,
        "computed": rows,
        "asked": sum(row.asked for row in r.rows) / rows if rows else math.nan,
        "covered": r.covered(),
        "covered_kept": r.covered(n),
        "accuracy": r.accuracy(),
        "size": sum(row.size for row in r.rows) / rows if rows else math.nan,
        "losses": {k: losses[k] for k in (*LOSSES, *MISSES)},
        "seconds": r.seconds,
    }


def table(
    parts: Sequence[dict[str, Any]], n: int, models: dict[str, dict[str, Any]] | None = None
) -> str:
    """The coverage table of the parts' figures (`part_figures`); with `models` (by part, each
    a `ModelResult` as a dict), the runs' columns: the run's computed questions, large@1,
    text-derived, small-text-derived@k and large-text-derived@1 on them, and
    small-text-derived@k's FLOPs over large@1's ("—" where a part has no run)."""
    models = models or {}
    head = (
        f"| part | computed | asks a computation | all proposals | kept top {n} | ranked first "
        "(text-derived) | mean proposals | not first: operation/row/period/sign "
        "| not proposed: scale/unasked/missed |"
    )
    rule = "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
    if models:
        k = next(iter(models.values()))["k"]
        head += (
            f" run: computed | large@1 | text-derived | small-text-derived@{k} "
            f"| large-text-derived@1 | FLOPs / large@1 | small-text-derived@{k} against large@1 "
            "| against text-derived |"
        )
        rule += " ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
    lines = [head, rule]
    for s in parts:
        lost = s["losses"]
        lines.append(
            f"| {s['name']} | {s['computed']} | {s['asked']:.1%} | {s['covered']:.1%} "
            f"| {s['covered_kept']:.1%} | {s['accuracy']:.1%} | {s['size']:.1f} "
            f"| {'/'.join(str(lost[k]) for k in LOSSES)} "
            f"| {'/'.join(str(lost[k]) for k in MISSES)} |" + _model_cells(models, s["name"])
        )
    for part in (p for p in models if p not in {s["name"] for s in parts}):
        lines.append(f"| {part} |" + " — |" * 8 + _model_cells(models, part))
    return "\n".join(lines)


def _model_cells(models: dict[str, dict[str, Any]], part: str) -> str:
    if not models:
        return ""
    m = models.get(part)
    if m is None:
        return " — |" * (len(MODEL_COLUMNS) + 4)
    acc, ratio = m["accuracy"], m["flops_ratio"]
    cells = [str(m["n"])]
    cells += [f"{acc[c]:.3f}" if c in acc else "—" for c in MODEL_COLUMNS]
    cells.append("—" if ratio is None else f"{ratio:.2f}x")
    cells += [m["verdict"] or "—", m["over_text"] or "—"]
    return "".join(f" {c} |" for c in cells)


def model_pairs(models: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """Issue 40's keys that need a model, by part's key: `*_large`, `*_text_derived` (over the
    run's questions, beside the others), `*_small_text_derived`; and
    `computed_flops_ratio_tatqa`."""
    out: dict[str, list[str]] = {}
    for part, m in models.items():
        key, acc = RUN_KEYS[part], m["accuracy"]
        pairs = [
            f"{key}_{name}={acc[family]:.3f}"
            for name, family in (
                ("large", "large"),
                ("text_derived", "text-derived"),
                ("small_text_derived", "small-text-derived"),
            )
            if family in acc and acc[family] == acc[family]
        ]
        if part == "tatqa-eval" and m["flops_ratio"] is not None:
            pairs.append(f"computed_flops_ratio_tatqa={m['flops_ratio']:.3f}")
        out[key] = pairs
    return out


@command("proposals")
def proposals(
    tatqa: Annotated[Path, typer.Argument(help="TAT-QA dev (tatqa_dataset_dev.json).")],
    drop: Annotated[Path, typer.Argument(help="DROP dev (drop_dev.jsonl.gz).")],
    drop_sample: Annotated[
        int | None, typer.Option(help="Every n-th DROP computed question, this many.", min=1)
    ] = None,
    fit_only: Annotated[bool, typer.Option("--fit-only", help="The fitting halves only.")] = False,
    run: Annotated[
        list[str] | None,
        typer.Option(
            metavar="PART=RUN",
            help="A run folder made with `factqa bench run PRESET DATA --prompt auto`, for the "
            f"part PART ({', '.join(RUN_KEYS)}); repeatable.",
        ),
    ] = None,
    results: ResultsMdOpt = RESULTS_MD,
    write: WriteOpt = False,
    without: Annotated[
        str | None,
        typer.Option(
            help=f"Leave one prose rule out, to measure what it adds ({', '.join(RULES)}); "
            "with --fit-only: the rule's own evidence on the fitting halves."
        ),
    ] = None,
) -> None:
    """Coverage of the computed proposals: how often the calculations the article drafts hold
    the gold of a computed question, what `text-derived` answers; with --run, what the models
    that score the proposals answer (no model runs)."""
    models: dict[str, ModelResult] = {}
    for given in run or []:
        part, _, folder = given.partition("=")
        if part not in RUN_KEYS or not folder:
            raise ConfigError(
                f"--run {given}: give PART=RUN, PART one of {', '.join(RUN_KEYS)}", field="run"
            )
        models[part] = model_result(Path(folder))
    sources = {"tatqa": tatqa, "drop": drop}
    measured: list[PartResult] = []
    if without is not None and without not in RULES:
        raise ConfigError(f"--without takes one of {', '.join(RULES)}", field="without")
    if without is not None and write:
        raise ConfigError("--write records the shipped rules, not a rule left out", field="write")
    with tempfile.TemporaryDirectory() as tmp, left_out(without):
        for name, fmt, half, _ in PARTS:
            if fit_only and half == "eval":
                continue
            sample = drop_sample if fmt == "drop" else None
            measured.append(measure(name, *load_part(fmt, half, sources[fmt], Path(tmp), sample)))
    fitting = [r for r in measured if r.name.endswith("-fit")]
    n, curves = fit_n(fitting, COVERAGE_SHARE)
    print("coverage of the computed questions against N (fitting halves):")
    for name, curve in curves.items():
        print(f"  {name}: " + " ".join(f"{k}:{c:.3f}" for k, c in enumerate(curve, 1)))
    print(f"at most {MAX_PROPOSALS} proposals a question")
    print(" ".join(f"{r.name}: {r.seconds:.0f} s CPU" for r in measured))
    if write and (fit_only or drop_sample):
        raise ConfigError("--write needs every part, whole", field="write")
    figures = {
        "keep_n": KEEP_N,
        "fitted_n": n,
        "coverage_share": COVERAGE_SHARE,
        "parts": [part_figures(r) for r in measured],
        "models": {part: asdict(m) for part, m in models.items()},
    }
    command_line = (
        "factqa bench proposals PATH/TO/tatqa_dataset_dev.json PATH/TO/drop_dev.jsonl.gz --write"
        + (" --run PART=RUN ..." if models else "")
    )
    finish(results, measured_record(SECTION, command_line, figures), write)


RULES = ("noun", "qualified", "dated")  # prose rules whose first examples were evaluation ones


@contextlib.contextmanager
def left_out(rule: str | None) -> Iterator[None]:
    """The proposals without one of `RULES` while inside: `noun` (W_NOUN at 0), `qualified` (a
    qualified prose figure, "roughly 41,500", is no operand) or `dated` (a date's year is no
    operand)."""
    saved = (P.W_NOUN, P._prose_figure, P._dated_year)
    if rule == "noun":
        P.W_NOUN = 0.0
    elif rule == "qualified":
        shipped = P._prose_figure

        def prose(text: str, values: Sequence[object], asked: P.Asked) -> P.Figure:
            got = shipped(text, values, asked)
            first = next((v for v in values if isinstance(v, Quantity)), None)
            return None if got is not None and first is not None and first.qualifier else got

        P._prose_figure = prose
    elif rule == "dated":
        P._dated_year = lambda text, values: None
    forget = (P._lines_of.cache_clear, P._proposals.cache_clear)
    for clear in forget:
        clear()
    try:
        yield
    finally:
        P.W_NOUN, P._prose_figure, P._dated_year = saved
        for clear in forget:
            clear()


def key_line(parts: Sequence[dict[str, Any]], models: dict[str, dict[str, Any]]) -> str:
    """Issue 40's line, in its order: per part (DROP, TAT-QA, the bundled corpus) large@1,
    text-derived, small-text-derived@k (the three over the run's computed questions where a run
    is given: one denominator) and the coverage over the whole part where measured; then the
    FLOPs ratio."""
    keys = {name: key for name, _, _, key in PARTS if key}
    free = {keys[r["name"]]: r for r in parts if r["name"] in keys}
    given = model_pairs(models)
    pairs: list[str] = []
    for key in ("drop_computed", "tatqa_arith", "bundled_computed"):
        own = [p for p in given.get(key, []) if not p.startswith("computed_flops")]
        large = [p for p in own if p.startswith(f"{key}_large=")]
        text = [p for p in own if p.startswith(f"{key}_text_derived=")]
        small = [p for p in own if p.startswith(f"{key}_small_text_derived=")]
        r = free.get(key)
        pairs += large
        if r is None:  # issue 40 names text-derived where the part is measured
            text = []
        elif not text:  # no run: over the whole part (the table's first column)
            text = [f"{key}_text_derived={r['accuracy']:.3f}"]
        pairs += text + small
        pairs += [f"{key}_cov={r['covered']:.3f}"] if r is not None else []
    pairs += [p for v in given.values() for p in v if p.startswith("computed_flops")]
    return " ".join(pairs)


def kept_note(f: dict[str, Any]) -> str:
    """What the shipped bound keeps on the fitting halves, against every proposal and the 95 %
    rule's N."""
    fitting = [p for p in f["parts"] if p["name"].endswith("-fit")]
    held = "; ".join(f"{p['name']} {p['covered_kept']:.1%} of {p['covered']:.1%}" for p in fitting)
    return (
        f"The models score the top `proposals.KEEP_N` = {f['keep_n']}, set by hand for the "
        f"scoring cost; on the fitting halves it keeps the gold of {held} (every proposal). The "
        f"rule that fits the stated pool's N ({f['coverage_share']:.0%} of what every proposal "
        f"covers, on every part) would score {f['fitted_n']}."
    )


@renders(SECTION, "better")
def section(record: Record) -> str:
    """docs/RESULTS.md's `proposals` section from its record; issue 40's line last."""
    f = record.figures
    said = (
        "Issue 40's keys, below the table, give large@1, text-derived and small-text-derived@k "
        "from the runs given, all three over each run's computed questions (one denominator); "
        "`*_cov` is over the whole part, as the table's coverage columns."
        if f["models"]
        else "Issue 40's keys below the table need no model (`*_large`, `*_small_text_derived` "
        "and `computed_flops_ratio_tatqa` come from run folders: `--run PART=RUN`)."
    )
    return f"""## Computed answers drafted from the text (issue 40)

Command: `{record.command}` (no model runs; commit `{record.commit}`, {record.date}). Every \
computed question of each part (TAT-QA: arithmetic; DROP: computed, figure); the columns are \
described in experiment/bench/analyse/proposals.py. {kept_note(f)} {said}

{table(f["parts"], f["keep_n"], f["models"])}

`{key_line(f["parts"], f["models"])}`"""

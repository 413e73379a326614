"""Coverage of the pool (issue 39): how often the article's own candidates hold the gold, and
what the article alone answers (`text-only`). No model runs.

    factqa bench pool-coverage [--squad-v1 dev-v1.1.json] [--squad-v2 dev-v2.0.json]
                               [--drop drop_dev.jsonl.gz] [--tatqa tatqa_dataset_dev.json]
                               [--write]

Data sets are read where they are (imported into a temporary folder, never copied into the
project) the way `factqa bench run` and experiment/bench/fit/sets.py import them (seed 0):
- **fitting halves** (every choice is made here): SQuAD v1.1 dev, 400 questions, and SQuAD v2.0
  dev, 50 answerable + 100 unanswerable, of the fitting titles; TAT-QA dev's fitting half, 120
  stated + 40 unanswerable (`experiment.bench.fit.sets`);
- **evaluation halves** (reported, nothing refitted): `factqa bench run`'s presets (SQuAD v1.1
  300, SQuAD v2.0 100 + 100, DROP 200, TAT-QA 200, of the evaluation titles or part) and the
  bundled corpus (articles/ + questions/).

Per set, over its **stated** questions (answerable, gold not computed: `Question.computed`, as
`report/analysis.stated_computed` splits them): the share whose gold is in the whole pool
(`evaluate/pool.pool`, the text's candidates alone), in the pool bounded to N by the model-free
rank (`pool.bounded`), and text-only's accuracy (the registered method, run through the
registry with the article and no model); text-only's accuracy over all the set's questions too
(an abstention is right on an unanswerable one). A candidate is the gold by `judge.judge`.

Fitted on the fitting halves' questions together:
- **N**: the smallest N at which every fitting set's bounded pool holds the gold for at least
  98 % of the stated questions its whole pool does (the coverage-against-N curves are printed);
- **text-only's threshold**: the top score under which it abstains, maximising the mean of the
  fitting sets' accuracies over all their questions (each set weighs the same, as the
  selector's threshold was chosen).
The script prints the fitted values and whether `pool.POOL_N` and `pool.TEXT_ONLY_THRESHOLD`
hold them.

**Ranking loss**: where the gold is in the pool and the rank puts another candidate first, what
it picked instead, by a heuristic on the two candidates' best spans: `scale` (the same figure at
another scale: the ratio of the two is a power of 1000, or one's written figure equals the
other); `period` (another column of the gold's table row, or a prose context naming another
period than the gold's); `row` (another row of the gold's table column); `entity` (anything
else: another figure of another thing).

`--write` saves the section's record (`results/bench/pool-coverage.json`) and writes
docs/RESULTS.md again (`factqa bench report`).
"""

from __future__ import annotations

import math
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Protocol

import typer

from experiment.base.errors import ConfigError
from experiment.base.types import Article, Question
from experiment.bench.app import command
from experiment.bench.fit.sets import SETS, TATQA_SET
from experiment.bench.harness import RESULTS_MD, ResultsMdOpt, WriteOpt, corpus, publish
from experiment.bench.sections import Record, measured, renders
from experiment.evaluate.context import cell_at, context_of
from experiment.evaluate.judge import gold_of, judge
from experiment.evaluate.methods import TEXT_ONLY
from experiment.evaluate.pool import POOL_N, TEXT_ONLY_THRESHOLD, PoolCandidate, pool, ranked
from experiment.evaluate.question_samples import QuestionSamples
from experiment.importers.service import import_dataset
from experiment.values.canonical import Quantity, quantities_equal

# name, format, answerable sample, unanswerable sample, half, TAT-QA's own extras
FIT = [
    ("squad-v1-fit", "squad", SETS[0][1], SETS[0][2], "fit", "squad_v1"),
    ("squad-v2-fit", "squad", SETS[1][1], SETS[1][2], "fit", "squad_v2"),
    ("tatqa-fit", "tatqa", TATQA_SET[1], TATQA_SET[2], "fit", "tatqa"),
]
EVAL = [  # `factqa bench run`'s presets
    ("squad-v1", "squad", 300, None, "eval", "squad_v1"),
    ("squad-v2", "squad", 100, 100, "eval", "squad_v2"),
    ("drop", "drop", 200, None, "eval", "drop"),
    ("tatqa-dev", "tatqa", 200, None, "eval", "tatqa"),
]
COVERAGE_SHARE = 0.98  # N keeps the gold for this share of the questions the whole pool does
MAX_N = 40
TATQA_SETS = ("tatqa-fit", "tatqa-dev")  # the section names their whole pools' misses


@dataclass
class Row:
    """One question: the rank of its gold in the ranked pool (None: not in it), the top score,
    whether it is stated and unanswerable, text-only's verdict, the ranking loss's kind."""

    stated: bool
    unanswerable: bool
    gold_rank: int | None
    top_score: float | None
    size: int
    text_only: bool = False
    loss: str = ""


@dataclass
class SetResult:
    name: str
    rows: list[Row] = field(default_factory=list)

    @property
    def stated(self) -> list[Row]:
        return [r for r in self.rows if r.stated]

    def covered(self, n: int | None = None) -> float:
        """The share of stated questions whose gold is in the top `n` (None: the whole pool)."""
        s = self.stated
        hit = [r for r in s if r.gold_rank is not None and (n is None or r.gold_rank < n)]
        return len(hit) / len(s) if s else math.nan

    def accuracy(self, threshold: float, stated: bool) -> float:
        """text-only's accuracy at `threshold` from the recorded ranks (fitting)."""
        rows = self.stated if stated else self.rows
        right = [_right_at(r, threshold) for r in rows]
        return sum(right) / len(right) if right else math.nan


def _right_at(r: Row, threshold: float) -> bool:
    answers = r.top_score is not None and r.top_score >= threshold
    if r.unanswerable:
        return not answers
    return answers and r.gold_rank == 0


def _is_gold(c: PoolCandidate, q: Question, gold: Sequence) -> bool:  # type: ignore[type-arg]
    return judge(c.value, q, gold, c.text, False, c.written)


def _scale_kin(a: PoolCandidate, b: PoolCandidate) -> bool:
    """The same figure at another scale (ranking loss `scale`)."""
    if not isinstance(a.value, Quantity) or not isinstance(b.value, Quantity):
        return False
    for x in (a.written, a.value):
        for y in (b.written, b.value):
            if isinstance(x, Quantity) and isinstance(y, Quantity) and quantities_equal(x, y):
                return True
    if a.value.low and b.value.low:
        ratio = abs(a.value.low / b.value.low)
        return any(math.isclose(ratio, 1000.0**e, rel_tol=1e-6) for e in (-3, -2, -1, 1, 2, 3))
    return False


def _periods(text: str, c: PoolCandidate) -> set[str]:
    return {a.value for a in context_of(text, c.span.start, c.span.end, c.sentence).period}


def loss_kind(picked: PoolCandidate, gold: PoolCandidate, article: Article) -> str:
    """What the rank picked instead of the gold (module docstring, "Ranking loss")."""
    if _scale_kin(picked, gold):
        return "scale"
    text = article.text
    pc = cell_at(text, picked.span.start, picked.span.end)
    gc = cell_at(text, gold.span.start, gold.span.end)
    if pc and gc and pc[0] == gc[0]:
        if pc[1].row == gc[1].row:
            return "period"
        if pc[1].column == gc[1].column:
            return "row"
        return "entity"
    if not pc and not gc:
        pp, gp = _periods(text, picked), _periods(text, gold)
        if pp and gp and pp != gp:
            return "period"
    return "entity"


def measure(name: str, articles: dict[str, Article], questions: Sequence[Question]) -> SetResult:
    """Every question's pool, ranked, judged; and text-only's answer through the registry."""
    out = SetResult(name)
    for q in questions:
        article = articles[q.article_id]
        gold = gold_of(q)
        ranked_pool = ranked(pool(q, article))
        right = [i for i, (c, _) in enumerate(ranked_pool) if _is_gold(c, q, gold)]
        stated = not q.unanswerable and not q.computed
        row = Row(
            stated,
            q.unanswerable,
            right[0] if right and not q.unanswerable else None,
            ranked_pool[0][1] if ranked_pool else None,
            len(ranked_pool),
        )
        qs = QuestionSamples(q, [], None, 1, article)
        row.text_only = TEXT_ONLY.run(qs).correct
        if stated and row.gold_rank:  # in the pool, not first
            row.loss = loss_kind(ranked_pool[0][0], ranked_pool[row.gold_rank][0], article)
        out.rows.append(row)
    return out


def load_set(
    spec: tuple[str, str, int, int | None, str, str], source: Path, tmp: Path
) -> tuple[dict[str, Article], list[Question]]:
    name, fmt, n, unans, half, _ = spec
    tatqa_fit = fmt == "tatqa" and half == "fit"
    imp = import_dataset(
        fmt,
        source,
        tmp / name,
        n,
        0,
        unans,
        True,
        half,  # type: ignore[arg-type]
        other_years=tatqa_fit,
        stated_only=tatqa_fit,
    )
    return corpus(imp.articles, imp.questions)


class Covers(Protocol):
    """A set's coverage: the share of its questions whose gold is in its top `n` candidates
    (None: all of them); `bench proposals`'s parts have it too."""

    name: str

    def covered(self, n: int | None = None) -> float: ...


def fit_n(
    results: Sequence[Covers], share: float = COVERAGE_SHARE
) -> tuple[int, dict[str, list[float]]]:
    """The fitted N (the smallest at which every fitting set's bounded pool holds the gold for
    `share` of the questions its whole pool does) and each set's coverage-against-N curve
    (N = 1..MAX_N)."""
    curves = {s.name: [s.covered(n) for n in range(1, MAX_N + 1)] for s in results}

    def enough(n: int) -> bool:
        return all(s.covered(n) >= share * s.covered() - 1e-12 for s in results)

    return next((n for n in range(1, MAX_N + 1) if enough(n)), MAX_N), curves


def mean_accuracy(results: Sequence[SetResult], threshold: float) -> float:
    """text-only's accuracy over all questions at `threshold`, the mean over `results`."""
    return sum(s.accuracy(threshold, stated=False) for s in results) / len(results)


def fit_threshold(results: Sequence[SetResult]) -> tuple[float, float]:
    """text-only's threshold: the lowest top score at which the mean of the sets' accuracies
    (all questions) is highest, and that mean."""
    scores = sorted({r.top_score for s in results for r in s.rows if r.top_score is not None})
    best = max([0.0, *scores, math.inf], key=lambda t: (mean_accuracy(results, t), -t))
    return best, mean_accuracy(results, best)


def _missed(s: SetResult) -> int:
    return sum(r.gold_rank is None for r in s.stated)


def _mean_size(s: SetResult) -> float:
    return sum(r.size for r in s.stated) / len(s.stated) if s.stated else math.nan


def set_figures(s: SetResult) -> dict[str, Any]:
    """One set's figures as its record keeps them (shares rounded to 6 digits)."""
    losses = Counter(r.loss for r in s.stated if r.loss)
    stated, rows = [r.text_only for r in s.stated], [r.text_only for r in s.rows]
    return {
        "name": s.name,
        "stated": len(s.stated),
        "questions": len(rows),
        "whole_pool": round(s.covered(), 6),
        "bounded_pool": round(s.covered(POOL_N), 6),
        "ranked_first": round(s.covered(1), 6),
        "text_only_stated": round(sum(stated) / len(stated), 6),
        "text_only_all": round(sum(rows) / len(rows), 6),
        "mean_pool": round(_mean_size(s), 6),
        "whole_pool_missed": _missed(s),
        "losses": {k: losses[k] for k in ("scale", "period", "row", "entity")},
    }


def table(sets: Sequence[dict[str, Any]], n: int) -> str:
    """The coverage table over sets' figures (`set_figures`)."""
    lines = [
        f"| data set | stated | whole pool | bounded pool (N={n}) | ranked first "
        "| text-only, stated | text-only, all questions | mean pool "
        "| ranking loss (scale/period/row/entity) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for s in sets:
        loss = "/".join(str(v) for v in s["losses"].values())
        lines.append(
            f"| {s['name']} | {s['stated']} | {s['whole_pool']:.1%} | {s['bounded_pool']:.1%} "
            f"| {s['ranked_first']:.1%} | {s['text_only_stated']:.1%} "
            f"| {s['text_only_all']:.1%} ({s['questions']}) | {s['mean_pool']:.1f} | {loss} |"
        )
    return "\n".join(lines)


LINE_NAMES = {
    "squad-v1": "squad",
    "squad-v2": "squad_v2",
    "drop": "drop",
    "tatqa-dev": "tatqa",
    "bundled": "bundled",
}
STATED_TOO = ("bundled", "tatqa", "drop")  # the sets whose stated questions issue 39 names


def line(evaluation: Sequence[dict[str, Any]]) -> str:
    """Issue 39's machine-readable keys that need no model: `text_cov_X` (the whole pool holds
    the gold, stated questions), `text_only_X` (all questions) and `text_only_X_stated`."""
    pairs = []
    for s in evaluation:
        key = LINE_NAMES[s["name"]]
        pairs.append(f"text_cov_{key}={s['whole_pool']:.3f}")
        pairs.append(f"text_only_{key}={s['text_only_all']:.3f}")
        if key in STATED_TOO:
            pairs.append(f"text_only_{key}_stated={s['text_only_stated']:.3f}")
    return " ".join(pairs)


@command("pool-coverage")
def pool_coverage(
    squad_v1: Annotated[Path | None, typer.Option(help="SQuAD v1.1 dev (dev-v1.1.json).")] = None,
    squad_v2: Annotated[Path | None, typer.Option(help="SQuAD v2.0 dev (dev-v2.0.json).")] = None,
    drop: Annotated[Path | None, typer.Option(help="DROP dev (drop_dev.jsonl.gz).")] = None,
    tatqa: Annotated[Path | None, typer.Option(help="TAT-QA dev (tatqa_dataset_dev.json).")] = None,
    results: ResultsMdOpt = RESULTS_MD,
    write: WriteOpt = False,
) -> None:
    """Coverage of the pool: how often the article's own candidates hold the gold, and what the
    article alone answers (`text-only`); N and text-only's threshold fitted on the fitting halves
    (no model)."""
    sources = {"squad_v1": squad_v1, "squad_v2": squad_v2, "tatqa": tatqa}
    sources["drop"] = drop

    with tempfile.TemporaryDirectory() as tmp:
        fitting = [
            measure(spec[0], *load_set(spec, sources[spec[5]], Path(tmp)))
            for spec in FIT
            if sources[spec[5]] is not None
        ]
        evaluation = [
            measure(spec[0], *load_set(spec, sources[spec[5]], Path(tmp)))
            for spec in EVAL
            if sources[spec[5]] is not None
        ]
    evaluation.append(measure("bundled", *corpus()))

    if fitting:
        n, curves = fit_n(fitting)
        threshold, acc = fit_threshold(fitting)
        print("coverage of the stated questions against N (fitting sets):")
        for name, curve in curves.items():
            print(f"  {name}: " + " ".join(f"{k}:{c:.3f}" for k, c in enumerate(curve, 1)))
        print(f"fitted N = {n} (pool.POOL_N = {POOL_N}: {'holds' if n == POOL_N else 'REFIT'})")
        shipped = mean_accuracy(fitting, TEXT_ONLY_THRESHOLD)
        print(
            f"fitted threshold = {threshold:.5f}, mean accuracy {acc:.4f} (pool."
            f"TEXT_ONLY_THRESHOLD = {TEXT_ONLY_THRESHOLD}: mean accuracy {shipped:.4f}, "
            f"{'holds' if shipped == acc else 'REFIT'})"
        )
        print(table([set_figures(s) for s in fitting], POOL_N))
    print(table([set_figures(s) for s in evaluation], POOL_N))
    print(line([set_figures(s) for s in evaluation]))
    if write:
        if not fitting or not all(sources.values()):
            raise ConfigError(
                "--write needs every data set (the fitting halves and the four)", field="write"
            )
        given = " ".join(
            f"--{opt} PATH/TO/{path.name}"  # type: ignore[union-attr]
            for opt, path in (
                ("squad-v1", squad_v1),
                ("squad-v2", squad_v2),
                ("drop", drop),
                ("tatqa", tatqa),
            )
        )
        command = f"factqa bench pool-coverage {given} --write"
        publish(results, measured(SECTION, command, figures(fitting, evaluation)))


SECTION = "pool-coverage"


def figures(fitting: Sequence[SetResult], evaluation: Sequence[SetResult]) -> dict[str, Any]:
    """What the section shows: the shipped N and threshold, what the fitting halves chose, each
    set's figures (`set_figures`)."""
    n, curves = fit_n(fitting)
    threshold, acc = fit_threshold(fitting)
    return {
        "pool_n": POOL_N,
        "text_only_threshold": TEXT_ONLY_THRESHOLD,
        "fitted_n": n,
        "fitted_threshold": round(threshold, 6),
        "fitted_mean_accuracy": round(acc, 6),
        "fitting_kept_at_n": {name: round(curve[n - 1], 6) for name, curve in curves.items()},
        "fitting": [set_figures(s) for s in fitting],
        "evaluation": [set_figures(s) for s in evaluation],
    }


@renders(SECTION, "better")
def section(record: Record) -> str:
    """docs/RESULTS.md's `pool-coverage` section from its record: the command, what was
    fitted, the table, the line."""
    f = record.figures
    n, pool_n = f["fitted_n"], f["pool_n"]
    at = ", ".join(f"{name} {share:.1%}" for name, share in f["fitting_kept_at_n"].items())
    sets = {s["name"]: s for s in [*f["fitting"], *f["evaluation"]]}
    fit_miss, eval_miss = (
        f"{sets[k]['whole_pool_missed']} of {sets[k]['stated']}" for k in TATQA_SETS
    )
    drop_pool = sets["drop"]["mean_pool"]
    return f"""## The pool: the article's own candidates

Command: `{record.command}` (no model runs; under a minute on 2 CPU cores). Commit \
`{record.commit}`, {record.date}.

For each question the pool is every distinct value of the asked kind the article states \
(`experiment/evaluate/pool.py`; table cells read in their table's scale), here without samples. \
Columns, over the stated questions (answerable, gold not computed): the share whose gold is in \
the whole pool, in the pool bounded to N={pool_n} by the model-free rank (the shipped selector \
without its sample features), and ranked first; text-only's accuracy (the registered method: the \
first candidate, abstaining under {f["text_only_threshold"]}), on stated questions and on all of \
the set's questions (abstaining is right on an unanswerable one; a computed gold is rarely \
stated); the mean pool size; and, where the gold was in the pool but not first, what was ranked \
first instead (`factqa bench pool-coverage --help`: the same figure at another scale, another \
period, another row of the gold's table column, another entity).

Fitted on the fitting halves only (SQuAD v1.1 and v2.0 fitting titles, TAT-QA's fitting half, \
the sizes of `experiment/bench/fit/sets.py`), nothing refitted on the sets below: N={n}, \
the smallest \
at which every fitting set's bounded pool keeps the gold for 98 % of the stated questions its \
whole pool does ({at}); text-only's threshold {f["text_only_threshold"]} (the fitted top score \
{f["fitted_threshold"]:.5f} rounded down, which answers the fitting questions alike: the best \
mean accuracy over the fitting sets' questions, {f["fitted_mean_accuracy"]:.1%}).

{table(f["evaluation"], pool_n)}

Where the whole pool misses on TAT-QA ({fit_miss} fitting, {eval_miss} evaluation questions), \
the gold mostly carries a scale the text never states (the data set's own "thousand" or \
"million" beside a table that states none); the rest are a change's direction that the figure's \
mention does not carry (a gold "decreased X" where the text's mention is "X"), a nil written as \
a dash, and a gold that contradicts its text. DROP's stated questions have the gold in every \
pool, but their passages state many figures of the asked kind ({drop_pool:.1f} a question) and \
the evidence features rarely single out the asked one: its ranking is where a model's check \
must add the most.

Issue 39's keys that need no model (the models' scores of the pool, and so `small_text0_*`, \
`small_text_*`, `large_text_*` and their FLOPs, are in "The article drafts, the small model \
checks", from the benchmark runs: `factqa bench drafts --write`):

`{line(f["evaluation"])}`"""

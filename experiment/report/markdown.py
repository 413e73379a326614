"""Markdown for docs/RESULTS.md and the README: each run or benchmark rewrites only its own
marked section, so results written by different commands live side by side in one file."""

from __future__ import annotations

import math
import shlex
from pathlib import Path
from typing import Any

import pandas as pd

from experiment.base.errors import InputError
from experiment.base.files import atomic_write
from experiment.evaluate.methods import (
    CASCADE_20,
    PASS,
    REFERENCE,
    RULE_PICK,
    SELECTED,
    VERIFIED,
)
from experiment.evaluate.registry import REGISTRY, Method
from experiment.evaluate.selector import fitted_on, learned
from experiment.evaluate.summary import ALPHA, BEATS, LOSES, MIN_CLUSTERS
from experiment.record.manifest import Manifest, RunEntry
from experiment.report.analysis import (
    auroc,
    calibration,
    cost_table,
    gap_closed,
    risk_coverage,
    squad_em_f1,
    stated_computed,
    verifier_cost,
)
from experiment.report.machine import cores_phrase, cpu_phrase
from experiment.report.plots import CURVE_FAMILIES, cost_curves
from experiment.report.results import load_any
from experiment.report.run import Run, load_run
from experiment.report.tables import (
    COLUMNS,
    DIFFERENCE,
    MCNEMAR,
    SHORT,
    markdown_table,
    method_cells,
)

HEADER = "# Results\n\nEvery figure here was measured by the committed command shown with it.\n"


def _results_text(path: Path) -> str:
    """The results file's text; one that is not UTF-8 is an `InputError` naming it (not the run)."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputError(
            f"is not UTF-8 text (byte {e.start} is {e.object[e.start : e.start + 1]!r})",
            path=path,
            fix="save the file as UTF-8, or give another --results-md file",
        ) from None


def section_text(path: Path, name: str) -> str:
    """The text between `<!-- name:start -->` and `<!-- name:end -->` ("" where there is none)."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    text = _results_text(path) if path.exists() else ""
    if start not in text or end not in text.split(start, 1)[1]:
        return ""
    return text.split(start, 1)[1].split(end, 1)[0].strip()


# what the results document generated whole by `factqa bench report` says of itself
GENERATED = "Every figure here is written by `factqa bench report`"


def refuse_generated(path: Path, option: str) -> None:
    """Refuse to write a section into a results file that `factqa bench report` writes whole
    (the project's docs/RESULTS.md): the section would be lost at its next writing."""
    if path.exists() and GENERATED in path.read_text(encoding="utf-8", errors="replace"):
        raise InputError(
            f"{option}: this file is written whole by `factqa bench report` from results/, so a "
            "section written here would be lost",
            path=path,
            fix="record a benchmark run with `factqa bench run PRESET DATA`, or give your own "
            "results file",
        )


def update_section(path: Path, name: str, body: str) -> None:
    """Replace the text between `<!-- name:start -->` and `<!-- name:end -->`, or append it."""
    text = _results_text(path) if path.exists() else HEADER
    atomic_write(path, with_section(text, name, body, path))


def with_section(text: str, name: str, body: str, path: Path | None = None) -> str:
    """`text` with the section `name` replaced by `body` (appended where there is none)."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if (start in text) != (end in text) or (start in text and text.index(end) < text.index(start)):
        first = min(i for i in (text.find(start), text.find(end)) if i >= 0)
        raise InputError(
            f"its markers of the section '{name}' do not pair: {start} then {end} are needed",
            path=path,
            line=text.count("\n", 0, first) + 1,
            fix="put the start marker before the end marker, or remove both to append the section",
        )
    block = f"{start}\n{body.strip()}\n{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        text = before + block + after
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    return text


def _timing(m: Manifest) -> str:
    full = [h for h in m.history if h.cached_attempts == 0]
    if full:
        first = full[0]
        return (
            f"The run that generated every answer took {first.wall_seconds:,.0f} s "
            f"({first.wall_seconds / 60:.1f} min) wall time{_where(first)}, models loaded "
            f"included (started {first.started}, commit `{first.git_commit[:12]}`)."
            + _warned(first)
        )
    return (
        f"Wall time {m.wall_seconds:,.0f} s, {m.cached_attempts} of {m.attempts} "
        "generations from cache."
    )


def _where(run: RunEntry) -> str:
    """' and N s of CPU on C CPU cores (...)' from a run's history entry (`run_facts`)."""
    facts = run.as_json()
    cpu, cores = cpu_phrase(facts), cores_phrase(facts)
    return (f" and {cpu}" if cpu else "") + (f" on {cores}" if cores else "")


def _warned(run: RunEntry) -> str:
    return f" Warning: {run.load_warning}." if run.load_warning else ""


def _report_command(m: Manifest) -> str:
    """`factqa report` on the run's folder: its `--out` as the recorded command gives it."""
    try:
        words = shlex.split(m.command)
    except ValueError:
        words = []
    out = shlex.quote(words[words.index("--out") + 1]) if "--out" in words[:-1] else "outputs"
    readme = " --readme README.md" if is_bundled(m) else ""
    return f"factqa report {out}/{m.run_id} --results-md docs/RESULTS.md{readme}"


def is_bundled(m: Manifest) -> bool:
    """Whether the run is of the bundled corpus."""
    return m.bundled


def run_command(m: Manifest) -> str:
    """The `factqa run` command that reproduces a run, as its manifest recorded it."""
    return m.command


def section_name(m: Manifest) -> str:
    """The marked section of docs/RESULTS.md a run writes: one per data set and limit."""
    if is_bundled(m):
        return "bundled" + (f"-limit{m.config.limit}" if m.config.limit else "")
    return f"run-{m.run_id}"


def readme_section(run_dir: Path | Run) -> str:
    """A short form of `run_section` for the README: accuracy, coverage, blind spot (a run or
    results folder, or a loaded run)."""
    run = load_any(run_dir)
    m = run.manifest
    lines = [
        f"{m.questions} questions on {m.articles} articles, k={m.k}, "
        f"small `{m.models['small'].name}`, large `{m.models['large'].name}`; "
        f"measured by `{run_command(m)}` and recorded with `{_report_command(m)}`. " + _timing(m),
        "",
        *markdown_table(*method_cells(run.summary.itertuples(), SHORT)),
    ]
    return "\n".join(lines)


def _blind_spot_lines(run: Run, examples: int = 10) -> list[str]:
    """Why the kept confirmed answers were wrong: the counts by cause, then (`examples` > 0)
    the first examples with their question, gold and evidence, then where the right answer was."""
    every = run.blindspots
    if not (run.path / "blindspots.csv").exists():
        return []
    b = every[every.method == run.verified] if "method" in every.columns else every
    if b.empty:
        return ["No kept answer was confirmed by the article and wrong."]
    counts = ", ".join(f"{cause}: {n}" for cause, n in b.cause.value_counts().items())
    lines = [f"Why the confirmed answers were wrong ({len(b)}; `blindspots.csv`): {counts}."]
    if examples > 0:
        lines += [
            "",
            *markdown_table(
                ["question", "gold", "kept answer", "evidence in the article", "cause"],
                (
                    [r.question, r.gold, r.answer, r.evidence, r.cause]
                    for r in b.head(examples).itertuples()
                ),
            ),
        ]
    return lines + _selected_misses(run, every)


def _selected_misses(run: Run, every: pd.DataFrame) -> list[str]:
    """Where the right answer was when the learned selector kept a confirmed wrong one."""
    name = SELECTED.name(run.k)
    if "method" not in every.columns or not run.has(name):
        return []
    b = every[every.method == name]
    if b.empty:
        return ["", f"{name} kept no answer that was confirmed and wrong."]
    status = ", ".join(f"{s}: {n}" for s, n in b.gold_status.value_counts().items())
    return [
        "",
        f"Where the right answer was when {name} kept a confirmed wrong one ({len(b)}): "
        f'{status}. ("confirmed, out-ranked": the right figure was among the confirmed '
        "candidates and the selector ranked another above it.)",
    ]


def _verdict(run: Run, where: str) -> str:
    """The claim in one sentence, with only figures that the method table shows."""
    rows = _by_method(run)
    verified, large = rows[run.verified], rows[REFERENCE]
    said = COLUMNS["verdict"](verified)
    claim = (
        f"{run.verified} {said} {where}"
        if verified.verdict in (BEATS, LOSES)
        else f"{run.verified} against {REFERENCE} {where}: {said}"
    )
    return (
        f"**{claim}**: {verified.accuracy:.3f} "
        f"against {large.accuracy:.3f}, a paired difference of {COLUMNS[DIFFERENCE](verified)} "
        f"(cluster bootstrap; exact McNemar {COLUMNS[MCNEMAR](verified)}). "
        f"Of the {round(verified.coverage * verified.questions)} answers it kept, "
        f"{int(verified.in_text_wrong)} ({verified.in_text_wrong_rate:.1%}) were confirmed by the "
        "article and still wrong: a figure that appears in the text is not always the answer."
    )


ROUTING_SHOWN = tuple(i / 10 for i in range(11))


def _selector_lines(run: Run) -> list[str]:
    """The selectors against the vote and the ceiling, the routed cascade's curve, calibration."""
    sel = run.selected
    if sel is None:
        return []
    k, rows = run.k, _by_method(run)
    v, s, r, ceiling = (
        rows[run.verified],
        rows[sel],
        rows[RULE_PICK.name(k)],
        rows[PASS.name(k)],
    )
    closed, closed_rule = gap_closed(run.summary, sel, k), gap_closed(run.summary, r.method, k)
    table, brier = calibration(run.questions, sel)
    lines = [
        f"**The selector** (the learned `{sel}`, fitted on {fitted_on(learned())} and not "
        "refitted here; "
        f"the hand-set `{r.method}`): {sel} reads {s.accuracy:.3f} against {v.accuracy:.3f} for "
        f"{run.verified} and {ceiling.accuracy:.3f} for the ceiling {ceiling.method}, so it "
        f"closes {_pct(closed)} of the gap (the rule: {r.accuracy:.3f}, {_pct(closed_rule)}). "
        f"Kept answers confirmed by the article and wrong: {int(v.in_text_wrong)} "
        f"({v.in_text_wrong_rate:.1%}) for {run.verified}, {int(s.in_text_wrong)} "
        f"({s.in_text_wrong_rate:.1%}) for {sel}. Against large@1: {COLUMNS[DIFFERENCE](s)}, "
        f"{COLUMNS[MCNEMAR](s)}, **{COLUMNS['verdict'](s)}**.",
    ]
    if not run.routing.empty:
        rt = run.routing
        shown = []
        for share in ROUTING_SHOWN:
            at = rt[(rt.share_sent - share).abs() < 1e-9].set_index("selector")
            if at.empty:
                continue
            shown.append(
                [
                    f"{share:.0%}",
                    str(int(at.sent.iloc[0])),
                    f"{at.accuracy.get(sel, math.nan):.3f}",
                    f"{at.accuracy.get(r.method, math.nan):.3f}",
                ]
            )
        lines += [
            "",
            f"Accuracy against the share of questions sent to the large model (cascade@B: the "
            f"least confident answers of each selector go to large@1, which alone reads "
            f"{rows[REFERENCE].accuracy:.3f}; the full curve in steps of 5 % is `routing.csv`):",
            "",
            *markdown_table(
                ["share sent (B)", "questions sent", f"routed by {sel}", f"routed by {r.method}"],
                shown,
            ),
        ]
    if not table.empty:
        lines += [
            "",
            f"Calibration of {sel}'s confidence over the answers it gave (Brier score "
            f"{brier:.3f}; a calibrated confidence has share right = mean confidence):",
            "",
            *markdown_table(
                ["confidence", "answers", "mean confidence", "share right"],
                (
                    [t.bin, str(t.answers), f"{t.confidence:.3f}", f"{t.right:.3f}"]
                    for t in table.itertuples()
                ),
            ),
        ]
    return lines


def _stated_lines(run: Run) -> list[str]:
    split = stated_computed(run.questions, run.methods)
    n_stated, n_computed = split.attrs["n_stated"], split.attrs["n_computed"]
    return [
        f"Accuracy on questions whose gold the text states ({n_stated}) and on those whose gold "
        f"is computed from it ({n_computed}: a sum, a difference, a count; the importer marks "
        "them from the source):",
        "",
        *markdown_table(
            ["method", f"stated ({n_stated})", f"computed ({n_computed})"],
            ([r.method, _fmt(r.stated), _fmt(r.computed)] for r in split.itertuples()),
        ),
    ]


def _cost_curve_lines(run: Run) -> list[str]:
    """small-verified@k and small-selected@k against what their first k samples cost, as
    fractions of large@1's FLOPs and seconds (the curves of the cost plot); none where
    curves.csv has no cost."""
    curves = cost_curves(run)
    if curves.empty:
        return []
    large = run.summary.set_index("method").loc[REFERENCE]
    by_k = curves.pivot(index="k", columns="method")
    families = CURVE_FAMILIES
    rows = []
    for kk, r in by_k.iterrows():
        # both methods read the same samples; a large@1 that cost nothing (it failed) has no ratio
        flops = r["flops"].iloc[0] / large.flops if large.flops else math.nan
        seconds = r["seconds"].iloc[0] / large.seconds if large.seconds else math.nan
        accuracy = [_fmt(r["accuracy"][f]) for f in families]
        rows.append([str(kk), *accuracy, _fmt(flops, 2), _fmt(seconds, 2)])
    return [
        "Accuracy against cost, k = 1..K from the same samples (the cost of the first k samples "
        f"over large@1's, which reads {large.accuracy:.3f}; `plots/cost_vs_accuracy.png`). A "
        "batch's seconds are shared evenly by its samples, so the seconds at k are k/K of the "
        "batch's (a run that drew only k would take somewhat longer per sample); FLOPs count "
        "the prompt once, on the first sample:",
        "",
        *markdown_table(
            ["k", *(f"{f}@k" for f in families), "FLOPs / large@1", "seconds / large@1"], rows
        ),
    ]


def _pct(x: float) -> str:
    return "—" if x != x else f"{x:.0%}"


def _by_method(run: Run) -> dict[str, Any]:
    return {r.method: r for r in run.summary.itertuples()}


def _models_line(m: Manifest) -> str:
    cfg, small, large = m.config, m.models["small"], m.models["large"]
    return (
        f"Small: `{small.name}` ({small.fingerprint[:19]}…), "
        f"temperature {cfg.temperature}, top-p {cfg.top_p}, seed {cfg.seed}. "
        f"Large: `{large.name}` ({large.fingerprint[:19]}…), greedy."
    )


COST_NOTE = (
    "Seconds are the models' generation time summed over the calls each method needs, and "
    "tokens count the whole prompt of each call (the article prefix is read once per article "
    "by llama.cpp, so far fewer are evaluated); the same samples serve every method. "
    "FLOPs / large@1 is the method's model FLOPs over large@1's on the same questions, from the "
    'tokens the models evaluated (docs/ARCHITECTURE.md, "Cost"): unlike seconds, it does not '
    "depend on the machine or on what else it ran."
)


def _count(n: int, noun: str) -> str:
    """'1 article', '3 articles'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _title(m: Manifest) -> str:
    name = m.dataset
    return name[:1].upper() + name[1:]


def _agreement_lines(run: Run) -> list[str]:
    """What a run without gold can say: agreement with large@1, never called accuracy."""
    m = run.manifest
    if run.scored_against == "gold":
        return []
    if run.scored_against == REFERENCE:
        return [
            "**No question has a gold answer, so every figure in the table above is agreement "
            "with large@1, not accuracy**: each method's answer is judged against the large "
            "model's answer (large@1 agrees with itself unless it failed). The questions where "
            "they disagree are listed first in `disagreements.csv`.",
        ]
    rows = method_cells(run.agreement.itertuples(index=False))
    return [
        f"**Agreement with large@1 on the {m.questions_without_gold} questions without gold "
        f"answers** (not accuracy; the table above covers the {m.questions_with_gold} with "
        "gold; disagreements first in `disagreements.csv`):",
        "",
        *markdown_table(*rows),
    ]


def _sampling_lines(m: Manifest) -> list[str]:
    """What the small model read, when not the whole article, and how many samples adaptive
    sampling drew (nothing for a fixed-k run)."""
    lines = []
    reading = m.reading
    if reading != "article":
        lines.append(
            f"The small model read `{reading}` (the sentences closest to each question, "
            "`--small-context`); the large model read whole articles, and every answer was "
            "verified against the whole article."
        )
    drawn = m.sampling
    if drawn.adaptive == "off":
        return lines
    return [
        *lines,
        f"Adaptive sampling `{drawn.adaptive}` in rounds of {drawn.rounds}: "
        f"{drawn.mean_samples:.2f} samples per question on average (k={drawn.k}), "
        f"{drawn.stopped_early:.0%} of questions stopped early; the @{drawn.k} methods "
        "use the samples drawn.",
    ]


def run_section(run_dir: Path, reported: str | None = None) -> str:
    """Markdown for one run: the method table, the command, models, time, and what went wrong;
    `reported`: the `factqa report` command that writes it (default: the one that records a run
    in docs/RESULTS.md)."""
    run = load_run(run_dir)
    m, s, k = run.manifest, run.summary, run.k
    lines = [
        f"## {_title(m)}: {_count(m.questions, 'question')}, {_count(m.articles, 'article')}, "
        f"k={k}",
        "",
        f"Command: `{run_command(m)}` (run id `{m.run_id}`), then "
        f"`{reported or _report_command(m)}`.",
        f"Commit `{m.git_commit[:12]}`, scored {m.started}. " + _timing(m),
        _models_line(m),
        *_sampling_lines(m),
        "",
        *markdown_table(*method_cells(s.itertuples())),
        "",
        *_agreement_lines(run),
        "",
        _verdict(run, f"on the {m.dataset}" if is_bundled(m) else "here")
        if run.scored_against != REFERENCE
        else f"{run.verified} agrees with large@1 on {_by_method(run)[run.verified].accuracy:.1%} "
        "of the questions.",
        "",
        *_selector_lines(run),
        "",
        *_cost_curve_lines(run),
        "",
        *_stated_lines(run),
        "",
        *_blind_spot_lines(run),
        "",
        COST_NOTE,
    ]
    return "\n".join(lines)


BENCH_EXTRA_COLUMNS = (
    "method",
    "SQuAD EM",
    "SQuAD F1",
    "AUROC of confidence",
    "tokens per correct",
    "model s per correct",
)


def _claim_columns(k: int) -> tuple[str, ...]:
    return (
        "data set",
        "questions",
        REFERENCE,
        VERIFIED.name(k),
        PASS.name(k),
        DIFFERENCE,
        MCNEMAR,
        "kept answers in text but wrong",
        "verdict",
    )


def _method(name: str, k: int) -> Method | None:
    """The registered method of that name at k (None for a name no longer registered)."""
    try:
        return REGISTRY.by_name(name, k)
    except KeyError:
        return None


def _fmt(x: float, digits: int = 3) -> str:
    return "—" if x != x else f"{x:.{digits}f}"  # NaN shows as a dash


def benchmark_section(run_dir: Path | Run, title: str, command: str) -> str:
    """Markdown for a benchmark run (a run or results folder, or a loaded run): the method
    table with intervals and p-values, SQuAD EM/F1, AUROC, cost per correct, risk-coverage,
    accuracy against k and the error analysis."""
    run = load_any(run_dir)
    m, s, q, k = run.manifest, run.summary, run.questions, run.k
    unanswerable = int(q.unanswerable.sum())
    cost = cost_table(s).set_index("method")
    extra = []
    for method in run.methods:
        known = _method(method, k)
        # a method that names no single answer (small-pass@k) has no EM/F1
        one = known is None or known.keeps_one
        em, f1 = squad_em_f1(q, method) if one else (math.nan, math.nan)
        au = auroc(q, method) if known is not None and known.confident else math.nan
        c = cost.loc[method]
        extra.append(
            [
                method,
                _fmt(em),
                _fmt(f1),
                _fmt(au),
                _fmt(c.tokens_per_correct, 0),
                _fmt(c.seconds_per_correct),
            ]
        )
    rc = risk_coverage(q, run.verified)
    rc_rows = [
        [f"{r.threshold:.1f}", f"{r.coverage:.3f}", f"{r.accuracy:.3f}"] for r in rc.itertuples()
    ]
    curve = run.curves.pivot(index="k", columns="method", values="accuracy")
    k_rows = [
        [str(kk), *(f"{v:.3f}" for v in r)] for kk, r in curve.iterrows() if kk in (1, 2, 3, 5, k)
    ]
    vc = verifier_cost(q, run.verified)
    lines = [
        f"## {title}: {m.questions} questions ({unanswerable} unanswerable), "
        f"{m.articles} articles, k={k}",
        "",
        f"Command: `{command}` (imports the sample, runs, writes this section; run folder "
        f"`outputs/bench/{m.run_id}`).",
        f"Commit `{m.git_commit[:12]}`, scored {m.started[:10]}. " + _timing(m),
        _models_line(m),
        "",
        *markdown_table(*method_cells(s.itertuples())),
        "",
        _verdict(run, "on this data set"),
        "",
        *markdown_table(
            BENCH_EXTRA_COLUMNS,
            extra,
        ),
        "",
        f"What the verifier cost: a gold value is stated in the article for "
        f"{vc.get('gold_in_text', 0)} questions and not for {vc.get('gold_not_in_text', 0)} "
        "(computed answers, or unanswerable). On "
        f"{vc.get('lost', 0)} questions the small model sampled a right answer but the article "
        f"confirmed none, so {run.verified} lost it; {vc.get('lost_gold_not_in_text', 0)} of those "
        "had a gold answer that is not in the text at all.",
        "",
        f"Risk-coverage of {run.verified} (agreement = votes / k among confirmed samples):",
        "",
        *markdown_table(["agreement at least", "coverage", "accuracy of answered"], rc_rows),
        "",
        "Accuracy against k, from the same samples:",
        "",
        *markdown_table(["k", *curve.columns], k_rows),
        "",
        *_selector_lines(run),
        "",
        *_cost_curve_lines(run),
        "",
        *_stated_lines(run),
        "",
        # a public data set's questions, gold and passages stay out of the repository
        *_blind_spot_lines(run, examples=10 if is_bundled(run.manifest) else 0),
        "",
        COST_NOTE,
    ]
    return "\n".join(lines)


def _loaded(runs: dict[str, Path]) -> list[tuple[str, Run]]:
    """The runs (run or results folders) that exist, by label."""
    return [(label, load_any(d)) for label, d in runs.items() if (d / "summary.csv").exists()]


def kept_table_rows(text: str) -> list[dict[str, list[str]]]:
    """Each Markdown table of `text` as its rows by their first cell (a data set's label)."""
    tables: list[dict[str, list[str]]] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("| ") and (i == 0 or not lines[i - 1].startswith("|")):
            rows = {}
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                cells = [c.strip() for c in row.strip().strip("|").split(" | ")]
                rows[cells[0]] = cells
            tables.append(rows)
    return tables


def _with_kept(
    fresh: dict[str, list[Any]], labels: list[str], kept: dict[str, list[str]]
) -> list[list[Any]]:
    """The rows in `labels`' order: a run's where there is one, else the kept row (if any)."""
    return [fresh[x] if x in fresh else kept[x] for x in labels if x in fresh or x in kept]


def benchmark_summary(runs: dict[str, Path], kept: str = "") -> str:
    """One table over the benchmark runs that exist: the claim, data set by data set (method
    names at the k of the first run; the presets share one k). A data set with no run keeps
    its row of `kept` (the tables as written before), in its place."""
    loaded = _loaded(runs)
    k = loaded[0][1].k if loaded else 10
    kept_claim, kept_selector = [*kept_table_rows(kept), {}, {}][:2]
    rows = {}
    for label, run in loaded:
        rows_of = _by_method(run)
        v, large, ceiling = rows_of[run.verified], rows_of[REFERENCE], rows_of[PASS.name(run.k)]
        rows[label] = [
            label,
            run.manifest.questions,
            COLUMNS["accuracy [95% CI]"](large),
            COLUMNS["accuracy [95% CI]"](v),
            f"{ceiling.accuracy:.3f}",
            COLUMNS[DIFFERENCE](v),
            COLUMNS[MCNEMAR](v),
            COLUMNS["in text, wrong"](v),
            COLUMNS["verdict"](v),
        ]
    return "\n".join(
        [
            *_claim_lines(_with_kept(rows, list(runs), kept_claim), k),
            "",
            *_selector_summary(loaded, k, list(runs), kept_selector),
        ]
    )


def _selector_columns(k: int) -> tuple[str, ...]:
    cascade = CASCADE_20.name(k)
    return (
        "data set",
        VERIFIED.name(k),
        RULE_PICK.name(k),
        SELECTED.name(k),
        PASS.name(k),
        "gap closed",
        "in text, wrong: verified / selected",
        "selected minus large@1 [95% CI]",
        "verdict",
        f"{cascade} minus large@1 [95% CI]",
        f"{cascade} verdict",
    )


def _selector_summary(
    loaded: list[tuple[str, Run]], k: int, labels: list[str], kept: dict[str, list[str]]
) -> list[str]:
    """The selector data set by data set: against the vote, the ceiling and the large model
    (the `kept` row of a data set with no run)."""
    fresh = {}
    for label, run in loaded:
        if run.selected is None:
            continue
        rk, by = run.k, _by_method(run)
        v, s, cas = by[run.verified], by[run.selected], by.get(CASCADE_20.name(rk))
        fresh[label] = [
            label,
            f"{v.accuracy:.3f}",
            f"{by[RULE_PICK.name(rk)].accuracy:.3f}",
            COLUMNS["accuracy [95% CI]"](s),
            f"{by[PASS.name(rk)].accuracy:.3f}",
            _pct(gap_closed(run.summary, s.method, rk)),
            f"{v.in_text_wrong_rate:.1%} / {s.in_text_wrong_rate:.1%}",
            COLUMNS[DIFFERENCE](s),
            COLUMNS["verdict"](s),
            COLUMNS[DIFFERENCE](cas) if cas is not None else "—",
            COLUMNS["verdict"](cas) if cas is not None else "—",
        ]
    rows = _with_kept(fresh, labels, kept)
    if not rows:
        return []
    cascade = CASCADE_20.name(k)
    return [
        "## The selector on public data",
        "",
        f"{SELECTED.name(k)} is the learned selector's pick among the confirmed candidates "
        f"(fitted once on {fitted_on(learned())}, never refitted); {RULE_PICK.name(k)} "
        f"the hand-set rule; {cascade} sends the {CASCADE_20.share:.0%} least confident questions "
        "to the large model. "
        "Gap closed: (selected - verified) / (pass - verified). In text, wrong: the share of "
        "kept answers that the article confirms and that are wrong.",
        "",
        *markdown_table(_selector_columns(k), rows),
    ]


def _claim_lines(rows: list[list[Any]], k: int) -> list[str]:
    return [
        "## The claim on public data",
        "",
        "Written by `factqa bench report` from the committed results; each data set's "
        "section in docs/RESULTS.md has the command, models and verdict, its page under "
        "docs/results/ the intervals, costs and error analysis. "
        "Accuracy with 95 % cluster-bootstrap intervals (clusters: Wikipedia title, passage "
        f"or article); the difference is {VERIFIED.name(k)} minus large@1 on the same "
        "questions, with a paired cluster-bootstrap interval; p is the exact McNemar test. "
        f"The verdict says beats or loses to only when that interval excludes 0, the exact "
        f"McNemar test agrees at {ALPHA}, and the questions come from at least {MIN_CLUSTERS} "
        "clusters (`evaluate/summary.verdict`).",
        "",
        *markdown_table(
            _claim_columns(k),
            rows,
        ),
    ]

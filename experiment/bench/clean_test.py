"""docs/RESULTS.md's `clean-test` section, computed from results/ whenever the report is
written: how often each sample was looked at (`results/looks.csv`), the sealed samples and
their results, the leakage guard's count, the fitted files in the wheel, the share of large@1's
calculations cut by the token limit, and how many of the README's verdicts survive Holm's
correction. Its machine-readable line is the one issue 52 names."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from experiment.bench.looks import counts, log_path, read
from experiment.bench.sealed_samples import PUBLIC, read_samples, samples_path, sealed_name
from experiment.bench.sections import Record
from experiment.importers.looked import pending

CLEAN = "clean-test"
LEAKAGE, FITTED, CALC_CUT = "leakage", "fitted-files", "calc-cut"
READ_BY_CLEAN = (LEAKAGE, FITTED, CALC_CUT)  # records this section reads: none has its own


def _figure(records: Mapping[str, Record], name: str, key: str) -> object:
    rec = records.get(name)
    return rec.figures.get(key, "unmeasured") if rec is not None else "unmeasured"


def difference(
    dev: tuple[float, float, float], sealed: tuple[float, float, float]
) -> tuple[float, float]:
    """Sealed less development accuracy and the half-width of its 95 % interval, each sample's
    (accuracy, low, high) read as a normal interval: two independent samples, so their errors
    add (the interval is about 1.4 times either one's)."""
    se = [(high - low) / (2 * 1.96) for _, low, high in (dev, sealed)]
    return sealed[0] - dev[0], 1.96 * math.hypot(*se)


def before_after(results: Path) -> list[str]:
    """The headline figures of each data set scored on both samples, one table: large@1,
    small-verified@k and the methods the development sample chooses as best (`first_screen.best`),
    each with its development accuracy and interval beside its sealed accuracy, whether the
    sealed figure falls within the development interval, and the difference with its own
    interval (`difference`): whether the two samples agree."""
    from experiment.report.first_screen import best
    from experiment.report.results import load_any

    lines = []
    for name in PUBLIC:
        dev_path, sealed_path = results / name, results / sealed_name(name)
        if not (dev_path / "summary.csv").is_file() or not (sealed_path / "summary.csv").is_file():
            continue
        dev, sealed = load_any(dev_path), load_any(sealed_path)
        chosen = [m.method for m in best(dev.summary, dev.k)]
        d = dev.summary.set_index("method")
        s = sealed.summary.set_index("method")
        for method in dict.fromkeys(["large@1", dev.verified, *chosen]):
            if method not in d.index or method not in s.index:
                continue
            low, high, got = (
                d.at[method, "ci_low"],
                d.at[method, "ci_high"],
                s.at[method, "accuracy"],
            )
            gap, half = difference(
                (d.at[method, "accuracy"], low, high),
                (got, s.at[method, "ci_low"], s.at[method, "ci_high"]),
            )
            lines.append(
                f"| {name} | {method} | {d.at[method, 'accuracy']:.3f} [{low:.3f}, {high:.3f}] "
                f"| {got:.3f} | {'yes' if low <= got <= high else 'no'} "
                f"| {gap:+.3f} [{gap - half:+.3f}, {gap + half:+.3f}] "
                f"| {'yes' if abs(gap) <= half else 'no'} |"
            )
    if not lines:
        return []
    return [
        "| data set | method | development (95 % interval) | sealed | within | sealed − "
        "development (95 % interval) | samples agree |",
        "| --- | --- | --- | ---: | --- | --- | --- |",
        *lines,
    ]


def _said(records: Mapping[str, Record], name: str) -> str:
    """What one of the records this section reads says, with its command and commit."""
    rec = records.get(name)
    if rec is None:
        return f"`factqa bench {name}` has not been recorded."
    f, at = rec.figures, f"(`{rec.command}`, commit `{rec.commit}`, {rec.date})"
    if name == LEAKAGE:
        places = ", ".join(f"`{p}`" for p in f["places"]) or "none"
        return (
            f"**Leakage** {at}: every passage and question of the data sets, folded to letters "
            f"and digits, against every tracked file: {f['eval_fragments']} evaluation-half and "
            f"{f['fit_fragments']} fitting-half fragments of {f['window']}+ characters ({places})."
        )
    if name == FITTED:
        listed = ", ".join(f"`{n}` ({sha[:12]})" for n, sha in f["sha256"].items())
        return (
            f"**Fitted files** {at}: {f['in_wheel']} of {f['shipped']} in the wheel built from "
            f"the checkout: {listed}; a missing one is an error naming it and the fix, and a "
            "run's manifest records each one it read (`fitted_files`)."
        )
    per = ", ".join(f"{run} {hit} of {n}" for run, (n, hit) in f["per_run"].items())
    return (
        f"**large@1's calculations at the token limit** {at}: {f['cut_share']} of its answers "
        f"to the questions each committed `auto` run routes to the calculation prompt ({per})."
    )


def clean_test(results: Path, records: Mapping[str, Record], holm: tuple[int, int, int]) -> str:
    """The section's Markdown (`holm`: the README table's comparisons against large@1, its
    verdicts, and the verdicts that survive Holm's correction)."""
    rows = read(results / "looks.csv")
    if (results / "looks.csv").resolve() == log_path().resolve():  # this command's own look too
        rows += [{"dataset": d, "sample": s} for d, s in pending()]
    dev, sealed = counts(rows, "development"), counts(rows, "sealed")
    samples = read_samples(samples_path(results))
    looked = ", ".join(f"{name} {dev.get(name, 0)}" for name in ("bundled", *PUBLIC))

    def state(name: str) -> str:
        scored = (results / sealed_name(name) / "summary.csv").is_file()
        return f"results/{sealed_name(name)}" if scored else "not scored yet"

    drawn = ", ".join(
        f"{name} {samples[name]['size']} ({sealed.get(name, 0)} looks, {state(name)})"
        for name in PUBLIC
        if name in samples
    )
    comparisons, verdicts, kept = holm
    line = (
        f"sealed_looks_max={max(sealed.values(), default=0)} "
        f"leak_fragments={_figure(records, LEAKAGE, 'eval_fragments')} "
        f"large_calc_cut={_figure(records, CALC_CUT, 'cut_share')} "
        f"fitted_files_in_wheel={_figure(records, FITTED, 'in_wheel')} "
        f"holm_verdicts_kept={kept}"
    )
    return f"""## A clean test: looks, sealed samples, leakage

Written by `factqa bench report` from `results/looks.csv`, `results/sealed/samples.json` and the \
records below. Every `factqa bench` command that computes a figure on a reported sample appends \
a row to `results/looks.csv` (rows before the log existed are reconstructed from git history: \
each commit that changed a committed run's summary). Looks at each development sample (the \
committed runs, results/PRESET/): {looked}. Each public data set's sealed sample is drawn from \
the evaluation half's questions that no development sample holds (`factqa bench sealed-draw`) \
and scored once, on a clean tree, by `factqa bench sealed PRESET DATA`: {drawn or "none drawn"}.

The README's answer table makes {comparisons} comparisons against large@1, with {verdicts} \
verdicts (beats or loses); {kept} of them survive Holm's correction over all its comparisons.

{_said(records, LEAKAGE)} {_said(records, FITTED)} {_said(records, CALC_CUT)}

{_before_after_text(results)}`{line}`"""


def _before_after_text(results: Path) -> str:
    table = before_after(results)
    if not table:
        return (
            "No sealed sample has been scored yet: the before/after table comes with the first.\n\n"
        )
    return (
        "Each headline figure on the development sample and on the sealed one (the methods the "
        "development sample chose as best, reported on the sealed):\n\n" + "\n".join(table) + "\n\n"
    )

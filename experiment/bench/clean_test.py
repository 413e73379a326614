"""docs/RESULTS.md's `clean-test` section, computed from results/ whenever the report is
written: how often each sample was looked at (`results/looks.csv`), the sealed samples and
their results, the leakage guard's count, the fitted files in the wheel, the share of large@1's
calculations cut by the token limit, and how many of the README's verdicts survive Holm's
correction. Its machine-readable line is the one issue 52 names."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from experiment.bench.looks import counts, read
from experiment.bench.sections import Record

CLEAN = "clean-test"
LEAKAGE, FITTED, CALC_CUT = "leakage", "fitted-files", "calc-cut"
PUBLIC = ("squad-v1", "squad-v2", "drop", "tatqa-dev")


def _figure(records: Mapping[str, Record], name: str, key: str) -> object:
    rec = records.get(name)
    return rec.figures.get(key, "unmeasured") if rec is not None else "unmeasured"


def before_after(results: Path) -> list[str]:
    """The headline figures of each data set scored on both samples, one table: large@1,
    small-verified@k and the methods the development sample chooses as best (`first_screen.best`),
    each with its development accuracy and interval beside its sealed accuracy, and whether the
    sealed figure falls within the development interval."""
    from experiment.report.first_screen import best
    from experiment.report.results import load_any

    lines = []
    for name in PUBLIC:
        dev_path, sealed_path = results / name, results / f"sealed-{name}"
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
            lines.append(
                f"| {name} | {method} | {d.at[method, 'accuracy']:.3f} [{low:.3f}, {high:.3f}] "
                f"| {got:.3f} | {'yes' if low <= got <= high else 'no'} |"
            )
    if not lines:
        return []
    return [
        "| data set | method | development (95 % interval) | sealed | within |",
        "| --- | --- | --- | ---: | --- |",
        *lines,
    ]


def clean_test(results: Path, records: Mapping[str, Record], holm: tuple[int, int, int]) -> str:
    """The section's Markdown (`holm`: the README table's comparisons against large@1, its
    verdicts, and the verdicts that survive Holm's correction)."""
    rows = read(results / "looks.csv")
    dev, sealed = counts(rows, "development"), counts(rows, "sealed")
    samples_file = results / "sealed" / "samples.json"
    samples = json.loads(samples_file.read_text(encoding="utf-8")) if samples_file.is_file() else {}
    table = [
        "| data set | development looks | sealed sample | sealed looks | sealed results |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for name in ("bundled", *PUBLIC):
        size = samples.get(name, {}).get("size")
        scored = (results / f"sealed-{name}" / "summary.csv").is_file()
        table.append(
            f"| {name} | {dev.get(name, 0)} | {size if size is not None else '—'} "
            f"| {sealed.get(name, 0) if name in PUBLIC else '—'} "
            f"| {f'results/sealed-{name}/' if scored else 'not scored yet'} |"
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

Written by `factqa bench report` from `results/looks.csv`, `results/sealed/samples.json` and \
the records of `factqa bench leakage`, `factqa bench fitted-files` and `factqa bench calc-cut`.

Every `factqa bench` command that computes a figure on a reported sample appends a row to \
`results/looks.csv` (the rows before the log existed are reconstructed from git history: each \
commit that changed a committed run's summary). The development samples are the committed runs \
under results/PRESET/; each public data set's sealed sample is drawn from the evaluation \
half's questions that no development sample holds, and is scored once, on a clean tree, by \
`factqa bench sealed PRESET DATA` (which refuses a second scoring at the same commit).

{chr(10).join(table)}

The README's answer table makes {comparisons} comparisons against large@1, with {verdicts} \
verdicts (beats or loses); {kept} of them survive Holm's correction over all its comparisons.

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

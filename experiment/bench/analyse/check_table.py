"""The large model as checker on every benchmark run present (issue 29), from the run folders.

    factqa bench check-table [--out outputs/bench] [--results-md docs/RESULTS.md] [--write]

Reads the run folders `factqa bench run` writes under --out (SQuAD v1.1, TAT-QA dev, DROP, SQuAD
v2.0, the bundled corpus; a `-limitN` run where the full one is missing), with `--write` writes
the section "large-check" of docs/RESULTS.md, and prints its machine-readable line last: per data
set `check_acc_KEY`, `check_cost_ratio_KEY` (the evidence-only check), `check_whole_acc_KEY`,
`check_whole_cost_ratio_KEY`, `large_acc_KEY`, `cascade20_KEY`, `cascade_check20_KEY` and the
cascades' cost ratios (FLOPs per question against large@1's, from the run's own counters).
"""

from __future__ import annotations

from pathlib import Path

from experiment.base.errors import InputError
from experiment.bench.app import command
from experiment.bench.harness import (
    OUT,
    RESULTS_MD,
    ResultsMdOpt,
    RunsOpt,
    WriteOpt,
    finish,
)
from experiment.bench.sections import Record, measured, renders
from experiment.report.checks_table import checks_figures, checks_line, checks_table

SECTION = "large-check"

# a run folder's preset, by its key in the machine-readable line
RUNS = {
    "squad": "squad-v1",
    "tatqa": "tatqa-dev",
    "drop": "drop",
    "squad_v2": "squad-v2",
    "bundled": "bundled",
}


def run_folder(out: Path, preset: str) -> Path:
    """The preset's full run, else its largest `-limitN` run."""
    full = out / preset
    if (full / "summary.csv").exists():
        return full
    limited = sorted(
        out.glob(f"{preset}-limit*"), key=lambda p: int(p.name.rsplit("limit", 1)[1] or 0)
    )
    return limited[-1] if limited else full


@command("check-table")
def check_table(
    out: RunsOpt = OUT,
    results: ResultsMdOpt = RESULTS_MD,
    write: WriteOpt = False,
) -> None:
    """The large model as checker on every benchmark run present, from the run folders: the
    section "large-check" of docs/RESULTS.md and its machine-readable line."""
    runs = {key: run_folder(out, preset) for key, preset in RUNS.items()}
    missing = [RUNS[key] for key, d in runs.items() if not (d / "summary.csv").exists()]
    if len(missing) == len(runs):
        raise InputError(
            f"no benchmark run folder ({', '.join(missing)}) with a summary.csv",
            path=out,
            fix="run factqa bench run PRESET PATH/TO/DATA first, or give --out their folder",
        )
    figures = {**checks_figures(runs), "missing": missing}
    finish(results, measured(SECTION, "factqa bench check-table --write", figures), write)


@renders(SECTION, "better")
def section(record: Record) -> str:
    """docs/RESULTS.md's `large-check` section from its record; its machine-readable line
    last."""
    f = record.figures
    absent = (
        f"No run folder for {', '.join(f['missing'])} when this was written: their rows are absent."
        if f["missing"]
        else ""
    )
    return "\n".join(
        [
            "## The large model as checker (issue 29)",
            "",
            f"Command: `{record.command}` (after the `factqa bench run` runs; reads their "
            f"folders). Commit `{record.commit}`, {record.date}. {absent}".rstrip(),
            "",
            *checks_table(f),
            "",
            f"`{checks_line(f)}`",
        ]
    )

"""A finished benchmark run saved as committed results (`results/PRESET/`, `record.results`),
and the results folder's place in the repository."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from experiment.bench.presets import figures_line
from experiment.config import PROJECT_ROOT
from experiment.record.results import RunTables, write_results
from experiment.record.results_index import Source
from experiment.report.analysis import squad_scores
from experiment.report.run import load_run

RESULTS = PROJECT_ROOT / "results"


def with_squad_scores(questions: pd.DataFrame, methods: list[str]) -> pd.DataFrame:
    """questions.csv's wide layout with each method's per-question SQuAD `.em` and `.f1`,
    computed here with the gold (the results of a public data set keep no gold)."""
    q = questions.copy()
    for m in methods:
        q[f"{m}.em"], q[f"{m}.f1"] = squad_scores(questions, m)
    return q


def save_results(run_dir: Path, dest: Path, source: Source) -> dict[str, dict[str, Any]]:
    """The run at `run_dir` as results in `dest`; its figures line computed from the run when
    `source` has none. Returns each written file's size and SHA-256."""
    run = load_run(run_dir)
    if not source.line:
        source = replace(source, line=figures_line(source.preset, run))
    tables = RunTables(
        run.manifest,
        run.methods,
        with_squad_scores(run.questions, run.methods),
        run.attempts,
        run.scores,
    )
    return write_results(dest, run_dir, tables, source, PROJECT_ROOT)


def results_size(files: dict[str, dict[str, Any]]) -> int:
    return sum(int(r["bytes"]) for r in files.values())

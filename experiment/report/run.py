"""A finished run folder, loaded once: manifest, summary, questions, curves, blind spots, routing.

Every reader of a run (the notebook, `factqa report`, the Markdown writer, the benchmarks) loads it
here, so a run folder is checked and parsed in one place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from experiment.errors import InputError

RUN_FILES = ("manifest.json", "summary.csv", "questions.csv", "curves.csv")


@dataclass(frozen=True)
class Run:
    path: Path
    manifest: dict[str, Any]
    summary: pd.DataFrame
    questions: pd.DataFrame
    curves: pd.DataFrame
    blindspots: pd.DataFrame
    routing: pd.DataFrame  # accuracy against the share sent to the large model (may be empty)
    agreement: pd.DataFrame  # the summary over questions without gold, against large@1 (or empty)

    @property
    def scored_against(self) -> str:
        """'gold', 'large@1' (no question has gold: the summary is agreement) or 'both'."""
        return str(self.manifest.get("scored_against", "gold"))

    @property
    def k(self) -> int:
        return int(self.manifest["config"]["k"])

    @property
    def verified(self) -> str:
        return f"small-verified@{self.k}"

    @property
    def selected(self) -> str | None:
        """The learned selector's method, in runs that have it."""
        name = f"small-selected@{self.k}"
        return name if name in set(self.summary.method) else None

    @property
    def methods(self) -> list[str]:
        return list(self.summary.method)


def load_run(path: Path) -> Run:
    """A run folder written by `factqa run`; a clear error if it is not one."""
    missing = [f for f in RUN_FILES if not (path / f).is_file()]
    if missing:
        raise InputError(
            f"not a finished run folder (no {', '.join(missing)})",
            path=path,
            fix="give a folder written by 'factqa run'",
        )
    spots, routing, agreement = (
        path / f for f in ("blindspots.csv", "routing.csv", "agreement.csv")
    )
    return Run(
        path,
        json.loads((path / "manifest.json").read_text(encoding="utf-8")),
        pd.read_csv(path / "summary.csv"),
        pd.read_csv(path / "questions.csv", keep_default_na=False, dtype=str),
        pd.read_csv(path / "curves.csv"),
        pd.read_csv(spots, keep_default_na=False, dtype=str) if spots.exists() else pd.DataFrame(),
        pd.read_csv(routing) if routing.exists() else pd.DataFrame(),
        pd.read_csv(agreement) if agreement.exists() else pd.DataFrame(),
    )


def read_summary(path: Path) -> list[Any]:
    """A summary CSV (summary.csv, agreement.csv) as rows with the MethodSummary field names."""
    return list(pd.read_csv(path).itertuples(index=False))


def flag(col: pd.Series) -> pd.Series:
    """A true/false CSV column as booleans."""
    return col.astype(str).str.lower().eq("true")

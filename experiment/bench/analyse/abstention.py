"""The selector's abstention rule on finished runs: what it abstained on, and its risk-coverage.

    factqa bench abstention RUN_DIR [RUN_DIR ...] [--method small-selected@k]
                            [--only QUESTIONS_CSV] [--stated]

`--only questions/origotech.csv` keeps the questions of that file (the bundled corpus's original
150); `--stated` keeps the questions whose gold the text states (TAT-QA's and DROP's computed
answers, which no confirmed figure can be, left out).

Per run (a folder holding questions.csv), from the method's columns alone (no model):
- answerable and unanswerable questions, and on each how often the method answered, abstained
  and was right (an abstention is right only on an unanswerable question);
- the risk-coverage curve above the shipped threshold: for each confidence threshold t, the share
  of questions answered with confidence >= t (coverage), the share of those answers that are
  wrong (risk), and the accuracy over every question when the method abstains below t (an
  abstention is right on an unanswerable question; a failure, every sample failed, is not).
  Below the shipped threshold the kept answer is not in the run (the method abstained), so the
  curve starts there; the fitting set's full sweep is printed by `factqa bench fit selector`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from experiment.base.errors import InputError
from experiment.bench.app import command

THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def _truth(col: pd.Series) -> pd.Series:
    return col.astype(str).str.lower() == "true"


COLUMNS = ("answer", "correct", "confidence", "failed")  # the method's columns read


def _table(path: Path, what: str, fix: str) -> pd.DataFrame:
    """A CSV file read as text, or an `InputError` naming it."""
    if not path.is_file():
        raise InputError(f"no {what}", path=path, fix=fix)
    try:
        return pd.read_csv(path, keep_default_na=False, dtype=str)
    except (ValueError, UnicodeDecodeError) as e:  # pandas' EmptyDataError and ParserError too
        raise InputError(f"not a CSV file ({e})", path=path, fix=fix) from None


def _method(q: pd.DataFrame, method: str | None, path: Path) -> str:
    """The method whose columns are read: `method`, or the run's small-selected@k (its k)."""
    found = sorted({c.rsplit(".", 1)[0] for c in q.columns if c.endswith(".confidence")})
    if method is None:
        method = next((m for m in found if m.startswith("small-selected@")), "small-selected@k")
    missing = [f"{method}.{c}" for c in COLUMNS if f"{method}.{c}" not in q.columns]
    if missing:
        raise InputError.missing_columns(
            missing, path, f"give --method one of the run's methods ({', '.join(found) or 'none'})"
        )
    return method


def report(
    run: Path, method: str | None = None, only: Path | None = None, stated: bool = False
) -> list[str]:
    fix = "give a folder written by 'factqa run'"
    path = run / "questions.csv"
    q = _table(path, "questions.csv: not a finished run folder", fix)
    for col in ("question_id", "unanswerable"):
        if col not in q.columns:
            raise InputError.missing_columns([col], path, fix)
    method = _method(q, method, path)
    if only is not None:
        wanted = _table(only, "questions file", "give a questions CSV (a column 'id')")
        if "id" not in wanted.columns:
            raise InputError.missing_columns(["id"], only, "give a questions CSV (a column 'id')")
        q = q[q["question_id"].isin(set(wanted["id"]))].reset_index(drop=True)
        if q.empty:
            raise InputError(
                f"none of its ids is a question of {run}", path=only, fix="give that run's file"
            )
    if stated and "computed" in q:
        q = q[~_truth(q["computed"])].reset_index(drop=True)
    unans = _truth(q["unanswerable"])
    answered = q[f"{method}.answer"].astype(str) != ""
    right = _truth(q[f"{method}.correct"])
    conf = pd.to_numeric(q[f"{method}.confidence"], errors="coerce").fillna(0.0)
    failed = _truth(q[f"{method}.failed"])  # no answer because every sample failed: wrong
    lines = [
        f"### {run.name} ({len(q)}{' stated' if stated else ''} questions, "
        f"{int(unans.sum())} unanswerable)",
        "",
        f"- answerable {int((~unans).sum())}: answered {int((answered & ~unans).sum())}, "
        f"right {int((right & ~unans).sum())}, abstained {int((~answered & ~unans).sum())}",
        f"- unanswerable {int(unans.sum())}: abstained {int((~answered & unans).sum())}, "
        f"answered {int((answered & unans).sum())}",
        f"- accuracy {right.mean():.3f}",
        "",
        "| threshold | coverage | risk | accuracy |",
        "| ---: | ---: | ---: | ---: |",
    ]
    floor = float(conf[answered].min()) if answered.any() else 1.0
    for t in (floor, *(t for t in THRESHOLDS if t > floor)):
        take = answered & (conf >= t)
        wrong = int((take & ~right).sum())
        acc = ((take & right) | (~take & unans & ~failed)).mean()
        risk = wrong / int(take.sum()) if take.any() else 0.0
        label = "as run" if t == floor else f"{t:.1f}"
        lines.append(f"| {label} | {take.mean():.3f} | {risk:.3f} | {acc:.3f} |")
    return lines


@command("abstention")
def abstention(
    runs: Annotated[list[Path], typer.Argument(help="Run folders (each with questions.csv).")],
    method: Annotated[
        str | None,
        typer.Option(
            help="The method whose abstentions are read.",
            show_default="small-selected@k, at the run's k",
        ),
    ] = None,
    only: Annotated[
        Path | None, typer.Option(help="A questions CSV: keep its questions only.")
    ] = None,
    stated: Annotated[bool, typer.Option("--stated", help="Only questions the text states.")] = (
        False
    ),
) -> None:
    """The selector's abstention rule on finished runs: what it abstained on, and its
    risk-coverage (no model)."""
    for run in runs:
        print("\n".join(report(run, method, only, stated)))
        print()

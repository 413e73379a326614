"""Whether two run folders hold the same outputs: byte for byte, or which columns and cells differ.

    factqa bench same-outputs OLD_RUN NEW_RUN

For each export (attempts, questions, summary, curves, routing, blind spots, agreement,
disagreements): "byte-identical", or the columns added and removed and, per column both have,
how many cells differ with the first examples. Used to show that a change of the code behaves
as before: rerun a run from the generation cache with the new code and compare. It compares
files as text on purpose (a reader of a run's results uses `experiment.report.run.load_run`).
The last line is machine-readable: `identical=N differ=M`.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Annotated

import typer

from experiment.base.errors import InputError
from experiment.bench.app import command

EXPORTS = (
    "attempts.csv",
    "questions.csv",
    "summary.csv",
    "curves.csv",
    "routing.csv",
    "blindspots.csv",
    "agreement.csv",
    "disagreements.csv",
)
EXAMPLES = 3
FIX = "give two folders written by 'factqa run'"


def _rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    try:
        reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))
        rows = list(reader)
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"not a UTF-8 CSV file ({e})", path=path, fix=FIX) from None
    return list(reader.fieldnames or []), rows


def compare(old: Path, new: Path, name: str) -> tuple[bool, list[str]]:
    """(identical, report lines) for one export present in either folder."""
    a, b = old / name, new / name
    if not a.exists() or not b.exists():
        return False, [f"{name}: only in {'the new' if b.exists() else 'the old'} run"]
    if a.read_bytes() == b.read_bytes():
        return True, [f"{name}: byte-identical"]
    (cols_a, rows_a), (cols_b, rows_b) = _rows(a), _rows(b)
    added = [c for c in cols_b if c not in cols_a]
    removed = [c for c in cols_a if c not in cols_b]
    lines = [
        f"{name}: differs; rows {len(rows_a)} -> {len(rows_b)}; "
        f"columns added {len(added)} {added[:6]}; removed {removed}"
    ]
    for col in (c for c in cols_b if c in cols_a):
        diff = [
            (i, x[col], y[col])
            for i, (x, y) in enumerate(zip(rows_a, rows_b, strict=False))
            if x[col] != y[col]
        ]
        if diff:
            shown = ", ".join(f"row {i}: {x[:30]!r} -> {y[:30]!r}" for i, x, y in diff[:EXAMPLES])
            lines.append(f"  {col}: {len(diff)} cells differ ({shown})")
    return False, lines


@command("same-outputs")
def same_outputs(
    old: Annotated[Path, typer.Argument(help="The run folder as scored before.")],
    new: Annotated[Path, typer.Argument(help="The same run scored by this code.")],
) -> None:
    """Whether two run folders hold the same outputs: byte for byte, or which columns and cells
    differ; the last line is `identical=N differ=M`."""
    for folder in (old, new):
        if not folder.is_dir():
            raise InputError("no such run folder", path=folder, fix=FIX)
    if not any((f / name).is_file() for f in (old, new) for name in EXPORTS):
        raise InputError(
            f"neither folder holds a run's exports ({', '.join(EXPORTS[:3])}, ...)",
            path=old,
            fix=FIX,
        )
    same = differ = 0
    for name in EXPORTS:
        if not (old / name).exists() and not (new / name).exists():
            continue
        identical, lines = compare(old, new, name)
        print("\n".join(lines))
        same, differ = same + identical, differ + (not identical)
    print(f"identical={same} differ={differ}")

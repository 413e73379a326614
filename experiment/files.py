"""Files every stage writes: atomic writes, and CSV that a spreadsheet opens safely.

Files are written atomically (temporary file, fsync, rename), so an interrupted run never leaves a
half-written file. Text cells that a spreadsheet would run as a formula (starting with = + - @,
tab or carriage return) are prefixed with a quote, as OWASP advises; cells that read as numbers
stay numbers.
"""

from __future__ import annotations

import csv
import io
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def safe_cell(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula gets a leading quote (OWASP); a cell that
    is a plain number ("-5", "+3.5") stays as it is."""
    if not isinstance(value, str) or not value.startswith(FORMULA_START):
        return value
    return value if _NUMBER.fullmatch(value) else "'" + value


def read_cell(value: str) -> str:
    """The text `safe_cell` neutralized, as it was written (the leading quote removed)."""
    if value.startswith("'") and value[1:].startswith(FORMULA_START):
        return value[1:]
    return value


def atomic_write(path: Path, data: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_csv(path: Path, rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: safe_cell(_cell(row.get(c, ""))) for c in columns})
    atomic_write(path, buf.getvalue())


def _cell(v: Any) -> Any:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.6g}"
    return v

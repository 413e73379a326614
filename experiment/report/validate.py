"""A run folder validated before it is reported: `validated_run` is `load_run` that also refuses a
manifest field of the wrong type and a table without the columns its readers need or with text
where a number belongs, each as an `InputError` naming the file, the line and the column.

What the validation does not foresee (a manifest's `config` or `history` entries that do not fit
together) is refused the same way while the run is reported (`reporting`), so a damaged folder
gives one line, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path

import pandas as pd

from experiment.base.errors import InputError
from experiment.record.columns import (
    AGREEMENT,
    BLINDSPOTS,
    CURVES,
    QUESTIONS,
    ROUTING,
    SUMMARY,
    Table,
    question_required,
)
from experiment.record.manifest import Manifest
from experiment.report.run import Run, load_run

AGAIN = "run the same 'factqa run' command again to write the run folder anew"


TABLES = {  # Run attribute -> its file's spec (`record.columns`); validated where the file is there
    "summary": SUMMARY,
    "agreement": AGREEMENT,
    "curves": CURVES,
    "routing": ROUTING,
    "blindspots": BLINDSPOTS,
}
CSV_FILES = ("summary.csv", "questions.csv", "curves.csv", "blindspots.csv", "routing.csv")
TYPES = {"int": int, "float": (int, float), "str": str, "bool": bool, "dict": dict, "list": list}


def validated_run(path: Path) -> Run:
    """The run folder at `path`, loaded and validated; an `InputError` for any damaged file."""
    try:
        run = load_run(path)
    except RecursionError:
        raise InputError("nested too deeply", path=path / "manifest.json", fix=AGAIN) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise _unreadable(path, e) from None
    _validate_manifest(run.manifest, path / "manifest.json")
    for attribute, table in TABLES.items():
        if (path / table.file).exists():
            _validate_table(getattr(run, attribute), path / table.file, table)
    if run.summary.empty:
        raise InputError("has no rows", path=path / "summary.csv", line=2, fix=AGAIN)
    required = question_required(run.summary.method.astype(str))
    _validate_table(run.questions, path / QUESTIONS.file, Table(QUESTIONS.file, ()), required)
    return run


def validated_attempts(run: Run) -> pd.DataFrame:
    """The run's attempts.csv, typed; an `InputError` if it is missing or is not one."""
    path = run.path / "attempts.csv"
    try:
        return run.attempts
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise _unreadable(run.path, e, ("attempts.csv",)) from None
    except (KeyError, ValueError, AttributeError) as e:  # a column missing or a cell unread
        raise InputError(f"is not an attempts table ({e})", path=path, fix=AGAIN) from None


@contextmanager
def reporting(run_dir: Path) -> Iterator[None]:
    """Anything in the run folder's files that the validation did not foresee and that breaks its
    report: one InputError naming the folder, not a traceback."""
    try:
        yield
    except (KeyError, ValueError, TypeError, IndexError, AttributeError) as e:
        raise InputError(
            f"its files do not fit together ({type(e).__name__}: {e})", path=run_dir, fix=AGAIN
        ) from e


def _unreadable(path: Path, error: Exception, names: tuple[str, ...] = CSV_FILES) -> InputError:
    """The first of the folder's CSV files that does not read, named with why."""
    for name in names:
        file = path / name
        if not file.exists():
            continue
        try:
            pd.read_csv(file, dtype=str, keep_default_na=False)
        except pd.errors.EmptyDataError:
            return InputError("is empty", path=file, fix=AGAIN)
        except (pd.errors.ParserError, UnicodeDecodeError) as e:
            return InputError(f"cannot be read as CSV ({e})", path=file, fix=AGAIN)
    return InputError(f"a file cannot be read ({error})", path=path, fix=AGAIN)


def _validate_manifest(m: Manifest, path: Path) -> None:
    """Each field holds what its annotation says (an int, a string, a mapping, ...)."""
    for f in fields(Manifest):
        value = getattr(m, f.name)
        kind = TYPES.get(str(f.type).split("[")[0])
        wrong = kind is not None and not isinstance(value, kind)
        if kind in (int, (int, float)) and isinstance(value, bool):
            wrong = True
        if wrong:
            raise InputError(
                f"must be {str(f.type).split('[')[0]}, got {json.dumps(value, default=str)[:40]}",
                path=path,
                field=f.name,
                fix=AGAIN,
            )


def _validate_table(
    table: pd.DataFrame, path: Path, spec: Table, required: tuple[str, ...] | None = None
) -> None:
    """The required columns are there and every number cell is a number (line = row + 2)."""
    missing = [c for c in (spec.required if required is None else required) if c not in table]
    if missing:
        raise InputError.missing_columns(missing, path, AGAIN)
    for col in (c for c in spec.numbers if c in table.columns):
        cells = table[col]
        may_be_blank = cells.isna() if col in spec.blank else pd.Series(False, cells.index)
        bad = pd.to_numeric(cells, errors="coerce").isna() & ~may_be_blank
        if bad.any():
            row = int(bad.to_numpy().nonzero()[0][0])
            value = cells.iloc[row]
            raise InputError(
                f"'{'' if pd.isna(value) else value}' is not a number",
                path=path,
                line=row + 2,
                field=col,
                fix=AGAIN,
            )

"""A committed results folder (`results/PRESET/`, written by `record.results`) read back.

`load_results` checks every file against the size and SHA-256 its index records, brings the
run's manifest to the current format (`record.migrate`) and returns the tables typed as
`record.columns` declares them, with the run as a `Run`, so every report that reads a run
folder reads the results the same way: its questions in questions.csv's wide layout (one
`{method}.{column}` group per method; a public data set's question and gold empty) and its
samples as its attempts.
"""

from __future__ import annotations

import io
import json
import zlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from experiment.base.errors import InputError
from experiment.base.files import file_record, read_cell
from experiment.base.streams import MAX_EXPANDED_MB, TooLarge, gunzip_capped
from experiment.record.columns import (
    RESULT_ANSWERS,
    RESULT_CHECKS,
    RESULT_DRAFTS,
    RESULT_QUESTIONS,
    RESULT_SAMPLES,
    RESULT_SCORES,
    TABLES,
    Table,
)
from experiment.record.manifest import from_json, read_json
from experiment.record.migrate import migrate, version_of
from experiment.record.results_index import (
    INDEX,
    MANIFEST,
    READS,
    RESULTS_FORMAT,
    Source,
    text_key,
)
from experiment.record.scores import joined
from experiment.report.run import Run, _typed, load_run, typed_questions

FIX = "write the results again (factqa bench run), or restore the folder from git"


@dataclass(frozen=True)
class Results:
    """A results folder: what it is of, the run it records, and its per-sample tables."""

    path: Path
    source: Source
    run: Run  # its `attempts` are the samples; `scores` the recorded scores
    samples: pd.DataFrame

    @property
    def scores(self) -> pd.DataFrame:
        """Every scoring's scores (`record.scores`), each text with its `text_sha256`."""
        return self.run.scores

    @property
    def checks(self) -> pd.DataFrame:
        """The large model's checks, by mode and candidate (`record.scores.view`)."""
        return self.run.checks

    @property
    def drafts(self) -> pd.DataFrame:
        """The pools' scores, by role and text (a public data set's: keys only)."""
        return self.run.drafts


def _index(path: Path) -> dict[str, object]:
    file = path / INDEX
    if not file.is_file():
        raise InputError("not a results folder (no results.json)", path=path, fix=FIX)
    data = read_json(file)
    if data.get("format_version") not in READS:
        raise InputError(
            f"results format {data.get('format_version')!r}; this factqa reads formats "
            f"{' and '.join(map(str, READS))} (the newest, {RESULTS_FORMAT}, it writes)",
            path=file,
            fix="update factqa",
        )
    for name, recorded in dict(data.get("files") or {}).items():  # type: ignore[call-overload]
        where = path / name
        if not where.is_file() or file_record(where) != recorded:
            raise InputError(
                "missing, or not the file results.json records (edited)", path=where, fix=FIX
            )
    return data


def gunzipped(file: Path) -> str:
    """A committed gzip file's text, expanded no further than the cap (`streams`)."""
    try:
        return gunzip_capped(file.read_bytes(), MAX_EXPANDED_MB * 2**20).decode("utf-8")
    except TooLarge as e:
        raise InputError(f"expands to {e}", path=file, fix=FIX) from None
    except (EOFError, zlib.error, UnicodeDecodeError) as e:
        raise InputError(f"not a gzip-compressed UTF-8 file ({e})", path=file, fix=FIX) from None


def read_table(path: Path, table: Table) -> pd.DataFrame:
    """A results table (gzip CSV) typed as `table` declares (empty where the file is not
    there: a run without scores)."""
    return _typed_cells(_raw(path, table), table)


def _raw(path: Path, table: Table) -> pd.DataFrame:
    """A results table's cells as written (empty, with its columns, where it is not there)."""
    file = path / table.file
    if not file.is_file():
        return pd.DataFrame(columns=table.names)
    return pd.read_csv(io.StringIO(gunzipped(file)), keep_default_na=False, dtype=str)


def _typed_cells(frame: pd.DataFrame, table: Table) -> pd.DataFrame:
    """`frame`'s text cells as the run meant them (`files.read_cell`), typed as `table` says."""
    frame = frame.copy()
    for col in frame.columns:
        if col not in table.names or table.dtype(col) == "str":
            frame[col] = frame[col].map(read_cell)
    known = {c: table.dtype(c) for c in table.names if c in frame.columns}
    return _typed(frame, known)


def read_scores(path: Path, version: int) -> pd.DataFrame:
    """The results' scores as one table (`record.scores`): results format 1 kept the checks
    and the pools' scores as two, joined here, each check's text keyed by its `text_key`."""
    if version >= 2:
        return read_table(path, RESULT_SCORES)
    checks, drafts = _raw(path, RESULT_CHECKS), _raw(path, RESULT_DRAFTS)
    checks["text_sha256"] = [text_key(read_cell(c)) for c in checks["candidate"]]
    return _typed_cells(joined(checks, drafts, RESULT_SCORES.names), RESULT_SCORES)


def wide_questions(
    questions: pd.DataFrame, answers: pd.DataFrame, methods: list[str]
) -> pd.DataFrame:
    """questions.csv's wide layout from the results' questions and per-method answers (cells
    as text, then typed as `report.run.typed_questions` types them)."""
    q = questions.copy()
    for col in ("question", "gold"):
        if col not in q.columns:
            q[col] = ""
    by = answers.set_index(["question_id", "method"])
    for m in methods:
        mine = by.xs(m, level="method")
        for c in RESULT_ANSWERS.names[2:]:
            q[f"{m}.{c}"] = q.question_id.map(mine[c]).map(_as_text)
    return typed_questions(q.astype({c: str for c in q.columns}))


def _as_text(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "" if v != v else f"{v:.6g}"
    return "" if v is None else str(v)


def load_results(path: Path) -> Results:
    """The results folder at `path`; an `InputError` if it is not one or a file was edited."""
    index = _index(path)
    raw = read_json(path / MANIFEST)
    data = migrate(raw, {})[0]
    manifest = from_json(data, path / MANIFEST)
    source = Source.of(dict(index["source"]))  # type: ignore[call-overload]
    summary = pd.read_csv(path / "summary.csv")
    methods = list(summary.method)
    answers = read_table(path, RESULT_ANSWERS).astype({"answer": str, "value": str})
    questions = wide_questions(read_table(path, RESULT_QUESTIONS), answers, methods)
    optional = {
        name: pd.read_csv(path / name) if (path / name).is_file() else pd.DataFrame()
        for name in ("agreement.csv", "routing.csv")
    }
    curves = pd.read_csv(path / TABLES["curves.csv"].file)
    run = Run(
        path,
        manifest,
        summary,
        questions,
        curves,
        pd.DataFrame(),
        optional["routing.csv"],
        optional["agreement.csv"],
        written_in=version_of(raw),
    )
    samples = read_table(path, RESULT_SAMPLES)
    scores = read_scores(path, int(index["format_version"]))  # type: ignore[call-overload]
    # the run's lazily read tables are the results' own (no attempts.csv here)
    run.__dict__.update(attempts=samples, scores=scores)
    return Results(path, source, run, samples)


def source_of(path: Path) -> Source:
    """What the results folder at `path` is of, from its index alone."""
    return Source.of(dict(json.loads((path / INDEX).read_text(encoding="utf-8"))["source"]))


def load_any(where: Path | Run) -> Run:
    """A run folder or a results folder (by its results.json) as a `Run`; a `Run` as it is."""
    if isinstance(where, Run):
        return where
    return load_results(where).run if (where / INDEX).is_file() else load_run(where)

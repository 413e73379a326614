"""Run outputs: attempts.csv, questions.csv, summary.csv, curves.csv, manifest.json.

Files are written atomically (temporary file, fsync, rename), so an interrupted run never leaves a
half-written export. Text cells that a spreadsheet would run as a formula (starting with = + - @,
tab or carriage return) are prefixed with a quote, as OWASP advises; cells that read as numbers
stay numbers.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from experiment.compare import MethodAnswer, MethodSummary
from experiment.records import Attempt, Question, Span

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


# `cached` stays out of the export: a resumed run must write the same file as an uninterrupted
# one. The manifest counts the generations that came from the cache.
ATTEMPT_COLUMNS = [f.name for f in fields(Attempt) if f.name not in ("span", "cached")] + [
    "span_start",
    "span_end",
    "span_text",
]


def span_cells(span: Span | None) -> dict[str, Any]:
    """The evidence span as the three CSV cells every export uses; empty when there is none."""
    if span is None:
        return {"span_start": "", "span_end": "", "span_text": ""}
    return {"span_start": span.start, "span_end": span.end, "span_text": span.text}


def attempt_row(a: Attempt) -> dict[str, Any]:
    row = {f.name: getattr(a, f.name) for f in fields(Attempt) if f.name != "span"}
    row["candidates"] = " | ".join(a.candidates)
    row.update(span_cells(a.span))
    return row


def question_rows(
    questions: Sequence[Question],
    answers: dict[str, dict[str, MethodAnswer]],
    methods: Sequence[str],
    verified: str,
    extra: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per question: gold, the kept span, then each method's answer and verdict.

    `extra[question_id]` adds per-question cells (gold_in_text, sample counts) after the gold.
    """
    extra_columns = list(next(iter(extra.values())).keys()) if extra else []
    columns = [
        "question_id",
        "article_id",
        "kind",
        "question",
        "gold",
        "unanswerable",
        *extra_columns,
        "agreement",
        "span_start",
        "span_end",
        "span_text",
    ]
    for m in methods:
        columns += [
            f"{m}.answer",
            f"{m}.value",
            f"{m}.correct",
            f"{m}.abstained",
            f"{m}.agreement",
        ]
    rows = []
    for q in questions:
        per = answers[q.id]
        kept = per[verified].chosen
        row: dict[str, Any] = {
            "question_id": q.id,
            "article_id": q.article_id,
            "kind": q.kind,
            "question": q.text,
            "gold": " | ".join(q.gold),
            "unanswerable": q.unanswerable,
            **(extra[q.id] if extra else {}),
            "agreement": per[verified].agreement,
            **span_cells(kept.attempt.span if kept else None),
        }
        for m in methods:
            a = per[m]
            row[f"{m}.answer"] = a.chosen.attempt.answer if a.chosen else ""
            row[f"{m}.value"] = a.chosen.attempt.value if a.chosen else ""
            row[f"{m}.correct"] = a.correct
            row[f"{m}.abstained"] = a.abstained
            row[f"{m}.agreement"] = a.agreement
        rows.append(row)
    return rows, columns


SUMMARY_COLUMNS = [f.name for f in fields(MethodSummary)]


def write_summary(path: Path, summary: Sequence[MethodSummary]) -> None:
    write_csv(path, [asdict(s) for s in summary], SUMMARY_COLUMNS)


def write_manifest(path: Path, manifest: Mapping[str, Any]) -> None:
    atomic_write(path, json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n")

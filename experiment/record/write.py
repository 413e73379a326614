"""Writing a run folder: its records as rows of the files `record.columns` declares, the
manifest, and the Parquet copies. `report/` never imports this module.

Every file goes through `experiment.base.files` (atomic, spreadsheet-safe); this module decides only
how a record becomes a row.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from experiment.base.files import Ledger, atomic_write, temporary_prefix
from experiment.base.types import Attempt, Question, Span, span_cells
from experiment.evaluate.registry import MethodAnswers
from experiment.evaluate.summary import MethodSummary
from experiment.record.columns import ANSWERS, ATTEMPTS, SUMMARY, question_columns
from experiment.record.manifest import FORMAT_VERSION, Manifest, RunEntry
from experiment.record.value_cells import value_cells

_SPAN_FIELDS = ("spans", "operand_spans")
ATTEMPT_COLUMNS = ATTEMPTS.names  # `cached` stays out (record.columns)
ANSWER_COLUMNS = ANSWERS.names
SUMMARY_COLUMNS = SUMMARY.names


def json_list(items: Sequence[Any]) -> str:
    """A list as one CSV cell: a JSON array."""
    return json.dumps(list(items), ensure_ascii=False)


def spans_json(spans: Sequence[Span]) -> str:
    """Spans as one CSV cell: a JSON array of [start, end] pairs."""
    return json_list([[s.start, s.end] for s in spans])


def attempt_row(a: Attempt, kind: str = "") -> dict[str, Any]:
    """attempts.csv's row of one sample; `kind` (the question's) tells a year from a number."""
    row = {f.name: getattr(a, f.name) for f in fields(Attempt) if f.name not in _SPAN_FIELDS}
    row.update(value_cells(a.value, kind))
    row["candidates"] = json_list(a.candidates)
    row.update(span_cells(a.span))
    row["spans"] = spans_json(a.spans)
    row["operand_spans"] = spans_json(a.operand_spans)
    return row


def question_rows(
    questions: Sequence[Question],
    answers: MethodAnswers,
    methods: Sequence[str],
    verified: str,
    extra: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per question: gold, the kept span, then each method's answer and verdict.

    `extra[question_id]` adds per-question cells (gold_in_text, sample counts) after the gold.
    """
    extra_columns = list(next(iter(extra.values())).keys()) if extra else []
    columns = question_columns(methods, extra_columns)
    rows = []
    for q in questions:
        per = answers[q.id]
        kept = per[verified].chosen
        row: dict[str, Any] = {
            "question_id": q.id,
            "article_id": q.article_id,
            "cluster": q.cluster,
            "kind": q.kind,
            "question": q.text,
            "gold": " | ".join(q.gold),
            "unanswerable": q.unanswerable,
            "computed": q.computed,
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
            row[f"{m}.failed"] = a.failed
            row[f"{m}.agreement"] = a.agreement
            row[f"{m}.confidence"] = a.confidence
            row[f"{m}.in_text_wrong"] = a.in_text_wrong
        rows.append(row)
    return rows, columns


def answer_rows(
    questions: Sequence[Question], answers: MethodAnswers, methods: Sequence[str]
) -> Iterator[dict[str, Any]]:
    """answers.csv, the long form of questions.csv: one row per question and method, its value
    in typed columns."""
    for q in questions:
        for m in methods:
            a = answers[q.id][m]
            chosen = a.chosen.attempt if a.chosen else None
            value = chosen.value if chosen else ""
            yield {
                "question_id": q.id,
                "article_id": q.article_id,
                "kind": q.kind,
                "method": m,
                "answer": chosen.answer if chosen else "",
                "value": value,
                **value_cells(value, q.kind),
                "correct": a.correct,
                "abstained": a.abstained,
                "failed": a.failed,
                "agreement": a.agreement,
                "confidence": a.confidence,
                "in_text_wrong": a.in_text_wrong,
                **span_cells(chosen.span if chosen else None),
            }


def summary_rows(summary: Sequence[MethodSummary]) -> list[dict[str, Any]]:
    """summary.csv's (or agreement.csv's) rows, in SUMMARY_COLUMNS."""
    return [asdict(s) for s in summary]


def parquet_copies(run_dir: Path, names: Sequence[str], ledger: Ledger, fix: str) -> list[str]:
    """Each CSV of `names` in `run_dir` also as Parquet (typed as pandas reads the CSV), where
    pyarrow is installed, placed through the folder's `ledger`; the names written ([] without
    pyarrow)."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return []
    import pandas as pd

    from experiment.base.files import read_cell

    written = []
    for name in names:
        table = pd.read_csv(run_dir / name, keep_default_na=False, na_values=[""])
        for col in table.columns:  # text as written, without the CSV's formula guard
            if not pd.api.types.is_numeric_dtype(table[col]):
                table[col] = table[col].map(lambda v: read_cell(v) if isinstance(v, str) else v)
        target = name.replace(".csv", ".parquet")
        tmp = run_dir / f"{temporary_prefix(target)}parquet.tmp"  # the next run removes it
        table.to_parquet(tmp, index=False)
        ledger.place(target, tmp, fix)
        written.append(target)
    return written


def manifest_text(manifest: Manifest) -> str:
    """manifest.json's text at the current FORMAT_VERSION (sorted keys, two-space indent)."""
    data = manifest.as_json() | {"format_version": FORMAT_VERSION}
    return json.dumps(data, indent=2, sort_keys=True, default=str) + "\n"


def write_manifest(path: Path, manifest: Manifest) -> None:
    """manifest.json at the current FORMAT_VERSION, outside a run's ledger (a copy of a run)."""
    atomic_write(path, manifest_text(manifest))


def _peek(path: Path) -> dict[str, Any]:
    """The manifest at `path` as plain JSON, leniently: {} when there is none or it is not one."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return old if isinstance(old, dict) else {}


def previous_history(path: Path) -> list[RunEntry]:
    """Earlier runs into the same folder, so a rerun keeps the time of the first full run
    (an entry that is not one is left out)."""
    history = _peek(path).get("history")
    entries = []
    for h in history if isinstance(history, list) else []:
        try:
            entries.append(RunEntry.of(h))
        except (AttributeError, KeyError, TypeError, ValueError):
            continue
    return entries


def recorded_fingerprint(path: Path) -> str:
    """The fingerprint of the run recorded at `path`; "" when none is (no manifest, or one
    recorded before runs kept it)."""
    value = _peek(path).get("fingerprint")
    return value if isinstance(value, str) else ""

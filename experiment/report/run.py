"""A finished run folder, loaded once: manifest, summary, questions, attempts, curves, blind spots,
routing.

Every reader of a run (the notebook, `factqa report`, the HTML page, the Markdown writer, the
benchmarks) loads it here, so a run folder is checked and parsed in one place: every output
must have the size and SHA-256 its manifest records (a folder cut short or edited is refused),
true/false cells become booleans, confidences numbers, and an attempt's confirming spans `Span`
records.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from experiment.errors import InputError
from experiment.evaluate.methods import SELECTED, VERIFIED
from experiment.files import file_record
from experiment.records import Span
from experiment.report import manifest as manifests
from experiment.report.manifest import Manifest

RUN_FILES = ("manifest.json", "summary.csv", "questions.csv", "curves.csv")
FLAGS = ("unanswerable", "computed", "gold_in_text", "stopped_early")
METHOD_FLAGS = (".correct", ".abstained", ".failed", ".in_text_wrong")
METHOD_NUMBERS = (".agreement", ".confidence")


@dataclass(frozen=True)
class Run:
    path: Path
    manifest: Manifest
    summary: pd.DataFrame
    questions: pd.DataFrame  # typed: see `typed_questions`
    curves: pd.DataFrame
    blindspots: pd.DataFrame
    routing: pd.DataFrame  # accuracy against the share sent to the large model (may be empty)
    agreement: pd.DataFrame  # the summary over questions without gold, against large@1 (or empty)

    @cached_property
    def attempts(self) -> pd.DataFrame:
        """attempts.csv, typed (`typed_attempts`); loaded when first asked for."""
        path = self.path / "attempts.csv"
        if not path.is_file():
            raise InputError(
                "the run folder has no attempts.csv", path=self.path, fix="run it again"
            )
        return typed_attempts(pd.read_csv(path, keep_default_na=False, dtype=str))

    @property
    def scored_against(self) -> str:
        """'gold', 'large@1' (no question has gold: the summary is agreement) or 'both'."""
        return self.manifest.scored_against

    @property
    def k(self) -> int:
        return self.manifest.k

    @property
    def methods(self) -> list[str]:
        return list(self.summary.method)

    def has(self, method: str) -> bool:
        return method in set(self.summary.method)

    @property
    def verified(self) -> str:
        """small-verified@k: the method as the user stated it."""
        return VERIFIED.name(self.k)

    @property
    def selected(self) -> str | None:
        """The learned selector's method, in runs that have it."""
        name = SELECTED.name(self.k)
        return name if self.has(name) else None


def _truth(col: pd.Series) -> pd.Series:
    return col.astype(str).str.lower().eq("true")


def typed_questions(q: pd.DataFrame) -> pd.DataFrame:
    """questions.csv as read (text cells) with flags as booleans and agreement and confidence as
    numbers; a run written before methods had a confidence takes its agreement."""
    q = q.copy()
    for col in q.columns:
        if col in FLAGS or col.endswith(METHOD_FLAGS):
            q[col] = _truth(q[col])
    for col in [c for c in q.columns if c.endswith(".agreement")]:
        twin = col.removesuffix(".agreement") + ".confidence"
        if twin not in q.columns:
            q[twin] = q[col]
    for col in q.columns:
        if col == "agreement" or col.endswith(METHOD_NUMBERS):
            q[col] = pd.to_numeric(q[col], errors="coerce")
    return q


def parse_spans(cell: str, text: str = "") -> tuple[Span, ...]:
    """The `spans` cell as spans, their text from `text` when given: a JSON array of
    [start, end] pairs, or (runs written before) `start:end` pairs separated by spaces."""
    cell = str(cell).strip()
    if cell.startswith("["):
        pairs = [(int(a), int(b)) for a, b in json.loads(cell)]
    else:
        pairs = [(int(a), int(b)) for a, _, b in (p.partition(":") for p in cell.split())]
    return tuple(Span(a, b, text[a:b] if text else "") for a, b in pairs)


def typed_attempts(a: pd.DataFrame) -> pd.DataFrame:
    """attempts.csv as read, with `confirmed` a boolean and `spans` a tuple of `Span`s (every
    confirming span; a run written before they were kept has only its first, `span_*`)."""
    a = a.copy()
    a["confirmed"] = _truth(a["confirmed"])
    if "spans" not in a.columns:
        a["spans"] = [
            f"{s}:{e}" if str(s).strip() else ""
            for s, e in zip(a.span_start, a.span_end, strict=True)
        ]
    a["spans"] = [parse_spans(cell) for cell in a["spans"]]
    # runs written before derivations were checked have no working: nothing derived
    a["derived"] = _truth(a["derived"]) if "derived" in a.columns else False
    cells = a["operand_spans"] if "operand_spans" in a.columns else [""] * len(a)
    a["operand_spans"] = [parse_spans(cell) for cell in cells]
    # runs written before costs were kept: unknown (NaN)
    for col in ("evaluated_tokens", "flops"):
        a[col] = pd.to_numeric(a[col], errors="coerce") if col in a.columns else float("nan")
    return a


CACHED_FIX = "run the same command again: the answers are cached"


def _mismatch(file: Path, recorded: dict[str, Any]) -> str:
    """How a file differs from what the manifest records of it; "" when it does not."""
    if not file.is_file():
        return "missing"
    found = file_record(file)
    if found["bytes"] != recorded["bytes"]:
        return f"has {found['bytes']:,} bytes, the manifest records {int(recorded['bytes']):,}"
    if found["sha256"] != recorded["sha256"]:
        return "its SHA-256 is not the one the manifest records (edited)"
    return ""


def check_outputs(path: Path, manifest: Manifest) -> None:
    """Every file the run wrote is there as it wrote it; an `InputError` naming the first one
    that is not (a folder cut short, edited or partly rewritten)."""
    for name, recorded in manifest.outputs.items():
        problem = _mismatch(path / name, recorded)
        if problem:
            raise InputError(
                f"{problem}: the run folder is not the one its manifest.json describes",
                path=path / name,
                fix=CACHED_FIX,
            )


def _own(path: Path, manifest: Manifest, name: str) -> Path | None:
    """An optional output, when this run wrote it (by its manifest; by its presence in a folder
    recorded before manifests listed their outputs)."""
    file = path / name
    wrote = name in manifest.outputs if manifest.outputs else file.exists()
    return file if wrote else None


def load_run(path: Path) -> Run:
    """A run folder written by `factqa run`; a clear error if it is not one, or if its files
    are not the ones its manifest records."""
    missing = [f for f in RUN_FILES if not (path / f).is_file()]
    if missing:
        raise InputError(
            f"not a finished run folder (no {', '.join(missing)})",
            path=path,
            fix="give a folder written by 'factqa run'",
        )
    manifest = manifests.read(path / "manifest.json")
    check_outputs(path, manifest)
    spots, routing, agreement = (
        _own(path, manifest, f) for f in ("blindspots.csv", "routing.csv", "agreement.csv")
    )
    return Run(
        path,
        manifest,
        pd.read_csv(path / "summary.csv"),
        typed_questions(pd.read_csv(path / "questions.csv", keep_default_na=False, dtype=str)),
        pd.read_csv(path / "curves.csv"),
        pd.read_csv(spots, keep_default_na=False, dtype=str) if spots else pd.DataFrame(),
        pd.read_csv(routing) if routing else pd.DataFrame(),
        pd.read_csv(agreement) if agreement else pd.DataFrame(),
    )

"""A run folder of any earlier format brought to the current one, in one place.

`migrate(manifest, tables)` takes a folder's raw manifest (JSON) and any of its tables as read
(by file name) and returns both at `FORMAT_VERSION`; every reader calls it once on what it
read, and no reader keeps a branch for an older folder. Each format step is one function.

Format 0 (no `format_version`; folders written before this module) lacked, in folders older
still: the data set's name (those runs were of the bundled corpus), the outputs' digests, a
method's confidence (its agreement), every confirming span (only the first, and `start:end`
pairs before JSON), an answer's working, the samples' cost, and the curves' cost.
Format 1 lacked the scoring calls' cost in checks.csv and drafts.csv (unknown: blank).
Format 2 lacked the computed questions' scored-text form in its settings (it was the result).
Format 3 lacked the calculation prompt's token limit in its settings (there was none).
Format 4 said why the checks and why the pools' scores were left out in two fields of its own,
and its oldest runs had no `drafts` setting (they scored no pools).
Format 5 wrote the large model's checks and the pools' scores as two tables (checks.csv and
drafts.csv); format 6 writes every scoring's scores in one (scores.csv, `record.scores`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from experiment.base.errors import InputError
from experiment.base.types import BUNDLED
from experiment.record.columns import SCORES
from experiment.record.scores import joined

FORMAT_VERSION = 6  # the run folder's format, written by every new run
Tables = dict[str, pd.DataFrame]


def version_of(manifest: Mapping[str, Any]) -> int:
    """The folder's format version: 0 for a manifest written before versions were kept."""
    version = manifest.get("format_version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise ValueError(f"format_version {version!r} is not a version")
    return version


def migrate(
    manifest: Mapping[str, Any], tables: Mapping[str, pd.DataFrame]
) -> tuple[dict[str, Any], Tables]:
    """`manifest` and `tables` (file name -> frame as read) at FORMAT_VERSION; a folder of a
    later version than this code knows is an `InputError`."""
    data, frames = dict(manifest), dict(tables)
    try:
        version = version_of(data)
    except ValueError as e:
        raise InputError(str(e), field="format_version", fix="run it again") from None
    if version > FORMAT_VERSION:
        raise InputError(
            f"the run folder has format {version}; this factqa reads up to {FORMAT_VERSION}",
            field="format_version",
            fix="update factqa",
        )
    for step in STEPS[version:]:
        data, frames = step(data, frames)
    return data, frames


def _v0(manifest: dict[str, Any], tables: Tables) -> tuple[dict[str, Any], Tables]:
    """Format 0 to 1."""
    manifest.setdefault("dataset", BUNDLED)  # runs before manifests named their data set
    manifest.setdefault("bundled", True)
    manifest["format_version"] = 1
    fixes: dict[str, Callable[[pd.DataFrame], pd.DataFrame]] = {
        "questions.csv": _confidences,
        "attempts.csv": _attempts,
        "curves.csv": _curve_costs,
    }
    return manifest, {n: fixes[n](t) if n in fixes else t for n, t in tables.items()}


def _v1(manifest: dict[str, Any], tables: Tables) -> tuple[dict[str, Any], Tables]:
    """Format 1 to 2: the scoring calls' cost unknown where it was not kept."""
    manifest["format_version"] = 2
    cost = {
        "checks.csv": ("prompt_tokens", "seconds", "evaluated_tokens", "flops", "calls"),
        "drafts.csv": ("prompt_tokens", "seconds", "evaluated_tokens", "flops"),
    }
    out = dict(tables)
    for name, columns in cost.items():
        if name in out:
            missing = [c for c in columns if c not in out[name].columns]
            out[name] = out[name].assign(**dict.fromkeys(missing, "")) if missing else out[name]
    return manifest, out


def _v2(manifest: dict[str, Any], tables: Tables) -> tuple[dict[str, Any], Tables]:
    """Format 2 to 3: runs before `derived_text` scored each proposal's result."""
    from experiment.evaluate.proposal_pool import RESULT

    manifest["format_version"] = 3
    config = manifest.get("config")
    if isinstance(config, dict):
        manifest["config"] = {"derived_text": RESULT, **config}
    return manifest, dict(tables)


def _v3(manifest: dict[str, Any], tables: Tables) -> tuple[dict[str, Any], Tables]:
    """Format 3 to 4: runs before `calc_max_tokens` gave a calculation `max_tokens`."""
    manifest["format_version"] = 4
    config = manifest.get("config")
    if isinstance(config, dict):
        manifest["config"] = {"calc_max_tokens": 0, **config}
    return manifest, dict(tables)


def _v4(manifest: dict[str, Any], tables: Tables) -> tuple[dict[str, Any], Tables]:
    """Format 4 to 5: `checks_left_out` and `drafts_left_out` ("ROLE: why; ...") become one
    `left_out` record, by scoring (`check`, `pool scores (ROLE)`); a run from before
    `drafts` scored no pools (the manifest's settings are typed: `RunConfig.of_record`)."""
    manifest["format_version"] = 5
    left_out: dict[str, str] = {}
    if checks := str(manifest.pop("checks_left_out", "") or ""):
        left_out["check"] = checks
    drafts = str(manifest.pop("drafts_left_out", "") or "")
    for part in re.split(r"; (?=(?:small|large): )", drafts) if drafts else []:
        role, _, why = part.partition(": ")
        left_out[f"pool scores ({role})"] = why
    manifest["left_out"] = left_out
    config = manifest.get("config")
    if isinstance(config, dict):  # runs before the pools' scores made none
        manifest["config"] = {"drafts": "none", **config}
    return manifest, dict(tables)


def _v5(manifest: dict[str, Any], tables: Tables) -> tuple[dict[str, Any], Tables]:
    """Format 5 to 6: checks.csv and drafts.csv, where read, become the one scores.csv."""
    manifest["format_version"] = 6
    out = dict(tables)
    checks, drafts = out.pop("checks.csv", None), out.pop("drafts.csv", None)
    if checks is not None or drafts is not None:
        empty = pd.DataFrame()
        out[SCORES.file] = joined(
            empty if checks is None else checks, empty if drafts is None else drafts, SCORES.names
        )
    return manifest, out


STEPS = [_v0, _v1, _v2, _v3, _v4, _v5]  # STEPS[v] takes a folder of format v to v + 1


def _confidences(q: pd.DataFrame) -> pd.DataFrame:
    """A method without a confidence takes its agreement."""
    twins = {
        c.removesuffix(".agreement") + ".confidence": q[c]
        for c in q.columns
        if c.endswith(".agreement")
    }
    missing = {c: v for c, v in twins.items() if c not in q.columns}
    return q.assign(**missing) if missing else q


def _json_spans(cell: str) -> str:
    """`start:end` pairs separated by spaces as a JSON array of pairs; JSON as it is."""
    cell = str(cell).strip()
    if cell.startswith("["):
        return cell
    pairs = [[int(a), int(b)] for a, _, b in (p.partition(":") for p in cell.split())]
    return json.dumps(pairs)


def _attempts(a: pd.DataFrame) -> pd.DataFrame:
    """Every confirming span as JSON (only the first, `span_*`, where spans were not kept), no
    working (nothing derived) and unknown costs where they were not kept."""
    a = a.copy()
    if "spans" not in a.columns:
        a["spans"] = [
            f"{s}:{e}" if str(s).strip() else ""
            for s, e in zip(a.span_start, a.span_end, strict=True)
        ]
    a["spans"] = [_json_spans(c) for c in a["spans"]]
    a["operand_spans"] = (
        [_json_spans(c) for c in a["operand_spans"]] if "operand_spans" in a.columns else "[]"
    )
    for col, empty in (("derived", "false"), ("evaluated_tokens", ""), ("flops", "")):
        if col not in a.columns:
            a[col] = empty
    return a


def _curve_costs(c: pd.DataFrame) -> pd.DataFrame:
    """Curves without their cost: unknown FLOPs and seconds."""
    return c.assign(**{col: float("nan") for col in ("flops", "seconds") if col not in c.columns})

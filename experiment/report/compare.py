"""Two runs side by side: which settings and machine facts differ, and which samples.

`compare(a, b)` reads both folders as `factqa report` does (`report/validate`: against their
manifests, each field and column validated, a damaged folder one `InputError` naming it) and returns
what differs:
- settings: the configuration keys whose values differ;
- machine: the manifest's machine facts that differ (CPU, cores, threads, llama.cpp's system
  info and version), and the git commit;
- samples: the samples both runs drew (matched by question, model role and sample index) whose
  raw text differs, by role, with the first few shown.
The same command gives the same samples only where the weights, the prompt, the seeds, the
sampling settings, the backend and llama.cpp's kernels are the same: a difference in the machine
facts is the first place to look when the samples differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from experiment.base.errors import InputError
from experiment.report.validate import AGAIN, reporting, validated_attempts, validated_run

KEY = ["question_id", "role", "sample_index"]


@dataclass(frozen=True)
class Comparison:
    settings: dict[str, tuple[Any, Any]]
    machine: dict[str, tuple[Any, Any]]
    compared: dict[str, int]  # samples both runs drew, by role
    differ: dict[str, int]  # of those, whose raw text differs
    examples: list[dict[str, Any]] = field(default_factory=list)
    # the questions only one run asked (its questions file changed between the runs)
    only: dict[str, list[str]] = field(default_factory=dict)


def _diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def _side(path: Path) -> tuple[dict[str, Any], dict[str, Any], pd.DataFrame]:
    """One run's settings, machine facts (with its git commit) and samples (KEY and raw text),
    validated: a damaged folder is an `InputError` naming it."""
    run = validated_run(path)
    attempts = validated_attempts(run)
    cols = [*KEY, "raw_text"]
    missing = [c for c in cols if c not in attempts.columns]
    if missing:
        raise InputError.missing_columns(missing, path / "attempts.csv", AGAIN)
    with reporting(path):
        m = run.manifest
        machine = {**m.machine.as_json(), "git_commit": m.git_commit}
        return m.config.as_dict(), machine, attempts[cols].astype(str)


def compare(a: Path, b: Path, show: int = 5) -> Comparison:
    """What differs between the runs in folders `a` and `b` (module docstring)."""
    (config_a, machine_a, samples_a), (config_b, machine_b, samples_b) = _side(a), _side(b)
    both = pd.merge(samples_a, samples_b, on=KEY, suffixes=("_a", "_b"), how="inner")
    changed = both[both.raw_text_a != both.raw_text_b]
    roles = sorted(set(both.role))
    asked_a, asked_b = set(samples_a.question_id), set(samples_b.question_id)
    return Comparison(
        settings=_diff(config_a, config_b),
        machine=_diff(machine_a, machine_b),
        compared={r: int((both.role == r).sum()) for r in roles},
        differ={r: int((changed.role == r).sum()) for r in roles},
        examples=changed.head(show).to_dict("records"),
        only={"a": sorted(asked_a - asked_b), "b": sorted(asked_b - asked_a)},
    )


def lines(c: Comparison) -> list[str]:
    """The comparison as text for the console."""
    out = []
    for side, ids in c.only.items():
        if ids:
            shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
            out.append(f"questions: {len(ids)} only in run {side.upper()} ({shown})")
    for title, diffs in (("settings", c.settings), ("machine", c.machine)):
        if not diffs:
            out.append(f"{title}: the same")
        for key, (x, y) in diffs.items():
            out.append(f"{title} {key}: {x!r} -> {y!r}")
    for role, n in c.compared.items():
        out.append(f"{role} samples: {c.differ[role]} of {n} differ")
    for e in c.examples:
        out.append(
            f"  {e['question_id']} {e['role']} #{e['sample_index']}: "
            f"{e['raw_text_a']!r} -> {e['raw_text_b']!r}"
        )
    return out

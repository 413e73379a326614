"""The README's first screen: one small table that answers the question the tool asks, data set
by data set: large@1, small-verified@k (the method under test), the best method that uses the
small model alone and the best cascade, each with its verdict against large@1 and its model
FLOPs over large@1's.

Written between the README's `<!-- answer:start -->` and `<!-- answer:end -->` markers, a
row per data set: `factqa report RUN --readme README.md` writes the bundled corpus's row,
`factqa bench run` the public data sets' (the other rows stay as they were), and
`python -m experiment.report.first_screen README.md LABEL=RUN_DIR ...` any.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd

from experiment.evaluate.methods import PASS, REFERENCE, VERIFIED
from experiment.evaluate.summary import ALPHA, MIN_CLUSTERS
from experiment.report.console import SHORT_VERDICT, is_cascade
from experiment.report.results import load_any
from experiment.report.tables import is_missing, markdown_table

BLOCK = "answer"  # the README section's name


def _cell(r: Any, named: bool = False) -> str:
    """'0.535 (loses, 0.50× FLOPs)', the method's name first when `named`."""
    verdict = SHORT_VERDICT.get(r.verdict, r.verdict)
    flops = getattr(r, "flops_vs_large", None)
    cost = "" if is_missing(flops) else f", {float(flops):.2f}× FLOPs"
    head = f"{r.method} " if named else ""
    return f"{head}{r.accuracy:.3f} ({verdict}{cost})"


def best(summary: pd.DataFrame, k: int) -> tuple[Any, Any]:
    """The most accurate method that uses the small model alone (small-pass@k, an oracle, is
    not one) and the most accurate cascade; the first in table order among equals."""
    rows = list(summary.itertuples())
    alone = [
        r
        for r in rows
        if r.method.startswith("small") and int(r.large_calls) == 0 and r.method != PASS.name(k)
    ]
    cascades = [r for r in rows if is_cascade(r.method)]
    return max(alone, key=lambda r: r.accuracy), max(cascades, key=lambda r: r.accuracy)


def answer_rows(runs: dict[str, Path]) -> tuple[int, list[list[str]]]:
    """The table's rows over the runs present (label -> run or results folder), and their k."""
    rows, k = [], 10
    for label, path in runs.items():
        if not (path / "summary.csv").exists():
            continue
        run = load_any(path)
        k = run.k
        by = {r.method: r for r in run.summary.itertuples()}
        alone, cascade = best(run.summary, run.k)
        rows.append(
            [
                f"{label} ({run.manifest.questions})",
                f"{by[REFERENCE].accuracy:.3f}",
                _cell(by[run.verified]),
                _cell(alone, named=True),
                _cell(cascade, named=True),
            ]
        )
    return k, rows


def kept_rows(block: str) -> list[list[str]]:
    """The rows of an answer block as written (each a list of cells)."""
    rows = []
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        header = cells[0] == "data set (questions)" or set(cells[0]) <= set("- ")
        if line.startswith("| ") and len(cells) == 5 and not header:
            rows.append(cells)
    return rows


def _label(row: list[str]) -> str:
    return row[0].rsplit(" (", 1)[0]


def answer_section(runs: dict[str, Path], before: str = "") -> str:
    """The README's answer block: the table and how to read it. Rows of `before` (the block as
    it was) whose data set has no run here stay as they were, in their place."""
    k, fresh = answer_rows(runs)
    by_label = {_label(r): r for r in fresh}
    rows = [by_label.pop(_label(r), r) for r in kept_rows(before)] + list(by_label.values())
    header = [
        "data set (questions)",
        REFERENCE,
        VERIFIED.name(k),
        "best small-model method",
        "best cascade",
    ]
    return "\n".join(
        [
            *markdown_table(header, rows),
            "",
            f"Accuracy; in brackets the verdict against {REFERENCE} on the same questions "
            f"(beats or loses only where the paired interval excludes 0 and McNemar's p < {ALPHA}, "
            f"over {MIN_CLUSTERS} or more clusters; else n.s.) and the method's model FLOPs over "
            f"{REFERENCE}'s.",
        ]
    )


def update_answer(readme: Path, runs: dict[str, Path]) -> None:
    """Rewrite the README's answer block with the rows of `runs` (label -> run folder); the
    other data sets' rows stay. A README without the block is left as it is."""
    from experiment.report.markdown import update_section

    text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    start, end = f"<!-- {BLOCK}:start -->", f"<!-- {BLOCK}:end -->"
    if start not in text or end not in text:
        return
    before = text.split(start, 1)[1].split(end, 1)[0]
    update_section(readme, BLOCK, answer_section(runs, before))


def main(argv: list[str]) -> None:
    """`python -m experiment.report.first_screen README.md LABEL=RUN_DIR ...`"""
    readme, *pairs = argv
    update_answer(Path(readme), {label: Path(p) for label, p in (x.split("=", 1) for x in pairs)})


if __name__ == "__main__":
    main(sys.argv[1:])

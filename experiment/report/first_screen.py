"""The README's first screen: one small table that answers the question the tool asks, data set
by data set: large@1, small-verified@k (the method under test), small-pipeline@k (one answer for
every question from the small model's side), the best method that uses the small model alone
and the best cascade, each with its verdict against large@1 and its model
FLOPs over large@1's.

Written between the README's `<!-- answer:start -->` and `<!-- answer:end -->` markers, a
row per data set: `factqa report RUN --readme README.md` writes the bundled corpus's row,
`factqa bench run` the public data sets' (the other rows stay as they were), and
`python -m experiment.report.first_screen README.md LABEL=RUN_DIR ...` any.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from experiment.evaluate.methods import PASS, REFERENCE, SMALL_PIPELINE, VERIFIED
from experiment.evaluate.stats import holm
from experiment.evaluate.summary import ALPHA, BEATS, LOSES, MIN_CLUSTERS
from experiment.report.console import SHORT_VERDICT, is_cascade
from experiment.report.results import load_any
from experiment.report.tables import is_missing, markdown_table

BLOCK = "answer"  # the README section's name


HOLM_MARK = "†"


def _cell(r: Any, named: bool = False, kept: bool = False) -> str:
    """'0.535 (loses†, 0.50× FLOPs)', the method's name first when `named`; † where the verdict
    survives Holm's correction over the table's comparisons (`kept`)."""
    verdict = SHORT_VERDICT.get(r.verdict, r.verdict) + (HOLM_MARK if kept else "")
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


def chosen_rows(summary: pd.DataFrame, chooser: pd.DataFrame | None, k: int) -> list[Any] | None:
    """`summary`'s rows of the best small-model method and the best cascade as `chooser` (another
    sample's summary; None: `summary` itself) picks them: a method chosen before it is tested.
    None where a chosen method is not in `summary`."""
    by = {r.method: r for r in summary.itertuples()}
    picked = [by.get(r.method) for r in best(summary if chooser is None else chooser, k)]
    return None if any(r is None for r in picked) else picked


def _decided(r: Any) -> bool:
    return r.verdict in (BEATS, LOSES)


def holm_kept(tested: list[Any]) -> list[bool]:
    """Which of the `tested` summary rows (each a comparison against large@1) keep a beats or
    loses verdict under Holm's correction over all of them (McNemar's p, `ALPHA`)."""
    p = [float(r.mcnemar_p) if not is_missing(r.mcnemar_p) else 1.0 for r in tested]
    return [d and _decided(r) for d, r in zip(holm(p, ALPHA), tested, strict=True)]


@dataclass(frozen=True)
class AnswerTable:
    """The answer table's rows, its k, how many comparisons against large@1 it makes, how many
    verdicts (beats or loses) and how many of them survive Holm's correction."""

    k: int
    rows: list[list[str]]
    comparisons: int
    verdicts: int
    kept: int


def answer_rows(runs: dict[str, Path], chosen_on: dict[str, Path] | None = None) -> AnswerTable:
    """The table over the runs present (label -> run or results folder). Where `chosen_on`
    names another run of a label (its development sample, when `runs` holds the sealed one),
    the "best" methods are those that run's table chooses, reported on this run: a method is
    chosen before it is tested."""
    k, picked = 10, []
    for label, path in runs.items():
        if not (path / "summary.csv").exists():
            continue
        run = load_any(path)
        k = run.k
        by = {r.method: r for r in run.summary.itertuples()}
        other = (chosen_on or {}).get(label)
        chooser = load_any(other).summary if other and (other / "summary.csv").exists() else None
        tried = chosen_rows(run.summary, chooser, run.k)
        pipeline = by.get(SMALL_PIPELINE.name(run.k))  # None in a run made before it
        if tried is not None:  # else a chosen method is not in this run
            shown = [by[run.verified], pipeline, *tried]
            picked.append((label, run, by[REFERENCE], shown))
    tested = [r for *_, rs in picked for r in rs if r is not None]
    survive = holm_kept(tested)
    kept = iter(survive)
    rows = []
    for label, run, ref, (verified, pipeline, alone, cascade) in picked:
        rows.append(
            [
                f"{label} ({run.manifest.questions})",
                f"{ref.accuracy:.3f}",
                _cell(verified, kept=next(kept)),
                "—" if pipeline is None else _cell(pipeline, kept=next(kept)),
                _cell(alone, named=True, kept=next(kept)),
                _cell(cascade, named=True, kept=next(kept)),
            ]
        )
    decided = sum(_decided(r) for r in tested)
    return AnswerTable(k, rows, len(tested), decided, sum(survive))


def kept_rows(block: str) -> list[list[str]]:
    """The rows of an answer block as written (each a list of cells)."""
    rows = []
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        header = cells[0] == "data set (questions)" or set(cells[0]) <= set("- ")
        if line.startswith("| ") and len(cells) in (5, 6) and not header:
            rows.append(cells if len(cells) == 6 else [*cells[:3], "—", *cells[3:]])
    return rows


SEALED_LABEL = ", sealed sample"


def _label(row: list[str]) -> str:
    """A row's data set, whichever of its samples the row shows."""
    return row[0].rsplit(" (", 1)[0].removesuffix(SEALED_LABEL)


def _samples_note(rows: list[list[str]]) -> str:
    """Which sample each row reads: the development samples were scored many times while the
    code changed; a sealed one once, its "best" methods chosen on the development sample."""
    sealed = sum(SEALED_LABEL in r[0] for r in rows)
    if not sealed:
        return (
            "Every row is a development sample, scored many times while the code changed; each "
            'public data set\'s sealed sample is scored once (docs/RESULTS.md, "A clean test").'
        )
    return (
        ("1 row is a sealed sample" if sealed == 1 else f"{sealed} rows are sealed samples")
        + f", scored once on frozen code, {'its' if sealed == 1 else 'their'} best methods "
        "chosen on the development sample; the others are development samples, scored many times "
        '(docs/RESULTS.md, "A clean test").'
    )


def _verdict(cell: str) -> str:
    """A cell's verdict, without its Holm mark: "beats", "loses", "n.s." ("" for none)."""
    if "(" not in cell:
        return ""
    return cell.split("(", 1)[1].split(",", 1)[0].rstrip(")").removesuffix(HOLM_MARK)


def _names(labels: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


WORDS = {"beats": f"beats {REFERENCE}", "n.s.": "ties", "loses": f"loses to {REFERENCE}"}


def _verdicts(rows: list[list[str]], column: int) -> str:
    """`column`'s verdicts in words, each with its data sets (a beaten large@1's accuracy
    beside): "beats large@1 on X (0.480 against 0.360), ties on Y and loses to large@1 on Z"."""
    parts = []
    for verdict, words in WORDS.items():
        named = [r for r in rows if _verdict(r[column]) == verdict]
        if len(named) == len(rows) and verdict != "beats":
            return f"{words} on every data set"
        short = [
            _label(r).split(",")[0]
            + (f" ({r[column].split(' ', 1)[0]} against {r[1]})" if verdict == "beats" else "")
            for r in named
        ]
        if short:
            parts.append(f"{words} on {_names(short)}")
    return _names(parts) if parts else ""


def meaning(rows: list[list[str]], k: int) -> str:
    """What the table says, in words read from its rows: the verdicts of the method under test
    and of the small pipeline, data set by data set ("" without rows)."""
    if not rows:
        return ""
    line = f"**What it means:** {VERIFIED.name(k)}, the method under test, {_verdicts(rows, 2)}."
    piped = [r for r in rows if _verdict(r[3])]
    if piped:
        line += (
            f" {SMALL_PIPELINE.name(k)} (the article drafts the candidates, the small model "
            f"scores them, and every question gets an answer) {_verdicts(piped, 3)}."
        )
    return line


def answer_section(
    runs: dict[str, Path], chosen_on: dict[str, Path] | None = None, before: str = ""
) -> str:
    """The README's answer block: the table and how to read it (`chosen_on`: `answer_rows`).
    Rows of `before` (the block as it was) whose data set has no run here stay as they were,
    in their place."""
    table = answer_rows(runs, chosen_on)
    k, fresh = table.k, table.rows
    by_label = {_label(r): r for r in fresh}
    rows = [by_label.pop(_label(r), r) for r in kept_rows(before)] + list(by_label.values())
    header = [
        "data set (questions)",
        REFERENCE,
        VERIFIED.name(k),
        SMALL_PIPELINE.name(k),
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
            f"{REFERENCE}'s. The table makes {table.comparisons} comparisons against "
            f"{REFERENCE}; {HOLM_MARK} marks the {table.kept} of its {table.verdicts} verdicts "
            f"that survive Holm's correction over all of them (family-wise error {ALPHA}). "
            + _samples_note(rows),
            "",
            meaning(rows, k),
        ]
    ).rstrip()


def update_answer(readme: Path, runs: dict[str, Path]) -> None:
    """Rewrite the README's answer block with the rows of `runs` (label -> run folder); the
    other data sets' rows stay. A README without the block is left as it is."""
    from experiment.report.markdown import update_section

    before = answer_block(readme.read_text(encoding="utf-8") if readme.exists() else "")
    if before is not None:
        update_section(readme, BLOCK, answer_section(runs, None, before))


def answer_block(text: str) -> str | None:
    """The README answer block's body as `text` holds it (None: `text` has no block)."""
    start, end = f"<!-- {BLOCK}:start -->", f"<!-- {BLOCK}:end -->"
    if start not in text or end not in text:
        return None
    return text.split(start, 1)[1].split(end, 1)[0]


def main(argv: list[str]) -> None:
    """`python -m experiment.report.first_screen README.md LABEL=RUN_DIR ...`"""
    readme, *pairs = argv
    update_answer(Path(readme), {label: Path(p) for label, p in (x.split("=", 1) for x in pairs)})


if __name__ == "__main__":
    main(sys.argv[1:])

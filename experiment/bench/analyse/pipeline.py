"""docs/RESULTS.md's `pipeline` section (issue 53), read from the committed results alone: the
small pipeline (one answer for every question from the small model's side) against large@1 and
against the same pipeline with no model, and the large model as a judge of the article's
candidates against the same model writing, data set by data set.

No model runs and nothing is fitted here: each figure is read from a committed run's
questions.csv (per-question correctness) and summary.csv (FLOPs), so `factqa bench report`
writes the section again whenever a preset's results change.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from experiment.bench.sealed_samples import sealed_name
from experiment.evaluate.methods import (
    LARGE_PIPELINE,
    LARGE_TEXT,
    REFERENCE,
    SMALL_PIPELINE,
    TEXT_PIPELINE,
)
from experiment.evaluate.stats import mcnemar_exact
from experiment.report.first_screen import SEALED_LABEL
from experiment.report.results import load_any
from experiment.report.tables import markdown_table

SECTION = "pipeline"
# The data sets in the machine-readable line: its key, the preset's results folder, the label.
SETS = (
    ("bundled", "bundled", "bundled OrigoTech corpus"),
    ("squad", "squad-v1", "SQuAD v1.1"),
    ("squad_v2", "squad-v2", "SQuAD v2.0"),
    ("tatqa", "tatqa-dev", "TAT-QA dev"),
    ("drop", "drop", "DROP"),
)
LINED = ("bundled", "squad", "tatqa", "drop")  # the line names these four


@dataclass(frozen=True)
class Paired:
    """Two methods on the same questions: accuracies, discordant counts, McNemar's p."""

    a: float
    b: float
    wins: int
    losses: int
    p: float

    @property
    def gap(self) -> float:
        return self.a - self.b

    def said(self) -> str:
        return f"{self.gap:+.3f} (+{self.wins}/-{self.losses}, p {self.p:.3g})"


def paired(questions: pd.DataFrame, a: str, b: str) -> Paired:
    """Method `a` against `b` on `questions` (their `METHOD.correct` columns)."""
    right_a = questions[f"{a}.correct"].astype(bool).tolist()
    right_b = questions[f"{b}.correct"].astype(bool).tolist()
    wins, losses, p = mcnemar_exact(right_a, right_b)
    n = max(len(right_a), 1)
    return Paired(sum(right_a) / n, sum(right_b) / n, wins, losses, p)


@dataclass(frozen=True)
class SetFigures:
    """One data set's figures."""

    key: str
    label: str
    sample: str  # "development" or "sealed"
    k: int  # the run's k: the small methods' names
    questions: int
    stated: int
    versus_large: Paired  # small pipeline against large@1, all questions
    versus_text: Paired  # small pipeline against the no-model pipeline, all questions
    large_pipeline: float
    judge_gap: Paired  # large-text@1 against large@1 on the stated questions
    flops_vs_large: float | None

    @property
    def shown(self) -> str:
        """Its data set's label, marked where the figures are its sealed sample's."""
        return self.label + (SEALED_LABEL if self.sample == "sealed" else "")


def set_figures(key: str, label: str, path: Path, sample: str) -> SetFigures | None:
    """A committed run's figures (its `sample`); None where the run was made before the
    pipelines."""
    run = load_any(path)
    pipeline = SMALL_PIPELINE.name(run.k)
    q = run.questions
    needed = (pipeline, TEXT_PIPELINE.name(run.k), LARGE_PIPELINE.name(1), LARGE_TEXT.name(1))
    if any(f"{m}.correct" not in q.columns for m in needed):
        return None
    stated = q[~q["computed"].astype(bool)]
    flops = run.summary.set_index("method")["flops_vs_large"].get(pipeline)
    return SetFigures(
        key,
        label,
        sample,
        run.k,
        len(q),
        len(stated),
        paired(q, pipeline, REFERENCE),
        paired(q, pipeline, TEXT_PIPELINE.name(run.k)),
        float(q[f"{LARGE_PIPELINE.name(1)}.correct"].astype(bool).mean()),
        paired(stated, LARGE_TEXT.name(1), REFERENCE),
        None if flops is None or pd.isna(flops) else float(flops),
    )


def figures(results: Path) -> list[SetFigures]:
    """Every data set's committed runs that have the pipelines, in `SETS` order: its
    development sample's (results/PRESET/), then its sealed sample's where it was scored
    (results/sealed-PRESET/)."""
    out = []
    for key, folder, label in SETS:
        for sample, path in (
            ("development", results / folder),
            ("sealed", results / sealed_name(folder)),
        ):
            if (path / "summary.csv").exists():
                got = set_figures(key, label, path, sample)
                if got is not None:
                    out.append(got)
    return out


def machine_line(sets: list[SetFigures]) -> str:
    """The issue's line, over the data sets it names that have runs (`LINED`): each from its
    sealed sample where it was scored, else from its development sample."""
    by: dict[str, SetFigures] = {}
    for s in sets:  # a sealed sample's figures come after the development sample's: they win
        by[s.key] = s
    pairs = []
    for key in LINED:
        if key in by:
            v = by[key].versus_large
            pairs += [f"pipeline_{key}={v.a:.3f}", f"large_{key}={v.b:.3f}"]
    bundled = by.get("bundled")
    if bundled is not None and bundled.flops_vs_large is not None:
        pairs.append(f"pipeline_flops_bundled={bundled.flops_vs_large:.2f}")
    lined = [by[k] for k in LINED if k in by]
    if lined:
        pairs.append(f"judge_gap_large_min={min(s.judge_gap.gap for s in lined):+.3f}")
        pairs.append(f"pipeline_minus_nomodel_min={min(s.versus_text.gap for s in lined):+.3f}")
    return " ".join(pairs)


def pipeline_section(results: Path) -> str:
    """The section's Markdown ("" where no committed run has the pipelines)."""
    sets = figures(results)
    if not sets:
        return ""
    rows = [
        [
            f"{s.shown} ({s.questions})",
            f"{s.versus_large.a:.3f}",
            f"{s.versus_large.b:.3f}",
            s.versus_large.said(),
            f"{s.versus_text.b:.3f}",
            s.versus_text.said(),
            f"{s.large_pipeline:.3f}",
            "—" if s.flops_vs_large is None else f"{s.flops_vs_large:.2f}×",
        ]
        for s in sets
    ]
    judge = [
        [
            f"{s.shown} ({s.stated})",
            f"{s.judge_gap.a:.3f}",
            f"{s.judge_gap.b:.3f}",
            s.judge_gap.said(),
        ]
        for s in sets
    ]
    k = sets[0].k  # every preset samples the same k
    return "\n\n".join(
        [
            "## The small pipeline",
            f"Read from the committed results (`factqa bench report`; no model). "
            f"small-pipeline@{k} gives every question one answer from the small model's side: "
            f"small-text-derived@{k}'s where the run routes the question to the calculation "
            f"prompt, small-text@{k}'s elsewhere. text-pipeline is the same with no model "
            "(text-derived where routed, text-only elsewhere): what the pipeline would answer if "
            "the model added nothing. large-pipeline@1 is the same with the large model's "
            "scores. Every figure is over all of a data set's questions: on its development "
            f'sample, and on its sealed sample where it was scored once ("A clean test"; '
            f'rows marked "{SEALED_LABEL.strip(", ")}"). The line takes the sealed '
            "sample's figures where they exist.",
            "\n".join(
                markdown_table(
                    [
                        "data set (questions)",
                        f"small-pipeline@{k}",
                        REFERENCE,
                        "pipeline − large@1",
                        "text-pipeline",
                        "pipeline − text-pipeline",
                        LARGE_PIPELINE.name(1),
                        "pipeline FLOPs / large@1",
                    ],
                    rows,
                )
            ),
            "The large model as a judge: large-text@1 (its scores of the article's own "
            'candidates, "unknown" abstaining) against large@1 (the same model writing), on '
            "the stated questions (those the run does not route to the calculation prompt).",
            "\n".join(
                markdown_table(
                    [
                        "data set (stated questions)",
                        LARGE_TEXT.name(1),
                        REFERENCE,
                        "judge − writer",
                    ],
                    judge,
                )
            ),
            f"`{machine_line(sets)}`",
        ]
    )

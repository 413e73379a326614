"""What a change of rules did to a benchmark's figures: two run folders of the same generations.

    factqa bench before-after NAME BEFORE_RUN AFTER_RUN [--methods M,...]

BEFORE_RUN is the run rescored by the earlier code (e.g. a worktree of the landed main pointed
at the same generation cache), AFTER_RUN by this code. Prints, for each headline method, its
accuracy, verdict and FLOPs over large@1's before and after, with why each moved: the answers
that turned right or wrong (the judge, the vote or the verifier; on the questions both runs
asked), the verdict rule alone (the same answers, another verdict), or the cost rule (the same
answers, other FLOPs). The last line counts every
method's verdicts that changed, machine-readable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from experiment.bench.app import command
from experiment.bench.looks import evaluation_run

HEADLINE = (
    "large@1",
    "small-verified@10",
    "small-selected@10",
    "small-pass@10",
    "cascade@20%",
    "small-selected-checked@10",
    "cascade-check@20%",
)


def _flips(before: pd.DataFrame, after: pd.DataFrame, method: str) -> tuple[int, int]:
    """Questions `method` turned right and wrong (on the questions both runs asked)."""
    col = f"{method}.correct"
    if col not in before or col not in after:
        return 0, 0
    both = before.index.intersection(after.index)
    b, a = before.loc[both, col].astype(bool), after.loc[both, col].astype(bool)
    return int((a & ~b).sum()), int((b & ~a).sum())


def _ratio(x: object) -> str:
    return "—" if pd.isna(x) else f"{float(x):.2f}"  # type: ignore[arg-type]


def _why(method: str, up: int, down: int, reference: int, verdict_moved: bool, cost: bool) -> str:
    """Why a method's row moved: its own answers, large@1's (the reference of every verdict),
    the verdict rule alone, or the routed cascades' cost rule."""
    parts = []
    if up or down:
        parts.append(f"its answers moved (judge, verifier): +{up}/-{down}")
    if verdict_moved and not (up or down):
        parts.append(
            f"large@1's answers moved ({reference})"
            if reference
            else "the verdict rule (clusters, McNemar)"
        )
    if cost and method.startswith("cascade"):
        parts.append("routed questions pay their article prefix")
    elif cost:
        parts.append("other candidates checked")
    return "; ".join(parts) or "unchanged"


def table(name: str, before: Path, after: Path, methods: tuple[str, ...]) -> tuple[str, int, int]:
    """The Markdown rows for one data set, the verdicts that changed and the methods compared."""
    old, new = evaluation_run(before), evaluation_run(after)
    sb, sa = old.summary.set_index("method"), new.summary.set_index("method")
    qb, qa = old.questions.set_index("question_id"), new.questions.set_index("question_id")
    rows, changed, compared = [], 0, 0
    ref_up, ref_down = _flips(qb, qa, "large@1")
    reference = ref_up + ref_down
    for m in sa.index:
        if m not in sb.index:
            continue
        vb, va = str(sb.loc[m, "verdict"]), str(sa.loc[m, "verdict"])
        compared += 1
        changed += vb != va and m != "large@1"
        if m not in methods:
            continue
        up, down = _flips(qb, qa, m)
        fb, fa = sb.loc[m].get("flops_vs_large"), sa.loc[m].get("flops_vs_large")
        cost_moved = not pd.isna(fb) and not pd.isna(fa) and round(fb, 2) != round(fa, 2)
        rows.append(
            f"| {name} | {m} | {sb.loc[m, 'accuracy']:.3f} → {sa.loc[m, 'accuracy']:.3f} | "
            f"{'—' if vb == 'nan' else vb} → {'—' if va == 'nan' else va} | "
            f"{_ratio(fb)} → {_ratio(fa)} | {_why(m, up, down, reference, vb != va, cost_moved)} |"
        )
    return "\n".join(rows), changed, compared


@command("before-after")
def before_after(
    name: Annotated[str, typer.Argument(help="The data set's name in the table.")],
    before: Annotated[Path, typer.Argument(help="The run as the earlier code scored it.")],
    after: Annotated[Path, typer.Argument(help="The same generations scored by this code.")],
    methods: Annotated[str, typer.Option(help="The methods shown, comma-separated.")] = ",".join(
        HEADLINE
    ),
) -> None:
    """What a change of rules did to a benchmark's figures: two run folders of the same
    generations, each headline method's accuracy, verdict and FLOPs before and after, and why."""
    rows, changed, compared = table(name, before, after, tuple(methods.split(",")))
    print("| data set | method | accuracy | verdict | FLOPs / large@1 | why |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(rows)
    print(f"verdicts_changed={changed} methods_compared={compared}")

"""The large model as checker, data set by data set (issue 29): each check's accuracy beside
large@1's and the cascades', with its model FLOPs per question over large@1's, from finished
run folders (nothing is generated)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from experiment.evaluate.methods import (
    CASCADE_20,
    CASCADE_CHECK_20,
    CHECK_EVIDENCE,
    CHECK_WHOLE,
    LARGE_1,
    SELECTED,
    SELECTED_CHECKED,
)
from experiment.report.analysis import stated_computed
from experiment.report.run import Run, load_run
from experiment.report.tables import markdown_table

# the methods of the table, by their short name in the machine-readable line
SHORT = {
    "large_acc": LARGE_1,
    "check_acc": CHECK_EVIDENCE,
    "check_whole_acc": CHECK_WHOLE,
    "selected": SELECTED,
    "selected_checked": SELECTED_CHECKED,
    "cascade20": CASCADE_20,
    "cascade_check20": CASCADE_CHECK_20,
}
COSTED = {"check_acc": "check_cost_ratio", "check_whole_acc": "check_whole_cost_ratio"}
COSTED_TOO = {
    "selected_checked": "selected_checked_cost_ratio",
    "cascade20": "cascade20_cost_ratio",
    "cascade_check20": "cascade_check20_cost_ratio",
}


def _ratio(row: Any) -> float | None:
    ratio = None if row is None else getattr(row, "flops_vs_large", None)
    return None if ratio is None or ratio != ratio else float(ratio)


def _alone(check: Any, small: Any) -> float | None:
    """The check's own FLOPs over large@1's: the method's less the small pipeline's (the same
    samples on the same questions)."""
    total, base = _ratio(check), _ratio(small)
    return None if total is None or base is None else total - base


def _truth(col: pd.Series) -> pd.Series:
    return col.astype(str).str.lower() == "true"


def _losses(q: pd.DataFrame, names: dict[str, str]) -> dict[str, Any]:
    """Where the evidence check loses: its abstentions (and how many of them small-selected got
    right), its accuracy where it answers against large@1's, and the rule that falls back to
    small-selected where it abstains (no parameter: the check's pick, else the selector's)."""
    ev, sel, large = names["check_acc"], names["selected"], names["large_acc"]
    abstained = q[f"{ev}.answer"].astype(str) == ""
    right, sel_right = _truth(q[f"{ev}.correct"]), _truth(q[f"{sel}.correct"])
    large_answered = q[f"{large}.answer"].astype(str) != ""
    large_right = _truth(q[f"{large}.correct"])
    fallback = (~abstained & right) | (abstained & sel_right)
    return {
        "abstained": int(abstained.sum()),
        "abstained_selected_right": int((abstained & sel_right).sum()),
        "right_answered": float(right[~abstained].mean()) if (~abstained).any() else None,
        "large_right_answered": float(large_right[large_answered].mean())
        if large_answered.any()
        else None,
        "fallback": float(fallback.mean()),
    }


def _share(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _names(run: Run) -> dict[str, str]:
    return {short: m.name(run.k) for short, m in SHORT.items()}


def checks_figures(runs: Mapping[str, Path]) -> dict[str, Any]:
    """The section's figures over the runs given by their key (`squad`, `tatqa`, ...) that exist
    and carry the checks: per data set each method's accuracy and FLOPs ratio, the checks' own
    share, where the evidence check loses, and the stated questions' accuracies."""
    sets: dict[str, Any] = {}
    k = 10
    for key, path in runs.items():
        if not (path / "summary.csv").exists():
            continue
        run = load_run(path)
        names = _names(run)
        if not run.has(names["check_acc"]):
            continue
        by = {r.method: r for r in run.summary.itertuples()}
        got = {short: by.get(name) for short, name in names.items()}
        k = run.k
        split = stated_computed(run.questions, [n for s, n in names.items() if got[s]])
        split = split.set_index("method")
        sets[key] = {
            "label": run.manifest.dataset,
            "run_id": run.manifest.run_id,
            "questions": run.manifest.questions,
            "methods": {
                s: None if row is None else {"accuracy": row.accuracy, "ratio": _ratio(row)}
                for s, row in got.items()
            },
            "alone": {s: _alone(got[s], got["selected"]) for s in COSTED},
            "losses": _losses(run.questions, names),
            "stated": None
            if not split.attrs["n_computed"]
            else {
                "questions": split.attrs["n_stated"],
                **{s: float(split.loc[names[s], "stated"]) for s in SHORT if got[s] is not None},
            },
        }
    return {"k": k, "sets": sets}


def checks_line(figures: Mapping[str, Any]) -> str:
    """The machine-readable line: per data set each method's accuracy and cost ratio."""
    pairs = []
    for key, got in figures["sets"].items():
        for short, row in got["methods"].items():
            if row is None:
                continue
            pairs.append(f"{short}_{key}={row['accuracy']:.3f}")
            ratio_key = COSTED.get(short) or COSTED_TOO.get(short)
            if ratio_key and row["ratio"] is not None:
                pairs.append(f"{ratio_key}_{key}={row['ratio']:.2f}")
            if got["alone"].get(short) is not None:
                pairs.append(f"{COSTED[short]}_alone_{key}={got['alone'][short]:.2f}")
    return " ".join(pairs)


def _cell(row: Mapping[str, Any] | None, cost: bool) -> str:
    if row is None:
        return "—"
    ratio = row["ratio"]
    return f"{row['accuracy']:.3f}" + (f" ({ratio:.2f})" if cost and ratio is not None else "")


def checks_table(figures: Mapping[str, Any]) -> list[str]:
    """The section's tables from `checks_figures`."""
    rows, stated_rows, loss_rows = [], [], []
    for got in figures["sets"].values():
        m = got["methods"]
        rows.append(
            [f"{got['label']} (`{got['run_id']}`)", str(got["questions"])]
            + [_cell(m[s], s in COSTED or s in COSTED_TOO) for s in SHORT]
            + [" / ".join("—" if a is None else f"{a:.2f}" for a in got["alone"].values())]
        )
        lost = got["losses"]
        loss_rows.append(
            [got["label"], f"{lost['abstained']} ({lost['abstained_selected_right']})",
             _share(lost["right_answered"]), _share(lost["large_right_answered"]),
             _share(lost["fallback"])]
        )  # fmt: skip
        if got["stated"] is not None:
            stated = got["stated"]
            stated_rows.append(
                [got["label"], str(stated["questions"])]
                + [f"{stated[s]:.3f}" if s in stated else "—" for s in SHORT]
            )
    header = [
        "data set (run)",
        "questions",
        *(m.name(figures["k"]) for m in SHORT.values()),
        "the check alone: evidence / whole",
    ]
    lines = [
        "Accuracy over all the run's questions; in brackets the method's model FLOPs per "
        "question over large@1's on the same questions (the run's own counters: "
        'docs/ARCHITECTURE.md, "Cost"): the small model\'s samples and the check together; the '
        "last column is the check's own share, the method's less the small pipeline's. "
        "`large-checks-evidence@k` is the large model's most "
        'probable of the confirmed candidates and "unknown", each read in its evidence only; '
        "`large-checks@k` the same over large@1's whole prompt; `small-selected-checked@k` is "
        "the selector refitted with the evidence check's score as one more feature (on the "
        "fitting sets only: `factqa bench fit selector ... --large-evidence`); "
        "`cascade-check@20%` gives the 20 % least confident questions of small-selected@k the "
        "evidence check instead of large@1.",
        "",
        *markdown_table(header, rows),
    ]
    lines += [
        "",
        "Where the evidence check loses: the questions it abstained on (in brackets, those "
        "small-selected got right), its accuracy where it answered beside large@1's where that "
        "answered, and the check's pick, else small-selected's where the check abstained (a rule "
        "with no parameter, costed as the check; drawn up after reading SQuAD v1.1's losses "
        "above, so the other data sets are its test):",
        "",
        *markdown_table(
            [
                "data set",
                "evidence abstained (selected right)",
                "evidence right when answered",
                "large@1 right when answered",
                "evidence, else selected",
            ],
            loss_rows,
        ),
    ]
    if stated_rows:
        lines += [
            "",
            "The same on the questions whose gold the text states (the data sets with computed "
            "answers, which no check of a stated figure can confirm):",
            "",
            *markdown_table(["data set", "stated questions", *header[2:-1]], stated_rows),
        ]
    return lines

"""The run's figures as PNG files: accuracy against k, risk-coverage, cost against accuracy
(a point per method, and small-verified@k and small-selected@k for k = 1..K as curves)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from experiment.evaluate.methods import REFERENCE, RULE_PICK, SELECTED, VERIFIED
from experiment.evaluate.registry import REGISTRY
from experiment.report.analysis import cost_table, risk_coverage
from experiment.report.run import Run


def plot_files(run: Run, out: Path) -> list[Path]:
    """accuracy_vs_k.png, risk_coverage.png, cost_vs_accuracy.png and (runs with a selector)
    accuracy_vs_share_sent.png into `out`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    written = []
    large = float(run.summary.set_index("method").loc[REFERENCE, "accuracy"])

    fig, ax = plt.subplots(figsize=(6, 4))
    for method, part in run.curves.groupby("method"):
        ax.plot(part.k, part.accuracy, marker="o", label=method)
    written.append(
        _finish(
            fig,
            ax,
            large,
            out / "accuracy_vs_k.png",
            xlabel="k (small-model samples)",
            ylabel="accuracy",
            title="Accuracy against k",
        )
    )

    fig, ax = plt.subplots(figsize=(6, 4))
    confident = [m.name(run.k) for m in REGISTRY if m.confident and m is not RULE_PICK]
    for method in [name for name in confident if run.has(name)]:
        rc = risk_coverage(run.questions, method)
        ax.step(rc.coverage, rc.accuracy, where="post", marker=".", label=method)
    written.append(
        _finish(
            fig,
            ax,
            large,
            out / "risk_coverage.png",
            xlabel="coverage (answered at confidence >= threshold)",
            ylabel="accuracy of the answered",
            title="Risk-coverage (confidence: agreement, or the selector's score)",
        )
    )

    written.append(_save(cost_figure(run), out / "cost_vs_accuracy.png"))

    if not run.routing.empty:
        fig, ax = plt.subplots(figsize=(6, 4))
        for selector, part in run.routing.groupby("selector"):
            ax.plot(part.share_sent * 100, part.accuracy, marker=".", label=f"routed by {selector}")
        written.append(
            _finish(
                fig,
                ax,
                large,
                out / "accuracy_vs_share_sent.png",
                xlabel="questions sent to the large model (%)",
                ylabel="accuracy",
                title="Routed cascade: accuracy against the share sent",
            )
        )
    return written


def cost_figure(run: Run) -> Any:
    """Accuracy against model FLOPs per question (when every method's is known) and against
    model seconds: a point per method, and small-verified@k and small-selected@k for
    k = 1..K as curves (the plot file, the HTML page and the notebook draw this one figure)."""
    import matplotlib.pyplot as plt

    cost = cost_table(run.summary)
    known = cost.flops_per_question.notna().all()
    fig, axes = plt.subplots(1, 2 if known else 1, figsize=(11 if known else 6, 4), squeeze=False)
    panels = [("seconds", "model seconds (all questions)")]
    if known:  # FLOPs do not depend on the machine; seconds do
        panels.insert(0, ("flops_per_question", "model FLOPs per question (log)"))
    curves = cost_curves(run)
    for ax, (column, label) in zip(axes[0], panels, strict=True):
        ax.scatter(cost[column], cost.accuracy)
        for r in cost.itertuples():
            ax.annotate(r.method, (getattr(r, column), r.accuracy), fontsize=7)
        for family, part in curves.groupby("method", sort=False):
            if part[column].notna().all():
                ax.plot(
                    part[column], part.accuracy, marker=".", label=f"{family}@k, k = 1..{run.k}"
                )
        ax.set(xlabel=label, ylabel="accuracy", title="Cost against accuracy")
        if column == "flops_per_question":
            from matplotlib.ticker import NullFormatter

            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels overlap on a decade
        if not curves.empty:
            ax.legend(fontsize=7)
    return fig


COST_CURVE = ["k", "method", "accuracy", "flops_per_question", "seconds"]
CURVE_FAMILIES = [m.family for m in (VERIFIED, SELECTED)]  # the cost plot's curves, in order


def cost_curves(run: Run) -> pd.DataFrame:
    """small-verified@k and small-selected@k for k = 1..K with what their first k samples cost:
    `flops` (all questions), `flops_per_question` and `seconds` (all questions), beside
    accuracy; empty for a run written before curves.csv kept the cost."""
    part = run.curves[run.curves.method.isin(CURVE_FAMILIES)]
    if "seconds" not in part.columns:
        return pd.DataFrame(columns=[*COST_CURVE, "flops"])
    questions = int(run.summary.set_index("method").loc[REFERENCE, "questions"])
    per_question = part.assign(flops_per_question=part.flops / questions)
    return per_question.sort_values(["method", "k"])[[*COST_CURVE, "flops"]]


def _finish(fig: Any, ax: Any, large: float, path: Path, **labels: str) -> Path:
    """The large@1 line, the labels and the legend, then save."""
    ax.axhline(large, color="grey", linestyle="--", label=REFERENCE)
    ax.set(**labels)
    ax.legend()
    return _save(fig, path)


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path

"""The run's figures as PNG files: accuracy against k, risk-coverage, cost against accuracy
(a point per method, and small-verified@k and small-selected@k for k = 1..K as curves).

Made to be read: curves with the same points are drawn once and named together, legends sit
outside the data, the cost plot names its points in a column beside the axes (labels cannot
overlap), and its log axis labels 1, 2 and 5 of each decade."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Any

import pandas as pd

from experiment.evaluate.methods import REFERENCE, RULE_PICK, SELECTED, VERIFIED
from experiment.evaluate.registry import REGISTRY
from experiment.report.analysis import cost_table, risk_coverage
from experiment.report.run import Run

PLOTS = ("accuracy_vs_k.png", "risk_coverage.png", "cost_vs_accuracy.png")
PLOTS += ("accuracy_vs_share_sent.png",)  # every file `plot_files` may write


def plot_files(run: Run, out: Path) -> list[Path]:
    """accuracy_vs_k.png, risk_coverage.png, cost_vs_accuracy.png and (runs with a selector)
    accuracy_vs_share_sent.png into `out`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    written = []
    large = float(run.summary.set_index("method").loc[REFERENCE, "accuracy"])

    fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
    curves = {str(m): (list(p.k), list(p.accuracy)) for m, p in run.curves.groupby("method")}
    for names, (x, y) in same_curves(curves):
        ax.plot(x, y, marker="o", label=same_label(names))
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

    fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
    confident = [m.name(run.k) for m in REGISTRY if m.confident and m is not RULE_PICK]
    rcs = {}
    for method in [name for name in confident if run.has(name)]:
        rc = risk_coverage(run.questions, method)
        rcs[method] = (list(rc.coverage), list(rc.accuracy))
    for names, (x, y) in same_curves(rcs):
        ax.step(x, y, where="post", marker=".", label=same_label(names))
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
        fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
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
    """Accuracy against model FLOPs per question (when every method's is known; a method that
    runs no model at the left edge) and against model seconds: a point per method, and
    small-verified@k and small-selected@k for k = 1..K as curves (the plot file, the HTML
    page and the notebook draw this one figure)."""
    import matplotlib.pyplot as plt

    cost = cost_table(run.summary)
    known = cost.flops_per_question.notna().all()
    # one panel above the other, each with its label column, tall enough for a label a method
    height = max(4.5, 0.24 * len(cost))
    fig, axes = plt.subplots(
        2 if known else 1,
        1,
        figsize=(11, 2 * height if known else height + 0.3),
        squeeze=False,
        layout="constrained",
    )
    panels = [("seconds", "model seconds (all questions)")]
    if known:  # FLOPs do not depend on the machine; seconds do
        panels.insert(0, ("flops_per_question", "model FLOPs per question (log)"))
    curves = cost_curves(run)
    for ax, (column, label) in zip(axes[:, 0], panels, strict=True):
        if column == "flops_per_question":  # a method with no model (0 FLOPs) at the left edge
            cost = cost.assign(**{column: at_left_edge(cost[column])})
        ax.scatter(cost[column], cost.accuracy)
        for family, part in curves.groupby("method", sort=False):
            if part[column].notna().all():
                ax.plot(
                    part[column], part.accuracy, marker=".", label=f"{family}@k, k = 1..{run.k}"
                )
        ax.set(xlabel=label, ylabel="accuracy", title="Cost against accuracy")
        if column == "flops_per_question":
            log_axis(ax)
        label_column(ax, [(r.method, getattr(r, column), r.accuracy) for r in cost.itertuples()])
        if not curves.empty:
            legend_below(ax)
    return fig


def at_left_edge(x: pd.Series) -> pd.Series:
    """Costs for a log axis: 0 (no model ran) drawn a third of the smallest other cost."""
    positive = x[x > 0]
    return x.where(x > 0, positive.min() / 3 if len(positive) else 1.0)


def same_curves(curves: dict[str, tuple[list[Any], list[Any]]]) -> list[tuple[list[str], Any]]:
    """Curves with the same points drawn once: each distinct curve with every name it has, in
    the order first seen."""
    groups: dict[tuple[tuple[Any, ...], tuple[Any, ...]], list[str]] = {}
    for name, (x, y) in curves.items():
        key = (tuple(float(v) for v in x), tuple(round(float(v), 12) for v in y))
        groups.setdefault(key, []).append(name)
    return [(names, (list(key[0]), list(key[1]))) for key, names in groups.items()]


def same_label(names: list[str]) -> str:
    """The legend entry of curves drawn once: 'a = b = c', on a few lines when long."""
    return textwrap.fill(" = ".join(names), 40, break_on_hyphens=False, break_long_words=False)


def log_axis(ax: Any) -> None:
    """A log x-axis with labels at 1, 2 and 5 of each decade, so a range within one decade
    still has several (plain numbers in scientific notation, no minor labels)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(_power_of_ten))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _power_of_ten(x: float, _pos: int | None = None) -> str:
    """'2×10¹¹' as mathtext: every major tick labelled, none hidden."""
    if x <= 0:
        return ""
    exponent = math.floor(math.log10(x) + 1e-9)
    mantissa = round(x / 10**exponent)
    head = "" if mantissa == 1 else f"{mantissa}\\times"
    return f"${head}10^{{{exponent}}}$"


def legend_outside(ax: Any) -> None:
    """The legend right of the axes, off the data."""
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)


def legend_below(ax: Any) -> None:
    """The legend under the axes, off the data."""
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), borderaxespad=0.0)


def label_column(ax: Any, points: list[tuple[str, float, float]]) -> list[Any]:
    """Name each point in a column right of the axes, in the order of the points' accuracy,
    each label joined to its point by a thin line: labels never overlap one another or the data.
    Methods at the same point share one label."""
    at: dict[tuple[float, float], list[str]] = {}
    for name, x, y in points:
        if x == x and y == y:  # not NaN
            at.setdefault((float(x), float(y)), []).append(name)
    ordered = sorted(at.items(), key=lambda item: (item[0][1], item[0][0]))
    texts = [
        textwrap.fill(", ".join(names), 60, break_on_hyphens=False, break_long_words=False)
        for _, names in ordered
    ]
    lines = [t.count("\n") + 1 for t in texts]  # each label's slot is as tall as its lines
    total = sum(lines)
    return [
        ax.annotate(
            text,
            xy=point,
            xytext=(1.03, (sum(lines[:i]) + lines[i] / 2) / total),
            textcoords="axes fraction",
            fontsize=7,
            va="center",
            arrowprops={"arrowstyle": "-", "color": "grey", "lw": 0.5, "alpha": 0.6},
        )
        for i, ((point, _), text) in enumerate(zip(ordered, texts, strict=True))
    ]


def overlaps(ax: Any, texts: list[Any]) -> int:
    """How many pairs of `texts` overlap as drawn (for the tests)."""
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    from matplotlib.text import Text

    boxes = [Text.get_window_extent(t, renderer) for t in texts]  # the words, not their lines
    return sum(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


COST_CURVE = ["k", "method", "accuracy", "flops_per_question", "seconds"]
CURVE_FAMILIES = [m.family for m in (VERIFIED, SELECTED)]  # the cost plot's curves, in order


def cost_curves(run: Run) -> pd.DataFrame:
    """small-verified@k and small-selected@k for k = 1..K with what their first k samples cost:
    `flops` (all questions), `flops_per_question` and `seconds` (all questions), beside
    accuracy; empty where curves.csv has no cost (a folder of format 0, `record.migrate`)."""
    part = run.curves[run.curves.method.isin(CURVE_FAMILIES)]
    if part["seconds"].isna().all():
        return pd.DataFrame(columns=[*COST_CURVE, "flops"])
    questions = int(run.summary.set_index("method").loc[REFERENCE, "questions"])
    per_question = part.assign(flops_per_question=part.flops / questions)
    return per_question.sort_values(["method", "k"])[[*COST_CURVE, "flops"]]


def _finish(fig: Any, ax: Any, large: float, path: Path, **labels: str) -> Path:
    """The large@1 line, the labels and the legend, then save."""
    ax.axhline(large, color="grey", linestyle="--", label=REFERENCE)
    ax.set(**labels)
    legend_outside(ax)
    return _save(fig, path)


def _save(fig: Any, path: Path, **options: Any) -> Path:
    """`fig` as a PNG at `path`, written whole (`files.atomic_write`) and closed."""
    import io

    import matplotlib.pyplot as plt

    from experiment.base.files import atomic_write

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", **options)  # legends included
    plt.close(fig)
    atomic_write(path, buf.getvalue())
    return path


PICTURE_KEY = "factqa-points"  # the PNG text chunk that names the data a picture was drawn from


def cost_points(run: Run) -> str:
    """What `cost_figure` draws, as CSV text: a row per method (its cost and accuracy) and per
    point of a k curve; the picture's data, compared by `factqa bench report --check`."""
    cost = cost_table(run.summary)[["method", "flops_per_question", "seconds", "accuracy"]]
    curves = cost_curves(run)
    rows = [cost.assign(k="")]
    if not curves.empty:
        rows.append(curves[["method", "k", "flops_per_question", "seconds", "accuracy"]])
    table = pd.concat(rows, ignore_index=True)[["method", "k", "flops_per_question", "seconds",
                                               "accuracy"]]  # fmt: skip
    return table.to_csv(index=False, float_format="%.6g", lineterminator="\n")


def points_key(points: str) -> str:
    import hashlib

    return hashlib.sha256(points.encode("utf-8")).hexdigest()[:16]


def save_picture(run: Run, path: Path) -> Path:
    """`cost_figure` of `run` saved at `path`, the SHA-256 of its data (`cost_points`) in the
    PNG's text chunk `PICTURE_KEY`, so a check can tell a picture of other data."""
    import matplotlib

    matplotlib.use("Agg")
    return _save(cost_figure(run), path, metadata={PICTURE_KEY: points_key(cost_points(run))})


def picture_key(path: Path) -> str:
    """The data key a picture saved by `save_picture` carries ("" where none)."""
    from PIL import Image

    try:
        with Image.open(path) as image:
            return str(image.text.get(PICTURE_KEY, ""))  # type: ignore[attr-defined]
    except (OSError, ValueError):
        return ""

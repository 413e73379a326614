"""The method table `factqa run` prints: a compact one that fits 100 columns.

By default it shows the methods a reader needs first: large@1 (the reference), small-verified@k
(the method under test), small-selected@k, the most accurate of the other single methods, and the
cascades; one line names the rest and where they are. `--methods` or `--all` choose instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.table import Table

from experiment.base.errors import ConfigError
from experiment.evaluate.methods import PASS, REFERENCE, SELECTED, SMALL_PIPELINE, VERIFIED
from experiment.evaluate.registry import REGISTRY
from experiment.evaluate.summary import ALPHA, BEATS, LOSES, MIN_CLUSTERS, TIED, TOO_FEW
from experiment.report.tables import COLUMNS, is_missing

SHORT_VERDICT = {BEATS: "beats", LOSES: "loses", TIED: "n.s.", TOO_FEW: "too few"}


def _versus(r: Any) -> str:
    """The difference from large@1 and the verdict in a word: '-0.120 loses'."""
    if r.method == REFERENCE:
        return "—"
    return f"{r.diff_vs_large:+.3f} {SHORT_VERDICT.get(r.verdict, r.verdict)}"


def _wrong(r: Any) -> str:
    return "—" if is_missing(r.in_text_wrong) else f"{r.in_text_wrong_rate:.1%}"


def _flops(r: Any) -> str:
    ratio = getattr(r, "flops_vs_large", None)
    return "" if is_missing(ratio) else f"{float(ratio):.2f}"


COMPACT = {
    "method": lambda r: str(r.method),
    "accuracy [95% CI]": COLUMNS["accuracy [95% CI]"],
    "coverage": COLUMNS["coverage"],
    "in text,\nwrong": _wrong,  # headers on two lines: the cells are narrow
    f"FLOPs /\n{REFERENCE}": _flops,
    f"vs {REFERENCE}": _versus,
}
CAPTION = (
    f"vs {REFERENCE}: accuracy minus {REFERENCE}'s on the same questions; beats or loses only "
    f"where its 95% CI excludes 0 and McNemar's p < {ALPHA} over {MIN_CLUSTERS}+ clusters (else "
    "n.s., or too few clusters). in text, wrong: kept answers the article confirms that "
    f"are wrong. FLOPs / {REFERENCE}: model FLOPs over {REFERENCE}'s."
)


def is_cascade(name: str) -> bool:
    return name.startswith("cascade")


def default_methods(names: Sequence[str], accuracy: dict[str, float], k: int) -> list[str]:
    """The methods shown by default, in table order: large@1, small-verified@k,
    small-selected@k, small-pipeline@k (where the run scored the pools), the most accurate other
    single method (small-pass@k, an oracle, is not
    one) and every cascade."""
    first = {REFERENCE, VERIFIED.name(k), SELECTED.name(k), SMALL_PIPELINE.name(k)}
    others = [n for n in names if n not in first and not is_cascade(n) and n != PASS.name(k)]
    best = max(others, key=lambda n: accuracy[n], default=None)  # first of equals wins
    keep = first | {best} | {n for n in names if is_cascade(n)}
    return [n for n in names if n in keep]


def parse_methods(said: str, k: int) -> list[str]:
    """`--methods NAME,...`: registered names at k ('@k' stands for the run's k); an unknown
    name is refused before anything runs."""
    known = REGISTRY.names(k)
    names = [n.strip().replace("@k", f"@{k}") for n in said.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise ConfigError(
            f"unknown method {', '.join(repr(n) for n in unknown) or '(none given)'}",
            field="methods",
            allowed="comma-separated names of: " + ", ".join(known),
        )
    return names


def chosen(summary: Sequence[Any], k: int, methods: list[str] | None, every: bool) -> list[str]:
    """The methods to show: all, the given ones (those the run has), or the default few."""
    names = [r.method for r in summary]
    if every:
        return names
    if methods is not None:
        return [n for n in names if n in methods]
    return default_methods(names, {r.method: float(r.accuracy) for r in summary}, k)


def rest_line(
    summary: Sequence[Any], shown: Sequence[str], where: str, also: str = ", or run with --all"
) -> str:
    """One line naming the methods left out of the table, and where to find them ('' for none)."""
    rest = [r.method for r in summary if r.method not in shown]
    if not rest:
        return ""
    return f"not shown ({len(rest)}): {', '.join(rest)}; all in {where}{also}"


def method_table(summary: Sequence[Any], shown: Sequence[str], title: str) -> Table:
    """The compact method table of the rows of `summary` named in `shown`."""
    table = Table(
        title=title,
        caption=CAPTION,
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,
    )
    for col in COMPACT:
        table.add_column(col, justify="left" if col == "method" else "right", no_wrap=True)
    for r in summary:
        if r.method in shown:
            table.add_row(*(cell(r) for cell in COMPACT.values()))
    return table

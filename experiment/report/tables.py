"""The method table, rendered once for every output: Markdown and the HTML page; the console's
compact table (`report/console.py`) formats its cells with the same `COLUMNS`.

A row is anything with `MethodSummary`'s attributes: the dataclass itself (a run just finished)
or a row of `summary.csv` read back by pandas (a run loaded from disk), so both outputs format the
same numbers the same way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from experiment.evaluate.methods import REFERENCE
from experiment.evaluate.summary import BEATS, LOSES


def format_p(p: float) -> str:
    """A p-value to follow the letter p: '= 0.010', or '< 0.001'."""
    return "< 0.001" if p < 0.001 else f"= {p:.3f}"


def is_missing(x: object) -> bool:
    """An undefined cell: None in a fresh summary, NaN where pandas reads a blank one back."""
    return x is None or (isinstance(x, float) and math.isnan(x))


def _in_text_wrong(r: Any) -> str:
    if is_missing(r.in_text_wrong):
        return "—"  # small-pass@k keeps no single answer
    return f"{int(r.in_text_wrong)} ({r.in_text_wrong_rate:.1%})"


def _difference(r: Any) -> str:
    if r.method == REFERENCE:
        return "—"
    return f"{r.diff_vs_large:+.3f} [{r.diff_ci_low:+.2f}, {r.diff_ci_high:+.2f}]"


def _verdict(r: Any) -> str:
    if r.method == REFERENCE:
        return "—"
    return f"{r.verdict} {REFERENCE}" if r.verdict in (BEATS, LOSES) else r.verdict


def _mcnemar(r: Any) -> str:
    if r.method == REFERENCE:
        return "—"
    return f"+{int(r.wins_vs_large)}/-{int(r.losses_vs_large)}, p {format_p(r.mcnemar_p)}"


def _flops_ratio(r: Any) -> str:
    """The method's model FLOPs over large@1's; blank where unknown (a server, an old run)."""
    ratio = getattr(r, "flops_vs_large", None)
    return "" if is_missing(ratio) else f"{float(ratio):.2f}"


DIFFERENCE = f"minus {REFERENCE} [95% CI]"
MCNEMAR = "+/-, exact McNemar p"
COLUMNS: dict[str, Callable[[Any], str]] = {
    "method": lambda r: str(r.method),
    "accuracy [95% CI]": lambda r: f"{r.accuracy:.3f} [{r.ci_low:.2f}, {r.ci_high:.2f}]",
    "coverage": lambda r: f"{r.coverage:.3f}",
    "acc. answered": lambda r: f"{r.accuracy_answered:.3f}",
    "in text, wrong": _in_text_wrong,
    "failed": lambda r: str(int(r.failed)),
    "tokens": lambda r: f"{int(r.prompt_tokens + r.completion_tokens):,}",
    "seconds": lambda r: f"{r.seconds:,.1f}",
    "FLOPs / large@1": lambda r: _flops_ratio(r),
    "large calls": lambda r: str(int(r.large_calls)),
    DIFFERENCE: _difference,
    MCNEMAR: _mcnemar,
    "verdict": lambda r: _verdict(r),
}
FULL = tuple(COLUMNS)
SHORT = ("method", "accuracy [95% CI]", "coverage", "in text, wrong", DIFFERENCE)


def method_cells(
    rows: Iterable[Any], columns: Sequence[str] = FULL
) -> tuple[list[str], list[list[str]]]:
    """The header and the formatted cells of the method table, one row per method."""
    return list(columns), [[COLUMNS[c](r) for c in columns] for r in rows]


def markdown_cell(value: object) -> str:
    """Text for a Markdown table cell: one line, pipes escaped."""
    return " ".join(str(value).split()).replace("|", "\\|")


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """A Markdown table as lines; every cell made safe with `markdown_cell`."""
    lines = [
        "| " + " | ".join(markdown_cell(h) for h in header) + " |",
        "| " + " | ".join("---" for _ in header) + " |",
    ]
    lines += ["| " + " | ".join(markdown_cell(c) for c in row) + " |" for row in rows]
    return lines

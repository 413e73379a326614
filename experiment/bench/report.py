"""`factqa bench report`: docs/RESULTS.md, its data sets' pages and the README's generated
blocks, written whole from results/ alone (`bench/document`: no run folder, no model); with
`--check`, whether the committed files are what it would write."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from experiment.bench import document, looks
from experiment.bench.document import Layout, preset_section
from experiment.config import PROJECT_ROOT

__all__ = ["check_report", "layout", "preset_section", "write_report"]


def layout(
    results: Path, results_md: Path, readme: Path, scripts: Path = PROJECT_ROOT / "bench"
) -> Layout:
    return Layout(results, results_md, readme, scripts)


def write_report(
    results: Path, results_md: Path, readme: Path, scripts: Path = PROJECT_ROOT / "bench"
) -> list[Path]:
    """Write every generated file from `results`; the paths written."""
    return document.write(layout(results, results_md, readme, scripts))


def check_report(
    results: Path,
    results_md: Path,
    readme: Path,
    scripts: Path = PROJECT_ROOT / "bench",
    say: Callable[[str], None] = print,
) -> int:
    """How many generated files differ from what `write_report` would write (a diff of each),
    plus each problem of the log of looks (`bench/looks.validate`)."""
    problems = looks.validate(results / "looks.csv")
    for problem in problems:
        say(problem)
    return document.differences(layout(results, results_md, readme, scripts), say) + len(problems)

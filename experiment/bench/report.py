"""`factqa bench report`: the README's answer and public tables and each preset's section of
docs/RESULTS.md, from the committed results alone (no run folder, no model)."""

from __future__ import annotations

from pathlib import Path

from experiment.bench.run import default_runs
from experiment.record.results_index import INDEX
from experiment.report.first_screen import update_answer
from experiment.report.markdown import benchmark_section, benchmark_summary, update_section
from experiment.report.results import load_results


def preset_section(path: Path) -> str:
    """One results folder's section: the benchmark section and its figures line."""
    res = load_results(path)
    src = res.source
    return benchmark_section(res.run, src.title, src.command) + f"\n\n`{src.line}`\n"


def write_report(results: Path, results_md: Path, readme: Path) -> list[str]:
    """Every results folder's section into `results_md`, then the summary and the README's
    tables; the names of the sections written."""
    written = []
    for path in sorted(p for p in results.iterdir() if (p / INDEX).is_file()):
        update_section(results_md, f"bench-{path.name}", preset_section(path))
        written.append(f"bench-{path.name}")
    public, first = default_runs(results, results)
    if any((p / INDEX).is_file() for p in public.values()):
        summary = benchmark_summary(public)
        update_section(results_md, "bench-summary", summary)
        update_section(readme, "public", summary)
        written += ["bench-summary", "public"]
    update_answer(readme, first)
    return written
